package fetchtest

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
)

// Proxy is an HTTP proxy for tests: it tunnels CONNECT requests to the
// address asked for (RFC 9110 §9.3.6), and hands every other request — an
// absolute-form http request, or a gateway request such as "GET
// ftp://host/file" (RFC 1630) — to the answer function given to NewProxy,
// which writes the raw reply, so that a test chooses the order and the case
// of its header fields. Each request is recorded.
type Proxy struct {
	*Server
	mu   sync.Mutex
	reqs []ProxyRequest
}

// ProxyRequest is a request the Proxy received.
type ProxyRequest struct {
	Line      string // the request line: "CONNECT host:443 HTTP/1.1"
	ProxyAuth string // the Proxy-Authorization field, "" when absent
}

// NewProxy starts a Proxy on 127.0.0.1; answer writes the reply to every
// request but CONNECT (nil: 502 Bad Gateway). The connection is kept for
// further requests until the client closes it.
func NewProxy(t testing.TB, answer func(w io.Writer, req *http.Request)) *Proxy {
	t.Helper()
	p := &Proxy{}
	p.Server = NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			p.mu.Lock()
			p.reqs = append(p.reqs, ProxyRequest{req.Method + " " + req.RequestURI + " " + req.Proto, req.Header.Get("Proxy-Authorization")})
			p.mu.Unlock()
			if req.Method == "CONNECT" {
				tunnel(c, br, req.RequestURI)
				return
			}
			if answer == nil {
				io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
				continue
			}
			answer(c, req)
		}
	})
	return p
}

// tunnel connects to addr and copies both ways until either side closes.
func tunnel(c net.Conn, br *bufio.Reader, addr string) {
	up, err := net.Dial("tcp", addr)
	if err != nil {
		io.WriteString(c, "HTTP/1.1 502 Bad Gateway\r\n\r\n")
		return
	}
	defer up.Close()
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() {
		io.Copy(up, br)
		up.Close() // the client is gone: so is the tunnel
	}()
	io.Copy(c, up)
}

// Requests returns the requests received so far.
func (p *Proxy) Requests() []ProxyRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProxyRequest(nil), p.reqs...)
}
