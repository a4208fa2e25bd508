package http_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
)

// authLog is what a test server saw: each request's Authorization and
// body, in order.
type authLog struct {
	mu    sync.Mutex
	authz []string
	body  []string
}

func (l *authLog) add(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.authz = append(l.authz, r.Header.Get("Authorization"))
	l.body = append(l.body, string(b))
}

func (l *authLog) take() (authz, body []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	authz, body = l.authz, l.body
	l.authz, l.body = nil, nil
	return authz, body
}

// digestServer serves "ok\n" (and the body it got) behind d.
func digestServer(t *testing.T, d *fetchtest.DigestAuth, log *authLog) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if d.Serve(w, r) {
			io.WriteString(w, "ok\n")
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestDigest: every algorithm curl answers, with and without qop, opaque
// and userhash, checked by a server that verifies the answer: the first
// request goes without credentials, the second answers the challenge.
func TestDigest(t *testing.T) {
	for _, d := range []*fetchtest.DigestAuth{
		{Algorithm: "MD5", QOP: "auth"},
		{QOP: "auth", Opaque: "opaque/value=="},
		{},
		{Algorithm: "MD5-sess", QOP: "auth"},
		{Algorithm: "SHA-256", QOP: "auth,auth-int"},
		{Algorithm: "SHA-256-sess", QOP: "auth"},
		{Algorithm: "SHA-512-256", QOP: "auth", UserHash: true},
		{Algorithm: "SHA-256", QOP: "auth-int"},
	} {
		d.Realm, d.User, d.Password = "test realm", `al"ice`, "pass:word"
		t.Run(d.Algorithm+"/"+d.QOP, func(t *testing.T) {
			var log authLog
			base := digestServer(t, d, &log)
			var v strings.Builder
			c := &fetch.Client{Digest: true, User: d.User, Password: d.Password, HasUser: true, HasPassword: true, Verbose: &v}
			res, got, err := get(t, c, &fetch.Request{URL: parse(t, base+"/dir/index.html?a=1&b")})
			if err != nil || string(got) != "ok\n" || res.Status != 200 {
				t.Fatalf("%q %v status %d: %s", got, err, res.Status, res.Header.Get("X-Digest-Error"))
			}
			if len(res.AuthReplies) != 1 || res.AuthReplies[0].Status != 401 {
				t.Errorf("AuthReplies %+v, want the 401", res.AuthReplies)
			}
			if !strings.Contains(v.String(), "> Authorization: Digest ****\n") || strings.Contains(v.String(), "response=") {
				t.Errorf("verbose log: the answer not masked:\n%s", v.String())
			}
			authz, _ := log.take()
			if len(authz) != 2 || authz[0] != "" || !strings.HasPrefix(authz[1], "Digest ") {
				t.Errorf("Authorization fields sent: %q; want none, then a Digest answer", authz)
			}
			// A wrong password: the second 401 is the result, no third try.
			c.Password = "wrong"
			res, _, err = get(t, c, &fetch.Request{URL: parse(t, base+"/x")})
			if err != nil || res.Status != 401 {
				t.Fatalf("wrong password: status %d, %v", res.Status, err)
			}
			if authz, _ := log.take(); len(authz) != 2 {
				t.Errorf("wrong password: %d requests, want 2", len(authz))
			}
		})
	}
}

// TestDigestStaleAndBody: a 401 with stale=true is answered again with
// the new nonce (a few times at most); a request with a body probes with
// an empty one first, as curl does; no challenge, no answer.
func TestDigestStaleAndBody(t *testing.T) {
	d := &fetchtest.DigestAuth{Realm: "r", User: "u", Password: "p", QOP: "auth", Algorithm: "SHA-256"}
	var log authLog
	var mu sync.Mutex
	staleLeft := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		switch {
		case r.URL.Path == "/open":
			io.WriteString(w, "open\n")
			return
		case r.URL.Path == "/basic":
			w.Header().Set("WWW-Authenticate", `Basic realm="r"`)
			w.WriteHeader(401)
			return
		case !d.Serve(w, r):
			return
		}
		mu.Lock()
		stale := staleLeft > 0
		staleLeft--
		mu.Unlock()
		if stale {
			w.Header().Set("WWW-Authenticate", d.Challenge(true))
			w.WriteHeader(401)
			return
		}
		io.WriteString(w, "ok\n")
	}))
	defer srv.Close()
	c := &fetch.Client{Digest: true, User: "u", Password: "p", HasUser: true, HasPassword: true}

	staleLeft = 2
	_, got, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/s")})
	if authz, _ := log.take(); err != nil || string(got) != "ok\n" || len(authz) != 4 {
		t.Errorf("stale twice: %q %v, %d requests (want 4: none, answer, 2 answers to stale)", got, err, len(authz))
	}
	staleLeft = 100
	res, _, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/s")})
	if authz, _ := log.take(); err != nil || res.Status != 401 || len(authz) != 5 {
		t.Errorf("always stale: status %d %v, %d requests (want 401 after 5)", res.Status, err, len(authz))
	}
	staleLeft = 0

	body := "a=1&b=2"
	req := &fetch.Request{URL: parse(t, srv.URL+"/post"), Body: strings.NewReader(body), BodySize: int64(len(body))}
	_, got, err = get(t, c, req)
	authz, bodies := log.take()
	if err != nil || string(got) != "ok\n" || len(authz) != 2 || authz[0] != "" || bodies[0] != "" || bodies[1] != body {
		t.Errorf("POST: %q %v; sent %q with bodies %q; want a probe without body, then the body", got, err, authz, bodies)
	}
	// Stale after the body went: sent again from GetBody, or not at all.
	staleLeft = 1
	req = &fetch.Request{URL: parse(t, srv.URL+"/post"), Body: strings.NewReader(body), BodySize: int64(len(body)),
		GetBody: func() (io.Reader, error) { return strings.NewReader(body), nil }}
	_, got, err = get(t, c, req)
	_, bodies = log.take()
	if err != nil || string(got) != "ok\n" || len(bodies) != 3 || bodies[1] != body || bodies[2] != body {
		t.Errorf("POST, stale: %q %v; bodies %q; want the probe, the body twice", got, err, bodies)
	}
	staleLeft = 1
	req = &fetch.Request{URL: parse(t, srv.URL+"/post"), Body: strings.NewReader(body), BodySize: int64(len(body))}
	res, _, err = get(t, c, req)
	_, bodies = log.take()
	if err != nil || res.Status != 401 || len(bodies) != 2 {
		t.Errorf("POST from a pipe, stale: status %d %v; bodies %q; want the stale 401 after 2 requests", res.Status, err, bodies)
	}
	staleLeft = 0
	req = &fetch.Request{URL: parse(t, srv.URL+"/open"), Body: strings.NewReader(body), BodySize: int64(len(body))}
	_, got, err = get(t, c, req)
	authz, bodies = log.take()
	if err != nil || string(got) != "open\n" || len(authz) != 2 || authz[1] != "" || bodies[1] != body {
		t.Errorf("POST, no auth needed: %q %v; sent %q with bodies %q; want the probe, then the body", got, err, authz, bodies)
	}
	res, _, err = get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/basic")})
	if authz, _ := log.take(); err != nil || res.Status != 401 || len(authz) != 1 || authz[0] != "" {
		t.Errorf("Basic challenge: status %d %v, sent %q; want the 401, no credentials", res.Status, err, authz)
	}
}

// TestBearer: --oauth2-bearer's field, in place of Basic credentials; a
// token with a line break is refused before anything is sent.
func TestBearer(t *testing.T) {
	var log authLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { log.add(r) }))
	defer srv.Close()
	c := &fetch.Client{Bearer: "tok.en-1", User: "u", Password: "p", HasUser: true, HasPassword: true}
	if _, _, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/")}); err != nil {
		t.Fatal(err)
	}
	if authz, _ := log.take(); len(authz) != 1 || authz[0] != "Bearer tok.en-1" {
		t.Errorf("sent %q", authz)
	}
	c.Bearer = "tok\r\nX-Evil: 1"
	_, _, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/")})
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
	if authz, _ := log.take(); len(authz) != 0 {
		t.Errorf("sent %q", authz)
	}
}

// TestCredentialsOnRedirect: credentials, the Bearer token and the
// caller's Authorization and Cookie lines go only to the first origin,
// unless LocationTrusted; other lines go everywhere.
func TestCredentialsOnRedirect(t *testing.T) {
	var mu sync.Mutex
	var seen []http.Header
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
		}
	})
	a, b := httptest.NewServer(h), httptest.NewServer(h)
	defer a.Close()
	defer b.Close()
	opts := fetch.Options{"http-header": "Authorization: Custom x\nCookie: c=1\nX-Other: 1"}
	for _, tc := range []struct {
		name    string
		to      string
		trusted bool
		bearer  string
		kept    bool
	}{
		{"same origin", a.URL + "/next", false, "", true},
		{"other port", b.URL + "/next", false, "", false},
		{"other port, trusted", b.URL + "/next", true, "", true},
		{"bearer, other port", b.URL + "/next", false, "tok", false},
		{"bearer, other port, trusted", b.URL + "/next", true, "tok", true},
	} {
		seen = nil
		c := &fetch.Client{FollowRedirects: true, LocationTrusted: tc.trusted, Bearer: tc.bearer, User: "u", Password: "p", HasUser: true, HasPassword: true}
		for _, o := range []fetch.Options{nil, opts} {
			if _, _, err := get(t, c, &fetch.Request{URL: parse(t, a.URL+"/first?to="+tc.to), Options: o}); err != nil {
				t.Fatal(err)
			}
		}
		if len(seen) != 4 {
			t.Fatalf("%s: %d requests", tc.name, len(seen))
		}
		// seen: [-u first, -u next, -H first, -H next]
		want := "Basic dTpw"
		if tc.bearer != "" {
			want = "Bearer " + tc.bearer
		}
		if seen[0].Get("Authorization") != want {
			t.Errorf("%s: first request's Authorization %q, want %q", tc.name, seen[0].Get("Authorization"), want)
		}
		if got := seen[1].Get("Authorization"); (got == want) != tc.kept || got != "" && got != want {
			t.Errorf("%s: after the redirect, Authorization %q (kept: %v)", tc.name, got, tc.kept)
		}
		if got := seen[3].Get("Authorization") + "|" + seen[3].Get("Cookie"); (got == "Custom x|c=1") != tc.kept || !tc.kept && got != "|" {
			t.Errorf("%s: the -H lines after the redirect: %q (kept: %v)", tc.name, got, tc.kept)
		}
		if seen[3].Get("X-Other") != "1" {
			t.Errorf("%s: X-Other not sent after the redirect", tc.name)
		}
	}
}

// TestPathAsIs: the Client removes dot segments from an http path, as
// curl does, unless PathAsIs; "%2e" segments are not dot segments.
func TestPathAsIs(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
	}))
	defer srv.Close()
	for _, tc := range []struct {
		path, want, asIs string
	}{
		{"/a/../b", "/b", "/a/../b"},
		{"/a/./b/../../c/%2e%2e/d?x=/../y", "/c/%2e%2e/d?x=/../y", "/a/./b/../../c/%2e%2e/d?x=/../y"},
		{"/../x/.", "/x/", "/../x/."},
	} {
		for _, asIs := range []bool{false, true} {
			got = nil
			res, _, err := get(t, &fetch.Client{PathAsIs: asIs}, &fetch.Request{URL: parse(t, srv.URL+tc.path)})
			want := tc.want
			if asIs {
				want = tc.asIs
			}
			if err != nil || len(got) != 1 || got[0] != want || res.EffectiveURL != srv.URL+want {
				t.Errorf("%s (PathAsIs %v): asked for %q, EffectiveURL %q, %v; want %q", tc.path, asIs, got, res.EffectiveURL, err, want)
			}
		}
	}
}

// TestHostLines: of several -H Host lines the first is the Host, and a
// redirect to another origin sends that origin's own Host, as curl (its
// tests 1121 and 184); one to the same origin keeps the given Host.
func TestHostLines(t *testing.T) {
	var mu sync.Mutex
	var hosts []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
		}
	})
	a, b := httptest.NewServer(h), httptest.NewServer(h)
	defer a.Close()
	defer b.Close()
	opts := fetch.Options{"http-header": "Host: one.example\nHost: two.example"}
	c := &fetch.Client{FollowRedirects: true}
	for _, to := range []string{a.URL + "/next", b.URL + "/next"} {
		hosts = nil
		if _, _, err := get(t, c, &fetch.Request{URL: parse(t, a.URL+"/first?to="+to), Options: opts}); err != nil {
			t.Fatal(err)
		}
		want := []string{"one.example", "one.example"}
		if to != a.URL+"/next" {
			want[1] = strings.TrimPrefix(b.URL, "http://")
		}
		if !slices.Equal(hosts, want) {
			t.Errorf("redirect to %s: Host %q, want %q", to, hosts, want)
		}
	}
}
