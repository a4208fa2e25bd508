package fetch

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/proxy"

	"github.com/urlget/urlget/urlparse"
)

// dialer is the Dialer the Client hands to fetchers: the base dialer
// (Client.Dialer or a net.Dialer) with the connect timeout, an optional
// SOCKS5 proxy or HTTP proxy tunnel, typed errors, and connections that
// close when the context they were dialled with is done.
type dialer struct {
	base    Dialer
	timeout time.Duration
	socks   *urlparse.URL // socks5://, socks5h://, socks4:// or socks4a://, or nil
	// tunnel is an http:// or https:// proxy whose CONNECT tunnel carries
	// every connection (Client.ProxyTunnel), or nil; tunnelTLS,
	// userAgent and verbose are what DialTunnel is given.
	tunnel     *urlparse.URL
	tunnelTLS  *tls.Config
	tunnelOpts TunnelOptions
	userAgent  string
	verbose    io.Writer
	route      *route // --resolve, --connect-to, -4/-6, --interface, --local-port; nil: none
	// data: a secondary connection, to an address a server gave (DataDialer):
	// ConnectTo does not apply.
	data bool
	unix string // Client.UnixSocket, for direct connections
}

// newDialer is the Dialer of the Client's fetchers, through via: a SOCKS
// proxy, or an HTTP proxy's tunnel (nil: none).
func (c *Client) newDialer(via *urlparse.URL) Dialer {
	base := c.Dialer
	if base == nil {
		base = &net.Dialer{}
	}
	d := &dialer{base: base, timeout: c.ConnectTimeout, route: c.route(), unix: c.UnixSocket}
	switch {
	case via == nil:
	case via.Scheme == "http" || via.Scheme == "https":
		d.tunnel, d.tunnelTLS, d.userAgent, d.verbose = via, c.proxyTLSConfig(), cmp.Or(c.UserAgent, DefaultUserAgent), c.Verbose
		d.socks = c.PreProxy // to the HTTP proxy (dialProxy)
		d.tunnelOpts = TunnelOptions{NTLM: c.ProxyNTLM, AnyAuth: c.ProxyAnyAuth, Digest: c.ProxyDigest, Header: c.ProxyHeader, HTTP10: c.ProxyHTTP10}
	default:
		d.socks = via
	}
	return d
}

// DataDialer is the Dialer for a protocol's secondary connections, to an
// address the server gave rather than the URL (an FTP data connection): d
// itself, but for a Client's Dialer one that leaves out Client.ConnectTo,
// which redirects only the connection a URL names (as curl's
// --connect-to). Resolve, IPVersion, Interface, LocalPorts, the connect
// timeout and a SOCKS proxy still apply.
func DataDialer(d Dialer) Dialer {
	if cd, ok := d.(*dialer); ok && !cd.data {
		c := *cd
		c.data = true
		return &c
	}
	return d
}

// target is where a connection for addr goes: addr after ConnectTo.
func (d *dialer) target(addr string) string {
	if d.data {
		return addr
	}
	return d.route.redirect(addr)
}

// DialContext connects to addr ("host:port"). The connection is closed as
// soon as ctx is done, which is what aborts a Read blocked on it: a
// fetcher dials with the context of Open, and the Client's caller reads the
// body under that same context.
func (d *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	dctx := ctx
	if d.timeout > 0 {
		var cancel context.CancelFunc
		dctx, cancel = context.WithTimeout(ctx, d.timeout)
		defer cancel()
	}
	if via := cmp.Or(d.socks, d.tunnel); via != nil && !strings.HasPrefix(network, "tcp") {
		return nil, &Error{Kind: ErrUnsupported,
			Msg: "a proxy cannot carry " + network + " (" + Redacted(via) + "): use Client.NoProxy for this host"}
	}
	var conn net.Conn
	var err error
	addr = d.target(addr)
	switch {
	case d.tunnel != nil:
		// The proxy is reached as any host is, ConnectTo applying to the
		// target only (as for SOCKS); the proxy resolves the target.
		direct := *d
		direct.tunnel, direct.data = nil, true
		conn, err = DialTunnel(dctx, dialerFunc(direct.dialProxy), d.tunnelTLS, d.tunnel, addr, d.userAgent, d.verbose, d.tunnelOpts)
		if err == nil {
			conn = tunnelConn{conn}
		}
	case d.socks != nil:
		conn, err = d.dialSOCKS(dctx, network, addr)
	case d.unix != "" && strings.HasPrefix(network, "tcp"):
		conn, err = d.base.DialContext(dctx, "unix", d.unix)
		if err != nil {
			err = &Error{Kind: ErrConnect, Msg: "connecting to the Unix socket " + Sanitize(strings.TrimPrefix(d.unix, "@")), Err: err}
		}
	default:
		conn, err = d.dialDirect(dctx, network, addr)
	}
	if err != nil {
		return nil, d.dialError(ctx, dctx, addr, err)
	}
	return watchConn(ctx, ContextTrace(ctx).connected(conn, d.data)), nil
}

func (d *dialer) dialError(ctx, dctx context.Context, addr string, err error) error {
	var fe *Error
	switch {
	case ctx.Err() != nil:
		return ctxError(ctx, "")
	case dctx.Err() != nil:
		return &Error{Kind: ErrTimeout, Msg: "connection to " + addr + " timed out after " + d.timeout.String(), Err: err}
	case errors.As(err, &fe):
		return fe
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return resolveError(dnsErr)
	}
	var ae *net.AddrError
	if errors.As(err, &ae) && ae.Err == "no suitable address found" {
		// -4 or -6 and an address of the other version (curl's 7).
		return &Error{Kind: ErrConnect, Msg: "could not connect to " + addr + ": not an IPv" + strconv.Itoa(d.route.ipVersion) + " address"}
	}
	if KindOf(err) == ErrTimeout {
		return &Error{Kind: ErrTimeout, Msg: "connection to " + addr + " timed out", Err: err}
	}
	msg := "could not connect to " + addr
	var pe proxyUnreached
	switch {
	case errors.As(err, &pe):
		msg, err = "could not connect to the SOCKS proxy "+Redacted(d.socks), pe.err
	case d.socks != nil:
		msg += " through SOCKS proxy " + Redacted(d.socks)
	}
	return &Error{Kind: ErrConnect, Msg: msg, Err: NetCause(err)}
}

// dialDirect connects to addr (after ConnectTo) without a SOCKS proxy:
// the host resolved by a ResolveRule when one matches, from the local
// address and ports asked for, over the IP version asked for.
func (d *dialer) dialDirect(ctx context.Context, network, addr string) (net.Conn, error) {
	tr := ContextTrace(ctx)
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil || d.route == nil && tr == nil && !isLocalhost(host) {
		return d.base.DialContext(ctx, network, addr)
	}
	port, _ := strconv.Atoi(portStr)
	network = d.route.network(network)
	addrs := d.route.rule(host, port)
	if addrs == nil && isLocalhost(host) {
		addrs = loopback
	}
	if addrs != nil {
		// -4 and -6 leave out a rule's addresses of the other version, as
		// curl 7.88 does (its manual says otherwise).
		addrs = d.route.filter(addrs)
		tr.dnsDone(host, addrs)
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no address of the IP version asked for", Name: host, IsNotFound: true}
		}
		return d.dialAddrs(ctx, network, addrs, port)
	}
	// Traced, a name is resolved here, so that the time it took is known.
	addrs, err = d.route.lookup(ctx, network, host, port, tr != nil)
	if err != nil {
		return nil, err
	}
	if addrs != nil {
		tr.dnsDone(host, addrs)
	}
	if addrs == nil {
		return d.base.DialContext(ctx, network, addr)
	}
	return d.dialAddrs(ctx, network, addrs, port)
}

// dialProxy connects to an HTTP proxy: through the SOCKS proxy before it
// (Client.PreProxy) when there is one.
func (d *dialer) dialProxy(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.socks != nil {
		return d.dialSOCKS(ctx, network, addr)
	}
	return d.dialDirect(ctx, network, addr)
}

// loopback is where "localhost" and every name under it are, without
// asking DNS (RFC 6761 §6.3), as curl 7.78 and later resolve them.
var loopback = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1}), netip.IPv6Loopback()}

// isLocalhost reports whether host is "localhost" or a name under it.
func isLocalhost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || strings.HasSuffix(h, ".localhost")
}

// dialAddrs tries addrs in order; the first error is the one returned.
func (d *dialer) dialAddrs(ctx context.Context, network string, addrs []netip.Addr, port int) (net.Conn, error) {
	var first error
	for _, ip := range addrs {
		conn, err := d.route.dialFrom(ctx, d.base, network, ip, port)
		if err == nil {
			return conn, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil || KindOf(err) == ErrInterface {
			break
		}
	}
	return nil, first
}

// resolveError says that a name did not resolve, in curl's words, with the
// reason only when it is not that the name does not exist (a name server
// that did not answer); never Go's "lookup NAME on SERVER" sentence.
func resolveError(e *net.DNSError) *Error {
	msg := "could not resolve host: " + e.Name
	switch {
	case e.IsNotFound:
	case e.IsTimeout:
		msg += " (the name server did not answer in time)"
	case e.Err != "":
		msg += " (" + e.Err + ")"
	}
	return &Error{Kind: ErrResolve, Msg: msg, Err: quietCause{e}}
}

// NetCause is the system's reason inside a network error ("connection
// refused"), without Go's wording around it ("dial tcp ADDR: connect:");
// errors.Is still sees the errno.
func NetCause(err error) error {
	for {
		switch e := err.(type) {
		case *net.OpError:
			err = e.Err
		case *os.SyscallError:
			err = e.Err
		default:
			return err
		}
	}
}

// dialSOCKS connects through a SOCKS5 proxy (RFC 1928, with RFC 1929
// username/password from the proxy URL's userinfo), or a SOCKS4 one (the
// URL's user as the user id; dialSOCKS4). socks5:// and socks4:// resolve
// the host name here and send the proxy an address; socks5h:// and
// socks4a:// let the proxy resolve it, as curl does.
//
// A failure once the proxy is reached — its refusal, a login refused, a
// reply that breaks off or makes no sense — is ErrProxy (curl's 97); one
// to reach the proxy stays ErrConnect (proxyUnreached).
func (d *dialer) dialSOCKS(ctx context.Context, network, addr string) (net.Conn, error) {
	var auth *proxy.Auth
	if d.socks.HasUserinfo {
		auth = &proxy.Auth{User: d.socks.User, Password: d.socks.Password}
		// RFC 1929 gives each a length byte: one longer cannot be sent.
		if s := d.socks.Scheme; (s == "socks5" || s == "socks5h") && (len(auth.User) > 255 || len(auth.Password) > 255) {
			return nil, &Error{Kind: ErrProxy, Msg: "the SOCKS5 proxy's user name or password is longer than 255 bytes"}
		}
	}
	// The proxy is reached as any host is (Resolve, IPVersion, the local
	// address), but ConnectTo applies to the target, not to the proxy, as
	// in curl.
	direct := *d
	direct.socks, direct.data = nil, true
	toProxy := dialerFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := direct.dialDirect(ctx, network, addr)
		if err != nil {
			return nil, proxyUnreached{err}
		}
		return c, nil
	})
	if s := d.socks.Scheme; s == "socks5" || s == "socks4" {
		// socks5 and socks4: the name is resolved here, by the rules any
		// name is; socks5h and socks4a hand the name to the proxy (Resolve
		// then does not apply to it, as in curl).
		host, portStr, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		port, _ := strconv.Atoi(portStr)
		ips := d.route.rule(host, port)
		if ips == nil && isLocalhost(host) {
			ips = loopback // without asking DNS, as a direct connection
		}
		if ips == nil && net.ParseIP(host) == nil {
			fam := "ip"
			if v := d.route.network("tcp"); v != "tcp" {
				fam += v[3:]
			}
			ips, err = net.DefaultResolver.LookupNetIP(ctx, fam, host)
			if err != nil {
				return nil, err
			}
			slices.SortStableFunc(ips, func(a, b netip.Addr) int { // IPv4 first: SOCKS servers reach it more often
				return v6rank(a) - v6rank(b)
			})
			ContextTrace(ctx).dnsDone(host, ips)
		}
		if len(ips) > 0 {
			addr = net.JoinHostPort(ips[0].Unmap().String(), portStr)
		}
	}
	if s := d.socks.Scheme; s == "socks4" || s == "socks4a" {
		return dialSOCKS4(ctx, toProxy, d.socks, addr)
	}
	sd, err := proxy.SOCKS5("tcp", hostPort(d.socks, defaultProxyPort), auth, forward{toProxy})
	if err != nil {
		return nil, err
	}
	c, err := sd.(proxy.ContextDialer).DialContext(ctx, network, addr)
	if err != nil && ctx.Err() == nil && !errors.As(err, new(proxyUnreached)) {
		// x/net words a refusal "unknown error connection refused".
		why := strings.TrimPrefix(NetCause(err).Error(), "unknown error ")
		return nil, &Error{Kind: ErrProxy, Msg: "the SOCKS5 proxy " + Redacted(d.socks) + " did not connect to " + addr + ": " + why}
	}
	return c, err
}

// proxyUnreached is the error of a connection to a SOCKS proxy itself,
// which stays ErrConnect (curl's 7) where what follows is ErrProxy.
type proxyUnreached struct{ err error }

func (e proxyUnreached) Error() string { return e.err.Error() }
func (e proxyUnreached) Unwrap() error { return e.err }

func v6rank(a netip.Addr) int {
	if a.Unmap().Is4() {
		return 0
	}
	return 1
}

// dialerFunc is a function as a Dialer.
type dialerFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func (f dialerFunc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}

// forward adapts a Dialer to golang.org/x/net/proxy's Dialer.
type forward struct{ Dialer }

func (f forward) Dial(network, addr string) (net.Conn, error) {
	return f.DialContext(context.Background(), network, addr)
}

// hostPort is the "host:port" of a URL's authority, with def when the URL
// has no port.
func hostPort(u *urlparse.URL, def int) string {
	port := u.Port
	if port < 0 {
		port = def
	}
	return net.JoinHostPort(u.Host, strconv.Itoa(port))
}

// watchConn makes conn close when ctx is done. Closing it again, or the
// context ending after Close, is harmless; Close releases the watch.
func watchConn(ctx context.Context, conn net.Conn) net.Conn {
	if ctx.Done() == nil {
		return conn
	}
	c := &ctxConn{Conn: conn}
	c.stop = context.AfterFunc(ctx, func() { conn.Close() })
	return c
}

// ctxConn is a connection watched by a context. It passes io.Copy's fast
// paths (ReadFrom, WriteTo) and half-closes through to the connection.
type ctxConn struct {
	net.Conn
	stop func() bool
	once sync.Once
}

func (c *ctxConn) Close() error {
	c.once.Do(func() { c.stop() })
	return c.Conn.Close()
}

// NetConn is the connection underneath (as tls.Conn.NetConn).
func (c *ctxConn) NetConn() net.Conn { return c.Conn }

// ConnLayer is the first of c and the connections under it (each
// wrapper's NetConn, as a Client's dialer and tls.Conn give) that is a T:
// the TCP connection under a Client's wrappers, a TLS layer, a SOCKS
// connection that knows its bound address.
func ConnLayer[T any](c net.Conn) (T, bool) {
	for c != nil {
		if t, ok := c.(T); ok {
			return t, true
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = u.NetConn()
	}
	var zero T
	return zero, false
}

func (c *ctxConn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }
func (c *ctxConn) WriteTo(w io.Writer) (int64, error)  { return io.Copy(w, c.Conn) }

// CloseWrite shuts down the writing side, when the connection has one.
func (c *ctxConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
