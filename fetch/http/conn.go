package http

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// dialer opens the connections of a Transport: one request's, or the
// pool's that a Fetcher built by New keeps for its direct requests. Every
// connection it returns is a recorder, the innermost plaintext stream the
// request travels on (over TLS when there is TLS), so that the response
// head can be read again as it was received.
//
// net/http's Transport keeps doing the rest: the request and response
// framing, chunking, the absolute-form request to an HTTP proxy. For an
// https URL through a proxy the dialer opens the CONNECT tunnel itself,
// because the Transport would put its own TLS layer above the connection
// the dialer returns, out of the recorder's sight.
type dialer struct {
	// ctx is Open's, for a request's own Transport: it aborts a dial, a
	// handshake, a CONNECT, and (through the Config's Dialer) closes the
	// connection when done. nil for the pool: the Transport's dial context
	// is used, which outlives the request (a pooled connection must), and
	// the Transport aborts a request's reads itself when its context ends.
	ctx        context.Context
	cfg        *fetch.Config
	tunnel     *urlparse.URL       // the proxy to CONNECT through, or nil
	toProxy    bool                // dialTLS dials an https:// proxy (a request sent to it), not the server
	tunnelOpts fetch.TunnelOptions // how the CONNECT sends the proxy's credentials, its --proxy-header lines
	v          io.Writer           // verbose log, or nil
	haproxy    bool                // OptHAProxy: a PROXY line starts each connection
	pin        *pin                // an NTLM exchange's, which may forbid a new connection
}

// context is the context to dial with: Open's, else the Transport's.
func (d *dialer) context(tctx context.Context) context.Context {
	if d.ctx != nil {
		return d.ctx
	}
	return tctx
}

// dial is the Transport's DialContext: plain http, to the server or to
// an http:// proxy.
func (d *dialer) dial(tctx context.Context, _, addr string) (net.Conn, error) {
	if err := d.pin.mayDial(); err != nil {
		return nil, err
	}
	nc, err := d.connect(d.context(tctx), addr)
	if err != nil {
		return nil, err
	}
	return d.record(nc), nil
}

// dialTLS is the Transport's DialTLSContext: https to the server, through
// a CONNECT tunnel when there is a proxy, or TLS to an https:// proxy.
func (d *dialer) dialTLS(tctx context.Context, _, addr string) (net.Conn, error) {
	if err := d.pin.mayDial(); err != nil {
		return nil, err
	}
	ctx := d.context(tctx)
	var nc net.Conn
	var err error
	if d.tunnel != nil {
		nc, err = d.connectTunnel(ctx, addr)
	} else {
		nc, err = d.connect(ctx, addr)
	}
	if err != nil {
		return nil, err
	}
	host, _, _ := net.SplitHostPort(addr)
	base, what := d.cfg.TLS, "https"
	if d.toProxy {
		base, what = d.cfg.ProxyTLSConfig(), "proxy"
	}
	tc, err := fetch.HandshakeTLS(ctx, base, nc, host, what)
	if err != nil {
		return nil, err
	}
	if d.v != nil {
		st := tc.ConnectionState()
		fmt.Fprintf(d.v, "* TLS %s, %s\n", tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite))
	}
	return d.record(tc), nil
}

func (d *dialer) connect(ctx context.Context, addr string) (net.Conn, error) {
	nc, err := fetch.Connect(ctx, d.cfg.Dialer, addr, "connecting to")
	if err != nil {
		return nil, err
	}
	if d.v != nil {
		fmt.Fprintf(d.v, "* Connected to %s\n", nc.RemoteAddr())
	}
	if d.haproxy {
		if err := writeProxyLine(nc); err != nil {
			nc.Close()
			return nil, &fetch.Error{Kind: fetch.ErrSendFailed, Msg: "sending the PROXY line", Err: err}
		}
	}
	return nc, nil
}

// writeProxyLine writes the PROXY protocol v1 line of nc (HAProxy's
// proxy-protocol.txt §2.1): its version, source and destination address
// and port, as curl sends it.
func writeProxyLine(nc net.Conn) error {
	src, sok := nc.LocalAddr().(*net.TCPAddr)
	dst, dok := nc.RemoteAddr().(*net.TCPAddr)
	line := "PROXY UNKNOWN\r\n"
	if sok && dok {
		family := "TCP6"
		if src.IP.To4() != nil && dst.IP.To4() != nil {
			family = "TCP4"
		}
		line = fmt.Sprintf("PROXY %s %s %s %d %d\r\n", family, src.IP, dst.IP, src.Port, dst.Port)
	}
	_, err := io.WriteString(nc, line)
	return err
}

// connectTunnel asks the proxy for a tunnel to addr (fetch.DialTunnel).
func (d *dialer) connectTunnel(ctx context.Context, addr string) (net.Conn, error) {
	return fetch.DialTunnel(ctx, d.cfg.Dialer, d.cfg.ProxyTLSConfig(), d.tunnel, addr, d.cfg.UserAgent, d.v, d.tunnelOpts)
}

func (d *dialer) record(nc net.Conn) *recorder {
	return &recorder{Conn: nc, wrote: make(chan struct{}), closed: make(chan struct{})}
}

// closeBody closes the response body, then the connection under it, for a
// request's own Transport: it would otherwise keep the connection idle
// (the request asked for a persistent connection, as curl does; nothing
// would reuse it).
type closeBody struct {
	io.ReadCloser
	conn net.Conn
}

func (c *closeBody) Close() error {
	err := c.ReadCloser.Close()
	if c.conn != nil {
		c.conn.Close()
	}
	return err
}
