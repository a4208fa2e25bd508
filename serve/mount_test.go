package serve

import (
	"bytes"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/internal/testserver"
)

// mountSite is a menu whose selectors a router that cleans paths would
// change ("//", dot segments), and a search.
func mountSite(t *testing.T) *gophertest.Server {
	return gophertest.Start(t, &gophertest.Site{Items: map[string]*gophertest.Item{
		"":        {Type: '1', Menu: []string{"iMounted", "0Doubled\t/a//b", "0Dotted\t/x/../y", "7Find\t/find", "1Self\t"}},
		"/a//b":   {Type: '0', Data: []byte("doubled\n")},
		"/x/../y": {Type: '0', Data: []byte("dotted\n")},
		"/find":   {Type: '7', Search: func(q string) []string { return []string{"iFound " + q} }},
	}})
}

// noCleaning is a client that follows the gateway's own redirect (303,
// the address form's) but not another (a ServeMux's 307 to the cleaned
// path): a link that needs cleaning shows as a 307.
func noCleaning(srv *httptest.Server) *http.Client {
	c := *srv.Client()
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.Response != nil && req.Response.StatusCode == http.StatusSeeOther {
			return nil
		}
		return http.ErrUseLastResponse
	}
	return &c
}

func getWith(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(res.Body)
	return res, b.String()
}

var hrefs = regexp.MustCompile(`(?:href|action)="([^"]*)"`)

// The Handler mounted in an http.ServeMux, at "/" or below a prefix (with
// http.StripPrefix or Options.Base): the address form, the links (selectors
// with "//" and dot segments among them), the search form and the redirect
// all stay below the mount and reach the server as they are, with no
// redirect of the mux's; the access log masks a password however the
// path is written.
func TestMounted(t *testing.T) {
	g := mountSite(t)
	for _, c := range []struct {
		name, base string
		mount      func(mux *http.ServeMux, h *Handler)
		opt        Options
	}{
		{"ServeMux at / with Base", "", func(mux *http.ServeMux, h *Handler) { mux.Handle("/", h) }, Options{Base: "/"}},
		{"StripPrefix /gw", "/gw", func(mux *http.ServeMux, h *Handler) { mux.Handle("/gw/", http.StripPrefix("/gw", h)) }, Options{}},
		{"StripPrefix /gw/", "/gw", func(mux *http.ServeMux, h *Handler) { mux.Handle("/gw/", http.StripPrefix("/gw/", h)) }, Options{}},
		{"Base /gw/", "/gw", func(mux *http.ServeMux, h *Handler) { mux.Handle("/gw/", h) }, Options{Base: "/gw/"}},
		{"Base /gw and StripPrefix", "/gw", func(mux *http.ServeMux, h *Handler) { mux.Handle("/gw/", http.StripPrefix("/gw", h)) }, Options{Base: "/gw"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log bytes.Buffer
			c.opt.Resolver, c.opt.AccessLog = newStub(nil), &log
			h, err := New(&fetch.Client{NoProxy: "*"}, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			mux := http.NewServeMux()
			c.mount(mux, h)
			srv := httptest.NewServer(mux)
			defer srv.Close()
			cl := noCleaning(srv)

			res, body := getWith(t, cl, srv.URL+c.base+"/")
			if res.StatusCode != 200 || !strings.Contains(body, `<form class="addr" method="get" action="`+c.base+`/">`) {
				t.Fatalf("front page: %d\n%s", res.StatusCode, body)
			}
			res, body = getWith(t, cl, srv.URL+c.base+"/?u="+url.QueryEscape("gopher://"+g.Addr+"/1"))
			if res.StatusCode != 200 || !strings.Contains(body, "Mounted") {
				t.Fatalf("the menu typed in: %d %s\n%s", res.StatusCode, res.Request.URL, body)
			}
			links := map[string]string{}
			for _, m := range hrefs.FindAllStringSubmatch(body, -1) {
				l := html.UnescapeString(m[1])
				if !strings.HasPrefix(l, c.base+"/") {
					t.Errorf("a link or form leaves the mount: %q", l)
				}
				links[l] = l
			}
			if _, ok := links[c.base+"/.search"]; !ok {
				t.Errorf("no search form to %s/.search:\n%s", c.base, body)
			}
			for name, want := range map[string]string{"Doubled": "doubled\n", "Dotted": "dotted\n"} {
				m := regexp.MustCompile(`href="([^"]*)">` + name + `<`).FindStringSubmatch(body)
				if m == nil {
					t.Errorf("no link %s:\n%s", name, body)
					continue
				}
				res, got := getWith(t, cl, srv.URL+html.UnescapeString(m[1]))
				if res.StatusCode != 200 || got != want {
					t.Errorf("%s (%s): %d %q, want %q", name, m[1], res.StatusCode, got, want)
				}
			}
			q := url.Values{"u": {"gopher://" + g.Addr + "/7/find"}, "q": {"apple pie"}}
			if res, body := getWith(t, cl, srv.URL+c.base+"/.search?"+q.Encode()); res.StatusCode != 200 || !strings.Contains(body, "Found apple pie") {
				t.Errorf("search: %d\n%s", res.StatusCode, body)
			}
			// Through the mux itself: the log line is written when
			// ServeHTTP returns.
			r := httptest.NewRequest("GET", c.base+mount{safe: true}.path("ftp://me:secret@"+testserver.FreeAddr(t)+"/"), nil)
			r.RemoteAddr = "127.0.0.1:5000"
			mux.ServeHTTP(httptest.NewRecorder(), r)
			if strings.Contains(log.String(), "secret") || !strings.Contains(log.String(), c.base+"/ftp://me:****@") {
				t.Errorf("the log:\n%s", log.String())
			}
		})
	}
}

// At the root of an http.ServeMux without Options.Base, a /URL typed into
// the browser's address bar is cleaned by the mux ("//" to "/", with a
// redirect) and taken back as the URL it was.
func TestMuxCleanedPath(t *testing.T) {
	g := mountSite(t)
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil)})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	res, body := get(t, srv, "/gopher://"+g.Addr+"/1", "")
	if res.StatusCode != 200 || !strings.Contains(body, "Mounted") {
		t.Errorf("%d %s\n%s", res.StatusCode, res.Request.URL, body)
	}
}

// Options.Base must be a path.
func TestBaseChecked(t *testing.T) {
	if _, err := New(nil, Options{Base: "gw"}); err == nil || !strings.Contains(err.Error(), "starting with /") {
		t.Errorf("Base gw: %v", err)
	}
}

// A mounted Handler's paths are the URL decoded once, with nothing a
// router cleans; frontTarget reads them back.
func TestMountPath(t *testing.T) {
	for u, want := range map[string]string{
		"gopher://h/1/a//b":   "/gw/gopher%3A%2F/h/1/a%2F/b",
		"gopher://h/0/x/../y": "/gw/gopher%3A%2F/h/0/x%2F../y",
		"ftp://h/%2Fetc/a b":  "/gw/ftp%3A%2F/h/%252Fetc/a%20b",
		"news:comp.lang.go":   "/gw/news%3Acomp.lang.go",
	} {
		got := mount{base: "/gw", safe: true}.path(u)
		if got != want {
			t.Errorf("path(%q) = %q, want %q", u, got, want)
		}
		if back := frontTarget(strings.TrimPrefix(got, "/gw/")); back != u {
			t.Errorf("frontTarget(%q) = %q, want %q", got, back, u)
		}
	}
}
