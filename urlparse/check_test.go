package urlparse

import (
	"errors"
	"testing"
)

func TestCheckLine(t *testing.T) {
	cases := []struct {
		in   string
		want string // error message, "" when CheckLine passes
		comp string
		b    byte
		off  int
	}{
		{"gopher://h/0abc%0D", "gopher selector contains CR (0x0D) at byte 3", "gopher selector", '\r', 3},
		{"gopher://h/0/a%0Ab", "gopher selector contains LF (0x0A) at byte 2", "gopher selector", '\n', 2},
		{"gophers://h/0%00", "gophers selector contains NUL (0x00) at byte 0", "gophers selector", 0, 0},
		{"gopher://h/7s%09a%0Db", "gopher search contains CR (0x0D) at byte 1", "gopher search", '\r', 1},
		{"gopher://h/0a%09b%09c%09d", "gopher plus contains TAB (0x09) at byte 1", "gopher plus", '\t', 1},
		{"gopher://h/0a%09b%09+%0A", "gopher plus contains LF (0x0A) at byte 1", "gopher plus", '\n', 1},
		{"gopher://h/0/a?b%09c%09+", "", "", 0, 0},
		{"gopher://h/%09", "", "", 0, 0}, // the type is not sent
		{"ftp://h/a/b%0Dc/d", "ftp cwd[1] contains CR (0x0D) at byte 1", "ftp cwd[1]", '\r', 1},
		{"ftp://h/a/b%0A", "ftp name contains LF (0x0A) at byte 1", "ftp name", '\n', 1},
		{"ftp://u%0D%0AQUIT@h/", "ftp user contains CR (0x0D) at byte 1", "ftp user", '\r', 1},
		{"ftp://u:p%00@h/", "ftp password contains NUL (0x00) at byte 1", "ftp password", 0, 1},
		{"ftp://h/a%09b%20c", "", "", 0, 0},
		{"http://a%0Db/", "http host contains CR (0x0D) at byte 1", "http host", '\r', 1},
		{"http://h/a%0D%0A?%0A", "", "", 0, 0}, // path and query go on the wire encoded
		{"telnet://u%0D@h/", "telnet user contains CR (0x0D) at byte 1", "telnet user", '\r', 1},
		{"news:a%20b@c", "news message-id contains space (0x20) at byte 1", "news message-id", ' ', 1},
		{"news:%3Cabc@d", "news message-id contains '<' (0x3C) at byte 0", "news message-id", '<', 0},
		{"news:%3Ca%3E@d%3E", "news message-id contains '>' (0x3E) at byte 1", "news message-id", '>', 1},
		{"news:%3Cabc@d%3E", "", "", 0, 0}, // the brackets around the id are dropped
		{"nntp://h/g/a%20b@d", "nntp message-id contains space (0x20) at byte 1", "nntp message-id", ' ', 1},
		{"news:abc@d%3E", "news message-id contains '>' (0x3E) at byte 5", "news message-id", '>', 5},
		{"news:a%09b@c", "news message-id contains TAB (0x09) at byte 1", "news message-id", '\t', 1},
		{"news:comp%0Alang", "news group contains LF (0x0A) at byte 4", "news group", '\n', 4},
		{"news:comp%20lang", "news group contains space (0x20) at byte 4", "news group", ' ', 4},
		{"nntp://h/a%20b", "nntp group contains space (0x20) at byte 1", "nntp group", ' ', 1},
		{"nntps://h/a%3E/1", "nntps group contains '>' (0x3E) at byte 1", "nntps group", '>', 1},
		{"mailto:a%0A@b", "mailto to[0] contains LF (0x0A) at byte 1", "mailto to[0]", '\n', 1},
		{"mailto:a@b?subject=x%0D%0ABcc:e@x", "mailto hfvalue[0] contains CR (0x0D) at byte 1", "mailto hfvalue[0]", '\r', 1},
		{"mailto:a@b?x=1&a%0Ab=2", "mailto hfname[1] contains LF (0x0A) at byte 1", "mailto hfname[1]", '\n', 1},
		{"mailto:a@b?body=x%0D%0Ay", "", "", 0, 0},
		{"mailto:a@b?Body=x%00", "mailto hfvalue[0] contains NUL (0x00) at byte 1", "mailto hfvalue[0]", 0, 1},
		{"wais://h/d%0Db", "wais database contains CR (0x0D) at byte 1", "wais database", '\r', 1},
		{"wais://h/db?a%0Ab", "wais search contains LF (0x0A) at byte 1", "wais search", '\n', 1},
		{"wais://h/db/T%00/x", "wais wtype contains NUL (0x00) at byte 1", "wais wtype", 0, 1},
		{lynxDocURL, "", "", 0, 0}, // the DocID holds NUL
		{"prospero://h/a%0Ab", "prospero hsoname contains LF (0x0A) at byte 1", "prospero hsoname", '\n', 1},
		{"prospero://h/a;x=1;k%0D=v", "prospero field name[1] contains CR (0x0D) at byte 1", "prospero field name[1]", '\r', 1},
		{"prospero://h/a;k=v%00", "prospero field value[0] contains NUL (0x00) at byte 1", "prospero field value[0]", 0, 1},
		{"file:///a%00", "file path contains NUL (0x00) at byte 2", "file path", 0, 2},
		{"file:///a%0Ab", "", "", 0, 0},
		{"foo://h%0A/%0D", "foo host contains LF (0x0A) at byte 1", "foo host", '\n', 1},
		{"foo:%0D", "", "", 0, 0},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		err := u.CheckLine()
		if c.want == "" {
			if err != nil {
				t.Errorf("Parse(%q).CheckLine() = %v; want nil", c.in, err)
			}
			continue
		}
		var le *LineError
		if !errors.As(err, &le) {
			t.Errorf("Parse(%q).CheckLine() = %v; want a *LineError", c.in, err)
			continue
		}
		if err.Error() != c.want || le.Component != c.comp || le.Byte != c.b || le.Offset != c.off {
			t.Errorf("Parse(%q).CheckLine() = %q %+v; want %q {%s %#x %d}", c.in, err, *le, c.want, c.comp, c.b, c.off)
		}
	}
}

func TestCheckLineAllocs(t *testing.T) {
	for _, s := range []string{
		"ftp://u:p@h/a/b/c;type=i",
		"gopher://h/7/s%09q%09+",
		"mailto:a@b,c@d?subject=x&body=y%0D%0A",
		"news:abc@d",
		"prospero://h/x;a=b",
		lynxDocURL,
	} {
		u := mustParse(t, s)
		if n := testing.AllocsPerRun(50, func() {
			if u.CheckLine() != nil {
				panic(s)
			}
		}); n != 0 {
			t.Errorf("Parse(%q).CheckLine(): %v allocations", s, n)
		}
	}
}
