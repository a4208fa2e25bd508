package urlparse

import (
	"reflect"
	"testing"
)

func TestExtract(t *testing.T) {
	cases := []struct {
		text string
		want []Found
	}{
		{"", nil},
		{"no urls here: just text.", nil},
		// RFC 1738 appendix: whitespace inside the wrapper is dropped
		{"Get <URL:ftp://foo.bar.com/pub/\n   file.txt> now",
			[]Found{{"ftp://foo.bar.com/pub/file.txt", 4, 44}}},
		{"<URL: http://x.example/a- \r\n\tb >",
			[]Found{{"http://x.example/a-b", 0, 32}}},
		{"<url:news:comp.lang.go>", []Found{{"news:comp.lang.go", 0, 23}}},
		// RFC 3986 appendix C
		{"see <http://a.example/x\n y> ok", []Found{{"http://a.example/xy", 4, 27}}},
		{"<urn:isbn:0451450523>", []Found{{"urn:isbn:0451450523", 0, 21}}},
		{`"http://q.example/a"`, []Found{{"http://q.example/a", 1, 19}}},
		// bare URLs, trailing punctuation stripped
		{"Go to http://b.example/y.", []Found{{"http://b.example/y", 6, 24}}},
		{"(http://c.example/z), then", []Found{{"http://c.example/z", 1, 19}}},
		{"http://en.example/wiki/Foo_(bar)).", []Found{{"http://en.example/wiki/Foo_(bar)", 0, 32}}},
		{"Really? http://h.example/?!", []Found{{"http://h.example/", 8, 25}}},
		{"at http://h.example/x: see", []Found{{"http://h.example/x", 3, 21}}},
		{"mailto:joe@example.com, news:comp.lang.go; gopher://g.example/1/'",
			[]Found{{"mailto:joe@example.com", 0, 22}, {"news:comp.lang.go", 24, 41}, {"gopher://g.example/1/", 43, 64}}},
		{"[ftp://[::1]:2121/x]", []Found{{"ftp://[::1]:2121/x", 1, 19}}},
		{"HTTP://X.EXAMPLE/ and Telnet://t.example", []Found{{"HTTP://X.EXAMPLE/", 0, 17}, {"Telnet://t.example", 22, 40}}},
		{"news:*.", []Found{{"news:*", 0, 6}}},
		{"a\thttp://h.example/\tb", []Found{{"http://h.example/", 2, 19}}},
		// not URLs, or URLs Parse refuses
		{"xhttp://no.example/ http:// http: nothing ftp:/x", nil},
		{"<a href=x> <b> <joe@example.com> a < b: c > d", nil},
		{"<URL:> <URL:http://bad example %zz>", nil},
		{"http://h.example/%zz and telnet://h/x", nil},
		{"unknown://h.example/ foo:bar", nil},
		{"nntp://h/g/12a", nil},
		// a wrapper that does not close, or holds another "<"
		{"<URL:http://open.example/", []Found{{"http://open.example/", 5, 25}}},
		{"<<http://in.example/>>", []Found{{"http://in.example/", 1, 21}}},
		{"<x <http://in.example/> y>", []Found{{"http://in.example/", 3, 23}}},
		// a wrapper is one URL: nothing inside a broken one is returned
		{"<URL:telnet://h/x http://ok.example/>", nil},
		{"<http://bad example %zz> http://ok.example/", []Found{{"http://ok.example/", 25, 43}}},
		// but a "<…>" that is no wrapper is ordinary text
		{`<a href="http://x.example/">`, []Found{{"http://x.example/", 9, 26}}},
	}
	for _, c := range cases {
		got := Extract(c.text)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Extract(%q) =\n %+v\nwant\n %+v", c.text, got, c.want)
		}
		for _, f := range got {
			if _, err := Parse(f.URL); err != nil {
				t.Errorf("Extract(%q) found %q, which Parse refuses: %v", c.text, f.URL, err)
			}
		}
	}
}

func FuzzExtract(f *testing.F) {
	f.Add("see <URL:ftp://a.example/x\n y> and http://b.example/(c)).")
	f.Add("<<<>>> http: <a:b> mailto:x@y,")
	f.Fuzz(func(t *testing.T, text string) {
		prev := 0
		for _, fd := range Extract(text) {
			if fd.Start < prev || fd.End <= fd.Start || fd.End > len(text) {
				t.Fatalf("Extract(%q): bad span %+v", text, fd)
			}
			prev = fd.End
			if _, err := Parse(fd.URL); err != nil {
				t.Fatalf("Extract(%q) found %q: %v", text, fd.URL, err)
			}
		}
	})
}
