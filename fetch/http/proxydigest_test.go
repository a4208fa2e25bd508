package http_test

import (
	"bufio"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch"
)

// digestProxy is an HTTP proxy asking for Digest (no qop) as curl's test
// proxy does: a request or CONNECT without Proxy-Authorization gets a
// 407 with nonce "n1" (closing its connection with close); with stale,
// the answer to "n1" gets a 407 saying stale=true with nonce "n2". An
// answer it checks is served "ok\n" (a CONNECT: a tunnel to a server
// answering one request so). log is each request's method, URI and what
// it carried: "none", the nonce answered, or "bad".
type digestProxy struct {
	user, password string
	close, stale   bool
	mu             sync.Mutex
	log            []string
}

// md5hex is MD5 of the parts joined by ':', in hex (RFC 7616 §3.4.1).
func md5hex(parts ...string) string {
	s := md5.Sum([]byte(strings.Join(parts, ":")))
	return hex.EncodeToString(s[:])
}

func (p *digestProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	uri := r.URL.Path // curl's uri to a proxy: the path, not the absolute URL
	if r.Method == http.MethodConnect {
		uri = r.Host
	}
	got := "none"
	if v := r.Header.Get("Proxy-Authorization"); v != "" {
		got = "bad"
		for _, nonce := range []string{"n1", "n2"} {
			resp := md5hex(md5hex(p.user, "px", p.password), nonce, md5hex(r.Method, uri))
			if v == fmt.Sprintf(`Digest username="%s", realm="px", nonce="%s", uri="%s", response="%s"`, p.user, nonce, uri, resp) {
				got = nonce
			}
		}
	}
	p.mu.Lock()
	p.log = append(p.log, r.Method+" "+uri+" "+got)
	p.mu.Unlock()
	ask := func(params string) {
		w.Header().Set("Proxy-Authenticate", `Digest realm="px", `+params)
		if p.close {
			w.Header().Set("Connection", "close")
		}
		w.WriteHeader(http.StatusProxyAuthRequired)
		io.WriteString(w, "not yet\n")
	}
	switch {
	case got == "none" || got == "bad":
		ask(`nonce="n1"`)
	case got == "n1" && p.stale:
		ask(`nonce="n2", stale=true`)
	case r.Method != http.MethodConnect:
		io.WriteString(w, "ok\n")
	default:
		tunnelOnce(w)
	}
}

// TestProxyDigest: --proxy-digest sends the first request (or CONNECT)
// without the proxy's credentials and answers its 407's Digest
// challenge, the uri the path (a CONNECT: its host:port), on the same
// connection or, when the proxy closes it, a new one; a stale nonce is
// answered again; --proxy-anyauth picks Digest from the 407 too.
func TestProxyDigest(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		tunnel, any, close, stale bool
		want                      string
	}{
		{"request", false, false, false, false, "GET /x none GET /x n1"},
		{"request, closing 407", false, false, true, false, "GET /x none GET /x n1"},
		{"request, stale", false, false, false, true, "GET /x none GET /x n1 GET /x n2"},
		{"anyauth", false, true, false, false, "GET /x none GET /x n1"},
		{"tunnel", true, false, false, false, "CONNECT example.invalid:80 none CONNECT example.invalid:80 n1"},
		{"tunnel, closing 407", true, false, true, false, "CONNECT example.invalid:80 none CONNECT example.invalid:80 n1"},
		{"tunnel, stale", true, false, false, true, "CONNECT example.invalid:80 none CONNECT example.invalid:80 n1 CONNECT example.invalid:80 n2"},
		{"tunnel, anyauth", true, true, false, false, "CONNECT example.invalid:80 none CONNECT example.invalid:80 n1"},
	} {
		p := &digestProxy{user: "pxuser", password: "pxpass", close: tc.close, stale: tc.stale}
		srv := httptest.NewServer(p)
		proxy := parse(t, strings.Replace(srv.URL, "http://", "http://pxuser:pxpass@", 1))
		c := &fetch.Client{Proxy: proxy, ProxyTunnel: tc.tunnel, ProxyDigest: !tc.any, ProxyAnyAuth: tc.any}
		res, got, err := get(t, c, &fetch.Request{URL: parse(t, "http://example.invalid/x")})
		p.mu.Lock()
		log := strings.Join(p.log, " ")
		p.mu.Unlock()
		if err != nil || res.Status != 200 || string(got) != "ok\n" || log != tc.want {
			t.Errorf("%s: %q %v, proxy saw %s, want %s", tc.name, got, err, log, tc.want)
		}
		srv.Close()
	}
}

// rawProxy is a proxy that records each request head it gets as
// received: a CONNECT answered 200 and the request through its tunnel
// recorded too, any other request answered "ok\n".
func rawProxy(t *testing.T) (string, func() []string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	var heads []string
	readHead := func(br *bufio.Reader) bool {
		var b strings.Builder
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return false
			}
			if l == "\r\n" {
				break
			}
			b.WriteString(l)
		}
		mu.Lock()
		heads = append(heads, b.String())
		mu.Unlock()
		return true
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for readHead(br) {
					mu.Lock()
					connect := strings.HasPrefix(heads[len(heads)-1], "CONNECT ")
					mu.Unlock()
					if connect {
						io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
						continue
					}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(heads)
	}
}

// TestProxyHeader: --proxy-header lines go to the proxy only: after a
// CONNECT's own fields, replacing ("User-Agent: ...") or removing
// ("Proxy-Connection:") them, not through the tunnel; after the -H lines
// of a request sent to the proxy, where they replace urlget's fields too.
func TestProxyHeader(t *testing.T) {
	lines := []string{"User-Agent: pua", "Proxy-Connection:", "X-P: 1", "X-Empty;"}
	h := fetch.Options{"http-header": "X-S: 2"}
	for _, tunnel := range []bool{true, false} {
		addr, heads := rawProxy(t)
		c := &fetch.Client{Proxy: parse(t, addr), ProxyTunnel: tunnel, ProxyHeader: lines, UserAgent: "ua"}
		_, got, err := get(t, c, &fetch.Request{URL: parse(t, "http://example.invalid:81/x"), Options: h})
		want := []string{"GET http://example.invalid:81/x HTTP/1.1\r\nHost: example.invalid:81\r\nAccept: */*\r\nX-S: 2\r\nUser-Agent: pua\r\nX-P: 1\r\nX-Empty:\r\n"}
		if tunnel {
			want = []string{"CONNECT example.invalid:81 HTTP/1.1\r\nHost: example.invalid:81\r\nUser-Agent: pua\r\nX-P: 1\r\nX-Empty:\r\n",
				"GET /x HTTP/1.1\r\nHost: example.invalid:81\r\nUser-Agent: ua\r\nAccept: */*\r\nX-S: 2\r\n"}
		}
		if err != nil || string(got) != "ok\n" || !slices.Equal(heads(), want) {
			t.Errorf("tunnel %v: %q %v, proxy got\n%q\nwant\n%q", tunnel, got, err, heads(), want)
		}
	}
}
