package ftp

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strconv"
	"time"

	"github.com/urlget/urlget/fetch"
)

// poolKey identifies the connections that can serve a request: same server
// address and same login. The password is part of the key, so that a
// connection is never reused for a request that would not have been able
// to log in.
type poolKey struct {
	addr, user, pass string
}

type idleConn struct {
	c     *conn
	timer *time.Timer
}

// Defaults for the Fetcher's zero fields.
const (
	DefaultMaxIdlePerHost = 2
	DefaultIdleTimeout    = 30 * time.Second
	DefaultFinalTimeout   = 60 * time.Second
	DefaultAcceptTimeout  = 60 * time.Second
)

func (f *Fetcher) maxIdle() int {
	if f.MaxIdlePerHost == 0 {
		return DefaultMaxIdlePerHost
	}
	return f.MaxIdlePerHost
}

func (f *Fetcher) idleTimeout() time.Duration {
	if f.IdleTimeout <= 0 {
		return DefaultIdleTimeout
	}
	return f.IdleTimeout
}

func (f *Fetcher) finalTimeout() time.Duration {
	if f.FinalReplyTimeout <= 0 {
		return DefaultFinalTimeout
	}
	return f.FinalReplyTimeout
}

func (f *Fetcher) acceptTimeout() time.Duration {
	if f.AcceptTimeout <= 0 {
		return DefaultAcceptTimeout
	}
	return f.AcceptTimeout
}

// take returns an idle connection for key, most recently used first.
func (f *Fetcher) take(key poolKey) *conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := f.idle[key]
	for len(list) > 0 {
		ic := list[len(list)-1]
		list = list[:len(list)-1]
		f.idle[key] = list
		if ic.timer.Stop() {
			return ic.c
		}
	}
	return nil
}

// release hands a connection back after a request whose exchange ended in
// step. It goes to the pool when reuse is on and there is room, else it is
// closed with QUIT.
func (f *Fetcher) release(c *conn) {
	if !c.unwatch() || c.broken || !c.reusable {
		if !c.broken {
			c.quit()
			return
		}
		c.close()
		return
	}
	c.verbose = nil
	f.mu.Lock()
	if f.idle == nil {
		f.idle = map[poolKey][]*idleConn{}
	}
	if len(f.idle[c.key]) >= f.maxIdle() {
		f.mu.Unlock()
		c.quit()
		return
	}
	ic := &idleConn{c: c}
	ic.timer = time.AfterFunc(f.idleTimeout(), func() { f.expire(ic) })
	f.idle[c.key] = append(f.idle[c.key], ic)
	f.mu.Unlock()
}

// expire closes an idle connection whose time is up.
func (f *Fetcher) expire(ic *idleConn) {
	f.mu.Lock()
	list := f.idle[ic.c.key]
	for i, x := range list {
		if x == ic {
			f.idle[ic.c.key] = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	f.mu.Unlock()
	ic.c.quit()
}

// CloseIdle closes every idle connection (with QUIT).
func (f *Fetcher) CloseIdle() {
	f.mu.Lock()
	var all []*idleConn
	for k, list := range f.idle {
		all = append(all, list...)
		delete(f.idle, k)
	}
	f.mu.Unlock()
	for _, ic := range all {
		if ic.timer.Stop() {
			ic.c.quit()
		}
	}
}

// CloseIdleConnections is CloseIdle: it makes the Fetcher a fetch.IdleCloser,
// so that fetch.Client.CloseIdleConnections reaches the pool.
func (f *Fetcher) CloseIdleConnections() { f.CloseIdle() }

// IdleConns reports how many idle connections the pool holds.
func (f *Fetcher) IdleConns() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, list := range f.idle {
		n += len(list)
	}
	return n
}

// dial opens and logs in a new control connection. The connection is
// dialled under a context of its own, so that it can outlive the request
// in the pool; the request's context still aborts the dial, and closes the
// connection while the request uses it (conn.watch).
func (f *Fetcher) dial(ctx context.Context, req *fetch.Request, o *options, key poolKey, reusable bool) (*conn, error) {
	d := fetch.DialerOf(req)
	lctx, life := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, life)
	raw, err := d.DialContext(lctx, "tcp", key.addr)
	stop()
	if err != nil {
		life()
		if ctx.Err() != nil {
			return nil, fetch.ContextError(ctx)
		}
		var fe *fetch.Error
		if errors.As(err, &fe) {
			return nil, fe
		}
		return nil, &fetch.Error{Kind: fetch.KindOf(err), Msg: "ftp: connecting to " + key.addr, Err: err}
	}
	c := &conn{
		raw:      raw,
		br:       bufio.NewReaderSize(raw, MaxReplyLine),
		verbose:  req.Verbose,
		life:     life,
		key:      key,
		reusable: reusable,
	}
	c.peerHost, c.remoteIP, c.viaSOCKS = dataHost(raw, req.URL.Host)
	if la, ok := raw.LocalAddr().(*net.TCPAddr); ok {
		c.localIP = la.IP
	}
	c.watch(ctx)
	if err := f.login(ctx, c, req, o); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// dataHost chooses where passive data connections go: the address the
// control connection reached, so that a name resolving to several hosts
// cannot send the data connection to another one. Through a SOCKS proxy
// (the connection reports the proxy's BoundAddr) the peer address is the
// proxy's, so the URL's host is used and the proxy connects to it.
func dataHost(raw net.Conn, urlHost string) (host string, ip net.IP, socks bool) {
	nc := raw
	for {
		if _, ok := nc.(interface{ BoundAddr() net.Addr }); ok {
			return urlHost, nil, true
		}
		u, ok := nc.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		nc = u.NetConn()
	}
	if ta, ok := raw.RemoteAddr().(*net.TCPAddr); ok {
		return ta.IP.String(), ta.IP, false
	}
	if h, _, err := net.SplitHostPort(raw.RemoteAddr().String()); err == nil {
		return h, net.ParseIP(h), false
	}
	return urlHost, nil, false
}

// login reads the greeting and logs in (RFC 959 §5.4: USER, PASS, ACCT).
//
// Credentials: Request.User and Request.Password (the Client puts there the
// URL's userinfo, -u, or netrc); without a user, "anonymous" with
// ftp-email (default $USER@hostname) as the password. A user without a
// password whose server asks for one (331) ends the login with a
// *PasswordNeededError (Kind ErrLoginDenied) and no PASS sent: the caller
// asks the person and tries again with the password.
func (f *Fetcher) login(ctx context.Context, c *conn, req *fetch.Request, o *options) error {
	for {
		r, err := c.readReply()
		if err != nil {
			return ioError(ctx, fetch.ErrProtocol, "reading the greeting", err)
		}
		if r.code == 120 { // service ready in nnn minutes: the 220 follows
			continue
		}
		if r.code != 220 {
			return &fetch.Error{Kind: fetch.ErrConnect, Msg: "ftp: the server refused the connection",
				Err: &ReplyError{Command: "(greeting)", Code: r.code, Text: r.text()}}
		}
		break
	}
	user, pass, hasPass := req.User, req.Password, req.HasPassword
	if user == "" {
		user = "anonymous"
		if !hasPass {
			pass, hasPass = o.email, true
		}
	}
	r, err := c.cmd("USER", user, true)
	if err != nil {
		return ioError(ctx, fetch.ErrProtocol, "USER", err)
	}
	if r.code == 331 {
		if !hasPass {
			return &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "ftp: the server wants a password for " + strconv.Quote(user),
				Err: &PasswordNeededError{User: user, Host: req.URL.Host, Port: req.URL.PortOrDefault()}}
		}
		if r, err = c.cmd("PASS", pass, true); err != nil {
			return ioError(ctx, fetch.ErrProtocol, "PASS", err)
		}
	}
	if r.code == 332 {
		if o.account == "" {
			return refused(fetch.ErrLoginDenied, "ACCT", "", r)
		}
		if r, err = c.cmd("ACCT", o.account, true); err != nil {
			return ioError(ctx, fetch.ErrProtocol, "ACCT", err)
		}
	}
	switch {
	case r.code == 230 || r.code == 202:
		return nil
	case r.code == 421:
		return refused(fetch.ErrConnect, "USER", user, r)
	}
	return refused(fetch.ErrLoginDenied, c.lastVerb, "", r)
}

// PasswordNeededError says the server asked for a password (331) for a
// user that came without one. It is the Err of a *fetch.Error of Kind
// ErrLoginDenied; nothing was sent after USER. A program with a person at
// a terminal asks for the password and fetches again with it (fetch.Client
// Password and HasPassword, or the URL's userinfo); others report the
// error (exit 67).
type PasswordNeededError struct {
	User string
	Host string
	Port int
}

func (e *PasswordNeededError) Error() string {
	return "password needed for " + e.User + "@" + net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
}
