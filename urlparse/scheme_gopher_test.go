package urlparse

import "testing"

func TestGopher(t *testing.T) {
	cases := []struct {
		in   string
		host string
		port int
		want Gopher
	}{
		{"gopher://h", "h", -1, Gopher{Type: '1'}},
		{"gopher://h/", "h", -1, Gopher{Type: '1'}},
		{"gopher://h/1", "h", -1, Gopher{Type: '1'}},
		{"gopher://gopher.example.org:7070/0/file.txt", "gopher.example.org", 7070, Gopher{Type: '0', Selector: "/file.txt"}},
		{"gopher://h/0file", "h", -1, Gopher{Type: '0', Selector: "file"}},
		{"gopher://h/%31x", "h", -1, Gopher{Type: '1', Selector: "x"}},
		{"gopher://h/7/search%09foo%20bar", "h", -1,
			Gopher{Type: '7', Selector: "/search", Search: "foo bar", HasSearch: true}},
		{"gopher://h/7/search%09", "h", -1, Gopher{Type: '7', Selector: "/search", HasSearch: true}},
		{"gopher://h/0sel%09%09%2B", "h", -1,
			Gopher{Type: '0', Selector: "sel", HasSearch: true, Plus: "+", HasPlus: true}},
		{"gopher://h/1/dir%09%09!", "h", -1,
			Gopher{Type: '1', Selector: "/dir", HasSearch: true, Plus: "!", HasPlus: true}},
		// a TAB beyond the two separators stays in the gopher+ string
		{"gopher://h/0a%09b%09c%09d", "h", -1,
			Gopher{Type: '0', Selector: "a", Search: "b", HasSearch: true, Plus: "c\td", HasPlus: true}},
		// nothing is reserved: "?" belongs to the selector, "#" starts a fragment
		{"gopher://h/0/cgi?x=1&y=2", "h", -1, Gopher{Type: '0', Selector: "/cgi?x=1&y=2"}},
		{"gopher://h/0/a%3Fb?c%09q", "h", -1, Gopher{Type: '0', Selector: "/a?b?c", Search: "q", HasSearch: true}},
		{"gopher://h/0/a?b%09c%09+", "h", -1,
			Gopher{Type: '0', Selector: "/a?b", Search: "c", HasSearch: true, Plus: "+", HasPlus: true}},
		{"gopher://h/7/s%09a?b", "h", -1, Gopher{Type: '7', Selector: "/s", Search: "a?b", HasSearch: true}},
		{"gopher://h/0/a#frag", "h", -1, Gopher{Type: '0', Selector: "/a"}},
		{"gopher://h/?", "h", -1, Gopher{Type: '?'}},
		{"gopher://h/??", "h", -1, Gopher{Type: '?', Selector: "?"}},
		{"gopher://h/0%C3%A9t%C3%A9", "h", -1, Gopher{Type: '0', Selector: "été"}},
		{"gopher://h/0%25%2F%23", "h", -1, Gopher{Type: '0', Selector: "%/#"}},
		{"gopher://h/0abc%0D", "h", -1, Gopher{Type: '0', Selector: "abc\r"}},
		{"gopher://h/%09", "h", -1, Gopher{Type: '\t'}},
		{"gopher://[2001:db8::1]:7070/1/", "2001:db8::1", 7070, Gopher{Type: '1', Selector: "/"}},
		{"gophers://h/1/", "h", -1, Gopher{Type: '1', Selector: "/"}},
		{"GOPHER://H/I/pic.gif", "H", -1, Gopher{Type: 'I', Selector: "/pic.gif"}},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.Host != c.host || u.Port != c.port || u.Gopher != c.want {
			t.Errorf("Parse(%q): host %q port %d %+v; want %q %d %+v", c.in, u.Host, u.Port, u.Gopher, c.host, c.port, c.want)
		}
		testRoundTrip(t, c.in)
	}
	if u := mustParse(t, "gophers://h/"); u.Scheme != "gophers" || u.PortOrDefault() != 70 {
		t.Errorf("gophers: scheme %q port %d", u.Scheme, u.PortOrDefault())
	}
}

func TestGopherErrors(t *testing.T) {
	testErrors(t, []errCase{
		{"gopher:/h", 7, "gopherurl"},
		{"gopher:h/1", 7, "gopherurl"},
		{"gopher:///1", 9, "host"},
		{"gopher://h?x", 10, "gopherurl"},
		{"gopher://h:70000/", 11, "port"},
		{"gopher://h/0%4", 14, "path"},
		{"gopher://h/0a%0", 15, "path"},
		{"gopher://h/0a?b%", 16, "query"},
		{"gopher://h/0a\tb", 13, "path"},
		{"gopher://h/0a b", 13, "path"},
		{"gopher://h/0\xc3\xa9", 12, "path"},
	})
}
