package urlparse

import (
	"errors"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		// §6.2.2.1 case: scheme and host to lower case, hex digits to upper
		{"HTTP://WWW.EXAMPLE.COM/A%2f?B%2f#C%2f", "http://www.example.com/A%2F?B%2F#C%2F"},
		{"Foo+Bar://x", "foo+bar://x"},
		{"http://[FE80::A]/", "http://[fe80::a]/"},
		{"http://[vF.ABC]/", "http://[vf.abc]/"},
		{"http://User:PW@h/", "http://User:PW@h/"},
		// §6.2.2.2 percent-encoding: unreserved characters decoded
		{"http://h/%7Euser/%41%2d%2E%5f%30", "http://h/~user/A-._0"},
		{"http://%48%2fx/", "http://h%2Fx/"},
		{"http://u%7e:%7a@h/", "http://u~:z@h/"},
		{"x:%3a%2f%3f%23%5b%5d%40%21%24%20%e2%82%ac", "x:%3A%2F%3F%23%5B%5D%40%21%24%20%E2%82%AC"},
		{"x:?%7e#%7e", "x:?~#~"},
		// §6.2.2.3 dot segments
		{"http://h/a/b/../c/./d", "http://h/a/c/d"},
		{"http://h/../../a", "http://h/a"},
		{"http://h/a/..", "http://h/"},
		// §5.2.4 as written: a ".." past the first segment of a rootless
		// path roots it, as resolving "foo:a/../../b" does
		{"foo:a/b/../.././../../e", "foo:/e"},
		{"foo:a/../b", "foo:/b"},
		{"foo:a/./b/.", "foo:a/b/"},
		{"foo:/.//bar", "foo:/.//bar"},    // dropping "/." would turn "bar" into an authority
		{"foo:/a/..//bar", "foo:/.//bar"}, // likewise
		{"//h/.//x", "//h//x"},            // with an authority "//x" is a path
		// relative references keep what they resolve to
		{"a/b/../../c", "c"},
		{"../a", "../a"},
		{"../../a/../b", "../../b"},
		{"a/../../b", "../b"},
		{".", "./"},
		{"./", "./"},
		{"a/..", "./"},
		{"..", "../"},
		{"a/.", "a/"},
		{"./a:b", "./a:b"},
		{"x/../a:b", "./a:b"},
		{".//a", ".//a"},
		{"a/..//b", ".//b"},
		{"/a/../../b", "/b"},
		{"?q", "?q"},
		{"", ""},
		// §6.2.3 scheme-based: empty or default port dropped, empty http path
		{"http://h:80/", "http://h/"},
		{"http://h:/", "http://h/"},
		{"http://h:0080/", "http://h/"},
		{"http://h:8080/", "http://h:8080/"},
		{"http://h:08080/", "http://h:8080/"},
		{"http://h:000", "http://h:0/"},
		{"http://h:99999/", "http://h:99999/"},
		{"https://h:443", "https://h/"},
		{"https://h:80", "https://h:80/"},
		{"http://h", "http://h/"},
		{"http://h?q", "http://h/?q"},
		{"ftp://h:21/x", "ftp://h/x"},
		{"ftp://h", "ftp://h"},
		{"gopher://h:70/", "gopher://h/"},
		{"nntp://h:119/g", "nntp://h/g"},
		{"telnet://h:23/", "telnet://h/"},
		{"wais://h:210/d", "wais://h/d"},
		{"prospero://h:1525/x", "prospero://h/x"},
		{"foo://h:80/", "foo://h:80/"},
		{"//h:80/", "//h:80/"},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		again, err := Normalize(got)
		if err != nil || again != got {
			t.Errorf("Normalize(%q) = %q, not idempotent (%q, %v)", tt.in, got, again, err)
		}
	}
}

// TestNormalizeKeepsResolution: a reference and its normal form resolve to
// equivalent targets against any base.
func TestNormalizeKeepsResolution(t *testing.T) {
	bases := []string{"http://a/b/c/d;p?q", "http://a", "http://a/", "foo:/x/y/", "http://a/b/c/"}
	refs := []string{".", "./", "..", "../", "a/..", "a/../..", "../a", "./a:b", ".//a", "a/..//b", "../../../x", "x/./y/../z", "%2e%2e/x", "?q", "#f", ""}
	for _, b := range bases {
		base, err := ParseAbsolute(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			ref, err := ParseRef(r)
			if err != nil {
				t.Fatal(err)
			}
			n := ref.Normalize()
			t1 := base.Resolve(&ref)
			t2 := base.Resolve(&n)
			if eq, err := Equivalent(t1.String(), t2.String()); err != nil || !eq {
				t.Errorf("base %q: %q resolves to %q, its normal form %q to %q", b, r, t1.String(), n.String(), t2.String())
			}
		}
	}
}

func TestNormalizeFields(t *testing.T) {
	r, _ := ParseRef("HTTP://%55ser:p%41ss@EXAMPLE.com:0080/%7e/a/../b%20c?%41#%42")
	n := r.Normalize()
	want := Ref{
		RawScheme: "http", Scheme: "http", HasAuth: true, HasUserinfo: true, HasPassword: true, HostKind: HostRegName,
		RawUserinfo: "User:pAss", RawHost: "example.com", RawPath: "/~/b%20c", RawQuery: "A", RawFragment: "B",
		HasQuery: true, HasFragment: true,
		User: "User", Password: "pAss", Host: "example.com", Port: -1, Path: "/~/b c", Query: "A", Fragment: "B",
	}
	if n != want {
		t.Errorf("Normalize:\n%+v\nwant\n%+v", n, want)
	}
	// the original is untouched
	if r.RawHost != "EXAMPLE.com" || r.RawPort != "0080" || r.Port != 80 {
		t.Errorf("Normalize changed its receiver: %+v", r)
	}
}

func TestEquivalent(t *testing.T) {
	tests := []struct {
		a, b string
		eq   bool
	}{
		{"http://example.com", "HTTP://EXAMPLE.COM:80/", true},
		{"http://example.com/~a", "http://example.com/%7Ea", true},
		{"http://example.com/%7ea", "http://example.com/%7Ea", true},
		{"http://h/a/./b", "http://h/a/b", true},
		{"http://h/%2F", "http://h/%2f", true},
		{"http://h/%2F", "http://h//", false},
		{"http://h/a", "http://h/A", false},
		{"http://u@h/", "http://U@h/", false},
		{"http://h/?a", "http://h/?A", false},
		{"http://h/", "https://h/", false},
		{"http://h:8080/", "http://h/", false},
		{"http://h/#", "http://h/", false},
		{"http://h/?", "http://h/", false},
		{"ftp://h", "ftp://h/", false},
		{"../g", "g", false},
		{".", "", false},
		{"a/../b", "b", true},
		{"x:/.//y", "x://y", false},
	}
	for _, tt := range tests {
		eq, err := Equivalent(tt.a, tt.b)
		if err != nil || eq != tt.eq {
			t.Errorf("Equivalent(%q, %q) = %v, %v; want %v", tt.a, tt.b, eq, err, tt.eq)
		}
	}
	for _, in := range [][2]string{{"a b", "x:y"}, {"x:y", "a b"}} {
		_, err := Equivalent(in[0], in[1])
		var e *Error
		if !errors.As(err, &e) || e.Input != "a b" || e.Offset != 1 {
			t.Errorf("Equivalent(%q, %q): error %v", in[0], in[1], err)
		}
	}
	if _, err := Normalize("%zz"); err == nil {
		t.Error("Normalize(%zz) succeeded")
	}
}

func TestDefaultPort(t *testing.T) {
	want := map[string]int{
		"http": 80, "https": 443, "ftp": 21, "gopher": 70, "gophers": 70, "news": 119, "nntp": 119,
		"nntps": 563, "telnet": 23, "wais": 210, "prospero": 1525, "mailto": 0, "file": 0, "": 0, "HTTP": 0,
	}
	for s, p := range want {
		if got := DefaultPort(s); got != p {
			t.Errorf("DefaultPort(%q) = %d, want %d", s, got, p)
		}
	}
}
