package urlglob

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

// curlExpand runs curl on glob (with -o template when there is one)
// through an HTTP proxy on 127.0.0.1 that closes every connection at once,
// so that nothing is resolved or fetched, and gives what curl printed for
// each URL: the URL it made of the glob and, with a template, the output
// name (-w '%{url}' and '%{filename_effective}'); or, for a glob it
// refuses, its exit status and first line of error.
func curlExpand(t *testing.T, curl, proxy, glob, template string) (lines []string, errLine string, code int) {
	t.Helper()
	args := []string{"-s", "-S", "-x", "http://" + proxy, "-w", "%{url}\t%{filename_effective}\n"}
	if template != "" {
		args = append(args, "-o", template)
	}
	// A glob curl takes for a valid one of 10^19 URLs would run for ever:
	// the deadline is a guard, not a measure.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, curl, append(args, "--", glob)...)
	cmd.Dir = t.TempDir() // curl writes nothing here: no reply has a body
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("curl still running on %s after a minute", glob)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	errLine, _, _ = strings.Cut(stderr.String(), "\n")
	return strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n"), errLine, code
}

// closer is an HTTP proxy that answers nothing.
func closer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// TestSameAsCurl: the globs of curl's manual and the other forms give, in
// curl and here, the same URLs in the same order with the same output
// names; the malformed ones the same message, position included, and
// curl's exit status 3. It needs curl (skipped without it, failed with CI
// set).
func TestSameAsCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	proxy := closer(t)
	type example struct{ glob, template string }
	var examples []example
	for _, ex := range manualExamples {
		examples = append(examples, example{ex.glob, ex.template})
	}
	for _, g := range []string{"x{a,,b}", "x{,a}", `h/x\{a\}{\,,b\}}`, `x{\a}`, "h/x[]", "http://[::1]:8/[1-2]",
		"h[Z-a]", "h[1- 3]", "h[1-3:+2]", "h[0-10:5]", "h[08-11]", "h[5-5]", "h[q-q]", "h{a,b}[1-2]{c}"} {
		examples = append(examples, example{g, "n#1"})
	}
	examples = append(examples, example{"http://h/{a,b}/[1-2]", "#0#2#12#1x##1#"}, example{"http://h/{a,b}", "#99999999999999999999999"})
	for _, ex := range examples {
		want, errLine, code := curlExpand(t, curl, proxy, ex.glob, ex.template)
		if code == 3 {
			t.Errorf("curl refuses %s: %s", ex.glob, errLine)
			continue
		}
		urls, names := expand(t, ex.glob, ex.template)
		var got []string
		for i := range urls {
			got = append(got, urls[i]+"\t"+names[i])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s -o %q:\nurlglob %q\ncurl    %q", ex.glob, ex.template, got, want)
		}
	}
	for _, tc := range badGlobs {
		_, errLine, code := curlExpand(t, curl, proxy, tc.glob, "")
		_, err := Parse(tc.glob, 0)
		want := ""
		if e, ok := err.(*Error); ok {
			want = "curl: (3) " + e.Error()
			if e.Pos > 0 {
				want += ":" // the glob and a caret follow
			}
		}
		if code != 3 || errLine != want {
			t.Errorf("%s: curl %d %q; urlglob %v", tc.glob, code, errLine, err)
		}
	}
}
