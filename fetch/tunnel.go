package fetch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

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
	// The request is curl's, field for field, in its order.
	var head strings.Builder
	fmt.Fprintf(&head, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n", addr, addr)
	if p.HasUserinfo {
		head.WriteString("Proxy-Authorization: " + BasicAuth(p.User, p.Password) + "\r\n")
	}
	if userAgent != "" {
		head.WriteString("User-Agent: " + userAgent + "\r\n")
	}
	head.WriteString("Proxy-Connection: Keep-Alive\r\n\r\n")
	if strings.ContainsAny(addr+userAgent, "\r\n\x00") {
		nc.Close()
		return nil, &Error{Kind: ErrMalformed, Msg: "CONNECT request refused: its target or User-Agent holds a CR, LF or NUL"}
	}
	if v != nil {
		fmt.Fprintf(v, "> CONNECT %s HTTP/1.1\n> Host: %s\n", addr, addr)
		if p.HasUserinfo {
			fmt.Fprintf(v, "> Proxy-Authorization: Basic ****\n")
		}
		if userAgent != "" {
			fmt.Fprintf(v, "> User-Agent: %s\n", userAgent)
		}
		fmt.Fprintf(v, "> Proxy-Connection: Keep-Alive\n")
	}
	fail := func(e *Error) (net.Conn, error) {
		nc.Close()
		if ctx.Err() != nil {
			return nil, ContextError(ctx)
		}
		return nil, e
	}
	if _, err := io.WriteString(nc, head.String()); err != nil {
		return fail(&Error{Kind: ErrConnect, Msg: "sending CONNECT to the proxy", Err: err})
	}
	creq := &http.Request{Method: "CONNECT", URL: &url.URL{Opaque: addr}, Host: addr}
	rec := &headRecorder{r: io.LimitReader(nc, maxConnectReply)}
	br := bufio.NewReader(rec)
	resp, err := http.ReadResponse(br, creq)
	if err != nil {
		return fail(&Error{Kind: ErrConnect, Msg: "reading the proxy's reply to CONNECT", Err: err})
	}
	if resp.StatusCode/100 != 2 {
		resp.Body.Close()
	}
	reply := &Meta{Proto: resp.Proto, Status: resp.StatusCode, Size: -1,
		Reason: strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" "),
		Head:   bytes.Clone(rec.buf[:len(rec.buf)-br.Buffered()])}
	if v != nil {
		fmt.Fprintf(v, "< %s %s\n", resp.Proto, SanitizeLine(resp.Status, 200))
	}
	if v != nil && resp.StatusCode/100 == 2 {
		// A 2xx reply has no body, whatever its fields say (RFC 9110
		// §9.3.6): the tunnel starts after its head. curl -v says so.
		for _, line := range strings.Split(string(reply.Head), "\n") {
			name, _, _ := strings.Cut(line, ":")
			for _, f := range []string{"Content-Length", "Transfer-Encoding"} {
				if strings.EqualFold(strings.TrimSpace(name), f) {
					fmt.Fprintf(v, "* Ignoring %s in CONNECT %d response\n", f, resp.StatusCode)
				}
			}
		}
	}
	if resp.StatusCode/100 != 2 {
		// The reply is shown (curl's -i, -D) and its status is curl's
		// -w %{http_connect}: it is the Error's Reply's Tunnel.
		return fail(&Error{Kind: ErrRecv, Msg: "the proxy refused the tunnel: " + SanitizeLine(resp.Status, 200),
			Reply: &Meta{Size: -1, Tunnel: reply}})
	}
	// A server that speaks first through the tunnel (ftp, smtp) is heard
	// only once the reply is read: the bytes read past it must not be
	// lost.
	t := &tunneled{Conn: nc, reply: reply}
	if br.Buffered() > 0 {
		t.r = br
	}
	return t, nil
}

// headRecorder keeps the bytes read through it: the proxy's reply to
// CONNECT, bounded by maxConnectReply, as received.
type headRecorder struct {
	r   io.Reader
	buf []byte
}

func (h *headRecorder) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.buf = append(h.buf, p[:n]...)
	return n, err
}

// tunneled is a connection through a CONNECT tunnel: the proxy's reply
// (TunnelReply), and the first bytes read with it (r, nil when none).
type tunneled struct {
	net.Conn
	reply *Meta
	r     *bufio.Reader
}

func (c *tunneled) Read(p []byte) (int, error) {
	if c.r != nil && c.r.Buffered() > 0 {
		return c.r.Read(p)
	}
	return c.Conn.Read(p)
}

// ReadFrom and WriteTo keep the connection's own fast paths.
func (c *tunneled) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }

func (c *tunneled) WriteTo(w io.Writer) (int64, error) {
	var n int64
	if c.r != nil && c.r.Buffered() > 0 {
		b, _ := c.r.Peek(c.r.Buffered())
		m, err := w.Write(b)
		c.r.Discard(m)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	m, err := io.Copy(w, c.Conn)
	return n + m, err
}

// NetConn is the connection to the proxy.
func (c *tunneled) NetConn() net.Conn { return c.Conn }

// TunnelReply is the reply of the HTTP proxy whose CONNECT tunnel nc
// (through the NetConn of its layers) goes through: its status line and
// head as received, for curl's -i, -D and -w %{http_connect}; nil when nc
// goes through no tunnel.
func TunnelReply(nc net.Conn) *Meta {
	if t, ok := ConnLayer[*tunneled](nc); ok {
		return t.reply
	}
	return nil
}

// tunnelConn is a connection through an HTTP proxy's tunnel. It has no
// CloseWrite: a proxy may end the tunnel, both ways, when the client's
// side ends, so a half-close would cut what the server still sends (an
// FTP download's data).
type tunnelConn struct{ net.Conn }

// NetConn is the tunnel's connection (TunnelReply).
func (c tunnelConn) NetConn() net.Conn { return c.Conn }

// BoundAddr marks a connection whose peer is a proxy, as a SOCKS
// connection's BoundAddr does (its value is unknown here: nil): an FTP
// data connection then goes to the URL's host, through a tunnel of its
// own, not to the proxy's address.
func (tunnelConn) BoundAddr() net.Addr { return nil }
