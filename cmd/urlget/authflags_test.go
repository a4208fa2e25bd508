package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// digestUser and digestPass are the credentials the digest recorder knows.
const digestUser, digestPass = "mufasa", "Circle Of Life"

// digestAnswer answers the recorder's /digest/NAME requests as a server
// guarding them with Digest authentication (fetchtest.DigestAuth): a 401
// with a challenge until the Authorization is right, then the recorder's
// usual reply. /digest/stale calls a right answer to a first challenge
// stale (a 401 with stale=true and a new nonce).
func digestAnswer() func(raw []byte) string {
	auths := map[string]*fetchtest.DigestAuth{
		"md5":         {Algorithm: "MD5", QOP: "auth"},
		"sha256":      {Algorithm: "SHA-256", QOP: "auth"},
		"md5-sess":    {Algorithm: "MD5-sess", QOP: "auth"},
		"sha256-sess": {Algorithm: "SHA-256-sess", QOP: "auth"},
		"noqop":       {},
		"opaque":      {QOP: "auth,auth-int", Opaque: "5ccc069c403ebaf9f0171e9517f40e41"},
		"userhash":    {Algorithm: "SHA-256", QOP: "auth", UserHash: true},
		"stale":       {Algorithm: "SHA-256", QOP: "auth"},
	}
	for _, d := range auths {
		d.Realm, d.User, d.Password = "testrealm@host.com", digestUser, digestPass
	}
	var mu sync.Mutex
	first := map[string]bool{} // /digest/stale's first challenges' nonces
	nonceRE := regexp.MustCompile(`\bnonce="([^"]*)"`)
	return func(raw []byte) string {
		head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
		lines := strings.Split(head, "\r\n")
		f := strings.Fields(lines[0])
		name, ok := strings.CutPrefix(f[1], "/digest/")
		if !ok {
			return ""
		}
		name, _, _ = strings.Cut(name, "?")
		d := auths[name]
		authz := ""
		for _, l := range lines[1:] {
			if k, v, _ := strings.Cut(l, ":"); strings.EqualFold(k, "Authorization") {
				authz = strings.TrimSpace(v)
			}
		}
		err := fmt.Errorf("no Authorization")
		if authz != "" {
			err = d.Check(f[0], f[1], authz)
		}
		stale := err == nil && name == "stale" && func() bool {
			mu.Lock()
			defer mu.Unlock()
			m := nonceRE.FindStringSubmatch(authz)
			return m != nil && first[m[1]]
		}()
		if err == nil && !stale {
			return ""
		}
		ch := d.Challenge(stale)
		if name == "stale" && !stale {
			mu.Lock()
			first[nonceRE.FindStringSubmatch(ch)[1]] = true
			mu.Unlock()
		}
		return "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: " + ch + "\r\nContent-Type: text/plain\r\nContent-Length: 11\r\nConnection: close\r\n\r\n401 digest\n"
	}
}

// digestFieldsRE finds what a Digest answer may hold that differs from
// one client to the other: the nonces (the server's, given afresh to
// each), the cnonce and the response computed from it.
var digestFieldsRE = regexp.MustCompile(`\b(c?nonce|response)="[^"]*"`)

// comparableAuthRequest is comparableRequest with the differing Digest
// fields masked: the server checked them.
func comparableAuthRequest(b []byte) string {
	return digestFieldsRE.ReplaceAllString(comparableRequest(b), `$1="*"`)
}

// compareRequests compares what curl and urlget sent, request by request.
func compareRequests(t *testing.T, creqs, ureqs [][]byte) {
	t.Helper()
	if len(creqs) != len(ureqs) || len(creqs) == 0 {
		t.Errorf("curl sent %d requests, urlget %d:\ncurl   %q\nurlget %q", len(creqs), len(ureqs), creqs, ureqs)
		return
	}
	for i := range creqs {
		if c, u := comparableAuthRequest(creqs[i]), comparableAuthRequest(ureqs[i]); c != u {
			t.Errorf("request %d differs:\nurlget %q\ncurl   %q", i+1, u, c)
		}
	}
}

// TestDigestBesideCurl: --digest beside curl's, against a recorder that
// verifies the answers (nginx in Debian has no Digest module): the same
// requests — none with credentials, then the answer — but for the nonces,
// cnonce and response, the same output; a wrong password gets the 401
// from both, and exit 22 with -f.
func TestDigestBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.answer = digestAnswer()
	base := "http://" + rec.addr + "/digest/"
	u := []string{"--digest", "-u", digestUser + ":" + digestPass}
	for _, tc := range []struct {
		name string
		args []string
		n    int // requests each sends
	}{
		{"MD5", []string{base + "md5?a=1&b=%20"}, 2},
		{"SHA-256", []string{base + "sha256"}, 2},
		{"MD5-sess", []string{base + "md5-sess"}, 2},
		{"SHA-256-sess", []string{base + "sha256-sess"}, 2},
		{"no qop", []string{base + "noqop"}, 2},
		{"opaque, auth-int offered", []string{base + "opaque"}, 2},
		{"userhash", []string{base + "userhash"}, 2},
		{"stale", []string{base + "stale"}, 3},
		{"POST", []string{"-d", "a=1&b=2", base + "md5"}, 2},
		{"PUT", []string{"-T", "-", base + "sha256"}, 2},
		{"HEAD", []string{"-I", base + "md5"}, 2},
		{"-i", []string{"-i", base + "userhash"}, 2},
		{"-i stale", []string{"-i", base + "stale"}, 3},
		{"-w", []string{"-w", "%{http_code} %{size_header} %{num_redirects} %{num_connects}", base + "md5"}, 2},
		{"-w stale", []string{"-w", "%{http_code} %{size_header} %{num_redirects} %{num_connects}", base + "stale"}, 3},
		{"-w -L", []string{"-L", "-w", "%{http_code} %{size_header} %{num_redirects} %{num_connects}", "http://" + rec.addr + "/to/307"}, 2},
		{"two URLs", []string{base + "md5", base + "sha256"}, 4},
		{"-L", []string{"-L", "http://" + rec.addr + "/to/302"}, 2},
		{"wrong password", []string{"-u", digestUser + ":wrong", base + "md5"}, 2},
		{"no challenge", []string{"http://" + rec.addr + "/plain"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"-s"}, u...), tc.args...)
			creqs, ureqs, cout, uout := sendBesideCurl(t, curl, rec, args, "put body\n")
			compareRequests(t, creqs, ureqs)
			if len(ureqs) != tc.n {
				t.Errorf("urlget sent %d requests, want %d", len(ureqs), tc.n)
			}
			if digestFieldsRE.ReplaceAllString(cout, "") != digestFieldsRE.ReplaceAllString(uout, "") {
				t.Errorf("stdout differs:\nurlget %q\ncurl   %q", uout, cout)
			}
		})
	}
	runSideBySide(t, curl, []sideCase{
		{name: "-o", args: append(u, "-o", "out", base+"sha256")},
		{name: "-f wrong password", args: []string{"--digest", "-u", "x:y", "-f", "-o", "out", base + "md5"}, code: 22},
	})
}

// TestAuthFlagsBesideCurl: --oauth2-bearer, --location-trusted (or not)
// across origins, -j with -b FILE and --path-as-is, beside curl against
// the recorder: the same requests but for the User-Agent.
func TestAuthFlagsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec, other := newRecorder(t), newRecorder(t)
	base := "http://" + rec.addr
	rec.answer = func(raw []byte) string {
		if strings.HasPrefix(string(raw), "GET /away ") {
			return "HTTP/1.1 302 Found\r\nLocation: http://" + other.addr + "/there\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
		}
		return ""
	}
	dir := t.TempDir()
	cookies := filepath.Join(dir, "cookies.txt")
	host := strings.Split(rec.addr, ":")[0]
	os.WriteFile(cookies, []byte("# Netscape HTTP Cookie File\n"+
		host+"\tFALSE\t/\tFALSE\t0\tsession\ts1\n"+
		host+"\tFALSE\t/\tFALSE\t4102444800\tlasting\tl1\n"), 0o644)
	hdrs := []string{"-H", "Authorization: Custom abc", "-H", "Cookie: c=1", "-H", "X-Kept: 1"}
	for _, tc := range []struct {
		name   string
		args   []string
		others int // requests the other origin gets from each
	}{
		{"--oauth2-bearer", []string{"--oauth2-bearer", "mF_9.B5f-4.1JqM", base + "/r"}, 0},
		{"--oauth2-bearer -u", []string{"-u", "a:b", "--oauth2-bearer", "tok", base + "/r"}, 0},
		{"--oauth2-bearer -H Authorization", []string{"--oauth2-bearer", "tok", "-H", "Authorization: Mine", base + "/r"}, 0},
		{"-L -u same origin", []string{"-L", "-u", "a:b", base + "/to/301"}, 0},
		{"-L -u other origin", []string{"-L", "-u", "a:b", base + "/away"}, 1},
		{"--location-trusted -u", []string{"--location-trusted", "-u", "a:b", base + "/away"}, 1},
		{"-L --oauth2-bearer other origin", []string{"-L", "--oauth2-bearer", "tok", base + "/away"}, 1},
		{"--location-trusted --oauth2-bearer", []string{"--location-trusted", "--oauth2-bearer", "tok", base + "/away"}, 1},
		{"-L -H other origin", append(append([]string{"-L"}, hdrs...), base+"/away"), 1},
		{"--location-trusted -H", append(append([]string{"--location-trusted"}, hdrs...), base+"/away"), 1},
		{"-u in the URL, other origin", []string{"-L", "http://user:pw@" + rec.addr + "/away"}, 1},
		{"-j -b FILE", []string{"-j", "-b", cookies, base + "/r"}, 0},
		{"-j -b TEXT", []string{"-j", "-b", "x=1", base + "/r"}, 0},
		{"dot segments", []string{base + "/a/./b/../../c/%2e%2e/d/..?x=/../y"}, 0},
		{"--path-as-is", []string{"--path-as-is", base + "/a/./b/../../c/%2e%2e/d/..?x=/../y"}, 0},
		{"dot segments, -w url_effective", []string{"-w", "%{url_effective}", base + "/../x/."}, 0},
		{"--path-as-is -w url_effective", []string{"--path-as-is", "-w", "%{url_effective}", base + "/../x/."}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			creqs, ureqs, cout, uout := sendBesideCurl(t, curl, rec, append([]string{"-s"}, tc.args...), "")
			compareRequests(t, creqs, ureqs)
			if cout != uout {
				t.Errorf("stdout differs:\nurlget %q\ncurl   %q", uout, cout)
			}
			got := other.take()
			if len(got) != 2*tc.others {
				t.Fatalf("the other origin got %d requests, want %d from each", len(got), tc.others)
			}
			if tc.others > 0 {
				compareRequests(t, got[:tc.others], got[tc.others:])
			}
		})
	}
}

// TestPathAsIsBesideCurl: against nginx, which refuses a path climbing
// above the root (400) and serves one that stays in it.
func TestPathAsIsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s, _ := nginxFixture(t)
	runSideBySide(t, curl, []sideCase{
		{name: "dot segments", args: []string{s.URL + "/../dir/./x/../index.txt"}},
		{name: "--path-as-is above the root", args: []string{"--path-as-is", s.URL + "/../dir/index.txt"}},
		{name: "--path-as-is -f above the root", args: []string{"-f", "--path-as-is", s.URL + "/../dir/index.txt"}, code: 22},
		{name: "--path-as-is in the root", args: []string{"--path-as-is", "-O", s.URL + "/dir/x/../index.txt"}},
		{name: "-O after dot segments", args: []string{"-O", s.URL + "/dir/index.txt/.."}, code: 23},
	})
}
