package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/proxy"

	"github.com/urlget/urlget/urlparse"
)

// dialer is the Dialer the Client hands to fetchers: the base dialer
// (Client.Dialer or a net.Dialer) with the connect timeout, an optional
// SOCKS5 proxy, typed errors, and connections that close when the context
// they were dialled with is done.
type dialer struct {
	base    Dialer
	timeout time.Duration
	socks   *urlparse.URL // socks5:// or socks5h://, or nil
}

func (c *Client) newDialer(socks *urlparse.URL) Dialer {
	base := c.Dialer
	if base == nil {
		base = &net.Dialer{}
	}
	return &dialer{base: base, timeout: c.ConnectTimeout, socks: socks}
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
	if d.socks != nil && !strings.HasPrefix(network, "tcp") {
		return nil, &Error{Kind: ErrUnsupported,
			Msg: "a SOCKS proxy cannot carry " + network + " (" + Redacted(d.socks) + "): use --noproxy for this host"}
	}
	var conn net.Conn
	var err error
	if d.socks != nil {
		conn, err = d.dialSOCKS(dctx, network, addr)
	} else {
		conn, err = d.base.DialContext(dctx, network, addr)
	}
	if err != nil {
		return nil, d.dialError(ctx, dctx, addr, err)
	}
	return watchConn(ctx, conn), nil
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
	if KindOf(err) == ErrTimeout {
		return &Error{Kind: ErrTimeout, Msg: "connection to " + addr + " timed out", Err: err}
	}
	msg := "could not connect to " + addr
	if d.socks != nil {
		msg += " through SOCKS proxy " + Redacted(d.socks)
	}
	return &Error{Kind: ErrConnect, Msg: msg, Err: NetCause(err)}
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
// username/password from the proxy URL's userinfo). socks5:// resolves the
// host name here and sends the proxy an address; socks5h:// lets the proxy
// resolve it, as curl does.
func (d *dialer) dialSOCKS(ctx context.Context, network, addr string) (net.Conn, error) {
	var auth *proxy.Auth
	if d.socks.HasUserinfo {
		auth = &proxy.Auth{User: d.socks.User, Password: d.socks.Password}
	}
	sd, err := proxy.SOCKS5("tcp", hostPort(d.socks, defaultProxyPort), auth, forward{d.base})
	if err != nil {
		return nil, err
	}
	if d.socks.Scheme == "socks5" {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if net.ParseIP(host) == nil {
			ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
			if err != nil {
				return nil, err
			}
			if len(ips) == 0 {
				return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
			}
			ip := ips[0].IP
			for _, a := range ips {
				if a.IP.To4() != nil { // IPv4 first: SOCKS servers reach it more often
					ip = a.IP
					break
				}
			}
			addr = net.JoinHostPort(ip.String(), port)
		}
	}
	return sd.(proxy.ContextDialer).DialContext(ctx, network, addr)
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

// NetConn returns the underlying connection.
// NetConn is the connection underneath (as tls.Conn.NetConn).
func (c *ctxConn) NetConn() net.Conn { return c.Conn }

func (c *ctxConn) ReadFrom(r io.Reader) (int64, error) { return io.Copy(c.Conn, r) }
func (c *ctxConn) WriteTo(w io.Writer) (int64, error)  { return io.Copy(w, c.Conn) }

// CloseWrite shuts down the writing side, when the connection has one.
func (c *ctxConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
