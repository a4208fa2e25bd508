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
	"strings"

	"github.com/urlget/urlget/internal/ntlm"
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

// OffersScheme reports whether the values of a WWW-Authenticate or
// Proxy-Authenticate field offer the authentication scheme (alone or
// with parameters).
func OffersScheme(values []string, scheme string) bool {
	for _, v := range values {
		s, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		if strings.EqualFold(s, scheme) {
			return true
		}
	}
	return false
}

// maxConnectReply bounds the proxy's reply to CONNECT.
const maxConnectReply = 64 << 10

// TunnelAuth says how DialTunnel sends the proxy's credentials: by Basic
// (the zero value), by NTLM (curl's --proxy-ntlm), or as the proxy's 407
// asks, the first CONNECT without them (AnyAuth, --proxy-anyauth: NTLM
// when offered, else Basic).
type TunnelAuth struct{ NTLM, AnyAuth bool }

// maxTunnelAsks bounds the CONNECT requests of one tunnel: a proxy that
// asks again and again does not keep the client sending.
const maxTunnelAsks = 4

// DialTunnel connects to addr ("host:port") through the HTTP proxy p's
// CONNECT tunnel: it connects to p with d (and runs TLS with base over it
// for an https:// proxy), asks for addr, sending userAgent and p's
// credentials as auth says, and returns the connection once p has
// answered 2xx. The request's fields are curl's, in its order (Host,
// Proxy-Authorization, User-Agent, "Proxy-Connection: Keep-Alive"). A
// 407 is answered when auth and p's credentials can: NTLM's challenge on
// the same connection (a 407 whose connection ends is then the refusal),
// an AnyAuth choice on the same one or, when the proxy closes it, a new
// one. v, when set, gets the exchange as curl -v shows it, the
// credentials masked. A refused tunnel is ErrRecv (curl's 56) with the
// proxy's status line.
func DialTunnel(ctx context.Context, d Dialer, base *tls.Config, p *urlparse.URL, addr, userAgent string, v io.Writer, auth TunnelAuth) (net.Conn, error) {
	var (
		nc net.Conn
		br *bufio.Reader
	)
	dial := func() error {
		c, err := Connect(ctx, d, ProxyAddr(p), "connecting to")
		if err != nil {
			return err
		}
		if v != nil {
			fmt.Fprintf(v, "* Connected to %s\n", c.RemoteAddr())
		}
		if p.Scheme == "https" {
			tc, err := HandshakeTLS(ctx, base, c, p.Host, "proxy")
			if err != nil {
				return err
			}
			c = tc
		}
		nc, br = c, bufio.NewReader(io.LimitReader(c, maxConnectReply))
		return nil
	}
	if err := dial(); err != nil {
		return nil, err
	}
	fail := func(e *Error) (net.Conn, error) {
		nc.Close()
		if ctx.Err() != nil {
			return nil, ContextError(ctx)
		}
		return nil, e
	}
	const (
		none = iota
		ntlm1
		done
	)
	stage, authz := done, ""
	switch {
	case !p.HasUserinfo:
	case auth.NTLM:
		stage, authz = ntlm1, ntlm.NegotiateField()
	case auth.AnyAuth:
		stage = none
	default:
		authz = BasicAuth(p.User, p.Password)
	}
	for asks := 1; ; asks++ {
		var head strings.Builder
		fmt.Fprintf(&head, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n", addr, addr)
		if authz != "" {
			fmt.Fprintf(&head, "Proxy-Authorization: %s\r\n", authz)
		}
		fmt.Fprintf(&head, "User-Agent: %s\r\nProxy-Connection: Keep-Alive\r\n\r\n", userAgent)
		if strings.ContainsAny(userAgent, "\r\n") {
			return fail(&Error{Kind: ErrMalformed, Msg: "the User-Agent holds a CR or LF"})
		}
		if v != nil {
			for l := range strings.SplitSeq(strings.TrimSuffix(head.String(), "\r\n\r\n"), "\r\n") {
				if name, val, _ := strings.Cut(l, ": "); name == "Proxy-Authorization" {
					scheme, _, _ := strings.Cut(val, " ")
					l = name + ": " + scheme + " ****"
				}
				fmt.Fprintf(v, "> %s\n", l)
			}
		}
		if _, err := io.WriteString(nc, head.String()); err != nil {
			return fail(&Error{Kind: ErrConnect, Msg: "sending CONNECT to the proxy", Err: err})
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: "CONNECT"})
		if err != nil {
			return fail(&Error{Kind: ErrConnect, Msg: "reading the proxy's reply to CONNECT", Err: err})
		}
		if v != nil {
			fmt.Fprintf(v, "< %s %s\n", resp.Proto, SanitizeLine(resp.Status, 200))
		}
		if resp.StatusCode/100 == 2 {
			resp.Body.Close()
			break
		}
		refused := &Error{Kind: ErrRecv, Msg: "the proxy refused the tunnel: " + SanitizeLine(resp.Status, 200)}
		if resp.StatusCode != http.StatusProxyAuthRequired || asks >= maxTunnelAsks {
			resp.Body.Close()
			return fail(refused)
		}
		// The 407's body is read to its end: the connection goes on.
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		closing := resp.Close || err != nil
		ask := resp.Header.Values("Proxy-Authenticate")
		switch {
		case stage == ntlm1 && !closing:
			var ok bool
			if authz, ok = ntlm.AnswerField(ask, p.User, p.Password); !ok {
				return fail(refused)
			}
			stage = done
			continue // on this connection: NTLM authenticates it
		case stage == none && OffersScheme(ask, "NTLM"):
			stage, authz = ntlm1, ntlm.NegotiateField()
		case stage == none && OffersScheme(ask, "Basic"):
			stage, authz = done, BasicAuth(p.User, p.Password)
		default:
			return fail(refused)
		}
		if closing {
			nc.Close()
			if err := dial(); err != nil {
				return nil, err
			}
		}
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
