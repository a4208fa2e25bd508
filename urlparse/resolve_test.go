package urlparse

import (
	"errors"
	"testing"
)

// rfc3986Examples are RFC 3986 §5.4.1 (normal) and §5.4.2 (abnormal),
// verbatim, against the base http://a/b/c/d;p?q.
var rfc3986Examples = []struct{ ref, want string }{
	// §5.4.1 Normal Examples
	{"g:h", "g:h"},
	{"g", "http://a/b/c/g"},
	{"./g", "http://a/b/c/g"},
	{"g/", "http://a/b/c/g/"},
	{"/g", "http://a/g"},
	{"//g", "http://g"},
	{"?y", "http://a/b/c/d;p?y"},
	{"g?y", "http://a/b/c/g?y"},
	{"#s", "http://a/b/c/d;p?q#s"},
	{"g#s", "http://a/b/c/g#s"},
	{"g?y#s", "http://a/b/c/g?y#s"},
	{";x", "http://a/b/c/;x"},
	{"g;x", "http://a/b/c/g;x"},
	{"g;x?y#s", "http://a/b/c/g;x?y#s"},
	{"", "http://a/b/c/d;p?q"},
	{".", "http://a/b/c/"},
	{"./", "http://a/b/c/"},
	{"..", "http://a/b/"},
	{"../", "http://a/b/"},
	{"../g", "http://a/b/g"},
	{"../..", "http://a/"},
	{"../../", "http://a/"},
	{"../../g", "http://a/g"},

	// §5.4.2 Abnormal Examples
	{"../../../g", "http://a/g"},
	{"../../../../g", "http://a/g"},

	{"/./g", "http://a/g"},
	{"/../g", "http://a/g"},
	{"g.", "http://a/b/c/g."},
	{".g", "http://a/b/c/.g"},
	{"g..", "http://a/b/c/g.."},
	{"..g", "http://a/b/c/..g"},

	{"./../g", "http://a/b/g"},
	{"./g/.", "http://a/b/c/g/"},
	{"g/./h", "http://a/b/c/g/h"},
	{"g/../h", "http://a/b/c/h"},
	{"g;x=1/./y", "http://a/b/c/g;x=1/y"},
	{"g;x=1/../y", "http://a/b/c/y"},

	{"g?y/./x", "http://a/b/c/g?y/./x"},
	{"g?y/../x", "http://a/b/c/g?y/../x"},
	{"g#s/./x", "http://a/b/c/g#s/./x"},
	{"g#s/../x", "http://a/b/c/g#s/../x"},

	{"http:g", "http:g"}, // for strict parsers
}

func TestResolveRFC3986Examples(t *testing.T) {
	base, err := ParseAbsolute(resolutionBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range rfc3986Examples {
		got, err := ResolveString(resolutionBase, tt.ref)
		if err != nil || got != tt.want {
			t.Errorf("resolve %q: %q, %v; want %q", tt.ref, got, err, tt.want)
		}
		// The target's components are those of the expected string.
		ref, err := ParseRef(tt.ref)
		if err != nil {
			t.Fatal(err)
		}
		target := base.Resolve(&ref)
		want, err := ParseAbsolute(tt.want)
		if err != nil {
			t.Fatal(err)
		}
		if target != want {
			t.Errorf("resolve %q:\n%+v\nwant\n%+v", tt.ref, target, want)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct{ base, ref, want string }{
		// the base's fragment is ignored (§5.1); the reference's is kept
		{"http://a/b?q#f", "", "http://a/b?q"},
		{"http://a/b?q#f", "#g", "http://a/b?q#g"},
		{"http://a/b?q#f", "?", "http://a/b?"},
		{"http://a/b?q#f", "?#", "http://a/b?#"},
		// an authority with an empty path merges with "/" (§5.2.3)
		{"http://a", "b", "http://a/b"},
		{"http://a?q", "?r", "http://a?r"},
		{"http://a", "", "http://a"},
		{"http://a", "./b/../c", "http://a/c"},
		// a base without authority
		{"mailto:a@b", "c@d", "mailto:c@d"},
		{"foo:a/b", "c", "foo:a/c"},
		{"foo:", "x", "foo:x"},
		// userinfo, port and the percent-encoding are copied as written
		{"http://u:p@h:81/a/b", "c%20d", "http://u:p@h:81/a/c%20d"},
		{"http://h/a", "//u@g:1", "http://u@g:1"},
		{"http://h/a", "HTTPS://G/./x/../y", "HTTPS://G/y"},
		{"HTTP://h/a/b", "c", "HTTP://h/a/c"},
		// dot segments in the reference's own authority path
		{"http://h/a", "//g/./x/../y", "http://g/y"},
		// §5.2.4's literal output for a path that becomes "//g" with no
		// authority: recomposed it reads as an authority (see
		// TestResolveDoubleSlashPath)
		{"f:/a", ".//g", "f://g"},
	}
	for _, tt := range tests {
		got, err := ResolveString(tt.base, tt.ref)
		if err != nil || got != tt.want {
			t.Errorf("resolve %q against %q: %q, %v; want %q", tt.ref, tt.base, got, err, tt.want)
		}
	}
}

// TestResolveDoubleSlashPath pins down the one case where §5.2's target,
// recomposed by §5.3, does not parse back to itself: a base without an
// authority and a merged path whose dot segments leave it starting "//".
// The target Ref is exact; only its string is ambiguous.
func TestResolveDoubleSlashPath(t *testing.T) {
	base, _ := ParseAbsolute("f:/a/")
	ref, _ := ParseRef("..//g")
	target := base.Resolve(&ref)
	if target.HasAuth || target.RawPath != "//g" || target.Path != "//g" || target.Scheme != "f" {
		t.Errorf("target %+v; want scheme f, no authority, path //g", target)
	}
	if got := target.String(); got != "f://g" {
		t.Errorf("target.String() = %q", got)
	}
}

func TestResolveDecodes(t *testing.T) {
	base, _ := ParseAbsolute("http://u%3Ax:p@h/a%2Fb/c?q%20")
	ref, _ := ParseRef("d%20e")
	target := base.Resolve(&ref)
	if target.Path != "/a/b/d e" || target.RawPath != "/a%2Fb/d%20e" || target.User != "u:x" || target.Password != "p" ||
		!target.HasPassword || target.Host != "h" || target.HasQuery || target.Port != -1 || target.HostKind != HostRegName {
		t.Errorf("target %+v", target)
	}
	ref, _ = ParseRef("")
	target = base.Resolve(&ref)
	if target.Query != "q " || target.RawQuery != "q%20" || !target.HasQuery {
		t.Errorf("target %+v", target)
	}
	ref, _ = ParseRef("//[::1]:8080")
	target = base.Resolve(&ref)
	if target.Host != "::1" || target.HostKind != HostIPv6 || target.Port != 8080 || target.HasUserinfo || target.User != "" {
		t.Errorf("target %+v", target)
	}
}

func TestResolveStringErrors(t *testing.T) {
	tests := []struct {
		base, ref string
		in        string // the input the error names
		off       int
		rule      string
	}{
		{"/a/b", "c", "/a/b", 0, "scheme"},
		{"http://a b/", "c", "http://a b/", 8, "host"},
		{"http://a/", "c d", "c d", 1, "path"},
		{"http://a/", "1a:b", "1a:b", 0, "scheme"},
	}
	for _, tt := range tests {
		got, err := ResolveString(tt.base, tt.ref)
		var e *Error
		if !errors.As(err, &e) || e.Input != tt.in || e.Offset != tt.off || e.Rule != tt.rule {
			t.Errorf("ResolveString(%q, %q) = %q, %v; want error in %q at %d (%s)", tt.base, tt.ref, got, err, tt.in, tt.off, tt.rule)
		}
	}
}

func TestRemoveDotSegments(t *testing.T) {
	tests := []struct{ in, want string }{
		// §5.2.4's two worked examples
		{"/a/b/c/./../../g", "/a/g"},
		{"mid/content=5/../6", "mid/6"},
		{"", ""},
		{"/", "/"},
		{".", ""},
		{"..", ""},
		{"./", ""},
		{"../", ""},
		{"/.", "/"},
		{"/..", "/"},
		{"/./", "/"},
		{"/../", "/"},
		{"/a/..", "/"},
		{"/a/.", "/a/"},
		{"/a/./b", "/a/b"},
		{"/a/../b", "/b"},
		{"/a/b/../../..", "/"},
		{"/a//../b", "/a/b"},
		{"/.//g", "//g"},
		{"/a/.../b", "/a/.../b"},
		{"/a/..b/.c/b..", "/a/..b/.c/b.."},
		{"a/b/../../c", "/c"}, // §5.2.4 applied literally to a rootless path
		{"../a", "a"},
		{"./a:b", "a:b"},
		{"/a/b", "/a/b"},
	}
	for _, tt := range tests {
		if got := RemoveDotSegments(tt.in); got != tt.want {
			t.Errorf("RemoveDotSegments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestResolveAllocs(t *testing.T) {
	base, _ := ParseAbsolute("http://example.com/a/b/c?q")
	ref, _ := ParseRef("../d/e?x=1#f")
	got := testing.AllocsPerRun(100, func() { base.Resolve(&ref) })
	// one for the merged path, one for RemoveDotSegments' output
	if got != 2 {
		t.Errorf("Resolve: %v allocations, want 2", got)
	}
}
