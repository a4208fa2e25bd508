package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// The RFC 3986 conformance cases (see urlparse/conformance_test.go) run
// through the command, in-process: what urlparse answers must also be what
// urlget url answers. The shared file holds them all (the uriparser ones
// are LGPL and not in the repository); without it, the permissive copy in
// urlparse/testdata is used and the totals are not checked.
const (
	urlSharedCases     = "../../../shared/conformance/rfc3986-cases.json"
	urlPermissiveCases = "../../urlparse/testdata/rfc3986-permissive.json"
	urlResolutionBase  = "http://a/b/c/d;p?q"
	urlStrictCases     = 850
)

type urlConfFile struct {
	Resolution []struct {
		ID          string  `json:"id"`
		Base        string  `json:"base"`
		Reference   string  `json:"reference"`
		Expected    *string `json:"expected"`
		Annotations struct {
			Class string `json:"class"`
		} `json:"annotations"`
	} `json:"resolution"`
	Parse []struct {
		ID          string `json:"id"`
		Input       string `json:"input"`
		Production  string `json:"production"`
		Valid       bool   `json:"valid"`
		Annotations struct {
			Class string `json:"class"`
		} `json:"annotations"`
	} `json:"parse"`
}

// urlConfCases loads the cases; all tells whether they are the whole set.
func urlConfCases(t *testing.T) (f *urlConfFile, all bool) {
	t.Helper()
	path, all := urlSharedCases, true
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		abs, _ := filepath.Abs(path)
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing (CI is set): the uriparser cases cannot be checked", abs)
		}
		t.Logf("%s missing: checking the permissive cases only", abs)
		path, all = urlPermissiveCases, false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f = new(urlConfFile)
	if err := json.Unmarshal(b, f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f, all
}

// urlRunQuiet runs urlget with args and no stdin.
func urlRunQuiet(args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = run(env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	return out.String(), errb.String(), code
}

// isWarning reports whether stderr is exactly one scheme warning line.
func isWarning(stderr string) bool {
	return strings.HasPrefix(stderr, "urlget: warning: url: not a valid ") && strings.Count(stderr, "\n") == 1 &&
		strings.HasSuffix(stderr, "\n")
}

// TestURLConformanceResolution: urlget url --base B -- REF prints RFC 3986
// §5.2's result for every rfc3986_strict case, exits 0, and at most warns
// about the scheme's syntax; with --strict such a case exits 3.
func TestURLConformanceResolution(t *testing.T) {
	f, all := urlConfCases(t)
	strict, warned := 0, 0
	for _, c := range f.Resolution {
		if c.Annotations.Class != "rfc3986_strict" {
			continue
		}
		strict++
		if c.Expected == nil {
			t.Errorf("%s: no expected result", c.ID)
			continue
		}
		args := []string{"url", "--base", c.Base, "--", c.Reference}
		out, errs, code := urlRunQuiet(args...)
		if out != *c.Expected+"\n" || code != 0 || errs != "" && !isWarning(errs) {
			t.Errorf("%s: urlget %q: stdout %q, stderr %q, exit %d; want %q, exit 0", c.ID, args, out, errs, code, *c.Expected)
			continue
		}
		if errs == "" {
			continue
		}
		warned++
		sout, serrs, scode := urlRunQuiet(append([]string{"url", "--strict"}, args[1:]...)...)
		if sout != "" || scode != 3 || serrs != strings.Replace(errs, "warning: ", "", 1) {
			t.Errorf("%s: urlget --strict %q: stdout %q, stderr %q, exit %d; want the warning as an error, exit 3", c.ID, args, sout, serrs, scode)
		}
	}
	t.Logf("%d rfc3986_strict resolution cases through the command; %d with a scheme warning", strict, warned)
	if all && strict != urlStrictCases {
		t.Errorf("%d rfc3986_strict cases, want %d", strict, urlStrictCases)
	}
	if warned == 0 {
		t.Error("no case had a scheme warning: the scheme layer was not exercised")
	}
}

// TestURLConformanceParse: every rfc3986_consistent parse case is accepted
// or refused through the command as its source expects. A URI production is
// accepted when the command prints the input unchanged as an absolute URI;
// an address production is asked through --json's host_kind. An input that
// is not ASCII can only be accepted as an IRI (converted, with "iri" in
// --json), never as the URI it claims to be.
func TestURLConformanceParse(t *testing.T) {
	f, _ := urlConfCases(t)
	n, asIRI := 0, 0
	for _, c := range f.Parse {
		if c.Annotations.Class != "rfc3986_consistent" {
			continue
		}
		n++
		args := []string{"url", "--json", "--", c.Input}
		switch {
		case strings.Contains(c.Production, "parse + resolve"):
			args = []string{"url", "--base", urlResolutionBase, "--json", "--", c.Input}
		case c.Production == "IPv4address":
			args[3] = "//" + c.Input
		case c.Production == "IPv6address":
			args[3] = "//[" + c.Input + "]"
		}
		out, errs, code := urlRunQuiet(args...)
		var obj map[string]any
		switch {
		case code == 0:
			if err := json.Unmarshal([]byte(out), &obj); err != nil || strings.Count(out, "\n") != 1 {
				t.Errorf("%s: urlget %q: stdout %q is not one JSON object: %v", c.ID, args, out, err)
				continue
			}
		case code != 3 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, " at byte "):
			t.Errorf("%s: urlget %q: stdout %q, stderr %q, exit %d; want one error line, exit 3", c.ID, args, out, errs, code)
			continue
		}
		accepted := code == 0
		_, hasScheme := obj["scheme"]
		_, hasIRI := obj["iri"]
		switch {
		case !accepted:
		case c.Production == "IPv4address":
			accepted = obj["host_kind"] == "ipv4"
		case c.Production == "IPv6address":
			accepted = obj["host_kind"] == "ipv6"
		case strings.Contains(c.Production, "parse + resolve"):
		case hasIRI:
			if utf8.ValidString(c.Input) && !isASCII(c.Input) && obj["iri"] == c.Input && obj["url"] != c.Input && isASCII(obj["url"].(string)) {
				asIRI++
				accepted = false // as a URI
			} else {
				t.Errorf("%s: urlget %q: %s", c.ID, args, out)
			}
		default:
			accepted = obj["url"] == c.Input && (hasScheme || !strings.HasPrefix(c.Production, "URI (") && !strings.HasPrefix(c.Production, "IRI ("))
		}
		if accepted != c.Valid {
			t.Errorf("%s: %s %q: urlget %q: stdout %q, stderr %q, exit %d; want valid=%v", c.ID, c.Production, c.Input, args, out, errs, code, c.Valid)
		}
	}
	t.Logf("%d rfc3986_consistent parse cases through the command; %d refused as URIs but taken as IRIs", n, asIRI)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
