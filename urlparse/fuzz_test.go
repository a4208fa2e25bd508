package urlparse

import (
	"bufio"
	"errors"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The RFC 3986 grammar (appendix A) written out as regular expressions, an
// oracle independent of the hand-written parser.
var (
	abnfURIReference *regexp.Regexp
	abnfIPv4         *regexp.Regexp
	abnfIPv6         *regexp.Regexp
	// appendixB is RFC 3986 appendix B's regular expression, which splits
	// any string into the five components.
	appendixB = regexp.MustCompile(`^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$`)
)

func init() {
	const (
		unreserved   = `A-Za-z0-9\-._~`
		subDelims    = `!$&'()*+,;=`
		pct          = `%[0-9A-Fa-f]{2}`
		pchar        = `(?:[` + unreserved + subDelims + `:@]|` + pct + `)`
		segment      = pchar + `*`
		segmentNZ    = pchar + `+`
		segmentNC    = `(?:[` + unreserved + subDelims + `@]|` + pct + `)+`
		query        = `(?:` + pchar + `|[/?])*`
		scheme       = `[A-Za-z][A-Za-z0-9+\-.]*`
		userinfo     = `(?:[` + unreserved + subDelims + `:]|` + pct + `)*`
		decOctet     = `(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])`
		ipv4         = decOctet + `\.` + decOctet + `\.` + decOctet + `\.` + decOctet
		h16          = `[0-9A-Fa-f]{1,4}`
		ls32         = `(?:` + h16 + `:` + h16 + `|` + ipv4 + `)`
		ipvFuture    = `[vV][0-9A-Fa-f]+\.[` + unreserved + subDelims + `:]+`
		regName      = `(?:[` + unreserved + subDelims + `]|` + pct + `)*`
		port         = `[0-9]*`
		pathAbempty  = `(?:/` + segment + `)*`
		pathAbs      = `/(?:` + segmentNZ + `(?:/` + segment + `)*)?`
		pathNoSch    = segmentNC + `(?:/` + segment + `)*`
		pathRootless = segmentNZ + `(?:/` + segment + `)*`
	)
	h := func(n int) string { // n times h16 ":"
		if n == 0 {
			return ""
		}
		return `(?:` + h16 + `:){` + digit(n) + `}`
	}
	upTo := func(n int) string { // [ *n( h16 ":" ) h16 ]
		if n < 0 {
			return ""
		}
		return `(?:(?:` + h16 + `:){0,` + digit(n) + `}` + h16 + `)?`
	}
	ipv6 := `(?:` + strings.Join([]string{
		h(6) + ls32,
		`::` + h(5) + ls32,
		`(?:` + h16 + `)?::` + h(4) + ls32,
		upTo(1) + `::` + h(3) + ls32,
		upTo(2) + `::` + h(2) + ls32,
		upTo(3) + `::` + h16 + `:` + ls32,
		upTo(4) + `::` + ls32,
		upTo(5) + `::` + h16,
		upTo(6) + `::`,
	}, "|") + `)`
	host := `(?:\[(?:` + ipv6 + `|` + ipvFuture + `)\]|` + ipv4 + `|` + regName + `)`
	authority := `(?:` + userinfo + `@)?` + host + `(?::` + port + `)?`
	tail := `(?:\?` + query + `)?(?:#` + query + `)?`
	uri := scheme + `:(?://` + authority + pathAbempty + `|` + pathAbs + `|` + pathRootless + `|)` + tail
	rel := `(?://` + authority + pathAbempty + `|` + pathAbs + `|` + pathNoSch + `|)` + tail
	abnfURIReference = regexp.MustCompile(`^(?:` + uri + `|` + rel + `)$`)
	abnfIPv4 = regexp.MustCompile(`^` + ipv4 + `$`)
	abnfIPv6 = regexp.MustCompile(`^` + ipv6 + `$`)
}

func digit(n int) string { return string(rune('0' + n)) }

// TestABNFOracle checks the regular expressions against the conformance
// annotations (computed by a separate RFC 3986 implementation), so that the
// fuzz targets can trust them.
func TestABNFOracle(t *testing.T) {
	f := loadPermissive(t)
	n := 0
	for _, c := range f.Parse {
		var got bool
		switch c.Production {
		case "IPv4address":
			got = abnfIPv4.MatchString(c.Input)
		case "IPv6address":
			got = abnfIPv6.MatchString(c.Input)
		case "URI-reference", "IRI-reference":
			got = abnfURIReference.MatchString(c.Input)
		default:
			continue
		}
		n++
		if got != c.Annotations.RFC3986ABNF {
			t.Errorf("%s: %s %q: regexp says %v, annotation %v", c.ID, c.Production, c.Input, got, c.Annotations.RFC3986ABNF)
		}
	}
	for _, s := range []string{"1a:b", "a:b", "::", "//[::1]", "//[v1.x]", "//[1::2::3]", "%4", "a b", "http://h:8x/"} {
		_, err := ParseRef(s)
		if got := abnfURIReference.MatchString(s); got != (err == nil) {
			t.Errorf("%q: regexp %v, ParseRef %v", s, got, err)
		}
	}
	if n < 200 {
		t.Errorf("only %d cases", n)
	}
}

// fuzzSeeds returns the conformance inputs, the benchmark corpus and the
// recomposition inputs.
func fuzzSeeds(t testing.TB) []string {
	f := loadPermissive(t)
	var seeds []string
	for _, c := range f.Parse {
		seeds = append(seeds, c.Input)
	}
	for _, c := range f.Resolution {
		seeds = append(seeds, c.Base, c.Reference)
	}
	for _, c := range f.Normalization {
		seeds = append(seeds, c.Input, c.Expected)
	}
	seeds = append(seeds, benchCorpus(t)...)
	return append(seeds, recomposeInputs...)
}

func benchCorpus(t testing.TB) []string {
	fh, err := os.Open("testdata/bench-urls.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var urls []string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			urls = append(urls, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return urls
}

func checkError(t *testing.T, err error, in string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%q: error %v is not an *Error", in, err)
	}
	if e.Input != in || e.Offset < 0 || e.Offset > len(in) || e.Rule == "" || e.Msg == "" {
		t.Fatalf("%q: bad error %#v", in, e)
	}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if valid := abnfURIReference.MatchString(s); valid != (err == nil) {
			t.Fatalf("ParseRef(%q): %v, but the RFC 3986 grammar says valid=%v", s, err, valid)
		}
		if err != nil {
			checkError(t, err, s)
			return
		}
		if got := r.String(); got != s {
			t.Fatalf("ParseRef(%q).String() = %q", s, got)
		}
		r2, err := ParseRef(s)
		if err != nil || r2 != r {
			t.Fatalf("reparse of %q: %+v, %v; want %+v", s, r2, err, r)
		}
		// The components are those of appendix B's regular expression.
		m := appendixB.FindStringSubmatch(s)
		auth := ""
		if r.HasAuth {
			auth = r.Authority()
		}
		if m[2] != r.RawScheme || (m[3] != "") != r.HasAuth || m[4] != auth || m[5] != r.RawPath ||
			(m[6] != "") != r.HasQuery || m[7] != r.RawQuery || (m[8] != "") != r.HasFragment || m[9] != r.RawFragment {
			t.Fatalf("ParseRef(%q) = %+v; appendix B says %q", s, r, m)
		}
		if r.Path != Unescape(r.RawPath) || r.Query != Unescape(r.RawQuery) || r.Fragment != Unescape(r.RawFragment) {
			t.Fatalf("ParseRef(%q): decoded fields %+v", s, r)
		}
		switch r.HostKind {
		case HostIPv4:
			if !abnfIPv4.MatchString(r.RawHost) {
				t.Fatalf("ParseRef(%q): host %q is not an IPv4address", s, r.RawHost)
			}
		case HostIPv6:
			if !abnfIPv6.MatchString(r.Host) {
				t.Fatalf("ParseRef(%q): host %q is not an IPv6address", s, r.Host)
			}
		case HostRegName:
			if abnfIPv4.MatchString(r.RawHost) || strings.HasPrefix(r.RawHost, "[") {
				t.Fatalf("ParseRef(%q): host %q is not a reg-name", s, r.RawHost)
			}
		case HostNone:
			if r.HasAuth {
				t.Fatalf("ParseRef(%q): authority without host kind", s)
			}
		}
		// Normalization: its string parses, to itself, and is a fixed point.
		n := r.Normalize()
		ns := n.String()
		n2, err := ParseRef(ns)
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which does not parse: %v", s, ns, err)
		}
		if n2 != n {
			t.Fatalf("Normalize(%q) = %q, which parses to\n%+v\nnot\n%+v", s, ns, n2, n)
		}
		if n3 := n2.Normalize(); n3 != n {
			t.Fatalf("Normalize is not idempotent on %q: %q then %q", s, ns, n3.String())
		}
		if n.IsAbsolute() != r.IsAbsolute() || n.HasAuth != r.HasAuth || n.HasQuery != r.HasQuery || n.HasFragment != r.HasFragment {
			t.Fatalf("Normalize(%q) = %q changed the reference's shape", s, ns)
		}
	})
}

func FuzzResolve(f *testing.F) {
	seeds := fuzzSeeds(f)
	for i, s := range seeds {
		f.Add(resolutionBase, s)
		f.Add(s, seeds[(i*7+3)%len(seeds)])
	}
	for _, c := range loadPermissive(f).Resolution {
		f.Add(c.Base, c.Reference)
	}
	f.Fuzz(func(t *testing.T, base, ref string) {
		b, err := ParseAbsolute(base)
		if err != nil {
			return
		}
		r, err := ParseRef(ref)
		if err != nil {
			return
		}
		target := b.Resolve(&r)
		ts := target.String()
		if !target.HasAuth && strings.HasPrefix(target.RawPath, "//") {
			// §5.2.4 can leave a path starting "//" where there is no
			// authority, and §5.3 then writes it out as if it were one
			// (RFC 3986 is literal here and the conformance cases expect
			// it, see TestResolveDoubleSlashPath): the string may read as
			// a different URI, or as none ("foo:" + "//@@").
			if want := target.RawScheme + ":" + target.RawPath; !strings.HasPrefix(ts, want) {
				t.Fatalf("resolve %q against %q = %q, path %q", ref, base, ts, target.RawPath)
			}
		} else if t2, err := ParseAbsolute(ts); err != nil {
			t.Fatalf("resolve %q against %q = %q, which does not parse: %v", ref, base, ts, err)
		} else if t2 != target {
			t.Fatalf("resolve %q against %q = %q, which parses as\n%+v\nnot\n%+v", ref, base, ts, t2, target)
		}
		if again := b.Resolve(&r); again != target {
			t.Fatalf("resolve %q against %q is not deterministic: %q then %q", ref, base, ts, again.String())
		}
		if r.RawPath != "" && hasDotSegment(target.RawPath) {
			t.Fatalf("resolve %q against %q = %q keeps a dot segment", ref, base, ts)
		}
		if r.IsAbsolute() && r.HasAuth {
			if target.RawScheme != r.RawScheme || target.Authority() != r.Authority() {
				t.Fatalf("resolve %q against %q = %q lost the reference's scheme or authority", ref, base, ts)
			}
		}
		// Normalizing the reference first changes nothing, for bases whose
		// path is rooted (a rootless base path is merged into a rootless
		// path, where §5.2.4 is not a segment calculus).
		if b.HasAuth || strings.HasPrefix(b.RawPath, "/") {
			n := r.Normalize()
			tn := b.Resolve(&n)
			if a, c := target.Normalize(), tn.Normalize(); a != c {
				t.Fatalf("base %q: %q resolves to %q (normal form %q), its normal form %q to %q (normal form %q)",
					base, ref, ts, a.String(), n.String(), tn.String(), c.String())
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		r, rerr := ParseAbsolute(s)
		if err != nil {
			checkError(t, err, s)
			// a string the generic syntax refuses is refused at the same
			// place for the same rule
			var e, re *Error
			if rerr != nil && errors.As(err, &e) && errors.As(rerr, &re) && (e.Offset != re.Offset || e.Rule != re.Rule) {
				t.Fatalf("Parse(%q): %v; ParseAbsolute: %v", s, err, rerr)
			}
			// a URI only its scheme refuses keeps its generic components
			errors.As(err, &e)
			if (e.Scheme != "") != (rerr == nil) || rerr == nil && (u.Ref != r || u.SchemeErr() != err) {
				t.Fatalf("Parse(%q): %v (scheme %q), %+v; ParseAbsolute: %+v, %v", s, err, e.Scheme, u.Ref, r, rerr)
			}
			return
		}
		if rerr != nil || r != u.Ref {
			t.Fatalf("Parse(%q) accepted %+v; ParseAbsolute: %+v, %v", s, u.Ref, r, rerr)
		}
		if u.Port > 65535 {
			t.Fatalf("Parse(%q): port %d", s, u.Port)
		}
		u2, err := Parse(u.String())
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q, which does not parse: %v", s, u.String(), err)
		}
		if !reflect.DeepEqual(u, u2) {
			t.Fatalf("Parse(%q) =\n%+v\nbut Parse(%q) =\n%+v", s, u, u.String(), u2)
		}
	})
}
