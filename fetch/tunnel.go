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
	"strconv"
	"strings"

	"github.com/urlget/urlget/internal/digest"
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
// with parameters), among the challenges of each value (RFC 9110 §11.6.1:
// one value may hold several, `X-Token realm="a", Basic realm="b"`).
func OffersScheme(values []string, scheme string) bool {
	for _, v := range values {
		for _, s := range challengeSchemes(v) {
			if strings.EqualFold(s, scheme) {
				return true
			}
		}
	}
	return false
}

// challengeSchemes is the scheme of each challenge in one value of a
// WWW-Authenticate field: the comma-separated elements (commas inside a
// quoted string do not count) whose first word has no "=" start a
// challenge; the others are its parameters.
func challengeSchemes(v string) []string {
	var schemes []string
	elem := func(e string) {
		word, _, _ := strings.Cut(strings.TrimSpace(e), " ")
		if word != "" && !strings.Contains(word, "=") {
			schemes = append(schemes, word)
		}
	}
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			elem(v[start:i])
			start = i + 1
		}
	}
	elem(v[start:])
	return schemes
}

// maxConnectReply bounds the proxy's reply to CONNECT.
const maxConnectReply = 64 << 10

// TunnelOptions says what DialTunnel's CONNECT sends beyond its own
// fields: Header, header lines of curl's --proxy-header (read as
// HeaderLine does: they replace, remove or add to the CONNECT's Host,
// Proxy-Authorization, User-Agent and Proxy-Connection, and go after
// them, in order). The proxy's credentials go by Basic
// (the zero value), by NTLM (curl's --proxy-ntlm), by Digest (the first
// CONNECT without them, its 407's Digest challenge answered:
// --proxy-digest), or as the proxy's 407 asks, the first CONNECT without
// them (AnyAuth, --proxy-anyauth: Digest when offered, else NTLM, else
// Basic). HTTP10 sends the CONNECT as HTTP/1.0 (curl's --proxy1.0),
// its fields unchanged.
type TunnelOptions struct {
	NTLM, AnyAuth, Digest bool
	Header                []string
	HTTP10                bool
}

// hasDigest reports whether the values of a Proxy-Authenticate field hold
// a Digest challenge that can be answered; hasStaleDigest whether it
// says the nonce answered was stale.
func hasDigest(ask []string) bool { _, ok := digest.Find(ask); return ok }

func hasStaleDigest(ask []string) bool { ch, ok := digest.Find(ask); return ok && ch.Stale() }

// maxStale bounds the CONNECTs sent again after a 407 saying the Digest
// nonce was stale.
const maxStale = 2

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
func DialTunnel(ctx context.Context, d Dialer, base *tls.Config, p *urlparse.URL, addr, userAgent string, v io.Writer, auth TunnelOptions) (net.Conn, error) {
	var (
		nc  net.Conn
		br  *bufio.Reader
		rec *headRecorder
	)
	if strings.ContainsAny(addr+userAgent, "\r\n\x00") {
		return nil, &Error{Kind: ErrMalformed, Msg: "CONNECT request refused: its target or User-Agent holds a CR, LF or NUL"}
	}
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
		rec = &headRecorder{r: io.LimitReader(c, maxConnectReply)}
		nc, br = c, bufio.NewReader(rec)
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
		digested // a Digest answer went: only a stale nonce is answered again
		done
	)
	stage, authz := done, ""
	switch {
	case !p.HasUserinfo:
	case auth.NTLM:
		stage, authz = ntlm1, ntlm.NegotiateField()
	case auth.AnyAuth, auth.Digest:
		stage = none
	default:
		authz = BasicAuth(p.User, p.Password)
	}
	replaced := map[string]bool{} // the lower-case names of the Header lines
	var custom []string           // the lines sent, as given ("Name;" as "Name:")
	for _, l := range auth.Header {
		name, _, send, ok := HeaderLine(l)
		if !ok {
			continue
		}
		if strings.ContainsAny(l, "\r\n\x00") {
			return fail(&Error{Kind: ErrMalformed, Msg: "CONNECT request refused: a header line holds a CR, LF or NUL"})
		}
		replaced[strings.ToLower(name)] = true
		switch {
		case send && strings.Contains(l, ":"):
			custom = append(custom, l)
		case send:
			custom = append(custom, name+":")
		}
	}
	// reply is the proxy's reply as curl shows it (-i, -D, -w
	// %{http_connect}): the last status, and every head received, the
	// 407s answered included.
	reply := &Meta{Size: -1}
	stale := 0
	for asks := 1; ; asks++ {
		// The request is curl's, field for field, in its order, then the
		// Header lines.
		var head strings.Builder
		version := "HTTP/1.1"
		if auth.HTTP10 {
			version = "HTTP/1.0"
		}
		fmt.Fprintf(&head, "CONNECT %s %s\r\n", addr, version)
		for _, f := range [][2]string{{"Host", addr}, {"Proxy-Authorization", authz}, {"User-Agent", userAgent}, {"Proxy-Connection", "Keep-Alive"}} {
			if f[1] != "" && !replaced[strings.ToLower(f[0])] {
				fmt.Fprintf(&head, "%s: %s\r\n", f[0], f[1])
			}
		}
		for _, l := range custom {
			head.WriteString(l + "\r\n")
		}
		head.WriteString("\r\n")
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
		rec.buf = rec.buf[len(rec.buf)-br.Buffered():] // what was read past the last reply
		creq := &http.Request{Method: "CONNECT", URL: &url.URL{Opaque: addr}, Host: addr}
		resp, err := http.ReadResponse(br, creq)
		if err != nil {
			return fail(&Error{Kind: ErrConnect, Msg: "reading the proxy's reply to CONNECT", Err: err})
		}
		reply.Proto, reply.Status = resp.Proto, resp.StatusCode
		reply.Reason = strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" ")
		got := rec.buf[:len(rec.buf)-br.Buffered()]
		reply.Head = append(reply.Head, got...)
		if v != nil {
			fmt.Fprintf(v, "< %s %s\n", resp.Proto, SanitizeLine(resp.Status, 200))
		}
		if resp.StatusCode/100 == 2 {
			// A 2xx reply has no body, whatever its fields say (RFC 9110
			// §9.3.6): the tunnel starts after its head (its Body is not
			// read). curl -v says so.
			for line := range strings.SplitSeq(string(got), "\n") {
				name, _, _ := strings.Cut(line, ":")
				for _, f := range []string{"Content-Length", "Transfer-Encoding"} {
					if v != nil && strings.EqualFold(strings.TrimSpace(name), f) {
						fmt.Fprintf(v, "* Ignoring %s in CONNECT %d response\n", f, resp.StatusCode)
					}
				}
			}
			break
		}
		// The reply is shown (curl's -i, -D) and its status is curl's
		// -w %{http_connect}: it is the Error's Reply's Tunnel.
		refused := &Error{Kind: ErrRecv, Msg: "the proxy refused the tunnel: " + SanitizeLine(resp.Status, 200),
			Reply: &Meta{Size: -1, Tunnel: reply}}
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
		case stage == none && (auth.Digest || auth.AnyAuth) && hasDigest(ask),
			stage == digested && stale < maxStale && hasStaleDigest(ask):
			if stage == digested {
				stale++
			}
			ch, _ := digest.Find(ask)
			var err error
			if authz, err = ch.Answer(p.User, p.Password, "CONNECT", addr, digest.NewCnonce()); err != nil {
				return fail(refused) // curl: "Authentication problem. Ignoring this."
			}
			stage = digested
		case stage == none && auth.AnyAuth && OffersScheme(ask, "NTLM"):
			stage, authz = ntlm1, ntlm.NegotiateField()
		case stage == none && auth.AnyAuth && OffersScheme(ask, "Basic"):
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
