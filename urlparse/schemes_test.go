package urlparse

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// mustParse parses s or fails the test.
func mustParse(t *testing.T, s string) URL {
	t.Helper()
	u, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

// errCase is an input Parse must refuse at Offset with Rule.
type errCase struct {
	in   string
	off  int
	rule string
}

func testErrors(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		u, err := Parse(c.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %+v, %v; want *Error", c.in, u, err)
			continue
		}
		if e.Offset != c.off || e.Rule != c.rule || e.Input != c.in {
			t.Errorf("Parse(%q): offset %d rule %q input %q; want offset %d rule %q (%v)",
				c.in, e.Offset, e.Rule, e.Input, c.off, c.rule, err)
		}
		// The two layers: a URI the scheme refuses comes back with its
		// generic components and the error's Scheme set; anything else
		// comes back as the zero URL.
		r, rerr := ParseAbsolute(c.in)
		switch {
		case rerr != nil:
			if e.Scheme != "" || !reflect.DeepEqual(u, URL{}) {
				t.Errorf("Parse(%q) returned %+v, scheme %q with a generic error; want the zero URL", c.in, u, e.Scheme)
			}
		case e.Scheme != u.Scheme || e.Scheme == "":
			t.Errorf("Parse(%q): error %v names scheme %q; want %q (the generic syntax is fine)", c.in, err, e.Scheme, u.Scheme)
		case !reflect.DeepEqual(u, URL{Ref: r, schemeErr: e}) || u.SchemeErr() != err:
			t.Errorf("Parse(%q) returned %+v with a scheme error; want only the generic components %+v", c.in, u, r)
		}
	}
}

// testRoundTrip checks that String gives the input back and that parsing
// it again gives the same URL.
func testRoundTrip(t *testing.T, s string) {
	t.Helper()
	u := mustParse(t, s)
	if got := u.String(); got != s {
		t.Errorf("Parse(%q).String() = %q", s, got)
	}
	u2 := mustParse(t, u.String())
	if !reflect.DeepEqual(u, u2) {
		t.Errorf("Parse(%q) round trip:\n got %+v\nwant %+v", s, u2, u)
	}
}

func TestHTTP(t *testing.T) {
	cases := []struct {
		in                string
		host, path, query string
		port              int
		userinfo          bool
	}{
		{"http://www.example.com/a/b?c=d", "www.example.com", "/a/b", "c=d", -1, false},
		{"http://h", "h", "", "", -1, false},
		{"HTTP://H:8080/%7Euser/?", "H", "/~user/", "", 8080, false},
		{"http://u:p@h/", "h", "/", "", -1, true},
		{"http://@h/", "h", "/", "", -1, true},
		{"https://[2001:db8::7]:8443/x", "2001:db8::7", "/x", "", 8443, false},
		{"https://h/a%2Fb?x%20y#frag", "h", "/a/b", "x y", -1, false},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.Host != c.host || u.Path != c.path || u.Query != c.query || u.Port != c.port || u.HTTP.Userinfo != c.userinfo {
			t.Errorf("Parse(%q): host %q path %q query %q port %d userinfo %v; want %q %q %q %d %v",
				c.in, u.Host, u.Path, u.Query, u.Port, u.HTTP.Userinfo, c.host, c.path, c.query, c.port, c.userinfo)
		}
		testRoundTrip(t, c.in)
	}
	if u := mustParse(t, "https://h/"); u.PortOrDefault() != 443 {
		t.Errorf("https default port %d", u.PortOrDefault())
	}
	testErrors(t, []errCase{
		{"http:/x", 5, "httpurl"},
		{"http:x", 5, "httpurl"},
		{"http://:80/", 7, "host"},
		{"https:///", 8, "host"},
		{"http://u@/", 9, "host"},
		{"http://h:65536/", 9, "port"},
		{"http://h:99999999999999999999/", 9, "port"},
		{"http://h:8x/", 10, "port"},
		{"http://h/a%4", 12, "path"},
		{"http://h/a%G1", 11, "path"},
		{"http://h/?%", 11, "query"},
		{"http://h/a b", 10, "path"},
		{"http://[::1/", 11, "IP-literal"},
	})
}

func TestTelnet(t *testing.T) {
	cases := []struct {
		in               string
		user, pass, host string
		port             int
	}{
		{"telnet://h", "", "", "h", -1},
		{"telnet://h/", "", "", "h", -1},
		{"telnet://guest:secret@h.example:2323/", "guest", "secret", "h.example", 2323},
		{"telnet://[::1]/", "", "", "::1", -1},
		{"telnet://u%20x@h", "u x", "", "h", -1},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.User != c.user || u.Password != c.pass || u.Host != c.host || u.Port != c.port {
			t.Errorf("Parse(%q): %q %q %q %d; want %q %q %q %d", c.in, u.User, u.Password, u.Host, u.Port,
				c.user, c.pass, c.host, c.port)
		}
		if u.PortOrDefault() != max(c.port, 23) {
			t.Errorf("Parse(%q).PortOrDefault() = %d", c.in, u.PortOrDefault())
		}
		testRoundTrip(t, c.in)
	}
	testErrors(t, []errCase{
		{"telnet://h/x", 11, "telneturl"},
		{"telnet://h//", 11, "telneturl"},
		{"telnet://h/?x", 11, "telneturl"},
		{"telnet://h?x", 10, "telneturl"},
		{"telnet:h", 7, "telneturl"},
		{"telnet://", 9, "host"},
		{"telnet://h:65536", 11, "port"},
	})
}

func TestFile(t *testing.T) {
	cases := []struct {
		in    string
		host  string
		local bool
		path  string
	}{
		{"file:///etc/motd", "", true, "/etc/motd"},
		{"file://localhost/etc/motd", "localhost", true, "/etc/motd"},
		{"file://LocalHost/x", "LocalHost", true, "/x"},
		{"file://loc%61lhost/x", "localhost", true, "/x"},
		{"file:/tmp/x", "", true, "/tmp/x"},
		// RFC 1738 §3.10
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt", "vms.host.edu", false, "/disk$user/my/notes/note12345.txt"},
		{"file:///tmp/a%20b?c", "", true, "/tmp/a b?c"},
		{"file:///tmp/a%3Fb%2Fc?d%20e#f", "", true, "/tmp/a?b/c?d e"},
		{"file:///C:/Windows", "", true, "/C:/Windows"},
		{"file:////server/share", "", true, "//server/share"},
		{"file://[::1]/x", "::1", false, "/x"},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.Host != c.host || u.File != (File{Local: c.local, Path: c.path}) {
			t.Errorf("Parse(%q): host %q %+v; want %q %+v", c.in, u.Host, u.File, c.host, File{c.local, c.path})
		}
		testRoundTrip(t, c.in)
	}
	testErrors(t, []errCase{
		{"file:", 5, "fileurl"},
		{"file:x", 5, "fileurl"},
		{"file://h", 8, "fileurl"},
		{"file://h?x", 8, "fileurl"},
		{"file:///a%2", 11, "path"},
	})
}

func TestOtherSchemes(t *testing.T) {
	for _, s := range []string{"foo:bar", "urn:isbn:0451450523", "x-y+z.w://h/%41?q#f", "about:", "z39.50s://h/x"} {
		u := mustParse(t, s)
		want := URL{Ref: u.Ref}
		if !reflect.DeepEqual(u, want) {
			t.Errorf("Parse(%q) set typed fields: %+v", s, u)
		}
		testRoundTrip(t, s)
	}
	testErrors(t, []errCase{
		{"", 0, "scheme"},
		{"//h/x", 0, "scheme"},
		{"foo:a b", 5, "path"},
	})
}

// TestSchemeParseAllocs pins what the scheme parsers allocate on top of the
// generic parse: nothing when a URL has no escapes, except the one slice
// the ftp CWD, mailto To and Headers and prospero Fields need.
func TestSchemeParseAllocs(t *testing.T) {
	cases := []struct {
		in     string
		allocs float64
	}{
		{"http://www.example.com/a/b?c=d", 0},
		{"gopher://h/0/sel/ector?with=query", 0},
		{"gopher://h/7/search%09words", 1}, // the generic decode buffer
		{"gopher://h:70/0/a%20b", 1},
		{"ftp://h/file", 0},
		{"ftp://h/a/b/c/file;type=i", 1},        // CWD
		{"ftp://h/a%20b/c%2Fd/e%20f;type=i", 2}, // decode buffer, CWD
		{"news:comp.lang.go", 0},
		{"news:abc@example.com", 0},
		{"nntp://h/comp.lang.go/123", 0},
		{"telnet://u:p@h:23/", 0},
		{"wais://h/db?query", 0},
		{"wais://h/db/TEXT/124/1=a%3Ab;7=%00;", 2}, // decode buffer, DocFields
		{"file:///etc/motd", 0},
		{"prospero://h//a/b", 0},
		{"prospero://h/x;a=b;c=d", 1},
		{"mailto:a@b", 1},
		{"mailto:a@b,c@d?subject=x&body=y", 2},
	}
	for _, c := range cases {
		got := testing.AllocsPerRun(50, func() {
			if u, err := Parse(c.in); err != nil || u.Scheme == "" {
				panic(c.in)
			}
		})
		if got != c.allocs {
			t.Errorf("Parse(%q): %v allocations, want %v", c.in, got, c.allocs)
		}
	}
}

var benchURLs = []string{
	"ftp://myname@host.dom/%2Fetc/motd",
	"ftp://ftp.example.com/pub/a/b/c/file.tar.gz;type=i",
	"http://www.example.com/a/b?c=d",
	"gopher://gopher.example.org:70/1/world/news",
	"gopher://gopher.example.org/7/search%09query%20words",
	"mailto:joe@example.com?subject=hello%20there",
	"news:comp.lang.go",
	"nntp://news.example.com/comp.lang.go/12345",
	"telnet://guest@h.example/",
	"wais://127.0.0.1:22100/test/TEXT/124/1=vm%3A22100;2=/tmp/wais-build/db/test;7=%00;",
	"file:///etc/motd",
	"prospero://h.example//a/b;OBJECT-VERSION=3",
}

func BenchmarkParseSchemes(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range benchURLs {
			if _, err := Parse(s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// naiveSplit decodes the way the RFC text reads: split the raw string on
// sep first, then decode every piece.
func naiveSplit(raw string, sep string) []string {
	parts := strings.Split(raw, sep)
	for i, p := range parts {
		parts[i] = Unescape(p)
	}
	return parts
}

// FuzzSchemeFields checks the scheme parsers, which find decoded pieces
// inside the generic decode by counting escapes, against naive splitting
// and decoding of the raw text.
func FuzzSchemeFields(f *testing.F) {
	for _, s := range benchURLs {
		f.Add(s)
	}
	for _, s := range []string{
		"ftp://h/a%20b/c%3F?d/e;type=a", "ftp://h/%2F%2f//x?y/%3B;type=i", "gopher://h/0/a%3Fb?c%09q%09%25",
		"mailto:a%2Cb@x,c@y?a%26b=c%3Dd&e=f%26g", "prospero://h/a%20?b%20;k=v%3B?;x=%20", "news:a%20?b%40c",
		"wais://h/d%20b/T%2F/12/%41/b", "nntp://h/%41%42/12", "file:///a%20?b%20",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		raw := u.RawPath
		if u.HasQuery {
			raw += "?" + u.RawQuery
		}
		fail := func(what string, got, want any) {
			t.Fatalf("Parse(%q) %s = %#v; naive %#v", s, what, got, want)
		}
		switch u.Scheme {
		case "ftp":
			if raw == "" {
				if u.FTP.CWD != nil || u.FTP.Name != "" {
					fail("FTP", u.FTP, FTP{})
				}
				return
			}
			segs := strings.Split(raw[1:], "/")
			last := segs[len(segs)-1]
			if k := strings.LastIndexByte(last, ';'); k >= 0 && strings.HasPrefix(strings.ToLower(last[k+1:]), "type=") {
				last = last[:k]
			}
			want := naiveSplit(strings.Join(segs[:len(segs)-1], "/"), "/")
			if len(segs) == 1 {
				want = nil
			}
			if !reflect.DeepEqual(u.FTP.CWD, want) || u.FTP.Name != Unescape(last) {
				fail("FTP", u.FTP, FTP{CWD: want, Name: Unescape(last)})
			}
		case "gopher", "gophers":
			if len(raw) > 1 {
				d := Unescape(raw[1:])
				g := Gopher{Type: d[0]}
				p := strings.SplitN(d[1:], "\t", 3)
				g.Selector = p[0]
				if len(p) > 1 {
					g.Search, g.HasSearch = p[1], true
				}
				if len(p) > 2 {
					g.Plus, g.HasPlus = p[2], true
				}
				if u.Gopher != g {
					fail("Gopher", u.Gopher, g)
				}
			}
		case "mailto":
			var m Mailto
			if u.RawPath != "" {
				m.To = naiveSplit(u.RawPath, ",")
			}
			if u.RawQuery != "" {
				for _, h := range strings.Split(u.RawQuery, "&") {
					n, v, _ := strings.Cut(h, "=")
					m.Headers = append(m.Headers, Header{Unescape(n), Unescape(v)})
				}
			}
			if !reflect.DeepEqual(u.Mailto, m) {
				fail("Mailto", u.Mailto, m)
			}
		case "prospero":
			if raw != "" {
				parts := strings.Split(raw[1:], ";")
				p := Prospero{HSOName: Unescape(parts[0])}
				for _, f := range parts[1:] {
					n, v, _ := strings.Cut(f, "=")
					p.Fields = append(p.Fields, Field{Unescape(n), Unescape(v)})
				}
				if !reflect.DeepEqual(u.Prospero, p) {
					fail("Prospero", u.Prospero, p)
				}
			}
		case "news":
			gp := raw
			if u.HasAuth {
				gp = gp[1:]
			}
			if d := Unescape(gp); d != u.News.Group+u.News.MessageID && !(u.News.All && d == "*") {
				fail("News", u.News, d)
			}
		case "nntp", "nntps":
			if u.RawPath == "" { // "nntp://h": the group list
				if !u.NNTP.All || u.NNTP.Group != "" {
					fail("NNTP", u.NNTP, "the group list")
				}
				break
			}
			if id := u.NNTP.MessageID; id != "" { // "nntp://h/id@host", "nntp://h/group/id@host"
				if !strings.Contains(Unescape(u.RawPath), id) || !strings.Contains(id, "@") {
					fail("NNTP.MessageID", u.NNTP, u.RawPath)
				}
				break
			}
			segs := strings.Split(u.RawPath[1:], "/")
			if u.NNTP.Group != Unescape(segs[0]) || len(segs) > 1 && u.NNTP.Article != segs[1] {
				fail("NNTP", u.NNTP, segs)
			}
		case "wais":
			if u.RawPath != "" {
				segs := strings.SplitN(u.RawPath[1:], "/", 3)
				if u.WAIS.Database != Unescape(segs[0]) {
					fail("WAIS.Database", u.WAIS.Database, Unescape(segs[0]))
				}
				if len(segs) == 3 {
					rest := segs[2]
					if u.WAIS.Length != "" {
						rest = rest[len(u.WAIS.Length)+1:]
					}
					if u.WAIS.DocType != Unescape(segs[1]) || u.WAIS.DocPath != Unescape(rest) {
						fail("WAIS", u.WAIS, segs)
					}
				}
			}
		case "file":
			if u.File.Path != Unescape(raw) {
				fail("File.Path", u.File.Path, Unescape(raw))
			}
		}
	})
}
