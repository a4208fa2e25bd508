package telnet

import "testing"

func TestParseEscape(t *testing.T) {
	for in, want := range map[string]byte{"": 0x1d, "^]": 0x1d, "^A": 1, "^a": 1, "^?": 0x7f, "~": '~', "none": 0} {
		got, err := ParseEscape(in)
		if err != nil || got != want {
			t.Errorf("ParseEscape(%q) = %#x, %v; want %#x", in, got, err, want)
		}
	}
	for _, in := range []string{"ab", "^1", "none!"} {
		if _, err := ParseEscape(in); err == nil {
			t.Errorf("ParseEscape(%q) accepted", in)
		}
	}
	if escName(0x1d) != "^]" || escName('~') != "~" {
		t.Errorf("escName: %q %q", escName(0x1d), escName('~'))
	}
}
