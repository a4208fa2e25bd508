package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/netip"
	"sync"
)

// A Trace receives the events of the requests made under a context
// (WithTrace), as net/http/httptrace's ClientTrace does, for every scheme:
// what curl's -w time_namelookup, time_connect, time_appconnect,
// time_pretransfer, time_starttransfer, time_redirect, remote_ip and
// local_ip report. Any field may be nil. The events come from the
// goroutines that dial, read and write; a Trace that records them locks.
//
// The events of a connection go to the Trace of the request that opened
// it, and its exchanges to the Trace of the request using it: the http and
// ftp fetchers hand a kept connection (HTTP keep-alive, the ftp pool) to
// the Trace of each request they take it for (Retrace).
type Trace struct {
	// DNSDone: a host name was resolved, by a ResolveRule or by DNS, or
	// an address literal read (not called for a name a SOCKS proxy
	// resolves).
	DNSDone func(host string, addrs []netip.Addr)
	// Connected: a connection is open, to the server or to a proxy; data
	// is set for a secondary connection (an FTP data connection).
	Connected func(local, remote net.Addr, data bool)
	// TLSDone: a TLS handshake has completed (HandshakeTLS).
	TLSDone func(tls.ConnectionState)
	// WroteRequest: the first byte of a request is about to be written on
	// a connection, after its TLS handshake: the first write after a
	// reply (or after connecting), so once per exchange of a line
	// protocol. The TLS close_notify alert that closing a connection
	// writes counts as one: a program wants the first after each start.
	WroteRequest func(local, remote net.Addr)
	// FirstByte: the first byte of the reply to it has been read.
	FirstByte func()
	// Redirect: the Client follows a redirect or a referral to url.
	Redirect func(url string)
	// BodySent: n more bytes of Request.Body have been read to be sent.
	BodySent func(n int)
	// Progress: as Client.Progress, for the Body of each request under
	// this context alone: done so far and the total (-1 when unknown).
	// Transfers that run at once, each under its own Trace, are told
	// apart by it.
	Progress func(done, total int64)
}

type traceKey struct{}

// WithTrace returns a context whose requests report to t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// ContextTrace is the Trace of ctx, nil when none.
func ContextTrace(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

func (t *Trace) dnsDone(host string, addrs []netip.Addr) {
	if t != nil && t.DNSDone != nil {
		t.DNSDone(host, addrs)
	}
}

// connected reports conn and, for a primary connection, wraps it so that
// its exchanges are reported.
func (t *Trace) connected(conn net.Conn, data bool) net.Conn {
	if t == nil {
		return conn
	}
	if t.Connected != nil {
		t.Connected(conn.LocalAddr(), conn.RemoteAddr(), data)
	}
	if data || t.WroteRequest == nil && t.FirstByte == nil {
		return conn
	}
	return &traceConn{Conn: conn, tr: t}
}

// traceConn reports a connection's exchanges: the first write after a
// read (or after connecting) and the first read that brings bytes after it.
// Writes and reads during a TLS handshake are not exchanges.
type traceConn struct {
	net.Conn
	tr    *Trace
	mu    sync.Mutex
	quiet bool // a TLS handshake is under way
	wrote bool // a request is out and no byte of the reply has come
}

func (c *traceConn) beforeWrite() {
	c.mu.Lock()
	fire := !c.quiet && !c.wrote
	if fire {
		c.wrote = true
	}
	tr := c.tr
	c.mu.Unlock()
	if fire && tr != nil && tr.WroteRequest != nil {
		tr.WroteRequest(c.LocalAddr(), c.RemoteAddr())
	}
}

func (c *traceConn) afterRead(n int) {
	if n <= 0 {
		return
	}
	c.mu.Lock()
	fire := c.wrote && !c.quiet
	c.wrote = false
	tr := c.tr
	c.mu.Unlock()
	if fire && tr != nil && tr.FirstByte != nil {
		tr.FirstByte()
	}
}

// Retrace hands the connection nc, taken from a pool (or dialled for
// another request) for a request made under ctx, to ctx's Trace: its
// exchanges are reported there from now on, not to the Trace of the
// request that opened it. Requests made at once, each under a Trace of its
// own, so each hear of their own exchanges. A connection opened without a
// Trace is not traced, and stays so.
func Retrace(ctx context.Context, nc net.Conn) {
	if tc := tracedConn(nc); tc != nil {
		tc.mu.Lock()
		tc.tr = ContextTrace(ctx)
		tc.mu.Unlock()
	}
}

// tracedConn is the traced connection under nc (through NetConn), nil
// when there is none.
func tracedConn(nc net.Conn) *traceConn {
	tc, _ := ConnLayer[*traceConn](nc)
	return tc
}

func (c *traceConn) Write(b []byte) (int, error) {
	c.beforeWrite()
	return c.Conn.Write(b)
}

func (c *traceConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.afterRead(n)
	return n, err
}

// ReadFrom and WriteTo keep the connection's own fast paths.
func (c *traceConn) ReadFrom(r io.Reader) (int64, error) {
	c.beforeWrite()
	return io.Copy(c.Conn, r)
}

func (c *traceConn) WriteTo(w io.Writer) (int64, error) {
	c.afterRead(1)
	return io.Copy(w, c.Conn)
}

// NetConn is the connection underneath.
func (c *traceConn) NetConn() net.Conn { return c.Conn }

// CloseWrite shuts down the writing side, when the connection has one.
func (c *traceConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}

// handshaking marks nc's traced connection, if any, as in (or out of) a
// TLS handshake.
func handshaking(nc net.Conn, on bool) {
	if tc := tracedConn(nc); tc != nil {
		tc.mu.Lock()
		tc.quiet = on
		tc.mu.Unlock()
	}
}

// countingBody reports the bytes read from a request body (BodySent).
type countingBody struct {
	r  io.Reader
	tr *Trace
}

// Skip drops bytes without reporting them as sent (SkipBody).
func (b *countingBody) Skip(n int64) (int64, error) { return SkipBody(b.r, n) }

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 {
		b.tr.BodySent(n)
	}
	return n, err
}
