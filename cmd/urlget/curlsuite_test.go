package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// Behaviours measured by curl's own test suite (issue #40), each beside
// curl on the in-tree recorder.

// TestHeadEchoedAsReceivedBesideCurl: -i and -D write a reply's head as
// the server sent it, bare LF line ends and folded lines included, as
// curl does; they are not rewritten with CRLF.
func TestHeadEchoedAsReceivedBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	const head = "HTTP/1.1 200 OK\nContent-Type: text/plain\r\nX-Folded: a\n  b\nContent-Length: 3\nConnection: close\n\n"
	rec.setAnswer(func([]byte) string { return head + "ok\n" })
	url := "http://" + rec.addr + "/lf"
	_, _, cout, uout := sendBesideCurl(t, curl, rec, []string{"-s", "-i", url}, "")
	if uout != head+"ok\n" || uout != cout {
		t.Errorf("-i wrote\n%q\nwant (curl)\n%q", uout, cout)
	}
	dir := t.TempDir()
	cfile, ufile := filepath.Join(dir, "c"), filepath.Join(dir, "u")
	if err := exec.Command(curl, "-s", "-D", cfile, "-o", os.DevNull, url).Run(); err != nil {
		t.Fatalf("curl: %v", err)
	}
	if r, _, _ := runOut(t, "-s", "-D", ufile, "-o", os.DevNull, url); r != 0 {
		t.Fatalf("urlget exit %d", r)
	}
	c, _ := os.ReadFile(cfile)
	u, _ := os.ReadFile(ufile)
	if string(u) != head || string(u) != string(c) {
		t.Errorf("-D wrote\n%q\nwant (curl)\n%q", u, c)
	}
}

// TestProxyConnectionBesideCurl: a request sent to an HTTP proxy (an http
// URL, or another scheme for the proxy to fetch) carries
// "Proxy-Connection: Keep-Alive", as curl 7.88's does; -H can remove it.
func TestProxyConnectionBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	proxy := "http://" + rec.addr
	for _, args := range [][]string{
		{"-x", proxy, "http://origin.invalid/page"},
		{"-x", proxy, "ftp://origin.invalid/file.txt"},
		{"-x", proxy, "-H", "Proxy-Connection:", "http://origin.invalid/page"},
	} {
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, args, "")
		if len(creqs) != 1 || len(ureqs) != 1 {
			t.Fatalf("%q: curl sent %d requests, urlget %d", args, len(creqs), len(ureqs))
		}
		if c, u := comparableRequest(creqs[0]), comparableRequest(ureqs[0]); c != u {
			t.Errorf("%q: requests differ:\nurlget %q\ncurl   %q", args, u, c)
		}
		if has := strings.Contains(string(ureqs[0]), "\r\nProxy-Connection: Keep-Alive\r\n"); has != (len(args) == 3) {
			t.Errorf("%q: Proxy-Connection sent: %v", args, has)
		}
	}
}

// TestNegatedBooleansBesideCurl: every boolean flag has curl's --no-NAME
// (and --NAME for a flag named no-NAME), which turns it off again, as
// later on the command line; help does not list them.
func TestNegatedBooleansBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	url := "http://" + rec.addr + "/n"
	for _, args := range [][]string{
		{"-i", "--no-include", url},
		{"--include", "--no-include", "--no-buffer", "--buffer", "--no-progress-meter", "--progress-meter", "-s", url},
		{"-L", "--no-location", "-s", "http://" + rec.addr + "/to/302"},
	} {
		_, _, cout, uout := sendBesideCurl(t, curl, rec, args, "")
		if uout != cout {
			t.Errorf("%q: urlget wrote %q, curl %q", args, uout, cout)
		}
	}
	if code, out, _ := runOut(t, "--help"); code != 0 || strings.Contains(out, "--no-include") || strings.Contains(out, "--no-location") {
		t.Errorf("--help: exit %d, lists the negations", code)
	}
}

// TestAuthOptionsBesideCurl: -U gives the proxy its credentials, --basic
// undoes --digest, --netrc-optional takes a missing --netrc-file for an
// empty one, and --disallow-username-in-url refuses a URL with a user
// name before anything is sent (exit 67): each as curl.
func TestAuthOptionsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	base := "http://" + rec.addr
	missing := filepath.Join(t.TempDir(), "no-netrc")
	for _, args := range [][]string{
		{"-x", base, "-U", "pu:pp", "http://origin.invalid/page"},
		{"-x", "http://xu:xp@" + rec.addr, "-U", "pu:pp", "http://origin.invalid/page"},
		{"--digest", "--basic", "-u", "a:b", base + "/b"},
		{"--netrc-optional", "--netrc-file", missing, base + "/n"},
	} {
		creqs, ureqs, cout, uout := sendBesideCurl(t, curl, rec, args, "")
		if len(creqs) != 1 || len(ureqs) != 1 {
			t.Fatalf("%q: curl sent %d requests, urlget %d", args, len(creqs), len(ureqs))
		}
		if c, u := comparableRequest(creqs[0]), comparableRequest(ureqs[0]); c != u || cout != uout {
			t.Errorf("%q: requests differ:\nurlget %q\ncurl   %q", args, u, c)
		}
	}
	args := []string{"-s", "--disallow-username-in-url", "http://user@" + rec.addr + "/u"}
	ccode := 0
	if err := exec.Command(curl, args...).Run(); err != nil {
		ccode = err.(*exec.ExitError).ExitCode()
	}
	ucode, _, _ := runOut(t, args...)
	if ucode != 67 || ucode != ccode || len(rec.take()) != 0 {
		t.Errorf("--disallow-username-in-url: urlget exit %d, curl %d, want 67 and no request", ucode, ccode)
	}
}

// TestAnyAuthBesideCurl: --anyauth (and --digest with --basic) sends the
// first request without credentials and answers a Digest challenge with
// Digest, a Basic-only one with Basic, as curl does.
func TestAnyAuthBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	digest := digestAnswer()
	rec.setAnswer(func(raw []byte) string {
		if !strings.Contains(string(raw), " /basic ") {
			return digest(raw)
		}
		if strings.Contains(string(raw), "\r\nAuthorization: Basic ") {
			return ""
		}
		return "HTTP/1.1 401 No\r\nWWW-Authenticate: Basic realm=\"r\"\r\nContent-Length: 0\r\n\r\n"
	})
	u := []string{"-s", "-u", digestUser + ":" + digestPass}
	for _, args := range [][]string{
		{"--anyauth", "http://" + rec.addr + "/basic"},
		{"--anyauth", "http://" + rec.addr + "/digest/md5"},
		{"--digest", "--basic", "http://" + rec.addr + "/basic"},
		{"--basic", "--digest", "http://" + rec.addr + "/digest/sha256"},
	} {
		creqs, ureqs, cout, uout := sendBesideCurl(t, curl, rec, append(u, args...), "")
		compareRequests(t, creqs, ureqs)
		if len(ureqs) != 2 || uout != cout {
			t.Errorf("%q: urlget sent %d requests, wrote %q (curl %q)", args, len(ureqs), uout, cout)
		}
	}
}

// TestProtoBesideCurl: --proto and --proto-redir leave out schemes before
// anything is sent to them (exit 1), the installer idiom `--proto =https
// --tlsv1.2 -sSf URL` included; --proto-default gives a URL without a
// scheme the one named: each as curl.
func TestProtoBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	base := "http://" + rec.addr
	for _, tc := range []struct {
		args    []string
		code, n int // exit status, requests each sends
	}{
		{[]string{"--proto", "=https", "--tlsv1.2", "-sSf", base + "/x"}, 1, 0},
		{[]string{"--proto", "-all,+http", "-s", base + "/x"}, 0, 1},
		{[]string{"--proto", "-http", "-s", base + "/x"}, 1, 0},
		{[]string{"--proto", "all,-https", "-s", base + "/x"}, 0, 1},
		{[]string{"-L", "--proto-redir", "=https", "-s", base + "/to/302"}, 1, 1},
		{[]string{"-L", "--proto-redir", "-all,http", "-s", base + "/to/302"}, 0, 2},
		{[]string{"-L", "--proto", "=http", "-s", base + "/to/302"}, 0, 2},
		{[]string{"--proto", "=ftp", "--proto-default", "ftp", "-s", testserver.FreeAddr(t) + "/x"}, 7, 0}, // guessed http: exit 1
		{[]string{"--proto-default", "http", "-s", rec.addr + "/x"}, 0, 1},
	} {
		ccode := 0
		if err := exec.Command(curl, tc.args...).Run(); err != nil {
			ccode = err.(*exec.ExitError).ExitCode()
		}
		creqs := rec.take()
		ucode, _, uerr := runOut(t, tc.args...)
		ureqs := rec.take()
		if ucode != tc.code || ccode != tc.code || len(creqs) != tc.n || len(ureqs) != tc.n {
			t.Errorf("%q: urlget exit %d with %d requests (%s), curl %d with %d; want %d with %d",
				tc.args, ucode, len(ureqs), strings.TrimSpace(uerr), ccode, len(creqs), tc.code, tc.n)
		}
	}
}

// exitBesideCurl runs curl, then urlget, with args, and gives each one's
// exit status.
func exitBesideCurl(t *testing.T, curl string, args ...string) (ucode, ccode int, uerr string) {
	t.Helper()
	cmd := exec.Command(curl, args...)
	cmd.Dir = t.TempDir()
	if err := cmd.Run(); err != nil {
		ccode = err.(*exec.ExitError).ExitCode()
	}
	ucode, _, uerr = runOut(t, args...)
	return ucode, ccode, uerr
}

// TestWrongResultsBesideCurl: exit statuses curl's suite found wrong
// (issue #40): an empty reply is 52, a -F file that does not open 26
// (before anything is sent).
func TestWrongResultsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	empty := fetchtest.CloseEarly(t, "\r\n\r\n", nil)
	rec := newRecorder(t)
	missing := filepath.Join(t.TempDir(), "missing")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-s", "http://" + empty.Addr + "/"}, 52},
		{[]string{"-s", "-F", "f=@" + missing, "http://" + rec.addr + "/form"}, 26},
		{[]string{"-s", "-F", "f=<" + missing, "http://" + rec.addr + "/form"}, 26},
	} {
		ucode, ccode, uerr := exitBesideCurl(t, curl, tc.args...)
		if ucode != tc.code || ccode != tc.code {
			t.Errorf("%q: urlget exit %d (%s), curl %d; want %d", tc.args, ucode, strings.TrimSpace(uerr), ccode, tc.code)
		}
	}
	if n := len(rec.take()); n != 0 {
		t.Errorf("%d requests sent with a -F file missing", n)
	}
}

// TestFileQueryBesideCurl: a file URL's query is ignored, as curl ignores
// it; an escaped %3F stays in the name.
func TestFileQueryBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("plain\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b?c.txt"), []byte("asked\n"), 0o644)
	for _, u := range []string{"file://" + dir + "/a.txt?x=1", "file://" + dir + "/b%3Fc.txt?y", "file://" + dir + "/b%3Fc.txt"} {
		cout, err := exec.Command(curl, "-s", u).Output()
		if err != nil {
			t.Fatalf("curl %s: %v", u, err)
		}
		code, uout, uerr := runOut(t, "-s", u)
		if code != 0 || uout != string(cout) {
			t.Errorf("%s: urlget exit %d %q (%s), curl %q", u, code, uout, uerr, cout)
		}
	}
}

// TestSecureCookieOverHTTPBesideCurl: a Secure cookie set over plain http
// is not kept (written to -c) unless the host is this machine by name, as
// curl's rule has it; the other cookies are.
func TestSecureCookieOverHTTPBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.setAnswer(func([]byte) string {
		return "HTTP/1.1 200 OK\r\nSet-Cookie: s=1; Secure\r\nSet-Cookie: p=2\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	})
	for _, tc := range []struct {
		args []string
		want int // cookies kept
	}{
		{[]string{"-x", "http://" + rec.addr, "http://shop.example/"}, 1},
		{[]string{"http://" + rec.addr + "/"}, 2}, // 127.0.0.1: a secure context
	} {
		c, u := jarsBesideCurl(t, curl, tc.args...)
		if len(u) != tc.want || strings.Join(c, "\n") != strings.Join(u, "\n") {
			t.Errorf("%q: urlget kept\n%q\ncurl\n%q", tc.args, u, c)
		}
	}
}

// TestSecureCookieOverlayBesideCurl: over plain http a cookie that would
// replace or shadow a Secure one held of its name (the same domain, its
// path under the Secure one's first segment) is dropped, as curl drops
// it (RFC 6265bis §5.6 step 15; curl's tests 414 and 1561); one of
// another name, or under another first segment, is kept.
func TestSecureCookieOverlayBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.setAnswer(func([]byte) string {
		return "HTTP/1.1 200 OK\r\nSet-Cookie: s=hacker\r\nSet-Cookie: s=deeper; path=/a/b/c\r\nSet-Cookie: s=elsewhere; path=/other\r\nSet-Cookie: t=plain; path=/a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	})
	dir := t.TempDir()
	held := filepath.Join(dir, "held")
	write(t, held, "shop.example\tFALSE\t/a/b\tTRUE\t0\ts\tsecret\n")
	c, u := jarsBesideCurl(t, curl, "-b", held, "-x", "http://"+rec.addr, "http://shop.example/a/b/page")
	if len(u) != 3 || slices.ContainsFunc(u, func(l string) bool { return strings.Contains(l, "hacker") || strings.Contains(l, "deeper") }) || !slices.Equal(c, u) {
		t.Errorf("urlget kept\n%q\ncurl\n%q", u, c)
	}
	rec.take()
}

// jarsBesideCurl runs curl, then urlget, with -s, args and a -c file of
// its own each, and gives the cookie lines each wrote (jarLines).
func jarsBesideCurl(t *testing.T, curl string, args ...string) (c, u []string) {
	t.Helper()
	dir := t.TempDir()
	cjar, ujar := filepath.Join(dir, "c"), filepath.Join(dir, "u")
	if err := exec.Command(curl, append([]string{"-s", "-c", cjar}, args...)...).Run(); err != nil {
		t.Fatalf("curl: %v", err)
	}
	if code, _, uerr := runOut(t, append([]string{"-s", "-c", ujar}, args...)...); code != 0 {
		t.Fatalf("urlget exit %d: %s", code, uerr)
	}
	return jarLines(cjar), jarLines(ujar)
}

// jarLines is a -c file's cookie lines (#HttpOnly_ ones included, the
// comments not), sorted: curl writes the newest first.
func jarLines(path string) []string {
	b, _ := os.ReadFile(path)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && (!strings.HasPrefix(l, "#") || strings.HasPrefix(l, "#HttpOnly_")) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// TestHttpOnlyJarBesideCurl: a cookie set HttpOnly is written to the -c
// file as curl writes it, its line starting "#HttpOnly_", and the others
// as curl's lines: a Domain that is the host's address makes no domain
// cookie (no leading dot, FALSE), as curl keeps it.
func TestHttpOnlyJarBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.setAnswer(func([]byte) string {
		return "HTTP/1.1 200 OK\r\nSet-Cookie: h=1; HttpOnly; Path=/\r\nSet-Cookie: p=2; path=/dir; expires=Fri, 01 Jan 2100 00:00:00 GMT\r\nSet-Cookie: d=3; domain=127.0.0.1; httponly; path=/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
	})
	c, u := jarsBesideCurl(t, curl, "http://"+rec.addr+"/dir/page")
	if len(u) != 3 || !slices.Contains(u, "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\th\t1") || !slices.Equal(c, u) {
		t.Errorf("urlget wrote\n%q\ncurl\n%q", u, c)
	}
	rec.take()
}

// TestConfigTabBesideCurl: a -K value's escaped trailing tab stays in
// it, as curl keeps it (its test 17): the User-Agent goes out ending in
// the tab, the request byte for byte curl's.
func TestConfigTabBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	conf := "#\n# a request without '--':\nrequest MOOO\n-A \"agent007 license to drill\\t\"\n--max-time 180\n"
	creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, []string{"-s", "-K", "-", "http://" + rec.addr + "/that.site.com/17"}, conf)
	if len(creqs) != 1 || len(ureqs) != 1 || string(creqs[0]) != string(ureqs[0]) ||
		!strings.Contains(string(ureqs[0]), "\r\nUser-Agent: agent007 license to drill\t\r\n") {
		t.Errorf("urlget sent %q, curl %q", ureqs, creqs)
	}
}

// TestUnknownHTTPVersionBesideCurl: a reply in a version not spoken
// (HTTP/1.2) is exit 1, as curl's.
func TestUnknownHTTPVersionBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.setAnswer(func([]byte) string { return "HTTP/1.2 200 OK\r\nContent-Length: 1\r\n\r\nx" })
	ucode, ccode, uerr := exitBesideCurl(t, curl, "-s", "http://"+rec.addr+"/v12")
	if ucode != 1 || ccode != 1 {
		t.Errorf("urlget exit %d (%s), curl %d; want 1", ucode, strings.TrimSpace(uerr), ccode)
	}
}

// setAnswer sets the recorder's answer, under its lock: its connections
// read it from goroutines of their own.
func (r *recorder) setAnswer(answer func(raw []byte) string) {
	r.mu.Lock()
	r.answer = answer
	r.mu.Unlock()
}

// TestHeaderOrderBesideCurl: a request's fields go out in curl 7.88's
// order (Host, the credentials, Range, User-Agent, Accept, ..., Cookie,
// the -H fields as given, the body's), byte for byte as curl sends them.
func TestHeaderOrderBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	url := "http://" + rec.addr + "/order"
	for _, args := range [][]string{
		{"-u", "user:pw", url},
		{"-d", "a=1", url},
		{"-H", "X-First: 1", "-d", "a=1", "-H", "X-Second: 2", "-u", "u:p", url},
		{"-e", "http://from.example/", "-b", "c=1", "-r", "0-9", "-H", "Accept: text/plain", url},
		{"-H", "User-Agent: given", "-H", "X-A: 1", url},
		{"-H", "X-Long: " + strings.Repeat("v", 9000), "-u", "u:p", url}, // a head net/http writes in pieces
		{"-z", "Sat, 01 Jan 2022 00:00:00 GMT", "-H", "X-B: 2", url},
		{"-x", "http://" + rec.addr, "-U", "pu:pp", "-u", "u:p", "http://origin.invalid/p"},
		{"-x", "http://" + rec.addr, "-H", "Host: other.example", "http://origin.invalid/a%20b?q=1"},
		{"-x", "http://" + rec.addr, "-H", "Host: other.example", "--request-target", "/given", "http://origin.invalid/p"},
		{"-X", "PUT", "-H", "Content-Type: text/x", "-d", "body", url},
		{"--json", `{"a":1}`, url}, // Content-Type and Accept as -H lines after the others
		{"-H", "X-A: 1", "--json", `{"a":1}`, "-H", "Accept: text/x", url},
		{"-H", "X-Sp: trailing ", "-H", "X-Tight:t", "-H", "X-Sp:", "-H", "X-Semi; x", "-H", "X-Two: 1", "-H", "X-Two: 2", url},
	} {
		full := append([]string{"-s", "-A", "ua/1"}, args...)
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, full, "")
		if len(creqs) != 1 || len(ureqs) != 1 {
			t.Fatalf("%q: curl sent %d requests, urlget %d", args, len(creqs), len(ureqs))
		}
		c := boundaryRE.ReplaceAllString(string(creqs[0]), "BOUNDARY")
		u := boundaryRE.ReplaceAllString(string(ureqs[0]), "BOUNDARY")
		if c != u {
			t.Errorf("%q: requests differ:\nurlget %q\ncurl   %q", args, u, c)
		}
	}
}

// TestRequestTargetBesideCurl: --request-target replaces the request
// line's path and query, as curl's.
func TestRequestTargetBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	for _, args := range [][]string{
		{"-X", "OPTIONS", "--request-target", "*", "http://" + rec.addr + "/ignored?q=1"},
		{"--request-target", "/other/path?x=y", "http://" + rec.addr + "/p"},
	} {
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, append([]string{"-s", "-A", "ua/1"}, args...), "")
		if len(creqs) != 1 || len(ureqs) != 1 || string(creqs[0]) != string(ureqs[0]) {
			t.Errorf("%q: urlget sent %q, curl %q", args, ureqs, creqs)
		}
	}
	if code, _, _ := runOut(t, "-s", "--request-target", "a b", "http://"+rec.addr+"/"); code != 3 {
		t.Errorf("a target with a space: exit %d, want 3", code)
	}
}

// TestHAProxyProtocolBesideCurl: --haproxy-protocol starts the connection
// with a PROXY v1 line of its own addresses and ports, as curl's.
func TestHAProxyProtocolBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	args := []string{"-s", "-A", "ua/1", "--haproxy-protocol", "http://" + rec.addr + "/h"}
	creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, args, "")
	_, port, _ := strings.Cut(rec.addr, ":")
	srcPort := regexp.MustCompile(`^PROXY TCP4 127\.0\.0\.1 127\.0\.0\.1 [0-9]+ ` + port + "\r\n")
	if len(creqs) != 1 || len(ureqs) != 1 {
		t.Fatalf("curl sent %d requests, urlget %d", len(creqs), len(ureqs))
	}
	c, u := string(creqs[0]), string(ureqs[0])
	if !srcPort.MatchString(u) || srcPort.ReplaceAllString(c, "") != srcPort.ReplaceAllString(u, "") {
		t.Errorf("urlget sent %q, curl %q", u, c)
	}
}

// TestLocalhostNamesBesideCurl: "localhost" and every name under it are
// the loopback address without asking DNS (RFC 6761), as curl resolves
// them: the request goes there, its Host field naming the name.
func TestLocalhostNamesBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	_, port, _ := net.SplitHostPort(rec.addr)
	for _, host := range []string{"curlmachine.localhost", "a.b.Localhost", "localhost"} {
		url := "http://" + host + ":" + port + "/l"
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, []string{"-s", "-A", "ua/1", url}, "")
		if len(creqs) != 1 || len(ureqs) != 1 || string(creqs[0]) != string(ureqs[0]) {
			t.Errorf("%s: urlget sent %q, curl %q", host, ureqs, creqs)
		}
	}
}

// curlSuiteBegin and curlSuiteEnd mark docs/curl.md's block made from
// testdata/curl-suite.tsv and curl-suite-reasons.tsv (curlSuiteBlock).
const (
	curlSuiteBegin = "<!-- curl-suite: made from cmd/urlget/testdata/curl-suite*.tsv by go test ./cmd/urlget -run TestCurlSuiteList -update-docs -->\n"
	curlSuiteEnd   = "<!-- /curl-suite -->\n"
)

var exitReason = regexp.MustCompile(`^exit-[0-9]+$`)

// readTSV reads a testdata TSV file: its rows, and its "#" lines.
func readTSV(t *testing.T, name string) (rows [][]string, comments []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if c, ok := strings.CutPrefix(line, "# "); ok {
			comments = append(comments, c)
			continue
		}
		rows = append(rows, strings.Split(line, "\t"))
	}
	return rows, comments
}

// curlSuiteBlock is docs/curl.md's account of curl's test suite: how many of
// the tests curl passes urlget passes, and for each reason of the list
// how many tests it explains.
func curlSuiteBlock(t *testing.T) string {
	t.Helper()
	tests, comments := readTSV(t, "curl-suite.tsv")
	reasons, _ := readTSV(t, "curl-suite-reasons.tsv")
	meaning := map[string]string{}
	var order []string
	for _, r := range reasons {
		if len(r) != 2 || r[0] == "" {
			t.Fatalf("curl-suite-reasons.tsv: row %q: want a reason and its meaning", r)
		}
		meaning[r[0]] = r[1]
		order = append(order, r[0])
	}
	count := map[string]int{}
	seen := map[string]bool{}
	for _, r := range tests {
		if len(r) >= 3 && exitReason.MatchString(r[2]) {
			r[2] = "exit-N" // exit-8, exit-47: one reason, the code in its name
		}
		if len(r) < 3 || meaning[r[2]] == "" {
			t.Fatalf("curl-suite.tsv: row %q: want a test, a keyword and a reason of curl-suite-reasons.tsv", r)
		}
		if seen[r[0]] {
			t.Fatalf("curl-suite.tsv: test %s listed twice", r[0])
		}
		seen[r[0]] = true
		count[r[2]]++
	}
	var b strings.Builder
	if len(comments) > 0 {
		if _, m, ok := strings.Cut(comments[0], "Measured "); ok {
			// The score and the list come from one run: every test curl
			// passes and urlget does not is a row.
			var passed, of int
			if _, s, ok := strings.Cut(m, "): "); !ok {
				t.Fatalf("curl-suite.tsv: the Measured line %q gives no score", m)
			} else if _, err := fmt.Sscanf(s, "%d of %d passed", &passed, &of); err != nil || of-passed != len(tests) {
				t.Fatalf("curl-suite.tsv: the Measured line says %q, but %d tests are listed", s, len(tests))
			}
			fmt.Fprintf(&b, "Measured %s %d tests are listed.\n\n", m, len(tests))
		}
	}
	b.WriteString("| reason | tests | what it is |\n|---|---|---|\n")
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	for _, id := range order {
		if count[id] > 0 {
			fmt.Fprintf(&b, "| `%s` | %d | %s |\n", id, count[id], meaning[id])
		}
	}
	return b.String()
}

// TestCurlSuiteList: every test of the list has a reason the reasons file
// explains, none is listed twice, and docs/curl.md's block is the one the two
// files make (-update-docs rewrites it).
func TestCurlSuiteList(t *testing.T) {
	docBlock(t, "docs/curl.md", curlSuiteBegin, curlSuiteEnd, curlSuiteBlock(t), "TestCurlSuiteList")
}

// docBlock checks that the block of the repository's document doc (a
// slash-separated path from the repository's root) from begin to end (the
// marker lines) is block, and with -update-docs writes it there; test
// names the test that makes it, for the message.
func docBlock(t *testing.T, doc, begin, end, block, test string) {
	t.Helper()
	readme := filepath.Join("..", "..", filepath.FromSlash(doc))
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no block %q … %q", doc, begin, end)
	}
	block = begin + block + end
	have := s[i : j+len(end)]
	if *updateDocs {
		if err := os.WriteFile(readme, []byte(s[:i]+block+s[j+len(end):]), 0o644); err != nil {
			t.Fatal(err)
		}
		have = block
	}
	if have != block {
		t.Errorf("%s: the block %q is not what it is made from: run go test ./cmd/urlget -run %s -update-docs", doc, strings.TrimSpace(begin), test)
	}
}

// TestHTTP10BesideCurl: -0/--http1.0 sends an HTTP/1.0 request, as curl's.
func TestHTTP10BesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	for _, args := range [][]string{
		{"-0", "http://" + rec.addr + "/zero"},
		{"--http1.0", "-u", "u:p", "-d", "x=1", "http://" + rec.addr + "/post"},
	} {
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, append([]string{"-s", "-A", "ua/1"}, args...), "")
		if len(creqs) != 1 || len(ureqs) != 1 || string(creqs[0]) != string(ureqs[0]) || !strings.Contains(string(ureqs[0]), " HTTP/1.0\r\n") {
			t.Errorf("%q: urlget sent %q, curl %q", args, ureqs, creqs)
		}
	}
}

// TestEmptyUserAgentBesideCurl: -A "" (also from a config file, after an
// earlier -A) sends no User-Agent, as curl's (its test 71); a -H line can
// still give one.
func TestEmptyUserAgentBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	url := "http://" + rec.addr + "/ua"
	conf := filepath.Join(t.TempDir(), "conf")
	if err := os.WriteFile(conf, []byte("user-agent = \"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-A", "", url},
		{"-A", "first/1", "-K", conf, url},
		{"-A", "", "-H", "User-Agent: given/2", url},
	} {
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, append([]string{"-s"}, args...), "")
		if len(creqs) != 1 || len(ureqs) != 1 || string(creqs[0]) != string(ureqs[0]) {
			t.Errorf("%q: urlget sent %q, curl %q", args, ureqs, creqs)
		}
	}
}

// TestRedirectLimitBesideCurl: the redirect past --max-redirs is exit 47,
// and its header is printed with -i and told of by -w, as by curl (its
// tests 1261, 25 and 274); with -f, so is a 404's.
func TestRedirectLimitBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.setAnswer(func(raw []byte) string {
		if bytes.Contains(raw, []byte("GET /gone")) {
			return "HTTP/1.1 404 Not Found\r\nContent-Length: 4\r\n\r\ngone"
		}
		return "HTTP/1.1 301 Moved\r\nLocation: next?x=1\r\nContent-Length: 5\r\n\r\nmoved"
	})
	base := "http://" + rec.addr
	for _, args := range [][]string{
		{"-s", "-i", "-L", "--max-redirs", "0", "-w", "%{redirect_url} %{response_code}\\n", base + "/a/b"},
		{"-s", "-i", "-L", "--max-redirs", "2", "-w", "%{redirect_url} %{num_redirects}\\n", base + "/a/b"},
		{"-s", "-i", "-f", "-w", "%{response_code}\\n", base + "/gone"},
	} {
		cmd := exec.Command(curl, args...)
		var cout bytes.Buffer
		cmd.Stdout = &cout
		ccode := 0
		if err := cmd.Run(); err != nil {
			ccode = err.(*exec.ExitError).ExitCode()
		}
		ucode, uout, uerr := runOut(t, args...)
		if ucode != ccode || uout != cout.String() {
			t.Errorf("%q: urlget exit %d %q (%s), curl %d %q", args, ucode, uout, strings.TrimSpace(uerr), ccode, cout.String())
		}
	}
}

// TestMethodAfterRedirectBesideCurl: -w %{method} is the last request's:
// GET after a 302 to a POST, POST again after a 307 (curl's test 1197).
func TestMethodAfterRedirectBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.setAnswer(func(raw []byte) string {
		for _, code := range []string{"302", "307"} {
			if bytes.HasPrefix(raw, []byte("POST /"+code+" ")) {
				// The recorder closes each connection after one reply:
				// it says so, or a reuse of it would race the close.
				return "HTTP/1.1 " + code + " Moved\r\nLocation: /end\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
			}
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	})
	for _, code := range []string{"302", "307"} {
		args := []string{"-s", "-L", "-d", "x=1", "-w", " %{method}", "http://" + rec.addr + "/" + code}
		_, _, cout, uout := sendBesideCurl(t, curl, rec, args, "")
		if cout != uout {
			t.Errorf("%q: urlget wrote %q, curl %q", args, uout, cout)
		}
	}
}

// TestUploadRedirectBesideCurl: -T with -L follows curl's rule: a 303
// makes the next request a GET without the body (its test 1524), a 302
// sends the PUT again, body and all.
func TestUploadRedirectBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.setAnswer(func(raw []byte) string {
		for _, code := range []string{"302", "303"} {
			if bytes.HasPrefix(raw, []byte("PUT /"+code+"/")) {
				// The recorder closes each connection after one reply:
				// it says so, or a reuse of it would race the close.
				return "HTTP/1.1 " + code + " Moved\r\nLocation: /end\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
			}
		}
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
	})
	up := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(up, []byte("moo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, code := range []string{"302", "303"} {
		args := []string{"-s", "-A", "ua/1", "-L", "-T", up, "-w", " %{method}", "http://" + rec.addr + "/" + code + "/"}
		creqs, ureqs, cout, uout := sendBesideCurl(t, curl, rec, args, "")
		if len(creqs) != 2 || len(ureqs) != 2 || string(creqs[1]) != string(ureqs[1]) || cout != uout {
			t.Errorf("%s: urlget sent %q and wrote %q, curl %q and %q", code, ureqs, uout, creqs, cout)
		}
	}
}
