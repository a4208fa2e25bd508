package main

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// curl's proxy options that its test suite uses (issue #40), each beside
// curl: --proxy1.0, SOCKS failures' exit status.

// TestProxy10BesideCurl: --proxy1.0 HOST:PORT is -x HOST:PORT whose
// CONNECT says HTTP/1.0 — the tunnel of an https URL, and every URL's
// with -p — while what goes through the tunnel stays HTTP/1.1.
func TestProxy10BesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	defer srv.Close()
	proxy := fetchtest.NewProxy(t, nil)
	seen := 0
	for _, client := range []string{"curl", "urlget"} {
		code, _ := runClient(t, curl, client, "-s", "-p", "--proxy1.0", proxy.Addr, "-o", os.DevNull, "http://"+rec.addr+"/ten")
		reqs := proxy.Requests()[seen:]
		seen += len(reqs)
		got := rec.take()
		if code != 0 || len(reqs) != 1 || reqs[0].Line != "CONNECT "+rec.addr+" HTTP/1.0" {
			t.Errorf("%s -p --proxy1.0: exit %d, the proxy was asked %q", client, code, reqs)
		}
		if len(got) != 1 || !strings.HasPrefix(string(got[0]), "GET /ten HTTP/1.1\r\n") {
			t.Errorf("%s -p --proxy1.0: the server got %q", client, got)
		}

		addr := strings.TrimPrefix(srv.URL, "https://")
		code, out := runClient(t, curl, client, "-s", "-k", "--proxy1.0", proxy.Addr, srv.URL+"/s")
		reqs = proxy.Requests()[seen:]
		seen += len(reqs)
		if code != 0 || out != "HTTP/1.1" || len(reqs) != 1 || reqs[0].Line != "CONNECT "+addr+" HTTP/1.0" {
			t.Errorf("%s --proxy1.0 https: exit %d, %q; the proxy was asked %q", client, code, out, reqs)
		}
	}
}

// TestSuppressConnectHeadersBesideCurl: --suppress-connect-headers leaves
// the proxy's reply to CONNECT out of -i and -D, and -w still sees it
// (%{http_connect}, %{size_header}); without it both write it.
func TestSuppressConnectHeadersBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	proxy := fetchtest.NewProxy(t, nil)
	url := "http://" + rec.addr + "/s"
	heads := filepath.Join(t.TempDir(), "heads")
	for _, suppress := range []bool{false, true} {
		args := []string{"-s", "-p", "-x", proxy.Addr, "-i", "-D", heads, "-w", "[%{http_connect} %{size_header}]", url}
		if suppress {
			args = append([]string{"--suppress-connect-headers"}, args...)
		}
		var outs, dumps [2]string
		for i, client := range []string{"curl", "urlget"} {
			code, out := runClient(t, curl, client, args...)
			b, err := os.ReadFile(heads)
			if code != 0 || err != nil {
				t.Fatalf("%s suppress %v: exit %d, %v", client, suppress, code, err)
			}
			outs[i], dumps[i] = out, string(b)
		}
		connects := strings.Count(outs[1]+dumps[1], "200 Connection established")
		if outs[0] != outs[1] || dumps[0] != dumps[1] || connects != map[bool]int{false: 2, true: 0}[suppress] ||
			!strings.HasSuffix(outs[1], "ok\n[200 151]") {
			t.Errorf("suppress %v: urlget wrote %q and -D %q; curl %q and %q", suppress, outs[1], dumps[1], outs[0], dumps[0])
		}
		rec.take()
	}
}

// TestProxyInsecureBesideCurl: --proxy-insecure accepts an https://
// proxy's certificate unverified — for a request sent to it, a gateway
// request, a CONNECT tunnel with -p — where without it the certificate
// is refused (exit 60) and the server's is still verified.
func TestProxyInsecureBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	gw := fetchtest.NewProxy(t, func(w io.Writer, req *http.Request) {
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\ngateway\n")
	})
	certs := httptest.NewUnstartedServer(nil)
	certs.StartTLS() // for its certificate, which no client here trusts
	defer certs.Close()
	front := fetchtest.NewServer(t, func(c net.Conn) {
		tc := tls.Server(c, certs.TLS)
		defer tc.Close()
		up, err := net.Dial("tcp", gw.Addr)
		if err != nil {
			return
		}
		go func() {
			io.Copy(up, tc)
			up.Close()
		}()
		io.Copy(tc, up)
	})
	proxy := "https://" + front.Addr
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"http://" + rec.addr + "/a"}, "gateway\n"},
		{[]string{"ftp://ftp.example/f"}, "gateway\n"},
		{[]string{"-p", "http://" + rec.addr + "/b"}, "ok\n"},
	} {
		for _, insecure := range []bool{false, true} {
			args := append([]string{"-s", "-x", proxy}, tc.args...)
			want, wantCode := tc.out, 0
			if insecure {
				args = append(args, "--proxy-insecure")
			} else {
				want, wantCode = "", 60
			}
			for _, client := range []string{"curl", "urlget"} {
				code, out := runClient(t, curl, client, args...)
				if code != wantCode || out != want {
					t.Errorf("%s %q: exit %d, %q; want %d, %q", client, args, code, out, wantCode, want)
				}
			}
		}
	}
	rec.take()
}

// TestPreProxyBesideCurl: --preproxy SOCKS reaches the HTTP proxy
// through the SOCKS proxy — for a request sent to the HTTP proxy and for
// its -p tunnel — and a --connect-to rule for the URL's host makes the
// HTTP proxy a tunnel to where the rule sends it, as curl does.
func TestPreProxyBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	proxy := fetchtest.NewProxy(t, func(w io.Writer, req *http.Request) {
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\ngateway\n")
	})
	socks := fetchtest.NewSOCKS5(t, false, nil)
	_, port, _ := net.SplitHostPort(rec.addr)
	for _, tc := range []struct {
		args       []string
		out, line  string // the reply, the HTTP proxy's request line ("": none)
		socksFor   string // what the SOCKS proxy is asked for, "" when not used
		serverLine string // the server's request line, "" when none
	}{
		{[]string{"--preproxy", "socks5://" + socks.Addr, "-x", proxy.Addr, "http://" + rec.addr + "/a"}, "gateway\n", "GET http://" + rec.addr + "/a HTTP/1.1", proxy.Addr, ""},
		{[]string{"--preproxy", "socks5h://" + socks.Addr, "-p", "-x", proxy.Addr, "http://" + rec.addr + "/b"}, "ok\n", "CONNECT " + rec.addr + " HTTP/1.1", proxy.Addr, "GET /b HTTP/1.1"},
		{[]string{"--connect-to", "origin.example:80:127.0.0.1:" + port, "-x", proxy.Addr, "http://origin.example/c"}, "ok\n", "CONNECT 127.0.0.1:" + port + " HTTP/1.1", "", "GET /c HTTP/1.1"},
		{[]string{"--preproxy", "socks5://" + socks.Addr, "http://" + rec.addr + "/d"}, "ok\n", "", rec.addr, "GET /d HTTP/1.1"},
	} {
		for _, client := range []string{"curl", "urlget"} {
			asked, seen := len(socks.Asked()), len(proxy.Requests())
			code, out := runClient(t, curl, client, append([]string{"-s"}, tc.args...)...)
			reqs := proxy.Requests()[seen:]
			got := rec.take()
			if code != 0 || out != tc.out || (tc.line == "") != (len(reqs) == 0) || len(reqs) > 0 && (len(reqs) != 1 || reqs[0].Line != tc.line) {
				t.Errorf("%s %q: exit %d, %q; the proxy was asked %q", client, tc.args, code, out, reqs)
			}
			if s := socks.Asked()[asked:]; tc.socksFor == "" && len(s) > 0 || tc.socksFor != "" && (len(s) != 1 || s[0] != tc.socksFor) {
				t.Errorf("%s %q: the SOCKS proxy was asked %q", client, tc.args, s)
			}
			if tc.serverLine != "" && (len(got) != 1 || !strings.HasPrefix(string(got[0]), tc.serverLine+"\r\n")) {
				t.Errorf("%s %q: the server got %q", client, tc.args, got)
			}
		}
	}
}

// TestProxyAnyAuthBodyBesideCurl: with --proxy-anyauth the first request
// to the proxy carries the body (nothing says yet that the proxy wants
// credentials), and the one answering its 407 carries it again.
func TestProxyAnyAuthBodyBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	var mu sync.Mutex
	var got []string
	proxy := fetchtest.NewProxy(t, func(w io.Writer, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		auth := req.Header.Get("Proxy-Authorization")
		mu.Lock()
		got = append(got, auth+"|"+string(body))
		mu.Unlock()
		if auth == "" {
			io.WriteString(w, "HTTP/1.1 407 Who\r\nProxy-Authenticate: Basic realm=\"p\"\r\nContent-Length: 0\r\n\r\n")
			return
		}
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
	})
	want := []string{"|postit", fetch.BasicAuth("u", "pw") + "|postit"}
	for _, client := range []string{"curl", "urlget"} {
		mu.Lock()
		got = nil
		mu.Unlock()
		code, out := runClient(t, curl, client, "-s", "-x", proxy.Addr, "-U", "u:pw", "--proxy-anyauth", "-d", "postit", "http://origin.example/p")
		mu.Lock()
		if code != 0 || out != "ok\n" || !slices.Equal(got, want) {
			t.Errorf("%s: exit %d, %q; the proxy got %q, want %q", client, code, out, got, want)
		}
		mu.Unlock()
	}
}

// TestGatewayUploadBesideCurl: -T to an ftp URL through an HTTP proxy is
// a PUT of the file to the proxy (Expect: 100-continue, as to an http
// URL), and the URL's or -u's credentials go in the target and by Basic,
// a GET's too.
func TestGatewayUploadBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	var mu sync.Mutex
	var got []string
	proxy := fetchtest.NewProxy(t, func(w io.Writer, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		mu.Lock()
		got = append(got, strings.Join([]string{req.Method, req.RequestURI, req.Header.Get("Authorization"), req.Header.Get("Expect"), string(body)}, "|"))
		mu.Unlock()
		io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
	})
	file := filepath.Join(t.TempDir(), "up.txt")
	write(t, file, "upload\n")
	basic := fetch.BasicAuth("joe", "pw")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-T", file, "ftp://joe:pw@ftp.example/in/up.txt"}, "PUT|ftp://joe:pw@ftp.example/in/up.txt|" + basic + "|100-continue|upload\n"},
		{[]string{"-u", "joe:pw", "ftp://ftp.example/f"}, "GET|ftp://joe:pw@ftp.example/f|" + basic + "||"},
	} {
		for _, client := range []string{"curl", "urlget"} {
			mu.Lock()
			got = nil
			mu.Unlock()
			code, _ := runClient(t, curl, client, append([]string{"-s", "-x", proxy.Addr}, tc.args...)...)
			mu.Lock()
			if code != 0 || len(got) != 1 || got[0] != tc.want {
				t.Errorf("%s %q: exit %d; the proxy got %q, want %q", client, tc.args, code, got, tc.want)
			}
			mu.Unlock()
		}
	}
}

// TestProxyDigestBesideCurl: --proxy-digest sends the first request to
// the proxy without credentials and answers its 407's Digest challenge
// (MD5, qop=auth) with a response the proxy checks, as curl does.
func TestProxyDigestBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	d := &fetchtest.DigestAuth{Realm: "proxy", User: "u", Password: "pw", QOP: "auth"}
	proxy := fetchtest.NewProxy(t, func(w io.Writer, req *http.Request) {
		if auth := req.Header.Get("Proxy-Authorization"); auth != "" && d.Check(req.Method, req.URL.RequestURI(), auth) == nil {
			io.WriteString(w, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
			return
		}
		io.WriteString(w, "HTTP/1.1 407 Who\r\nProxy-Authenticate: "+d.Challenge(false)+"\r\nContent-Length: 0\r\n\r\n")
	})
	for _, client := range []string{"curl", "urlget"} {
		seen := len(proxy.Requests())
		code, out := runClient(t, curl, client, "-s", "-x", proxy.Addr, "-U", "u:pw", "--proxy-digest", "http://origin.example/p")
		reqs := proxy.Requests()[seen:]
		if code != 0 || out != "ok\n" || len(reqs) != 2 || reqs[0].ProxyAuth != "" || !strings.HasPrefix(reqs[1].ProxyAuth, "Digest ") {
			t.Errorf("%s: exit %d, %q; the proxy was asked %q", client, code, out, reqs)
		}
	}
}

// TestProxyHeaderBesideCurl: --proxy-header lines go to the HTTP proxy a
// request is sent to, after the -H lines, "Name:" removing a field
// (Proxy-Connection) and "Name;" sending it empty, as curl's. (A line
// naming a field of urlget's own, "Accept: text/x", replaces it; curl
// 7.88 sends its "Accept: */*" and the line both.)
func TestProxyHeaderBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	for _, args := range [][]string{
		{"--proxy-header", "X-P: 1", "--proxy-header", "Proxy-Connection:", "-H", "X-S: 2", "http://origin.invalid/p"},
		{"--proxy-header", "X-Empty;", "-H", "X-S: 2", "--proxy-header", "X-Q: 3", "http://origin.invalid/q"},
	} {
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, append([]string{"-s", "-x", "http://" + rec.addr}, args...), "")
		if len(creqs) != 1 || len(ureqs) != 1 {
			t.Fatalf("%q: curl sent %d requests, urlget %d", args, len(creqs), len(ureqs))
		}
		if c, u := comparableRequest(creqs[0]), comparableRequest(ureqs[0]); c != u || !strings.Contains(u, "\r\nX-") {
			t.Errorf("%q: requests differ:\nurlget %q\ncurl   %q", args, u, c)
		}
	}
}
