package urlparse

import (
	"errors"
	"strings"
	"testing"
)

func TestParseRefErrors(t *testing.T) {
	tests := []struct {
		in   string
		off  int
		rule string
	}{
		// scheme and the first segment of a relative reference
		{"1a:b", 0, "scheme"},
		{"3ttp://a.com", 0, "scheme"},
		{"-x:y", 0, "scheme"},
		{"::", 0, "path-noscheme"},
		{":a", 0, "path-noscheme"},
		{"exam=ple:foo", 8, "path-noscheme"},
		{"%41:b", 3, "path-noscheme"},
		{"a/b:c", -1, ""}, // ':' after the first "/" is fine
		// bytes no component allows
		{"a b", 1, "path"},
		{"/a\x00b", 2, "path"},
		{"/\x7f", 1, "path"},
		{"/caf\xc3\xa9", 4, "path"},
		{"a{b", 1, "path"},
		{"a[b", 1, "path"},
		{"http://h/a\"b", 10, "path"},
		{"http://h/?a b", 11, "query"},
		{"http://h/?a#b c", 13, "fragment"},
		{"http://h/#a#b", 11, "fragment"},
		{"http://h/#[", 10, "fragment"},
		// percent-encoding: reported at the first byte that is not a hex digit
		{"%", 1, "path"},
		{"%4", 2, "path"},
		{"%ZZ", 1, "path"},
		{"%AZ", 2, "path"},
		{"/a%2/b", 4, "path"},
		{"/a%2?x", 4, "path"},
		{"?%", 2, "query"},
		{"?x%g0", 3, "query"},
		{"#%4", 3, "fragment"},
		{"http://u%@h/", 9, "userinfo"},
		{"http://h%2", 10, "host"},
		{"http://h%zz/", 9, "host"},
		// authority
		{"http://a b/", 8, "host"},
		{"http://u@h@x/", 10, "host"},
		{"http://h:8x/", 10, "port"},
		{"http://h:-1/", 9, "port"},
		{"http://example.com:80ab", 21, "port"},
		{"http://user:pass:example.com/", 12, "port"},
		{"http://h^/", 8, "host"},
		{"http://u[@h/", 8, "userinfo"},
		// IP literals
		{"http://[::1", 11, "IP-literal"},
		{"https://[::1/", 12, "IP-literal"},
		{"http://[::1]x/", 12, "authority"},
		{"http://[::1]:x/", 13, "port"},
		{"http://x[::1]/", 8, "host"},
		{"http://[]/", 8, "IPv6address"},
		{"http://[:]/", 8, "IPv6address"},
		{"http://[:1]/", 8, "IPv6address"},
		{"http://[1:2]/", 11, "IPv6address"},
		{"http://[1:]/", 10, "IPv6address"},
		{"http://[12345::]/", 12, "IPv6address"},
		{"http://[::1::]/", 12, "IPv6address"},
		{"http://[::g]/", 10, "IPv6address"},
		{"http://[1:2:3:4:5:6:7:8:9]/", 24, "IPv6address"},
		{"http://[1:2:3:4:5:6:7::8]/", 23, "IPv6address"},
		{"http://[1:2:3:4:5:6:7:8::]/", 24, "IPv6address"},
		{"http://[1:2:3:4:5:6:7:1.2.3.4]/", 22, "IPv6address"},
		{"http://[::1.2.3]/", 10, "IPv6address"},
		{"http://[::01.1.1.1]/", 10, "IPv6address"},
		{"http://[::256.1.1.1]/", 10, "IPv6address"},
		{"http://[fe80::1%25eth0]/", 15, "IPv6address"},
		{"http://[v]/", 9, "IPvFuture"},
		{"http://[v1]/", 10, "IPvFuture"},
		{"http://[v1.]/", 11, "IPvFuture"},
		{"http://[vG.x]/", 9, "IPvFuture"},
		{"http://[v1.a/b]/", 12, "IP-literal"},
		{"http://[v1.a%20]/", 12, "IPvFuture"},
		{"http://[v1.a@b]/", 7, "userinfo"}, // the first "@" ends the userinfo
	}
	for _, tt := range tests {
		r, err := ParseRef(tt.in)
		if tt.off < 0 {
			if err != nil {
				t.Errorf("ParseRef(%q): %v", tt.in, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("ParseRef(%q) = %+v, %v; want an *Error", tt.in, r, err)
			continue
		}
		if e.Offset != tt.off || e.Rule != tt.rule || e.Input != tt.in {
			t.Errorf("ParseRef(%q): offset %d rule %q input %q (%v); want offset %d rule %q", tt.in, e.Offset, e.Rule, e.Input, e, tt.off, tt.rule)
		}
		if r != (Ref{}) {
			t.Errorf("ParseRef(%q) returned %+v with its error", tt.in, r)
		}
		if !strings.Contains(e.Error(), "at byte ") || !strings.Contains(e.Error(), "("+tt.rule+")") {
			t.Errorf("ParseRef(%q): error text %q", tt.in, e.Error())
		}
	}
}

func TestParseAbsolute(t *testing.T) {
	tests := []struct {
		in   string
		off  int // -1: accepted
		rule string
	}{
		{"foo", 3, "scheme"},
		{"", 0, "scheme"},
		{":hello", 0, "scheme"},
		{"3ttp://a.com", 0, "scheme"},
		{"exam=ple:foo", 4, "scheme"},
		{"(:", 0, "scheme"},
		{"a%20:foo", 1, "scheme"},
		{"/a/b", 0, "scheme"},
		{"//h/p", 0, "scheme"},
		{"a+b-c.d:x", -1, ""},
		{"HTTP://h/", -1, ""},
		{"x:", -1, ""},
		{"x:a b", 3, "path"},
	}
	for _, tt := range tests {
		r, err := ParseAbsolute(tt.in)
		if tt.off < 0 {
			if err != nil || !r.IsAbsolute() || r.String() != tt.in {
				t.Errorf("ParseAbsolute(%q) = %q, %v", tt.in, r.String(), err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Offset != tt.off || e.Rule != tt.rule {
			t.Errorf("ParseAbsolute(%q) error %v; want offset %d rule %q", tt.in, err, tt.off, tt.rule)
		}
	}
}

// TestParseRefComponents checks every field of the parsed reference.
func TestParseRefComponents(t *testing.T) {
	tests := []struct {
		in   string
		want Ref
	}{
		{"", Ref{Port: -1}},
		{"HTTP://User:Pa%3As@Example.COM:0080/a%20b/c?q=%26#f%23", Ref{
			RawScheme: "HTTP", Scheme: "http", HasAuth: true, HasUserinfo: true, HasPassword: true, HasPort: true,
			HasQuery: true, HasFragment: true, HostKind: HostRegName,
			RawUserinfo: "User:Pa%3As", RawHost: "Example.COM", RawPort: "0080", RawPath: "/a%20b/c", RawQuery: "q=%26", RawFragment: "f%23",
			User: "User", Password: "Pa:s", Host: "Example.COM", Port: 80, Path: "/a b/c", Query: "q=&", Fragment: "f#",
		}},
		{"//[v7.Ab:c]:/", Ref{
			HasAuth: true, HasPort: true, HostKind: HostIPvFuture, RawHost: "[v7.Ab:c]", RawPath: "/",
			Host: "v7.Ab:c", Port: -1, Path: "/",
		}},
		{"ftp://@[::FFFF:1.2.3.4]:99999", Ref{
			RawScheme: "ftp", Scheme: "ftp", HasAuth: true, HasUserinfo: true, HasPort: true, HostKind: HostIPv6,
			RawHost: "[::FFFF:1.2.3.4]", RawPort: "99999", Host: "::FFFF:1.2.3.4", Port: 65536,
		}},
		{"telnet://1.2.3.4", Ref{
			RawScheme: "telnet", Scheme: "telnet", HasAuth: true, HostKind: HostIPv4, RawHost: "1.2.3.4", Host: "1.2.3.4", Port: -1,
		}},
		{"mailto:a@b?subject=%E2%82%AC", Ref{
			RawScheme: "mailto", Scheme: "mailto", HasQuery: true, RawPath: "a@b", RawQuery: "subject=%E2%82%AC",
			Path: "a@b", Query: "subject=\u20ac", Port: -1,
		}},
		{"?#", Ref{HasQuery: true, HasFragment: true, Port: -1}},
		{"a?b/c?d#e?f/g", Ref{HasQuery: true, HasFragment: true, RawPath: "a", RawQuery: "b/c?d", RawFragment: "e?f/g",
			Path: "a", Query: "b/c?d", Fragment: "e?f/g", Port: -1}},
		{"Foo+Bar:%00", Ref{RawScheme: "Foo+Bar", Scheme: "foo+bar", RawPath: "%00", Path: "\x00", Port: -1}},
		{"X-Y://h%2f", Ref{RawScheme: "X-Y", Scheme: "x-y", HasAuth: true, HostKind: HostRegName, RawHost: "h%2f", Host: "h/", Port: -1}},
		{"GOPHERS://h", Ref{RawScheme: "GOPHERS", Scheme: "gophers", HasAuth: true, HostKind: HostRegName, RawHost: "h", Host: "h", Port: -1}},
		{"//u:@h", Ref{HasAuth: true, HasUserinfo: true, HasPassword: true, HostKind: HostRegName, RawUserinfo: "u:", RawHost: "h",
			User: "u", Host: "h", Port: -1}},
		{"//%41%2e", Ref{HasAuth: true, HostKind: HostRegName, RawHost: "%41%2e", Host: "A.", Port: -1}},
		{"x://", Ref{RawScheme: "x", Scheme: "x", HasAuth: true, HostKind: HostRegName, Port: -1}},
		{"x:///", Ref{RawScheme: "x", Scheme: "x", HasAuth: true, HostKind: HostRegName, RawPath: "/", Path: "/", Port: -1}},
		{"//h:0", Ref{HasAuth: true, HasPort: true, HostKind: HostRegName, RawHost: "h", RawPort: "0", Host: "h", Port: 0}},
		{"//h:65535", Ref{HasAuth: true, HasPort: true, HostKind: HostRegName, RawHost: "h", RawPort: "65535", Host: "h", Port: 65535}},
		{"//h:65536", Ref{HasAuth: true, HasPort: true, HostKind: HostRegName, RawHost: "h", RawPort: "65536", Host: "h", Port: 65536}},
	}
	for _, tt := range tests {
		got, err := ParseRef(tt.in)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseRef(%q) =\n%+v\nwant\n%+v", tt.in, got, tt.want)
		}
	}
}

func TestHostKind(t *testing.T) {
	tests := []struct {
		in   string
		kind HostKind
		host string
	}{
		{"mailto:x@y", HostNone, ""},
		{"/p", HostNone, ""},
		{"//", HostRegName, ""},
		{"//example.org", HostRegName, "example.org"},
		{"//1.2.3.4", HostIPv4, "1.2.3.4"},
		{"//0.0.0.0", HostIPv4, "0.0.0.0"},
		{"//255.255.255.255", HostIPv4, "255.255.255.255"},
		{"//256.1.1.1", HostRegName, "256.1.1.1"},
		{"//01.1.1.1", HostRegName, "01.1.1.1"},
		{"//1.2.3", HostRegName, "1.2.3"},
		{"//1.2.3.4.", HostRegName, "1.2.3.4."},
		{"//1.2.3.4.5", HostRegName, "1.2.3.4.5"},
		{"//%31.2.3.4", HostRegName, "1.2.3.4"}, // an escape makes it a reg-name
		{"//[::]", HostIPv6, "::"},
		{"//[::1]:80", HostIPv6, "::1"},
		{"//[v1.x]", HostIPvFuture, "v1.x"},
		{"//[V1F.x]", HostIPvFuture, "V1F.x"},
	}
	for _, tt := range tests {
		r, err := ParseRef(tt.in)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", tt.in, err)
			continue
		}
		if r.HostKind != tt.kind || r.Host != tt.host {
			t.Errorf("ParseRef(%q): host %q kind %v; want %q %v", tt.in, r.Host, r.HostKind, tt.host, tt.kind)
		}
	}
	names := map[HostKind]string{HostNone: "", HostRegName: "reg-name", HostIPv4: "ipv4", HostIPv6: "ipv6", HostIPvFuture: "ipvfuture", 99: ""}
	for k, want := range names {
		if got := k.String(); got != want {
			t.Errorf("HostKind(%d).String() = %q, want %q", k, got, want)
		}
	}
}

func TestIPAddressForms(t *testing.T) {
	v6 := []struct {
		in string
		ok bool
	}{
		// the nine forms of RFC 3986 §3.2.2's IPv6address
		{"1:2:3:4:5:6:7:8", true},
		{"1:2:3:4:5:6:1.2.3.4", true},
		{"::2:3:4:5:6:7:8", true},
		{"::3:4:5:6:1.2.3.4", true},
		{"1::3:4:5:6:7:8", true},
		{"::4:5:6:7:8", true},
		{"1::4:5:6:1.2.3.4", true},
		{"1:2::5:6:7:8", true},
		{"1::5:6:7:8", true},
		{"1:2:3::6:7:8", true},
		{"1:2:3:4::7:8", true},
		{"1:2:3:4:5::8", true},
		{"1:2:3:4:5:6::8", true},
		{"1:2:3:4:5:6:7::", true},
		{"1::", true},
		{"::", true},
		{"::1", true},
		{"::1.2.3.4", true},
		{"::ffff:1.2.3.4", true},
		{"abcd:EF01:2345:6789:abcd:ef01:2345:6789", true},
		{"0000:0000:0000:0000:0000:0000:0000:0000", true},
		{"", false},
		{":", false},
		{":::", false},
		{"1:2:3:4:5:6:7", false},
		{"1:2:3:4:5:6:7:8:9", false},
		{"1:2:3:4:5:6:7:8::", false},
		{"::1:2:3:4:5:6:7:8", false},
		{"1::2::3", false},
		{"1:2:3:4:5:6:7:1.2.3.4", false},
		{"1:2:3:4:5:1.2.3.4", false},
		{"1.2.3.4", false},
		{"::1.2.3.4:1", false},
		{"::1.2.3.04", false},
		{"12345::", false},
		{"1:", false},
		{":1", false},
		{"g::", false},
		{"::1%eth0", false},
		{" ::1", false},
	}
	for _, tt := range v6 {
		if got := IsIPv6Address(tt.in); got != tt.ok {
			t.Errorf("IsIPv6Address(%q) = %v, want %v", tt.in, got, tt.ok)
		}
		r, err := ParseRef("//[" + tt.in + "]")
		if (err == nil) != tt.ok {
			t.Errorf("ParseRef(//[%s]): %v, want ok=%v", tt.in, err, tt.ok)
		} else if tt.ok && (r.HostKind != HostIPv6 || r.Host != tt.in) {
			t.Errorf("ParseRef(//[%s]): %v %q", tt.in, r.HostKind, r.Host)
		}
	}
	v4 := []struct {
		in string
		ok bool
	}{
		{"0.0.0.0", true}, {"9.99.199.255", true}, {"249.250.251.252", true},
		{"256.0.0.0", false}, {"1.2.3", false}, {"1.2.3.4.", false}, {".1.2.3", false},
		{"1..2.3", false}, {"01.2.3.4", false}, {"1.2.3.00", false}, {"1.2.3.a", false},
		{"1.2.3.4 ", false}, {"", false}, {"1000.1.1.1", false},
	}
	for _, tt := range v4 {
		if got := IsIPv4Address(tt.in); got != tt.ok {
			t.Errorf("IsIPv4Address(%q) = %v, want %v", tt.in, got, tt.ok)
		}
	}
	future := []struct {
		in string
		ok bool
	}{
		{"v1.a", true}, {"vF.a:b", true}, {"v0123456789abcdef.!$&'()*+,;=-._~:", true},
		{"v.a", false}, {"v1", false}, {"v1.", false}, {"vx.a", false}, {"v1.a/b", false}, {"v1.%41", false},
	}
	for _, tt := range future {
		r, err := ParseRef("//[" + tt.in + "]")
		if (err == nil) != tt.ok {
			t.Errorf("ParseRef(//[%s]): %v, want ok=%v", tt.in, err, tt.ok)
		} else if tt.ok && (r.HostKind != HostIPvFuture || r.Host != tt.in) {
			t.Errorf("ParseRef(//[%s]): %v %q", tt.in, r.HostKind, r.Host)
		}
	}
}

// recomposeInputs are valid references of every shape.
var recomposeInputs = []string{
	"", "#", "?", "?#", "/", "//", "///", "a", "./a:b", "../..", ".", "..",
	"http://example.com", "HTTP://EXAMPLE.COM:/", "http://u:p@h:1/p;q?r#s",
	"http://[::1]:8080/a%2Fb?c=%3D#%23", "ftp://ftp.example.org/pub/a;type=i",
	"gopher://h:70/7search%09query", "mailto:a@b,c@d?subject=hi&body=%0D%0A",
	"news:comp.lang.go", "news:*", "news:abc@def", "nntp://news.example/comp.lang/42",
	"telnet://user:pw@host:23/", "wais://h:210/db?q", "file:///etc/hosts", "file://localhost/C:/x",
	"prospero://h:1525/a/b;type=x", "urn:isbn:0451450523", "tel:+1-816-555-1212",
	"//[v1.x:y]", "x:%00%ff", "//@", "//:", "a//b", "/.//x", "x:/.//y",
	"svn+ssh://h/~u/r", "HtTp://H%41/%7e?%7E#%7e",
}

func TestRecompose(t *testing.T) {
	for _, in := range recomposeInputs {
		r, err := ParseRef(in)
		if err != nil {
			t.Errorf("ParseRef(%q): %v", in, err)
			continue
		}
		if got := r.String(); got != in {
			t.Errorf("ParseRef(%q).String() = %q", in, got)
		}
		r2, err := ParseRef(r.String())
		if err != nil || r2 != r {
			t.Errorf("reparse of %q: %+v, %v; want %+v", in, r2, err, r)
		}
		var auth string
		if r.HasAuth {
			auth = "//" + r.Authority()
		}
		if r.RawScheme != "" {
			auth = r.RawScheme + ":" + auth
		}
		if !strings.HasPrefix(in, auth+r.RawPath) {
			t.Errorf("%q: scheme+authority+path %q is not a prefix", in, auth+r.RawPath)
		}
	}
}

func TestRecomposeConformanceInputs(t *testing.T) {
	f := loadPermissive(t)
	n := 0
	for _, c := range f.Parse {
		r, err := ParseRef(c.Input)
		if err != nil {
			continue
		}
		n++
		if got := r.String(); got != c.Input {
			t.Errorf("%s: ParseRef(%q).String() = %q", c.ID, c.Input, got)
		}
	}
	for _, c := range f.Resolution {
		for _, in := range []string{c.Base, c.Reference} {
			if r, err := ParseRef(in); err == nil {
				n++
				if got := r.String(); got != in {
					t.Errorf("%s: ParseRef(%q).String() = %q", c.ID, in, got)
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d inputs parsed", n)
	}
}

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""}, {"abc", "abc"}, {"%41%42", "AB"}, {"a%2fb", "a/b"}, {"%", "%"}, {"%4", "%4"},
		{"%zz%41", "%zzA"}, {"100%", "100%"}, {"%00%FF", "\x00\xff"}, {"+", "+"},
	}
	for _, tt := range tests {
		if got := Unescape(tt.in); got != tt.want {
			t.Errorf("Unescape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestParseRefAllocs: parsing allocates nothing unless a component holds a
// '%', and then once.
func TestParseRefAllocs(t *testing.T) {
	tests := []struct {
		in     string
		allocs float64
	}{
		{"http://user:pass@www.example.com:8080/a/b/c.html?x=1&y=2#frag", 0},
		{"HTTP://WWW.EXAMPLE.COM/", 0},
		{"Gopher://h/", 0},
		{"//[2001:db8::1]:80/", 0},
		{"http://example.com/a%20b?c=%3D#%23", 1},
		{"ftp://u%40x:p%3A@h/%2F", 1},
		{"Foo+Bar://h/", 1},    // an unknown scheme lowered
		{"Foo+Bar://h/%41", 1}, // ... in the same buffer as the decoding
		{"nNtP://h/a.b/1", 0},  // known schemes in any case cost nothing
	}
	for _, tt := range tests {
		got := testing.AllocsPerRun(100, func() {
			if _, err := ParseRef(tt.in); err != nil {
				t.Fatal(err)
			}
		})
		if got != tt.allocs {
			t.Errorf("ParseRef(%q): %v allocations, want %v", tt.in, got, tt.allocs)
		}
	}
}
