package fetch

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"

	"github.com/urlget/urlget/urlparse"
)

// This file is the HTTP proxy's CONNECT tunnel (RFC 9110 §9.3.6), which
// carries an https request through an HTTP proxy and, with
// Client.ProxyTunnel (curl's -p), every connection of every scheme.

// ProxyAddr is the "host:port" a proxy URL names: port 1080 when it
// names none, as in curl.
func ProxyAddr(p *urlparse.URL) string { return hostPort(p, defaultProxyPort) }

// BasicAuth is the value of an Authorization or Proxy-Authorization field
// that sends user and password by HTTP Basic (RFC 7617).
func BasicAuth(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// maxConnectReply bounds the proxy's reply to CONNECT.
const maxConnectReply = 64 << 10

// DialTunnel connects to addr ("host:port") through the HTTP proxy p's
// CONNECT tunnel: it connects to p with d (and runs TLS with base over it
// for an https:// proxy), asks for addr, sending userAgent and p's
// credentials, and returns the connection once p has answered 2xx. v,
// when set, gets the exchange as curl -v shows it, the credentials
// masked. A refused tunnel is ErrRecv (curl's 56) with the proxy's status line.
func DialTunnel(ctx context.Context, d Dialer, base *tls.Config, p *urlparse.URL, addr, userAgent string, v io.Writer) (net.Conn, error) {
	nc, err := Connect(ctx, d, ProxyAddr(p), "connecting to")
	if err != nil {
		return nil, err
	}
	if v != nil {
		fmt.Fprintf(v, "* Connected to %s\n", nc.RemoteAddr())
	}
	if p.Scheme == "https" {
		tc, err := HandshakeTLS(ctx, base, nc, p.Host, "proxy")
		if err != nil {
			return nil, err
		}
		nc = tc
	}
	creq := &http.Request{Method: "CONNECT", URL: &url.URL{Opaque: addr}, Host: addr, Header: http.Header{}}
	creq.Header.Set("User-Agent", userAgent)
	if p.HasUserinfo {
		creq.Header.Set("Proxy-Authorization", BasicAuth(p.User, p.Password))
	}
	if v != nil {
		fmt.Fprintf(v, "> CONNECT %s HTTP/1.1\n> Host: %s\n> User-Agent: %s\n", addr, addr, userAgent)
		if p.HasUserinfo {
			fmt.Fprintf(v, "> Proxy-Authorization: Basic ****\n")
		}
	}
	fail := func(e *Error) (net.Conn, error) {
		nc.Close()
		if ctx.Err() != nil {
			return nil, ContextError(ctx)
		}
		return nil, e
	}
	if err := creq.Write(nc); err != nil {
		return fail(&Error{Kind: ErrConnect, Msg: "sending CONNECT to the proxy", Err: err})
	}
	br := bufio.NewReader(io.LimitReader(nc, maxConnectReply))
	resp, err := http.ReadResponse(br, creq)
	if err != nil {
		return fail(&Error{Kind: ErrConnect, Msg: "reading the proxy's reply to CONNECT", Err: err})
	}
	resp.Body.Close()
	if v != nil {
		fmt.Fprintf(v, "< %s %s\n", resp.Proto, SanitizeLine(resp.Status, 200))
	}
	if resp.StatusCode/100 != 2 {
		return fail(&Error{Kind: ErrRecv, Msg: "the proxy refused the tunnel: " + SanitizeLine(resp.Status, 200)})
	}
	if br.Buffered() > 0 {
		// A server that speaks first through the tunnel (ftp, smtp) is
		// heard only once the reply is read: its bytes must not be lost.
		return &bufferedConn{Conn: nc, r: br}, nil
	}
	return nc, nil
}

// bufferedConn is a connection whose first bytes were read with the
// proxy's reply.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) {
	if c.r.Buffered() > 0 {
		return c.r.Read(p)
	}
	return c.Conn.Read(p)
}

// tunnelConn is a connection through an HTTP proxy's tunnel. It has no
// CloseWrite: a proxy may end the tunnel, both ways, when the client's
// side ends, so a half-close would cut what the server still sends (an
// FTP download's data).
type tunnelConn struct{ net.Conn }

// BoundAddr marks a connection whose peer is a proxy, as a SOCKS
// connection's BoundAddr does (its value is unknown here: nil): an FTP
// data connection then goes to the URL's host, through a tunnel of its
// own, not to the proxy's address.
func (tunnelConn) BoundAddr() net.Addr { return nil }
