package fetch

import (
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text é", "plain text é"},
		{"a\tb\r\nc", "a?b??c"},
		{"\x1b[31mred\x1b[0m", "?[31mred?[0m"},
		{"c1 \u009b2J", "c1 ?2J"},
		{"del\x7f", "del?"},
		{"bad \xff\xfe utf8", "bad ?? utf8"},
		{"", ""},
	} {
		if got := Sanitize(c.in); got != c.want {
			t.Errorf("Sanitize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSanitizeLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"  hello\n", 0, "hello?"},
		{"hello world", 5, "hello…"},
		{"ééé", 3, "é…"}, // never cut inside a character
		{"short", 10, "short"},
	} {
		if got := SanitizeLine(c.in, c.max); got != c.want {
			t.Errorf("SanitizeLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestLogf(t *testing.T) {
	var b strings.Builder
	Logf(&b, "< %s", "sel\tsearch\r\n\x1b[2J\x7f\u0085é\xff")
	Logf(nil, "nothing")
	if want := `< sel\tsearch\r\n\x1b[2J\x7f\xc2\x85é\xff` + "\n"; b.String() != want {
		t.Errorf("Logf wrote %q, want %q", b.String(), want)
	}
}
