package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	_ "github.com/urlget/urlget/fetch/file"
	_ "github.com/urlget/urlget/fetch/http"
	"github.com/urlget/urlget/urlparse"
)

func parse(t testing.TB, s string) *urlparse.URL {
	t.Helper()
	u, err := urlparse.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return &u
}

// fetchAll opens url and reads the whole body.
func fetchAll(t testing.TB, c *fetch.Client, url string) (*fetch.Resource, []byte, error) {
	t.Helper()
	return doAll(c, context.Background(), &fetch.Request{URL: parse(t, url)})
}

func doAll(c *fetch.Client, ctx context.Context, req *fetch.Request) (*fetch.Resource, []byte, error) {
	return fetchtest.Read(c.Do(ctx, req))
}

func wantExit(t *testing.T, what string, err error, code int) {
	t.Helper()
	if got := fetch.ExitCode(err); got != code {
		t.Errorf("%s: %v: exit %d, want %d", what, err, got, code)
	}
	var fe *fetch.Error
	if code != 0 && !errors.As(err, &fe) {
		t.Errorf("%s: error %T is not a *fetch.Error", what, err)
	}
}

// recorder is an HTTP server that remembers the Authorization header of
// every request.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	auths map[string][]string // path -> Authorization values ("" for none)
}

func newRecorder(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) *recorder {
	rec := &recorder{auths: map[string][]string{}}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.auths[r.URL.Path] = append(rec.auths[r.URL.Path], r.Header.Get("Authorization"))
		rec.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (r *recorder) auth(path string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.auths[path]...)
}

func (r *recorder) hostPort() string { return strings.TrimPrefix(r.URL, "http://") }

func redirectTo(loc string, code int) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", loc)
		w.WriteHeader(code)
		io.WriteString(w, "moved\n")
	}
}

func TestRedirectOnlyWithFollow(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			redirectTo("/b?x=1", 302)(w, r)
			return
		}
		io.WriteString(w, "B")
	})
	res, body, err := fetchAll(t, &fetch.Client{}, srv.URL+"/a")
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != 302 || string(body) != "moved\n" || res.Location != srv.URL+"/b?x=1" {
		t.Errorf("without FollowRedirects: status %d body %q Location %q", res.Status, body, res.Location)
	}
	if n := len(srv.auth("/b")); n != 0 {
		t.Errorf("/b fetched %d times without FollowRedirects", n)
	}
	// An http URL with an empty path is told with "/", as curl's
	// %{redirect_url} (its test 1270).
	bare := newRecorder(t, redirectTo("https://moo.example", 301))
	if res, _, err := fetchAll(t, &fetch.Client{}, bare.URL+"/a"); err != nil || res.Location != "https://moo.example/" {
		t.Errorf("Location without a path: %q %v", res.Location, err)
	}
	for _, code := range []int{301, 302, 303, 307, 308} {
		srv2 := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/a" {
				redirectTo("/b", code)(w, r)
				return
			}
			io.WriteString(w, "B")
		})
		res, body, err = fetchAll(t, &fetch.Client{FollowRedirects: true}, srv2.URL+"/a")
		if err != nil || string(body) != "B" || res.EffectiveURL != srv2.URL+"/b" || res.Status != 200 {
			t.Errorf("%d with FollowRedirects: %q %v, EffectiveURL %q", code, body, err, res.EffectiveURL)
		}
	}
}

func TestMaxRedirects(t *testing.T) {
	// /r/N redirects to /r/N+1 until /r/limit, which answers.
	var limit atomic.Int64
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		if int64(n) >= limit.Load() {
			io.WriteString(w, "end")
			return
		}
		redirectTo("/r/"+strconv.Itoa(n+1), 302)(w, r)
	})
	for _, tc := range []struct {
		max, chain int
		ok         bool
	}{
		{3, 3, true}, {3, 4, false}, {0, 50, true}, {0, 51, false}, {math.MaxInt, 120, true}, {1, 1, true}, {1, 2, false},
		{fetch.NoRedirects, 0, true}, {fetch.NoRedirects, 1, false}, {-7, 1, false},
	} {
		limit.Store(int64(tc.chain))
		c := &fetch.Client{FollowRedirects: true, MaxRedirects: tc.max}
		_, body, err := fetchAll(t, c, srv.URL+"/r/0")
		if tc.ok {
			if err != nil || string(body) != "end" {
				t.Errorf("MaxRedirects %d, %d redirects: %q %v", tc.max, tc.chain, body, err)
			}
			continue
		}
		wantExit(t, fmt.Sprintf("MaxRedirects %d, %d redirects", tc.max, tc.chain), err, 47)
		// The redirect not followed is the Reply, the ones followed
		// before it its Redirects (curl prints them with -i).
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Reply == nil || fe.Status != 302 {
			t.Errorf("MaxRedirects %d, %d redirects: no 302 Reply in %#v", tc.max, tc.chain, err)
			continue
		}
		n := max(tc.max, 0)
		if tc.max == 0 {
			n = fetch.DefaultMaxRedirects
		}
		if want := srv.URL + "/r/" + strconv.Itoa(n+1); fe.Reply.Location != want || len(fe.Reply.Redirects) != n ||
			fe.Reply.EffectiveURL != srv.URL+"/r/"+strconv.Itoa(n) {
			t.Errorf("MaxRedirects %d: Reply Location %q (want %q), %d redirects before it, at %q",
				tc.max, fe.Reply.Location, want, len(fe.Reply.Redirects), fe.Reply.EffectiveURL)
		}
	}
}

// The replies of the redirects followed are kept in Meta.Redirects, with
// their own header fields.
func TestRedirectsKept(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a":
			w.Header().Set("X-Hop", "a")
			redirectTo("/b", 301)(w, r)
		case "/b":
			w.Header().Set("X-Hop", "b")
			redirectTo("/c", 307)(w, r)
		default:
			io.WriteString(w, "end")
		}
	})
	res, body, err := fetchAll(t, &fetch.Client{FollowRedirects: true}, srv.URL+"/a")
	if err != nil || string(body) != "end" {
		t.Fatalf("%q %v", body, err)
	}
	if len(res.Redirects) != 2 {
		t.Fatalf("%d redirects kept, want 2", len(res.Redirects))
	}
	for i, want := range []struct {
		status   int
		hop, url string
		location string
	}{{301, "a", srv.URL + "/a", srv.URL + "/b"}, {307, "b", srv.URL + "/b", srv.URL + "/c"}} {
		m := res.Redirects[i]
		if m.Status != want.status || m.Header.Get("x-hop") != want.hop || m.EffectiveURL != want.url || m.Location != want.location || !m.IsHTTP() {
			t.Errorf("redirect %d: %d %q %q %q", i, m.Status, m.Header.Get("X-Hop"), m.EffectiveURL, m.Location)
		}
	}
	if res.Status != 200 || res.Header.Get("X-Hop") != "" {
		t.Errorf("final reply: %d %q", res.Status, res.Header)
	}
}

// idleFetcher counts CloseIdleConnections calls.
type idleFetcher struct {
	fetch.FetcherFunc
	closed *atomic.Int64
}

func (f idleFetcher) CloseIdleConnections() { f.closed.Add(1) }

// The Fetchers a Client has built are the ones it closes.
func TestCloseIdleConnections(t *testing.T) {
	var a, b atomic.Int64
	empty := fetch.FetcherFunc(func(context.Context, *fetch.Request) (*fetch.Resource, error) { return &fetch.Resource{}, nil })
	c := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{
		"pooled-a": idleFetcher{FetcherFunc: empty, closed: &a},
		"pooled-b": idleFetcher{FetcherFunc: empty, closed: &b},
		"plain":    empty,
	})}
	for _, s := range []string{"pooled-a", "pooled-b", "plain"} {
		res, err := c.Open(context.Background(), s+"://h/")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	c.CloseIdleConnections()
	if a.Load() != 1 || b.Load() != 1 {
		t.Errorf("CloseIdleConnections reached a %d times, b %d times; want once each", a.Load(), b.Load())
	}
}

// countingFetcher records the requests it gets and answers with body.
type countingFetcher struct {
	mu   sync.Mutex
	reqs []fetch.Request
	body string
}

func (f *countingFetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, *req)
	f.mu.Unlock()
	return &fetch.Resource{Meta: fetch.Meta{Size: int64(len(f.body))}, Body: io.NopCloser(strings.NewReader(f.body))}, nil
}

func (f *countingFetcher) calls() []fetch.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fetch.Request(nil), f.reqs...)
}

func TestRedirectSchemes(t *testing.T) {
	for _, loc := range []string{"file:///etc/passwd", "gopher://127.0.0.1/0secret", "telnet://127.0.0.1/", "news:comp.lang.go", "x-unknown://h/"} {
		srv := newRecorder(t, redirectTo(loc, 302))
		fake := &countingFetcher{body: "must not be fetched"}
		scheme, _, _ := strings.Cut(loc, ":")
		c := &fetch.Client{FollowRedirects: true, Fetchers: fetchtest.Given(map[string]fetch.Fetcher{scheme: fake})}
		_, _, err := fetchAll(t, c, srv.URL+"/")
		wantExit(t, "redirect to "+loc, err, 1)
		if fetch.KindOf(err) != fetch.ErrUnsupported || !strings.Contains(err.Error(), "only http, https, ftp and ftps") {
			t.Errorf("redirect to %s: %v, want a clear ErrUnsupported refusal", loc, err)
		}
		if n := len(fake.calls()); n != 0 {
			t.Errorf("redirect to %s reached the %s fetcher %d times", loc, scheme, n)
		}
	}
	// ftp is allowed.
	srv := newRecorder(t, redirectTo("ftp://127.0.0.1/pub/file.txt", 301))
	ftp := &countingFetcher{body: "ftp body"}
	c := &fetch.Client{FollowRedirects: true, Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"ftp": ftp})}
	res, body, err := fetchAll(t, c, srv.URL+"/")
	if err != nil || string(body) != "ftp body" || res.EffectiveURL != "ftp://127.0.0.1/pub/file.txt" {
		t.Errorf("redirect to ftp: %q %v", body, err)
	}
}

// A redirect target whose decoded fields smuggle CR LF is refused before
// anything is dialled.
func TestRedirectInjectionRefused(t *testing.T) {
	srv := newRecorder(t, redirectTo("ftp://user%0D%0ADELE%20x@127.0.0.1/f", 302))
	ftp := &countingFetcher{body: "x"}
	c := &fetch.Client{FollowRedirects: true, Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"ftp": ftp})}
	_, _, err := fetchAll(t, c, srv.URL+"/")
	wantExit(t, "redirect with CR LF", err, 3)
	if len(ftp.calls()) != 0 {
		t.Error("the ftp fetcher saw a URL with CR LF")
	}
}

const basicAlice = "Basic YWxpY2U6cHc=" // alice:pw

// Credentials follow a redirect only to the same scheme, host and port;
// netrc's are looked up for each host.
func TestCredentialsNotLeakedOnRedirect(t *testing.T) {
	netrc := filepath.Join(t.TempDir(), "netrc")
	other := newRecorder(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "other") })
	var origin *recorder
	origin = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			redirectTo("/final", 302)(w, r)
		case "/other-port":
			redirectTo(other.URL+"/final", 302)(w, r)
		case "/other-host":
			// localhost and 127.0.0.1 are different hosts to the policy.
			redirectTo("http://localhost:"+origin.URL[strings.LastIndexByte(origin.URL, ':')+1:]+"/final-localhost", 302)(w, r)
		default:
			io.WriteString(w, "final")
		}
	})
	if err := os.WriteFile(netrc, []byte("machine 127.0.0.1 login alice password pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hp := origin.hostPort()
	for _, tc := range []struct {
		name string
		c    fetch.Client
		url  string
	}{
		{"userinfo", fetch.Client{FollowRedirects: true}, "http://alice:pw@" + hp},
		{"-u", fetch.Client{FollowRedirects: true, User: "alice", Password: "pw", HasUser: true, HasPassword: true}, "http://" + hp},
		{"netrc", fetch.Client{FollowRedirects: true, Netrc: true, NetrcFile: netrc}, "http://" + hp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(other.auth("/final"))
			for _, path := range []string{"/same", "/other-port", "/other-host"} {
				if _, _, err := fetchAll(t, &tc.c, tc.url+path); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if a := origin.auth(path); len(a) == 0 || a[len(a)-1] != basicAlice {
					t.Errorf("%s: the first request carried Authorization %q", path, a)
				}
			}
			if a := origin.auth("/final"); len(a) == 0 || a[len(a)-1] != basicAlice {
				t.Errorf("same-origin redirect lost the credentials: %q", a)
			}
			// netrc names hosts, not origins: its entry for 127.0.0.1
			// goes to any port of it, as curl looks netrc up for each
			// host it is sent to.
			want := ""
			if tc.c.Netrc {
				want = basicAlice
			}
			a := other.auth("/final")
			if len(a) != before+1 || a[len(a)-1] != want {
				t.Errorf("redirect to another port carried Authorization %q, want %q", a, want)
			}
			if a := origin.auth("/final-localhost"); len(a) == 0 || a[len(a)-1] != "" {
				t.Errorf("redirect to another host name carried Authorization %q", a)
			}
		})
	}
	// Another scheme on the same host and port: https gets nothing.
	srv := newRecorder(t, redirectTo("https://"+hp+"/x", 302))
	tls := &countingFetcher{body: "tls"}
	c := &fetch.Client{FollowRedirects: true, User: "alice", Password: "pw", HasUser: true, HasPassword: true,
		Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"https": tls})}
	if _, _, err := fetchAll(t, c, strings.Replace(srv.URL, "127.0.0.1", "127.0.0.1", 1)); err != nil {
		t.Fatal(err)
	}
	calls := tls.calls()
	if len(calls) != 1 || calls[0].User != "" || calls[0].Password != "" || calls[0].HasPassword {
		t.Errorf("redirect to https on the same host got credentials: %+v", calls)
	}
}

func TestCredentialChoice(t *testing.T) {
	dir := t.TempDir()
	netrc := filepath.Join(dir, "netrc")
	os.WriteFile(netrc, []byte("machine 127.0.0.1 login bob password bobpw\nmachine 127.0.0.1 login carol password carolpw\ndefault login anon password anonpw\n"), 0o600)
	fake := &countingFetcher{body: "x"}
	for _, tc := range []struct {
		name        string
		c           fetch.Client
		url         string
		user, pass  string
		hasPassword bool
	}{
		{"none", fetch.Client{}, "gopher://127.0.0.1/", "", "", false},
		{"userinfo", fetch.Client{}, "gopher://u:p@127.0.0.1/", "u", "p", true},
		{"userinfo empty password", fetch.Client{}, "gopher://u:@127.0.0.1/", "u", "", true},
		{"-u overrides userinfo", fetch.Client{User: "x", Password: "y", HasUser: true, HasPassword: true}, "gopher://u:p@127.0.0.1/", "x", "y", true},
		{"-u without password", fetch.Client{User: "x", HasUser: true}, "gopher://127.0.0.1/", "x", "", false},
		{"netrc by host", fetch.Client{Netrc: true, NetrcFile: netrc}, "gopher://127.0.0.1/", "bob", "bobpw", true},
		{"netrc password for the URL's user", fetch.Client{Netrc: true, NetrcFile: netrc}, "gopher://carol@127.0.0.1/", "carol", "carolpw", true},
		{"netrc default", fetch.Client{Netrc: true, NetrcFile: netrc}, "gopher://other.example/", "anon", "anonpw", true},
		{"userinfo beats netrc", fetch.Client{Netrc: true, NetrcFile: netrc}, "gopher://u:p@127.0.0.1/", "u", "p", true},
		{"netrc off", fetch.Client{NetrcFile: netrc}, "gopher://127.0.0.1/", "", "", false},
	} {
		fake.reqs = nil
		c := tc.c
		c.Fetchers = fetchtest.Given(map[string]fetch.Fetcher{"gopher": fake})
		c.NoProxy = "*"
		if _, _, err := fetchAll(t, &c, tc.url); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		r := fake.calls()[0]
		if r.User != tc.user || r.Password != tc.pass || r.HasPassword != tc.hasPassword {
			t.Errorf("%s: user %q password %q (has %v); want %q %q (%v)", tc.name, r.User, r.Password, r.HasPassword, tc.user, tc.pass, tc.hasPassword)
		}
	}
	// An explicit netrc file that is missing is an error (26); the default
	// ~/.netrc missing is not.
	c := &fetch.Client{Netrc: true, NetrcFile: filepath.Join(dir, "absent"), Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"gopher": fake}), NoProxy: "*"}
	_, _, err := fetchAll(t, c, "gopher://127.0.0.1/")
	wantExit(t, "missing netrc file", err, 26)
	t.Setenv("HOME", dir)
	c.NetrcFile = ""
	if _, _, err := fetchAll(t, c, "gopher://127.0.0.1/"); err != nil {
		t.Errorf("missing ~/.netrc: %v", err)
	}
}

// netrcSample is a netrc file of every kind of token.
const netrcSample = `# a comment line
machine ftp.example.com login anonymous password "me@example.com"
machine Secure.Example.COM
	login  alice
	password "pa ss\"word\\"   # trailing comment
	account acct1
macdef init
cd /pub
binary

machine after.macro login m password mp
default login dflt password dpw
machine never.reached login n password np
`

func TestNetrcParse(t *testing.T) {
	n, err := fetch.ParseNetrc(strings.NewReader(netrcSample))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host, login     string
		ok              bool
		wantLogin, want string
	}{
		{"ftp.example.com", "", true, "anonymous", "me@example.com"},
		{"secure.example.com", "", true, "alice", `pa ss"word\`},
		{"SECURE.example.com", "alice", true, "alice", `pa ss"word\`},
		{"secure.example.com", "bob", false, "", ""},
		{"after.macro", "", true, "m", "mp"},
		{"unknown.example", "", true, "dflt", "dpw"},
		{"never.reached", "", true, "dflt", "dpw"}, // default matches first, as in curl
		{"cd", "", true, "dflt", "dpw"},            // macro body is not parsed as tokens
	} {
		m, ok := n.Lookup(tc.host, tc.login)
		if ok != tc.ok || ok && (m.Login != tc.wantLogin || m.Password != tc.want || !m.HasPassword) {
			t.Errorf("Lookup(%q, %q) = %+v, %v", tc.host, tc.login, m, ok)
		}
	}
	if m, _ := n.Lookup("secure.example.com", ""); m.Account != "acct1" {
		t.Errorf("account = %q", m.Account)
	}
	for _, bad := range []string{"machine", "machine x login", `machine x password "unterminated`} {
		if _, err := fetch.ParseNetrc(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseNetrc(%q) succeeded", bad)
		}
	}
	// A login without a password is a login only.
	n, _ = fetch.ParseNetrc(strings.NewReader("machine h login only"))
	if m, ok := n.Lookup("h", ""); !ok || m.HasPassword || m.Login != "only" {
		t.Errorf("login only: %+v", m)
	}
}

func TestProxyFromEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		url  string
		want string // "" for none
	}{
		{"none", nil, "http://a.example/", ""},
		{"http_proxy", map[string]string{"http_proxy": "http://p:3128"}, "http://a.example/", "http://p:3128"},
		{"HTTP_PROXY ignored", map[string]string{"HTTP_PROXY": "http://p:3128"}, "http://a.example/", ""},
		{"HTTPS_PROXY", map[string]string{"HTTPS_PROXY": "http://p:3128"}, "https://a.example/", "http://p:3128"},
		{"lower case wins", map[string]string{"https_proxy": "http://low", "HTTPS_PROXY": "http://up"}, "https://a.example/", "http://low"},
		{"no scheme is http", map[string]string{"ftp_proxy": "p.example:8080"}, "ftp://a.example/", "http://p.example:8080"},
		{"gopher_proxy", map[string]string{"gopher_proxy": "http://g:1"}, "gopher://a.example/", "http://g:1"},
		{"news_proxy", map[string]string{"news_proxy": "http://n:1"}, "news:comp.lang.go", "http://n:1"},
		{"nntp_proxy", map[string]string{"NNTP_PROXY": "http://n:2"}, "nntp://a.example/comp.lang.go", "http://n:2"},
		{"wais_proxy", map[string]string{"wais_proxy": "http://w:3"}, "wais://a.example/db", "http://w:3"},
		{"all_proxy", map[string]string{"all_proxy": "socks5://s:1080"}, "gopher://a.example/", "socks5://s:1080"},
		{"ALL_PROXY", map[string]string{"ALL_PROXY": "socks5h://s"}, "ftp://a.example/", "socks5h://s"},
		{"scheme beats all", map[string]string{"all_proxy": "http://all", "http_proxy": "http://h"}, "http://a.example/", "http://h"},
		{"set empty means none", map[string]string{"all_proxy": "http://all", "https_proxy": ""}, "https://a.example/", ""},
		{"file never", map[string]string{"all_proxy": "http://all"}, "file:///etc/passwd", ""},
		{"mailto never", map[string]string{"all_proxy": "http://all"}, "mailto:a@b.example", ""},
		{"no_proxy host", map[string]string{"http_proxy": "http://p", "no_proxy": "a.example"}, "http://a.example/", ""},
		{"no_proxy suffix", map[string]string{"http_proxy": "http://p", "no_proxy": "example.com"}, "http://www.example.com/", ""},
		{"no_proxy not a suffix", map[string]string{"http_proxy": "http://p", "no_proxy": "example.com"}, "http://badexample.com/", "http://p"},
		{"NO_PROXY star", map[string]string{"http_proxy": "http://p", "NO_PROXY": "*"}, "http://a.example/", ""},
		{"no_proxy cidr", map[string]string{"http_proxy": "http://p", "no_proxy": "10.0.0.0/8, 192.168.1.1"}, "http://10.2.3.4/", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fetchtest.ClearProxyEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			p, err := fetch.ProxyFromEnv(parse(t, tc.url))
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if p != nil {
				got = p.String()
			}
			if got != tc.want {
				t.Errorf("proxy for %s = %q, want %q", tc.url, got, tc.want)
			}
		})
	}
	fetchtest.ClearProxyEnv(t)
	t.Setenv("http_proxy", "socks6://old")
	if _, err := fetch.ProxyFromEnv(parse(t, "http://a.example/")); fetch.KindOf(err) != fetch.ErrUnsupported {
		t.Errorf("socks6 proxy: %v, want ErrUnsupported", err)
	}
}

func TestNoProxyMatch(t *testing.T) {
	for _, tc := range []struct {
		list, host string
		want       bool
	}{
		{"", "a.example", false},
		{"*", "anything", true},
		{"a.example", "A.Example.", true},
		{".example.com", "example.com", true},
		{".example.com", "x.example.com", true},
		{"*.example.com", "x.y.example.com", true},
		{"example.com", "notexample.com", false},
		{"localhost,127.0.0.1", "127.0.0.1", true},
		{"localhost 127.0.0.1", "localhost", true},
		{"::1", "::1", true},
		{"[::1]", "::1", true},
		{"fd00::/8", "fd12::1", true},
		{"10.0.0.0/8", "11.0.0.1", false},
		{"10.0.0.0/8", "ten.example", false},
		{"a.example", "", false},
	} {
		if got := fetch.NoProxyMatch(tc.list, tc.host); got != tc.want {
			t.Errorf("NoProxyMatch(%q, %q) = %v", tc.list, tc.host, got)
		}
	}
}

func TestClientProxyOverride(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	t.Setenv("http_proxy", "http://env-proxy:1")
	t.Setenv("no_proxy", "skip.example")
	x, err := fetch.ParseProxy("cli-proxy:2")
	if err != nil {
		t.Fatal(err)
	}
	c := &fetch.Client{Proxy: x}
	for _, tc := range []struct {
		url, noProxy, want string
		has                bool
	}{
		{"http://a.example/", "", "http://cli-proxy:2", false},
		{"gopher://a.example/", "", "http://cli-proxy:2", false},
		{"http://skip.example/", "", "", false},                        // no_proxy from the environment
		{"http://skip.example/", "other", "http://cli-proxy:2", false}, // NoProxy replaces it
		{"http://skip.example/", "", "http://cli-proxy:2", true},       // so does an empty one given (curl's test 1254)
		{"http://a.example/", "*", "", false},
		{"file:///x", "", "", false},
	} {
		c.NoProxy, c.HasNoProxy = tc.noProxy, tc.has
		p, err := c.ProxyFor(parse(t, tc.url))
		got := ""
		if p != nil {
			got = p.String()
		}
		if err != nil || got != tc.want {
			t.Errorf("ProxyFor(%s) with NoProxy %q = %q, %v; want %q", tc.url, tc.noProxy, got, err, tc.want)
		}
	}
}

// newProxy is an HTTP proxy that answers absolute-form and gateway
// requests itself, with a body naming the URL, and tunnels CONNECT.
func newProxy(t *testing.T) *fetchtest.Proxy {
	return fetchtest.NewProxy(t, func(w io.Writer, req *http.Request) {
		body := "via proxy: " + req.RequestURI
		fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nContent-Type: text/plain\r\n\r\n%s", len(body), body)
	})
}

func TestHTTPProxyAndGateway(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	p := newProxy(t)
	proxy, err := fetch.ParseProxy("http://puser:ppass@" + p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url, line, body string
		c               fetch.Client
	}{
		{"http://origin.example/a?b", "GET http://origin.example/a?b HTTP/1.1", "via proxy: http://origin.example/a?b", fetch.Client{}},
		{"gopher://gopher.example/1/sel#frag", "GET gopher://gopher.example/1/sel HTTP/1.1", "via proxy: gopher://gopher.example/1/sel", fetch.Client{}},
		{"ftp://ftp.example/pub/f.txt", "GET ftp://ftp.example/pub/f.txt HTTP/1.1", "via proxy: ftp://ftp.example/pub/f.txt", fetch.Client{}},
		{"ftp://ftp.example/pub/f.txt", "GET ftp://me:my%20pw@ftp.example/pub/f.txt HTTP/1.1", "via proxy: ftp://me:my%20pw@ftp.example/pub/f.txt",
			fetch.Client{User: "me", Password: "my pw", HasUser: true, HasPassword: true}},
		{"news:comp.lang.go", "GET news:comp.lang.go HTTP/1.1", "via proxy: news:comp.lang.go", fetch.Client{}},
		{"wais://wais.example:210/db?query", "GET wais://wais.example:210/db?query HTTP/1.1", "via proxy: wais://wais.example:210/db?query", fetch.Client{}},
	} {
		c := tc.c
		c.Proxy = proxy
		var v bytes.Buffer
		c.Verbose = &v
		res, body, err := fetchAll(t, &c, tc.url)
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		reqs := p.Requests()
		last := reqs[len(reqs)-1]
		if got := last.Line; got != tc.line {
			t.Errorf("%s: the proxy got %q, want %q", tc.url, got, tc.line)
		}
		if got := last.ProxyAuth; got != "Basic cHVzZXI6cHBhc3M=" {
			t.Errorf("%s: Proxy-Authorization %q", tc.url, got)
		}
		if string(body) != tc.body || res.Status != 200 {
			t.Errorf("%s: status %d body %q", tc.url, res.Status, body)
		}
		if strings.Contains(v.String(), "ppass") || strings.Contains(v.String(), "my pw") || strings.Contains(v.String(), "my%20pw") {
			t.Errorf("%s: verbose output shows a password:\n%s", tc.url, v.String())
		}
	}
	// Without the http fetcher, a gateway cannot be used.
	c := &fetch.Client{Proxy: proxy, Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"http": nil})}
	_, _, err = fetchAll(t, c, "gopher://gopher.example/")
	wantExit(t, "gateway without the http fetcher", err, 1)
	// telnet does not go through an HTTP proxy.
	if reqs := p.Requests(); len(reqs) != 6 {
		t.Errorf("the proxy saw %d requests, want 6", len(reqs))
	}
}

func TestHTTPSThroughConnect(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tunnelled") }))
	defer srv.Close()
	p := newProxy(t)
	proxy, _ := fetch.ParseProxy(p.Addr)
	c := &fetch.Client{Proxy: proxy, Insecure: true}
	_, body, err := fetchAll(t, c, srv.URL+"/x")
	if err != nil || string(body) != "tunnelled" {
		t.Fatalf("%q %v", body, err)
	}
	reqs := p.Requests()
	if want := "CONNECT " + strings.TrimPrefix(srv.URL, "https://") + " HTTP/1.1"; len(reqs) != 1 || reqs[0].Line != want {
		t.Errorf("proxy saw %q, want %q", reqs, want)
	}
}

// newSOCKS starts a SOCKS5 proxy that connects every request to target.
func newSOCKS(t *testing.T, target string, needAuth bool) *fetchtest.SOCKS5 {
	return fetchtest.NewSOCKS5(t, needAuth, func(string) string { return target })
}

func TestSOCKS5(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "socks ok "+r.Host)
	}))
	defer srv.Close()
	target := strings.TrimPrefix(srv.URL, "http://")
	// socks5h: the proxy resolves the name (which does not resolve here).
	s := newSOCKS(t, target, false)
	proxy, _ := fetch.ParseProxy("socks5h://" + s.Addr)
	c := &fetch.Client{Proxy: proxy}
	_, body, err := fetchAll(t, c, "http://unresolvable.invalid:8080/")
	if err != nil || string(body) != "socks ok unresolvable.invalid:8080" {
		t.Fatalf("socks5h: %q %v", body, err)
	}
	// socks5 with a login; localhost is resolved locally.
	s2 := newSOCKS(t, target, true)
	proxy, _ = fetch.ParseProxy("socks5://su:sp@" + s2.Addr)
	c = &fetch.Client{Proxy: proxy}
	_, body, err = fetchAll(t, c, "http://localhost:9/")
	if err != nil || string(body) != "socks ok localhost:9" {
		t.Fatalf("socks5: %q %v", body, err)
	}
	if asked := s.Asked(); len(asked) != 1 || asked[0] != "unresolvable.invalid:8080" {
		t.Errorf("socks5h asked for %q", asked)
	}
	if asked := s2.Asked(); len(asked) != 1 || asked[0] != "127.0.0.1:9" {
		t.Errorf("socks5 asked for %q, want localhost resolved here to 127.0.0.1:9", asked)
	}
	if logins := s2.Logins(); len(logins) != 1 || logins[0] != "su:sp" {
		t.Errorf("socks5 logins %q", logins)
	}
	// A SOCKS proxy that is not there: could not connect.
	dead := fetchtest.NewServer(t, func(net.Conn) {})
	addr := dead.Addr
	dead.Close()
	proxy, _ = fetch.ParseProxy("socks5h://" + addr)
	_, _, err = fetchAll(t, &fetch.Client{Proxy: proxy}, "http://a.example/")
	wantExit(t, "dead SOCKS proxy", err, 7)
}

func TestResumeIfRange(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100)
	mod := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	var gotIfRange atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotIfRange.Store(r.Header.Get("If-Range"))
		http.ServeContent(w, r, "f", mod, bytes.NewReader(data))
	}))
	defer srv.Close()
	u := parse(t, srv.URL+"/f")
	c := &fetch.Client{Fail: true}
	res, body, err := doAll(c, context.Background(), &fetch.Request{URL: u, Offset: 990, Since: mod})
	if err != nil || res.Offset != 990 || string(body) != "0123456789" || res.Status != 206 {
		t.Errorf("unchanged: Offset %d status %d body %q %v", res.Offset, res.Status, body, err)
	}
	if gotIfRange.Load() != "Tue, 02 Jan 2024 03:04:05 GMT" {
		t.Errorf("If-Range %q", gotIfRange.Load())
	}
	// The file changed since the part held was fetched: whole.
	res, body, err = doAll(c, context.Background(), &fetch.Request{URL: u, Offset: 990, Since: mod.Add(-time.Minute)})
	if err != nil || res.Offset != 0 || !bytes.Equal(body, data) || res.Status != 200 {
		t.Errorf("changed: Offset %d status %d %d bytes %v", res.Offset, res.Status, len(body), err)
	}
	// Complete already: 416, treated as done, except under Fail, which
	// fails it as curl's -f does (exit 22).
	res, body, err = doAll(&fetch.Client{}, context.Background(), &fetch.Request{URL: u, Offset: int64(len(data))})
	if err != nil || res.Offset != int64(len(data)) || len(body) != 0 {
		t.Errorf("complete: %v Offset %d body %q", err, res.Offset, body)
	}
	_, _, err = doAll(c, context.Background(), &fetch.Request{URL: u, Offset: int64(len(data))})
	wantExit(t, "complete, with Fail", err, 22)
	// A 416 without Content-Range to a resume is the file whole under
	// Fail too, as curl's -f takes it (curl's test 1273).
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
	}))
	defer bare.Close()
	res, body, err = doAll(c, context.Background(), &fetch.Request{URL: parse(t, bare.URL+"/f"), Offset: int64(len(data))})
	if err != nil || res.Status != 416 || len(body) != 0 {
		t.Errorf("complete, with Fail, no Content-Range: %v body %q", err, body)
	}
}

// A server that answers 206 from another offset than asked is refused.
func TestResumeWrongRange(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes 0-9/10")
		w.WriteHeader(206)
		io.WriteString(w, "0123456789")
	}))
	defer srv.Close()
	_, _, err := doAll(&fetch.Client{}, context.Background(), &fetch.Request{URL: parse(t, srv.URL), Offset: 5})
	wantExit(t, "206 from the wrong offset", err, 36)
}

func TestFail(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(404)
		io.WriteString(w, "not here")
	}))
	defer srv.Close()
	res, body, err := fetchAll(t, &fetch.Client{}, srv.URL)
	if err != nil || res.Status != 404 || string(body) != "not here" {
		t.Errorf("without Fail: %v status %d body %q", err, res.Status, body)
	}
	_, _, err = fetchAll(t, &fetch.Client{Fail: true}, srv.URL)
	wantExit(t, "404 with Fail", err, 22)
}

// TestFailReply: Fail's error carries the reply (status, headers,
// effective URL), as net/http hands back the *Response; FailWithBody
// returns the body, which ends with that error in place of io.EOF.
func TestFailReply(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/x-missing")
		w.Header().Set("ETag", `"e1"`)
		w.WriteHeader(404)
		io.WriteString(w, "not here")
	}))
	defer srv.Close()
	_, _, err := fetchAll(t, &fetch.Client{Fail: true}, srv.URL+"/a/../gone")
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Reply == nil {
		t.Fatalf("Fail: %v carries no reply", err)
	}
	if m := fe.Reply; m.Status != 404 || m.ContentType != "text/x-missing" || m.Header.Get("ETag") != `"e1"` || m.EffectiveURL != srv.URL+"/gone" {
		t.Errorf("Fail's reply: status %d type %q ETag %q effective %q", m.Status, m.ContentType, m.Header.Get("ETag"), m.EffectiveURL)
	}
	res, body, err := fetchAll(t, &fetch.Client{FailWithBody: true}, srv.URL)
	wantExit(t, "404 with FailWithBody", err, 22)
	if res == nil || res.Status != 404 || string(body) != "not here" {
		t.Errorf("FailWithBody: %v body %q", res, body)
	}
	if !errors.As(err, &fe) || fe.Reply == nil || fe.Reply.Status != 404 {
		t.Errorf("FailWithBody's error %v carries no reply", err)
	}
	res, body, err = fetchAll(t, &fetch.Client{Fail: true, FailWithBody: true}, srv.URL)
	if fetch.ExitCode(err) != 22 || res == nil || string(body) != "not here" {
		t.Errorf("Fail and FailWithBody: %v %q", err, body)
	}
}

// chunked answers with n bytes and no Content-Length.
func chunked(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		w.Write(bytes.Repeat([]byte{'x'}, n))
	}
}

func TestSizeCap(t *testing.T) {
	known := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "5000")
		w.Write(bytes.Repeat([]byte{'x'}, 5000))
	}))
	defer known.Close()
	_, _, err := fetchAll(t, &fetch.Client{MaxFileSize: 4999}, known.URL)
	wantExit(t, "known size over the cap", err, 63)
	if _, b, err := fetchAll(t, &fetch.Client{MaxFileSize: 5000}, known.URL); err != nil || len(b) != 5000 {
		t.Errorf("known size at the cap: %d bytes %v", len(b), err)
	}
	unknown := httptest.NewServer(chunked(100000))
	defer unknown.Close()
	for _, viaCopy := range []bool{false, true} {
		for _, tc := range []struct {
			max  int64
			fail bool
		}{{99999, true}, {100000, false}, {1, true}, {200000, false}} {
			res, err := (&fetch.Client{MaxFileSize: tc.max}).Open(context.Background(), unknown.URL)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if viaCopy {
				_, err = io.Copy(&buf, res.Body)
			} else {
				_, err = buf.ReadFrom(struct{ io.Reader }{res.Body})
			}
			res.Body.Close()
			if tc.fail {
				wantExit(t, fmt.Sprintf("copy=%v: unknown size over a %d cap", viaCopy, tc.max), err, 63)
				if int64(buf.Len()) != tc.max {
					t.Errorf("copy=%v: %d bytes delivered past a %d cap", viaCopy, buf.Len(), tc.max)
				}
			} else if err != nil || buf.Len() != 100000 {
				t.Errorf("copy=%v: cap %d: %d bytes %v", viaCopy, tc.max, buf.Len(), err)
			}
		}
	}
}

func TestPartialBody(t *testing.T) {
	s := fetchtest.CloseEarly(t, "\r\n\r\n", []byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"))
	for _, viaCopy := range []bool{false, true} {
		res, err := (&fetch.Client{}).Open(context.Background(), "http://"+s.Addr+"/")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if viaCopy {
			_, err = io.Copy(&buf, res.Body)
		} else {
			_, err = buf.ReadFrom(struct{ io.Reader }{res.Body})
		}
		res.Body.Close()
		wantExit(t, fmt.Sprintf("copy=%v: body cut short", viaCopy), err, 18)
		if buf.String() != "0123456789" {
			t.Errorf("copy=%v: delivered %q", viaCopy, buf.String())
		}
	}
}

// A fetcher's own body that ends before Meta.Size is ErrPartial too.
func TestPartialFromFetcher(t *testing.T) {
	short := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: 10}, Body: io.NopCloser(strings.NewReader("12345"))}, nil
	})
	c := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"x-short": short})}
	_, b, err := fetchAll(t, c, "x-short://h/")
	wantExit(t, "short fetcher body", err, 18)
	if string(b) != "12345" {
		t.Errorf("delivered %q", b)
	}
}

// rawFetcher dials with the Config's Dialer and returns the connection as
// the body, as a line-protocol fetcher would.
func rawFetcher(addr string) func(fetch.Config) fetch.Fetcher {
	return func(cfg fetch.Config) fetch.Fetcher {
		return fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
			conn, err := cfg.Dialer.DialContext(ctx, "tcp", addr)
			if err != nil {
				return nil, err
			}
			io.WriteString(conn, "GET\r\n\r\n")
			return &fetch.Resource{Meta: fetch.Meta{Size: -1}, Body: conn}, nil
		})
	}
}

func TestCancelAbortsBlockedRead(t *testing.T) {
	s := fetchtest.Stall(t, "\r\n\r\n", []byte("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nsome"))
	for _, tc := range []struct {
		name string
		c    *fetch.Client
		url  string
	}{
		{"http", &fetch.Client{}, "http://" + s.Addr + "/"},
		{"raw fetcher", &fetch.Client{Fetchers: map[string]func(fetch.Config) fetch.Fetcher{"x-raw": rawFetcher(s.Addr)}}, "x-raw://h/"},
	} {
		for _, deadline := range []bool{false, true} {
			ctx, cancel := context.WithCancel(context.Background())
			if deadline {
				ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
			}
			res, err := tc.c.Open(ctx, tc.url)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := io.Copy(io.Discard, res.Body)
				done <- err
			}()
			if !deadline {
				time.Sleep(100 * time.Millisecond)
				cancel()
			}
			want := 42
			if deadline {
				want = 28
			}
			select {
			case err := <-done:
				wantExit(t, fmt.Sprintf("%s, deadline=%v", tc.name, deadline), err, want)
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: a blocked Read outlived its context", tc.name)
			}
			res.Body.Close()
			cancel()
		}
	}
}

func TestConnectTimeout(t *testing.T) {
	// A dialer that never connects.
	hang := dialerFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	c := &fetch.Client{ConnectTimeout: 200 * time.Millisecond, Dialer: hang}
	start := time.Now()
	_, _, err := fetchAll(t, c, "http://192.0.2.1/")
	wantExit(t, "connect timeout", err, 28)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("connect timeout took %v", d)
	}
	if !strings.Contains(err.Error(), "timed out") {
		t.Errorf("message %q", err)
	}
}

type dialerFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (f dialerFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

func TestUnsupportedAndMalformed(t *testing.T) {
	c := &fetch.Client{}
	_, err := c.Open(context.Background(), "x-nothing://h/")
	wantExit(t, "unknown scheme", err, 1)
	if fetch.KindOf(err) != fetch.ErrUnsupported {
		t.Errorf("unknown scheme: kind %d", fetch.KindOf(err))
	}
	_, err = c.Open(context.Background(), "http://[::1/")
	wantExit(t, "malformed", err, 3)
	_, err = c.Open(context.Background(), "http://user:secret@[::1/")
	if err == nil || strings.Contains(err.(*fetch.Error).URL, "secret") || strings.Contains(err.Error(), "secret") {
		t.Errorf("malformed URL error shows the password: %v (URL %q)", err, err.(*fetch.Error).URL)
	} else if !strings.Contains(err.Error(), "user:******@") {
		t.Errorf("malformed URL error %q does not mask the password byte for byte", err)
	}
	_, err = c.Do(context.Background(), &fetch.Request{})
	wantExit(t, "no URL", err, 3)
}

// Every fetcher goes through the CR/LF/NUL check: a fake fetcher never
// sees such a URL.
func TestCheckLineBeforeEveryFetcher(t *testing.T) {
	fake := &countingFetcher{body: "x"}
	c := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"gopher": fake, "ftp": fake, "nntp": fake})}
	for _, u := range []string{
		"gopher://h/0sel%0D%0Aection",
		"gopher://h/7search%09term%0Amore",
		"ftp://h/dir%0D%0ADELE%20x/file",
		"ftp://us%00er@h/f",
		"nntp://h/comp.lang%0D%0AQUIT/1",
	} {
		_, err := c.Open(context.Background(), u)
		wantExit(t, u, err, 3)
	}
	if n := len(fake.calls()); n != 0 {
		t.Errorf("fetchers saw %d refused URLs", n)
	}
}

func TestProgress(t *testing.T) {
	data := bytes.Repeat([]byte("p"), 300000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	}))
	defer srv.Close()
	for _, viaCopy := range []bool{false, true} {
		var calls int
		var last, total int64
		c := &fetch.Client{Progress: func(done, tot int64) {
			if done < last {
				t.Errorf("progress went back from %d to %d", last, done)
			}
			calls++
			last, total = done, tot
		}}
		res, err := c.Open(context.Background(), srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		if viaCopy {
			_, err = io.Copy(io.Discard, res.Body)
		} else {
			_, err = io.ReadAll(struct{ io.Reader }{res.Body})
		}
		res.Body.Close()
		if err != nil || calls == 0 || last != int64(len(data)) || total != int64(len(data)) {
			t.Errorf("copy=%v: %d calls, last %d/%d, %v", viaCopy, calls, last, total, err)
		}
	}
}

// TestTraceProgress: two bodies read at once under their own Traces each
// report their own bytes, and Client.Progress still hears of both.
func TestTraceProgress(t *testing.T) {
	sizes := map[string]int{"/a": 200000, "/b": 70000}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(sizes[r.URL.Path]))
		w.Write(bytes.Repeat([]byte("t"), sizes[r.URL.Path]))
	}))
	defer srv.Close()
	var mu sync.Mutex
	var all int
	c := &fetch.Client{Progress: func(int64, int64) { mu.Lock(); all++; mu.Unlock() }}
	got := map[string][2]int64{}
	var wg sync.WaitGroup
	for path := range sizes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := fetch.WithTrace(context.Background(), &fetch.Trace{Progress: func(done, total int64) {
				mu.Lock()
				got[path] = [2]int64{done, total}
				mu.Unlock()
			}})
			res, err := c.Open(ctx, srv.URL+path)
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			io.Copy(io.Discard, res.Body)
		}()
	}
	wg.Wait()
	for path, n := range sizes {
		if g := got[path]; g != [2]int64{int64(n), int64(n)} {
			t.Errorf("%s: last progress %v, want %d of %d", path, g, n, n)
		}
	}
	if all < 2 {
		t.Errorf("Client.Progress called %d times, want at least once a body", all)
	}
}

func TestRedacted(t *testing.T) {
	for in, want := range map[string]string{
		"http://u:pw@h/p":    "http://u:****@h/p",
		"ftp://u@h/":         "ftp://u@h/",
		"http://h/":          "http://h/",
		"http://u:%40x@h:1/": "http://u:****@h:1/",
	} {
		if got := fetch.Redacted(parse(t, in)); got != want {
			t.Errorf("Redacted(%s) = %s, want %s", in, got, want)
		}
	}
	// EffectiveURL is redacted too.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	res, _, err := fetchAll(t, &fetch.Client{}, strings.Replace(srv.URL, "//", "//u:topsecret@", 1))
	if err != nil || strings.Contains(res.EffectiveURL, "topsecret") {
		t.Errorf("EffectiveURL %q %v", res.EffectiveURL, err)
	}
}

func TestEntriesBoundedLines(t *testing.T) {
	long := strings.Repeat("L", 200<<10)
	body := "first\r\n" + long + "\nlast"
	res := &fetch.Resource{
		Body:    io.NopCloser(strings.NewReader(body)),
		Listing: func(line []byte) fetch.Entry { return fetch.Entry{Name: string(line), Raw: string(line)} },
	}
	var got []fetch.Entry
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3", len(got))
	}
	if got[0].Name != "first" || got[2].Name != "last" {
		t.Errorf("entries %q, %q", got[0].Name, got[2].Name)
	}
	if !got[1].Unparsed || len(got[1].Raw) != fetch.MaxLineLength || got[1].Name != "" {
		t.Errorf("long line: Unparsed %v, Raw %d bytes, Name %d bytes", got[1].Unparsed, len(got[1].Raw), len(got[1].Name))
	}
	// Not a listing.
	res = &fetch.Resource{Body: io.NopCloser(strings.NewReader("x"))}
	for _, err := range res.Entries() {
		if err == nil {
			t.Error("Entries without a Listing yielded no error")
		}
	}
	// A read error ends the sequence.
	res = &fetch.Resource{Body: io.NopCloser(io.MultiReader(strings.NewReader("a\nb"), iotestErr{})), Listing: func(l []byte) fetch.Entry { return fetch.Entry{Name: string(l)} }}
	var names []string
	var last error
	for e, err := range res.Entries() {
		if err != nil {
			last = err
			break
		}
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "a" || last == nil {
		t.Errorf("names %q, err %v", names, last)
	}
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// A failed write is ErrWrite (23), told apart from a failed read.
func TestWriteErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("w"), 100000))
	}))
	defer srv.Close()
	p := filepath.Join(t.TempDir(), "src")
	os.WriteFile(p, bytes.Repeat([]byte("f"), 100000), 0o644)
	ro, err := os.Open(p) // read-only: writing to it fails
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, url := range []string{srv.URL, "file://" + filepath.ToSlash(p)} {
		for _, progress := range []bool{false, true} {
			for _, tc := range []struct {
				w    io.Writer
				want int
			}{
				{failingWriter{errors.New("disk quota")}, 23},
				{failingWriter{&fetch.Error{Kind: fetch.ErrAborted, Msg: "the writer's own"}}, 42},
				{ro, 23},
			} {
				c := &fetch.Client{}
				if progress {
					c.Progress = func(int64, int64) {}
				}
				res, err := c.Open(context.Background(), url)
				if err != nil {
					t.Fatal(err)
				}
				_, err = io.Copy(tc.w, res.Body)
				res.Body.Close()
				wantExit(t, fmt.Sprintf("%s progress=%v writer %T", url, progress, tc.w), err, tc.want)
			}
		}
	}
}

func TestRequestOptionsOverrideClient(t *testing.T) {
	var got map[string]string
	c := &fetch.Client{
		Options: map[string]string{"a": "client", "b": "client"},
		Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"x-test": fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
			got = req.Options
			return &fetch.Resource{Meta: fetch.Meta{Size: 0}, Body: io.NopCloser(strings.NewReader(""))}, nil
		})}),
	}
	u, err := urlparse.Parse("x-test://h/p")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Do(context.Background(), &fetch.Request{URL: &u, Options: map[string]string{"b": "req", "c": "req"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	want := map[string]string{"a": "client", "b": "req", "c": "req"}
	if !maps.Equal(got, want) {
		t.Fatalf("options %v, want %v", got, want)
	}
	if c.Options["b"] != "client" || len(c.Options) != 2 {
		t.Fatalf("client options changed: %v", c.Options)
	}
}

// A Client builds each scheme's Fetcher once, from its own fields; a copy
// of the Client builds its own from the copy's.
func TestFetchersBuiltPerClient(t *testing.T) {
	var built []fetch.Config
	c := &fetch.Client{UserAgent: "one", Fetchers: map[string]func(fetch.Config) fetch.Fetcher{"x-cfg": func(cfg fetch.Config) fetch.Fetcher {
		built = append(built, cfg)
		return fetch.FetcherFunc(func(context.Context, *fetch.Request) (*fetch.Resource, error) { return &fetch.Resource{}, nil })
	}}}
	open := func(c *fetch.Client) {
		t.Helper()
		res, err := c.Open(context.Background(), "x-cfg://h/")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	open(c)
	open(c)
	var warnings bytes.Buffer
	copied := *c
	copied.UserAgent, copied.Warnings = "two", &warnings
	open(&copied)
	open(c)
	if len(built) != 2 || built[0].UserAgent != "one" || built[1].UserAgent != "two" || built[1].Warnings != &warnings || built[0].Dialer == nil || built[0].TLS == nil {
		t.Errorf("built %d Fetchers: %+v, want one for the Client (user agent one) and one for its copy (two)", len(built), built)
	}
	built = nil
	open(&fetch.Client{Fetchers: c.Fetchers})
	if len(built) != 1 || built[0].UserAgent != fetch.DefaultUserAgent {
		t.Errorf("a Client without a user agent built %+v, want DefaultUserAgent", built)
	}
}

// ctxReader gives its data, then blocks until ctx ends.
type ctxReader struct {
	ctx  context.Context
	data []byte
}

func (r *ctxReader) Read(p []byte) (int, error) {
	if len(r.data) > 0 {
		n := copy(p, r.data)
		r.data = r.data[n:]
		return n, nil
	}
	<-r.ctx.Done()
	return 0, r.ctx.Err()
}

// MaxTime cuts a body that stalls, saying what arrived of what, and a
// request that never answers, saying nothing arrived.
func TestMaxTime(t *testing.T) {
	stalls := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		if req.URL.Host == "silent" {
			<-ctx.Done()
			return nil, fetch.ContextError(ctx)
		}
		return &fetch.Resource{Meta: fetch.Meta{Size: 100}, Body: io.NopCloser(&ctxReader{ctx, make([]byte, 10)})}, nil
	})
	c := &fetch.Client{MaxTime: 200 * time.Millisecond, Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"x-stall": stalls})}
	_, b, err := fetchAll(t, c, "x-stall://h/")
	wantExit(t, "stalled body", err, 28)
	if len(b) != 10 || err == nil || err.Error() != "operation timed out after 200 milliseconds with 10 out of 100 bytes received" {
		t.Errorf("got %d bytes, error %v", len(b), err)
	}
	_, _, err = fetchAll(t, c, "x-stall://silent/")
	wantExit(t, "silent server", err, 28)
	if err == nil || err.Error() != "operation timed out after 200 milliseconds with 0 bytes received" {
		t.Errorf("silent server: %v", err)
	}
}

// A Location with spaces and raw UTF-8 is repaired as curl repairs it:
// lower-case hex, "%20" in the path and "+" in the query (curl's tests 40,
// 663 and 1138 check these bytes on the wire).
func TestRedirectLocationRepairedAsCurl(t *testing.T) {
	var mu sync.Mutex
	var got string
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a/b" {
			redirectTo("../x y/?n=d a é&t={1}", 302)(w, r)
			return
		}
		mu.Lock()
		got = r.RequestURI
		mu.Unlock()
		io.WriteString(w, "B")
	})
	_, _, err := fetchAll(t, &fetch.Client{FollowRedirects: true}, srv.URL+"/a/b")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "/x%20y/?n=d+a+%c3%a9&t=%7b1%7d"; got != want {
		t.Errorf("request target after the redirect %q, want %q", got, want)
	}
}

// With PathAsIs a relative Location is joined as curl joins it, dot
// segments kept: "../b" from "/../../a" is "/../b" (curl's test 391);
// without it RFC 3986 removes them.
func TestRedirectPathAsIs(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/a") {
			redirectTo("../b?q=1", 302)(w, r)
			return
		}
		io.WriteString(w, "B")
	})
	for _, asIs := range []bool{true, false} {
		mu.Lock()
		got = nil
		mu.Unlock()
		if _, _, err := fetchAll(t, &fetch.Client{FollowRedirects: true, PathAsIs: asIs}, srv.URL+"/../../a"); err != nil {
			t.Fatal(err)
		}
		want := "[/../../a /../b?q=1]"
		if !asIs {
			want = "[/a /b?q=1]"
		}
		mu.Lock()
		if fmt.Sprint(got) != want {
			t.Errorf("PathAsIs %v: requests %q, want %s", asIs, got, want)
		}
		mu.Unlock()
	}
}

// TestNetrcAsCurl: a netrc that is required (not NetrcOptional) gives the
// URL's user the netrc password over the URL's own; an optional one only
// when the URL has none; a redirect to another host takes that host's
// netrc entry (curl's tests 133 and 257).
func TestNetrcAsCurl(t *testing.T) {
	netrc := filepath.Join(t.TempDir(), "netrc")
	var rec *recorder
	rec = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			redirectTo("http://localhost:"+rec.URL[strings.LastIndexByte(rec.URL, ':')+1:]+"/there", 302)(w, r)
		}
	})
	os.WriteFile(netrc, []byte("machine 127.0.0.1 login bob password bpw\nmachine 127.0.0.1 login alice password pw\nmachine localhost login carol password cpw\n"), 0o600)
	hp := rec.hostPort()
	for _, tc := range []struct {
		name     string
		optional bool
		want     string
	}{
		{"required", false, basicAlice},
		{"optional", true, "Basic YWxpY2U6dXJs"}, // alice:url
	} {
		c := &fetch.Client{Netrc: true, NetrcFile: netrc, NetrcOptional: tc.optional}
		if _, _, err := fetchAll(t, c, "http://alice:url@"+hp+"/"+tc.name); err != nil {
			t.Fatal(err)
		}
		if a := rec.auth("/" + tc.name); len(a) != 1 || a[0] != tc.want {
			t.Errorf("%s netrc, URL alice:url: Authorization %q, want %q", tc.name, a, tc.want)
		}
	}
	c := &fetch.Client{Netrc: true, NetrcFile: netrc, FollowRedirects: true}
	if _, _, err := fetchAll(t, c, "http://"+hp+"/away"); err != nil {
		t.Fatal(err)
	}
	if a := rec.auth("/there"); len(a) != 1 || a[0] != "Basic Y2Fyb2w6Y3B3" { // carol:cpw
		t.Errorf("redirect to localhost: Authorization %q, want carol's", a)
	}
}
