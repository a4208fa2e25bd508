package ftp

import (
	"context"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// poolKey identifies the connections that can serve a request: same server
// address and same login. The password is part of the key, so that a
// connection is never reused for a request that would not have been able
// to log in.
type poolKey struct {
	addr, user, pass string
	tls              int    // the TLS level asked for (tlsLevel)
	ccc              string // CCC sent after the login (cccMode): the control connection is clear
}

// pconn is a connection of the pool: a Conn and where the pool's requests
// left it.
type pconn struct {
	*Conn
	key       poolKey
	reusable  bool     // may go back to the pool after this request
	reused    bool     // taken from the pool for this request
	home      string   // PWD after login, when known
	homeKnown bool     //
	path      []cwdArg // CWD arguments sent since the login directory
}

// cwdArg is one CWD to send: bare is a CWD without an argument.
type cwdArg struct {
	arg  string
	bare bool
}

type idleConn struct {
	c     *pconn
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
func (f *Fetcher) take(key poolKey) *pconn {
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
func (f *Fetcher) release(c *pconn) {
	if !c.unwatch() || c.broken || !c.reusable {
		if !c.broken {
			c.Quit()
			return
		}
		c.Close()
		return
	}
	c.verbose = nil
	f.mu.Lock()
	if f.idle == nil {
		f.idle = map[poolKey][]*idleConn{}
	}
	if len(f.idle[c.key]) >= f.maxIdle() {
		f.mu.Unlock()
		c.Quit()
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
	ic.c.Quit()
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
			ic.c.Quit()
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

// dial opens and logs in a new control connection for the pool (Dial's
// connection, with what the pool notes of it), then asks where the login
// put it (loggedIn).
func (f *Fetcher) dial(ctx context.Context, req *fetch.Request, o *options, key poolKey, reusable bool) (*pconn, error) {
	c, err := dial(ctx, &f.Config, req, o)
	if err != nil {
		return nil, err
	}
	pc := &pconn{Conn: c, key: key, reusable: reusable}
	pc.SetActive(o.port, f.acceptTimeout())
	pc.watch(ctx)
	if err := pc.loggedIn(ctx); err != nil {
		pc.Close()
		return nil, err
	}
	return pc, nil
}

// loggedIn sends what curl sends after every login: PWD, whose directory
// the next URL on the connection returns to (RFC 1738 §3.2.5 leaves reuse
// to the client; without a directory the connection is not reused), and
// SYST when that directory is not an absolute Unix path (VMS, MVS, OS/400:
// the reply is the hint for reading LIST output, SystemListFormat). An
// OS/400 server is then asked for Unix-style names (SITE NAMEFMT 1, in
// which the URL's path is written) and PWD again, as curl does.
func (c *pconn) loggedIn(ctx context.Context) error {
	if err := c.pwd(ctx); err != nil || !c.homeKnown || strings.HasPrefix(c.home, "/") {
		return err
	}
	syst, err := c.System()
	if err != nil {
		return ioError(ctx, fetch.ErrProtocol, "SYST", err)
	}
	if !strings.HasPrefix(strings.TrimSpace(syst), "OS/400") {
		return nil
	}
	r, err := c.cmd("SITE", "NAMEFMT 1", true)
	if err != nil {
		return ioError(ctx, fetch.ErrProtocol, "SITE NAMEFMT", err)
	}
	if !r.Positive() {
		return nil // the names stay the server's: the URL's path may not work, but the login does
	}
	return c.pwd(ctx)
}

// pwd asks PWD and notes the directory (home) when the reply names one;
// a connection whose directory is not known is not reused.
func (c *pconn) pwd(ctx context.Context) error {
	r, err := c.cmd("PWD", "", false)
	if err != nil {
		return ioError(ctx, fetch.ErrProtocol, "PWD", err)
	}
	c.home, c.homeKnown = "", false
	if r.code == 257 {
		if h, ok := ParsePWD(r.lines[0]); ok && h != "" && !badLineByte(h) {
			c.home, c.homeKnown = h, true
		}
	}
	if !c.homeKnown {
		c.reusable = false
	}
	return nil
}
