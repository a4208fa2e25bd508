package cli

import "testing"

func TestConfigLine(t *testing.T) {
	for _, c := range []struct{ line, opt, val string }{
		{`url = "http://a/b c"`, "url", "http://a/b c"},
		{`  -o out.txt trailing`, "-o", "out.txt"},
		{`header: "A: \t\\ \"q\""`, "header", "A: \t\\ \"q\""},
		{`silent`, "silent", ""},
		{`# comment`, "", ""},
	} {
		opt, val, _, err := configLine(c.line)
		if err != nil || opt != c.opt || val != c.val {
			t.Errorf("%q: %q %q %v, want %q %q", c.line, opt, val, err, c.opt, c.val)
		}
	}
	if _, _, _, err := configLine(`url "unterminated`); err == nil {
		t.Error("an unterminated quote was accepted")
	}
}
