package urlparse

import (
	"reflect"
	"testing"
)

// lynxDocURL is a document URL Lynx wrote for the freeWAIS-sf test server:
// after the database, the type and the length, each field of the DocID as
// "N=value;" (1 and 4 the server, 2 and 5 the database, 3 and 6 the local
// id, 7 the copyright byte), escaped where a URL needs it.
const lynxDocURL = "wais://127.0.0.1:22100/test/TEXT/124/1=vm%3A22100;2=/tmp/wais-build/db/test;3=0%20124%20/tmp/wais-build/data/apple.txt;4=vm%3A22100;5=/tmp/wais-build/db/test;6=0%20124%20/tmp/wais-build/data/apple.txt;7=%00;"

func TestWAIS(t *testing.T) {
	cases := []struct {
		in   string
		host string
		port int
		want WAIS
	}{
		{"wais://h/db", "h", -1, WAIS{Database: "db"}},
		{"wais://h", "h", -1, WAIS{}},
		{"wais://h/", "h", -1, WAIS{}},
		{"wais://h?x", "h", -1, WAIS{Search: "x", HasSearch: true}},
		{"wais://127.0.0.1/test?apple+orchard", "127.0.0.1", -1, WAIS{Database: "test", Search: "apple+orchard", HasSearch: true}},
		{"wais://h:2100/db?a%20b%2Bc", "h", 2100, WAIS{Database: "db", Search: "a b+c", HasSearch: true}},
		{"wais://h/db?", "h", -1, WAIS{Database: "db", HasSearch: true}},
		{"wais://h/my%2Fdb?q", "h", -1, WAIS{Database: "my/db", Search: "q", HasSearch: true}},
		// RFC 1738 form: /database/wtype/wpath
		{"wais://h/db/TEXT/0%20124%20/tmp/a", "h", -1, WAIS{Database: "db", DocType: "TEXT", DocPath: "0 124 /tmp/a"}},
		{"wais://h/db/TEXT/path", "h", -1, WAIS{Database: "db", DocType: "TEXT", DocPath: "path"}},
		{"wais://h/db/TEXT/124", "h", -1, WAIS{Database: "db", DocType: "TEXT", DocPath: "124"}},
		{"wais://h/db/TEXT/12%2Fx", "h", -1, WAIS{Database: "db", DocType: "TEXT", DocPath: "12/x"}},
		{"wais://h/db//", "h", -1, WAIS{Database: "db"}},
		// Lynx form: /database/wtype/length/wpath
		{lynxDocURL, "127.0.0.1", 22100, WAIS{Database: "test", DocType: "TEXT", Length: "124",
			DocPath: "1=vm:22100;2=/tmp/wais-build/db/test;3=0 124 /tmp/wais-build/data/apple.txt;4=vm:22100;5=/tmp/wais-build/db/test;6=0 124 /tmp/wais-build/data/apple.txt;7=\x00;",
			DocFields: []WAISField{{1, "vm:22100"}, {2, "/tmp/wais-build/db/test"}, {3, "0 124 /tmp/wais-build/data/apple.txt"},
				{4, "vm:22100"}, {5, "/tmp/wais-build/db/test"}, {6, "0 124 /tmp/wais-build/data/apple.txt"}, {7, "\x00"}}}},
		// An escaped ";" or "=" stays inside its field; anything but the
		// field notation leaves DocFields nil.
		{"wais://h/db/TEXT/9/2=a%3Bb%3D;12=;", "h", -1, WAIS{Database: "db", DocType: "TEXT", Length: "9", DocPath: "2=a;b=;12=;",
			DocFields: []WAISField{{2, "a;b="}, {12, ""}}}},
		{"wais://h/db/TEXT/9/2=a;b", "h", -1, WAIS{Database: "db", DocType: "TEXT", Length: "9", DocPath: "2=a;b"}},
		{"wais://h/db/TEXT/9/=a;", "h", -1, WAIS{Database: "db", DocType: "TEXT", Length: "9", DocPath: "=a;"}},
		{"wais://h/db/TEXT/9/1234567890=a;", "h", -1, WAIS{Database: "db", DocType: "TEXT", Length: "9", DocPath: "1234567890=a;"}},
		{"wais://h/db/TEXT/9/%31=a;", "h", -1, WAIS{Database: "db", DocType: "TEXT", Length: "9", DocPath: "1=a;"}},
		{"wais://h/db/TEXT/124/", "h", -1, WAIS{Database: "db", DocType: "TEXT", Length: "124"}},
		{"wais://h/db/WSRC/7/a/b", "h", -1, WAIS{Database: "db", DocType: "WSRC", Length: "7", DocPath: "a/b"}},
		{"wais://h/db/TEXT/12/34/x", "h", -1, WAIS{Database: "db", DocType: "TEXT", Length: "12", DocPath: "34/x"}},
		{"wais://h/db/TEXT/x#frag", "h", -1, WAIS{Database: "db", DocType: "TEXT", DocPath: "x"}},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.Host != c.host || u.Port != c.port || !reflect.DeepEqual(u.WAIS, c.want) {
			t.Errorf("Parse(%q): host %q port %d %+v; want %q %d %+v", c.in, u.Host, u.Port, u.WAIS, c.host, c.port, c.want)
		}
		testRoundTrip(t, c.in)
	}
	if u := mustParse(t, "wais://h/db"); u.PortOrDefault() != 210 {
		t.Errorf("wais default port %d", u.PortOrDefault())
	}
	testErrors(t, []errCase{
		{"wais://h/db/TEXT", 16, "waisdoc"},
		{"wais://h/db/", 12, "waisdoc"},
		{"wais://h/db/TEXT/x?y", 18, "waisdoc"},
		{"wais://h/db/TEXT/1/?", 19, "waisdoc"},
		{"wais:db", 5, "waisurl"},
		{"wais://h/db/T/%0", 16, "path"},
	})
}
