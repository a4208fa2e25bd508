package urlparse

import (
	"errors"
	"testing"
)

func TestLookupHost(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"http://example.com/", "example.com"},
		{"http://Example.COM./", "Example.COM."},
		{"http://my_host:8080/", "my_host"},
		{"ftp://192.0.2.1/", "192.0.2.1"},
		{"ftp://[::1]:2121/x", "::1"},
		{"gopher://[2001:DB8::1]/", "2001:DB8::1"},
		{"http://%65xample.com/", "example.com"},
		{"http://b%C3%BCcher.example/", "xn--bcher-kva.example"},
		{"http://B%C3%9CCHER.example/", "xn--bcher-kva.example"},
		{"http://%E4%BE%8B%E3%81%88.%E3%83%86%E3%82%B9%E3%83%88/", "xn--r8jz45g.xn--zckzah"},
		{"news://news.example/comp.lang.go", "news.example"},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		got, err := u.LookupHost()
		if err != nil || got != c.want {
			t.Errorf("Parse(%q).LookupHost() = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, s := range []string{"news:comp.lang.go", "file:///etc/motd", "mailto:a@b", "foo:bar"} {
		u := mustParse(t, s)
		if got, err := u.LookupHost(); err != ErrNoHost || got != "" {
			t.Errorf("Parse(%q).LookupHost() = %q, %v; want ErrNoHost", s, got, err)
		}
	}
	for _, c := range []struct{ in, host, msg string }{
		{"http://%FF.example/", "\xff.example", `host "\xff.example": not valid UTF-8`},
		{"http://b%C3%BCcher%20x.example/", "bücher x.example", `host "bücher x.example": not a valid internationalized domain name: `},
		{"http://[v1.fe80::a]/", "v1.fe80::a", `host "v1.fe80::a": IPvFuture address literals cannot be looked up`},
	} {
		u := mustParse(t, c.in)
		got, err := u.LookupHost()
		var he *HostError
		if !errors.As(err, &he) || got != "" {
			t.Errorf("Parse(%q).LookupHost() = %q, %v; want a *HostError", c.in, got, err)
			continue
		}
		if he.Host != c.host || len(err.Error()) < len(c.msg) || err.Error()[:len(c.msg)] != c.msg {
			t.Errorf("Parse(%q).LookupHost() error %q (host %q); want host %q, message starting %q", c.in, err, he.Host, c.host, c.msg)
		}
		if he.Msg == "not a valid internationalized domain name" && errors.Unwrap(err) == nil {
			t.Errorf("Parse(%q).LookupHost() error %v does not wrap the IDNA error", c.in, err)
		}
	}
	u := mustParse(t, "http://www.example.com/")
	if n := testing.AllocsPerRun(50, func() {
		if _, err := u.LookupHost(); err != nil {
			panic(err)
		}
	}); n != 0 {
		t.Errorf("LookupHost of an ASCII host: %v allocations", n)
	}
}
