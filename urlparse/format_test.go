package urlparse

import (
	"reflect"
	"strings"
	"testing"
)

// awkward holds bytes that need care in every component.
var awkward = []string{
	"",
	"plain",
	"a b",
	"100%",
	"%41",
	"what?",
	"#frag",
	"a/b",
	"/lead",
	"été",
	";type=i",
	"a=b&c,d+e",
	"x:y@z",
	"\x00\r\n\x7f\xff",
	"[::1]",
	"..",
	"'!$()*",
}

func TestBuilderStrings(t *testing.T) {
	cases := []struct{ got, want string }{
		{GopherURL("gopher", "h", 70, '1', ""), "gopher://h/1"},
		{GopherURL("", "h", 0, '0', "/a b?c#d"), "gopher://h/0/a%20b%3Fc%23d"},
		{GopherURL("gophers", "::1", 7070, '1', "/x"), "gophers://[::1]:7070/1/x"},
		{GopherSearchURL("gopher", "h", 0, '7', "/s", "a b"), "gopher://h/7/s%09a%20b"},
		{GopherPlusURL("gopher", "h", 0, '1', "/", "", "+"), "gopher://h/1/%09%09+"},
		{FTPURL("h", 0, "", "", nil, "", 0), "ftp://h/"},
		{FTPURL("h", 21, "", "", nil, "", 'd'), "ftp://h/;type=d"},
		{FTPURL("h", 2121, "u", "p:w", []string{"/etc", ""}, "a;b", 'i'), "ftp://u:p%3Aw@h:2121/%2Fetc//a%3Bb;type=i"},
		{NNTPURL("h", 119, "comp.lang/go x", "123"), "nntp://h/comp.lang%2Fgo%20x/123"},
		{NNTPURL("h", 1119, "g", ""), "nntp://h:1119/g"},
		{NewsURL("*"), "news:*"},
		{NewsURL("a/b@c"), "news:a%2Fb@c"},
		{TelnetURL("h", 23, "u@:", "p"), "telnet://u%40%3A:p@h/"},
		{TelnetURL("h", 2323, "", ""), "telnet://h:2323/"},
		{WAISURL("h", 210, "db"), "wais://h/db"},
		{WAISSearchURL("h", 0, "db", "a+b c"), "wais://h/db?a%2Bb%20c"},
		{WAISDocURL("h", 0, "db", "TEXT", "124", "1=a:b;7=\x00;"), "wais://h/db/TEXT/124/1=a:b;7=%00;"},
		{WAISDocURL("h", 0, "db", "TEXT", "", "12/x"), "wais://h/db/TEXT/12%2Fx"},
		{WAISDocFieldsURL("127.0.0.1", 22100, "test", "TEXT", "124", []WAISField{{1, "vm:22100"}, {2, "/tmp/wais-build/db/test"},
			{3, "0 124 /tmp/wais-build/data/apple.txt"}, {4, "vm:22100"}, {5, "/tmp/wais-build/db/test"},
			{6, "0 124 /tmp/wais-build/data/apple.txt"}, {7, "\x00"}}),
			// The URL Lynx writes for this DocID (see lynxDocURL).
			"wais://127.0.0.1:22100/test/TEXT/124/1=vm%3A22100;2=/tmp/wais-build/db/test;3=0%20124%20/tmp/wais-build/data/apple.txt;4=vm%3A22100;5=/tmp/wais-build/db/test;6=0%20124%20/tmp/wais-build/data/apple.txt;7=%00;"},
		{WAISDocFieldsURL("h", 0, "db", "WSRC", "", []WAISField{{2, "a;b=c~"}}), "wais://h/db/WSRC/2=a%3Bb%3Dc%7E;"},
		{ProsperoURL("h", 1525, "/a/b", []Field{{"OBJECT-VERSION", "3"}}), "prospero://h//a/b;OBJECT-VERSION=3"},
		{MailtoURL([]string{"a@b", "c,d@e"}, []Header{{"subject", "hi there"}, {"body", "x&y=z"}}),
			"mailto:a@b,c%2Cd@e?subject=hi%20there&body=x%26y%3Dz"},
		{MailtoURL(nil, []Header{{"to", "a@b"}}), "mailto:?to=a@b"},
		{FileURL("/etc/motd"), "file:///etc/motd"},
		{FileURL("tmp/a b?"), "file:///tmp/a%20b%3F"},
		{GopherURL("gopher", "b\xc3\xbccher.example", 0, '1', ""), "gopher://b%C3%BCcher.example/1"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q; want %q", i, c.got, c.want)
		}
	}
}

func TestBuildersParseBack(t *testing.T) {
	hosts := []struct {
		host string
		kind HostKind
	}{{"h.example", HostRegName}, {"192.0.2.1", HostIPv4}, {"2001:db8::1", HostIPv6}, {"b\xc3\xbccher", HostRegName}}
	for _, h := range hosts {
		for _, a := range awkward {
			u := mustParse(t, GopherSearchURL("gophers", h.host, 7070, '7', a, a))
			want := Gopher{Type: '7', Selector: a, Search: a, HasSearch: true}
			if u.Gopher != want || u.Host != h.host || u.HostKind != h.kind || u.Port != 7070 || u.Scheme != "gophers" {
				t.Errorf("GopherSearchURL(%q, %q): %+v host %q port %d", h.host, a, u.Gopher, u.Host, u.Port)
			}
			for _, typ := range []byte{'0', '?', '/', '%', '\t', 0xff} {
				u := mustParse(t, GopherURL("", h.host, 70, typ, a))
				if u.Gopher != (Gopher{Type: typ, Selector: a}) || u.Port != -1 {
					t.Errorf("GopherURL(%q, %q, %q): %+v port %d", h.host, typ, a, u.Gopher, u.Port)
				}
			}
			u = mustParse(t, GopherPlusURL("gopher", h.host, 0, '1', a, a, a))
			if u.Gopher != (Gopher{Type: '1', Selector: a, Search: a, HasSearch: true, Plus: a, HasPlus: true}) {
				t.Errorf("GopherPlusURL(%q): %+v", a, u.Gopher)
			}

			u = mustParse(t, FTPURL(h.host, 2121, a, a, []string{a, "", a}, a, 'i'))
			wantFTP := FTP{CWD: []string{a, "", a}, Name: a, Type: 'i'}
			if !reflect.DeepEqual(u.FTP, wantFTP) || u.User != a || u.Password != a || u.Host != h.host || u.Port != 2121 {
				t.Errorf("FTPURL(%q, %q): %#v user %q password %q host %q", h.host, a, u.FTP, u.User, u.Password, u.Host)
			}

			u = mustParse(t, TelnetURL(h.host, 0, a, a))
			if u.User != a || u.Password != a || u.Host != h.host {
				t.Errorf("TelnetURL(%q): user %q password %q", a, u.User, u.Password)
			}

			if a != "" {
				u = mustParse(t, NNTPURL(h.host, 0, a, "42"))
				if u.NNTP != (NNTP{Group: a, Article: "42"}) || u.Host != h.host {
					t.Errorf("NNTPURL(%q): %+v", a, u.NNTP)
				}
			}

			u = mustParse(t, WAISSearchURL(h.host, 0, a, a))
			if !reflect.DeepEqual(u.WAIS, WAIS{Database: a, Search: a, HasSearch: true}) {
				t.Errorf("WAISSearchURL(%q): %+v", a, u.WAIS)
			}
			for _, length := range []string{"", "124"} {
				for _, p := range []string{a, "12/" + a, "1=" + a + ";7=\x00;"} {
					u = mustParse(t, WAISDocURL(h.host, 0, a, a+"T", length, p))
					w := u.WAIS
					w.DocFields = nil // whether p reads as fields depends on a; see below
					if !reflect.DeepEqual(w, WAIS{Database: a, DocType: a + "T", Length: length, DocPath: p}) {
						t.Errorf("WAISDocURL(%q, %q, %q): %+v", a, length, p, u.WAIS)
					}
				}
				fields := []WAISField{{1, a}, {2, "/tmp/db;x=y%"}, {7, "\x00"}, {300, a + a}}
				u = mustParse(t, WAISDocFieldsURL(h.host, 0, a, "TEXT", length, fields))
				w := u.WAIS
				if !reflect.DeepEqual(w.DocFields, fields) || w.Database != a || w.DocType != "TEXT" || w.Length != length {
					t.Errorf("WAISDocFieldsURL(%q, %q): %+v", a, length, w)
				}
			}

			fields := []Field{{a, a}, {"OBJECT-VERSION", "1"}}
			u = mustParse(t, ProsperoURL(h.host, 0, a, fields))
			if !reflect.DeepEqual(u.Prospero, Prospero{HSOName: a, Fields: fields}) {
				t.Errorf("ProsperoURL(%q): %#v", a, u.Prospero)
			}
			u = mustParse(t, ProsperoURL(h.host, 0, "/"+a, nil))
			if !reflect.DeepEqual(u.Prospero, Prospero{HSOName: "/" + a}) {
				t.Errorf("ProsperoURL(/%q): %#v", a, u.Prospero)
			}
		}
	}
	for _, a := range awkward {
		if a != "" {
			u := mustParse(t, NewsURL(a))
			var want News
			switch {
			case a == "*":
				want.All = true
			case strings.IndexByte(a, '@') >= 0:
				want.MessageID = a
			default:
				want.Group = a
			}
			if u.News != want {
				t.Errorf("NewsURL(%q): %+v", a, u.News)
			}
			u = mustParse(t, NewsURL(a+"@host"))
			if u.News != (News{MessageID: a + "@host"}) {
				t.Errorf("NewsURL(%q@host): %+v", a, u.News)
			}
		}

		to := []string{a + "@x", "y@" + a}
		hs := []Header{{a, a}, {"body", a + "\r\n" + a}}
		u := mustParse(t, MailtoURL(to, hs))
		if !reflect.DeepEqual(u.Mailto, Mailto{To: to, Headers: hs}) {
			t.Errorf("MailtoURL(%q): %#v", a, u.Mailto)
		}

		u = mustParse(t, FileURL("/"+a))
		if u.File != (File{Local: true, Path: "/" + a}) {
			t.Errorf("FileURL(/%q): %+v", a, u.File)
		}
	}
}

func FuzzGopherURL(f *testing.F) {
	for _, a := range awkward {
		f.Add(byte('1'), a, a)
	}
	f.Fuzz(func(t *testing.T, typ byte, sel, search string) {
		if strings.IndexByte(sel, '\t') >= 0 {
			return
		}
		s := GopherSearchURL("gopher", "h", 0, typ, sel, search)
		u, err := Parse(s)
		if err != nil {
			t.Fatalf("GopherSearchURL(%q, %q, %q) = %q: %v", typ, sel, search, s, err)
		}
		if strings.IndexByte(search, '\t') < 0 {
			if u.Gopher != (Gopher{Type: typ, Selector: sel, Search: search, HasSearch: true}) {
				t.Fatalf("%q parses to %+v", s, u.Gopher)
			}
		}
	})
}

func FuzzFTPURL(f *testing.F) {
	for _, a := range awkward {
		f.Add(a, a, a)
	}
	f.Fuzz(func(t *testing.T, user, seg, name string) {
		s := FTPURL("h", 0, user, "", []string{seg, seg}, name, 'a')
		u, err := Parse(s)
		if err != nil {
			t.Fatalf("FTPURL = %q: %v", s, err)
		}
		want := FTP{CWD: []string{seg, seg}, Name: name, Type: 'a'}
		if !reflect.DeepEqual(u.FTP, want) || u.User != user {
			t.Fatalf("%q parses to %#v user %q", s, u.FTP, u.User)
		}
	})
}

func TestSegmentEscape(t *testing.T) {
	for in, want := range map[string]string{
		"notes.txt":    "notes.txt",
		"a b;type=a":   "a%20b%3Btype=a",
		"x/y%z":        "x%2Fy%25z",
		"\r\n":         "%0D%0A",
		"caf\xc3\xa9!": "caf%C3%A9!",
	} {
		if got := SegmentEscape(in); got != want {
			t.Errorf("SegmentEscape(%q) = %q, want %q", in, got, want)
		}
		u, err := Parse("ftp://h/d/" + SegmentEscape(in))
		if err != nil || u.FTP.Name != in {
			t.Errorf("ftp://h/d/%s: name %q, err %v; want %q", SegmentEscape(in), u.FTP.Name, err, in)
		}
	}
}

func TestUserinfoEscape(t *testing.T) {
	for in, want := range map[string]string{
		"alice":       "alice",
		"a:b@c":       "a%3Ab%40c",
		"p ss/%":      "p%20ss%2F%25",
		"!$&'()*+,;=": "!$&'()*+,;=",
	} {
		if got := UserinfoEscape(in); got != want {
			t.Errorf("UserinfoEscape(%q) = %q, want %q", in, got, want)
		}
		u, err := Parse("http://" + UserinfoEscape(in) + ":" + UserinfoEscape(in) + "@h/")
		if err != nil || u.User != in || u.Password != in {
			t.Errorf("round trip of %q: user %q password %q, err %v", in, u.User, u.Password, err)
		}
	}
}

// appendEscaped (eight bytes at a time, with an overlapping last block)
// agrees with escaping byte by byte, whatever byte sits wherever.
func TestAppendEscapedBlocks(t *testing.T) {
	naive := func(s string, keep uint16) string {
		var b []byte
		for i := 0; i < len(s); i++ {
			if c := s[i]; keepClass[c]&keep != 0 {
				b = append(b, c)
			} else {
				b = append(b, '%', upperHex[c>>4], upperHex[c&15])
			}
		}
		return string(b)
	}
	for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 25} {
		base := []byte("abcdefghijklmnopqrstuvwxyz"[:n])
		for c := 0; c < 256; c++ {
			for pos := range base {
				b := append([]byte(nil), base...)
				b[pos] = byte(c)
				for _, keep := range []uint16{keepPath, keepUser, keepSeg, keepDocID} {
					if got, want := string(appendEscaped(nil, string(b), keep)), naive(string(b), keep); got != want {
						t.Fatalf("appendEscaped(%q, %#x) = %q, want %q", b, keep, got, want)
					}
				}
			}
		}
	}
}

func TestRedacted(t *testing.T) {
	for in, want := range map[string]string{
		"ftp://joe:s3cret@h/x": "ftp://joe:****@h/x",
		"ftp://joe:@h/":        "ftp://joe:****@h/",
		"ftp://joe@h/":         "ftp://joe@h/",
		"gopher://h/1/":        "gopher://h/1/",
	} {
		u, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Redacted(); got != want {
			t.Errorf("Redacted(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFTPSURL: ftps has ftp's form and its own default port, 990.
func TestFTPSURL(t *testing.T) {
	u := mustParse(t, "ftps://h/a/b;type=i")
	if u.PortOrDefault() != 990 || len(u.FTP.CWD) != 1 || u.FTP.CWD[0] != "a" || u.FTP.Name != "b" || u.FTP.Type != 'i' {
		t.Errorf("ftps URL: port %d, %+v", u.PortOrDefault(), u.FTP)
	}
	if got := FTPSchemeURL("ftps", "h", 990, "", "", []string{"a"}, "b", 0); got != "ftps://h/a/b" {
		t.Errorf("FTPSchemeURL = %q", got)
	}
}
