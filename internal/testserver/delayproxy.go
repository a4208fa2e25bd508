package testserver

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// DelayProxy is a TCP proxy that adds latency: every chunk of data it reads
// from one side is written to the other Delay after it was read, in order,
// in both directions — so a request and its answer take 2×Delay more (the
// round-trip time). The test machines' kernels have no netem (tc qdisc
// netem), so this is how benchmarks get a 40 ms RTT on loopback.
//
// What is not delayed: the TCP handshake (the proxy accepts at once and
// connects to the target at once), unless Handshake is set, and the
// proxy's own acknowledgements, so
// throughput is not limited by window size the way a real long link limits
// it. The end of the data (FIN) is passed on Delay after it arrived, like
// data.
//
// A route can map a range of ports one to one ("127.0.0.2:41500-41599" to
// "127.0.0.1:41500"): FTP passive data connections, whose port the server
// names, go through the proxy when the proxy listens on the same port
// numbers on another address (and the server announces that address for
// PASV; EPSV names only the port).
type DelayProxy struct {
	Delay time.Duration
	// Handshake makes a new connection cost one round trip more, as the
	// TCP handshake does on a real link: the proxy connects to the target
	// and starts relaying 2×Delay after it accepted (what the client sends
	// at once waits in the socket meanwhile). Set by
	// LaunchHandshakeDelayProxy.
	Handshake bool
	relay
}

// relay is what the test proxies (DelayProxy, FaultProxy) share: listeners
// for routes, the connections open, and Close.
type relay struct {
	// Addrs are the addresses listened on, in route order (a range gives
	// one address per port).
	Addrs []string

	lns   []net.Listener
	done  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
	once  sync.Once
}

func newRelay() relay { return relay{done: make(chan struct{}), conns: map[net.Conn]bool{}} }

// ProxyRoute is one mapping: connections to Listen ("host:port" or
// "host:low-high") go to Target ("host:port"; for a range, the port of
// the range's first port, the others following one to one).
type ProxyRoute struct {
	Listen string
	Target string
}

// ParseProxyRoute reads "LISTEN=TARGET".
func ParseProxyRoute(s string) (ProxyRoute, error) {
	l, t, ok := strings.Cut(s, "=")
	if !ok || l == "" || t == "" {
		return ProxyRoute{}, fmt.Errorf("testserver: route %q: want LISTEN=TARGET", s)
	}
	return ProxyRoute{Listen: l, Target: t}, nil
}

// expand lists the (listen, target) address pairs of a route.
func (r ProxyRoute) expand() ([][2]string, error) {
	lhost, lport, err := net.SplitHostPort(r.Listen)
	if err != nil {
		return nil, fmt.Errorf("testserver: route listen %q: %w", r.Listen, err)
	}
	thost, tport, err := net.SplitHostPort(r.Target)
	if err != nil {
		return nil, fmt.Errorf("testserver: route target %q: %w", r.Target, err)
	}
	tp, err := strconv.Atoi(tport)
	if err != nil || tp <= 0 || tp > 65535 {
		return nil, fmt.Errorf("testserver: route target %q: bad port", r.Target)
	}
	lo, hi := lport, lport
	if a, b, ok := strings.Cut(lport, "-"); ok {
		lo, hi = a, b
	}
	l, err1 := strconv.Atoi(lo)
	h, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || l < 0 || h < l || h > 65535 || tp+(h-l) > 65535 {
		return nil, fmt.Errorf("testserver: route listen %q: bad port or range", r.Listen)
	}
	var out [][2]string
	for p := l; p <= h; p++ {
		out = append(out, [2]string{net.JoinHostPort(lhost, strconv.Itoa(p)), net.JoinHostPort(thost, strconv.Itoa(tp+p-l))})
	}
	return out, nil
}

// StartDelayProxy starts a proxy for the rest of the test.
func StartDelayProxy(t testing.TB, delay time.Duration, routes ...ProxyRoute) *DelayProxy {
	t.Helper()
	p, err := LaunchDelayProxy(delay, routes...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// LaunchDelayProxy starts a proxy outside a test; the caller must Close it.
// A listen port 0 (not in a range) picks a free port: see Addrs.
func LaunchDelayProxy(delay time.Duration, routes ...ProxyRoute) (*DelayProxy, error) {
	return launchDelayProxy(&DelayProxy{Delay: delay, relay: newRelay()}, routes)
}

// LaunchHandshakeDelayProxy is LaunchDelayProxy with Handshake set: every
// new connection costs a round trip, as connection reuse saves it.
func LaunchHandshakeDelayProxy(delay time.Duration, routes ...ProxyRoute) (*DelayProxy, error) {
	return launchDelayProxy(&DelayProxy{Delay: delay, Handshake: true, relay: newRelay()}, routes)
}

func launchDelayProxy(p *DelayProxy, routes []ProxyRoute) (*DelayProxy, error) {
	if err := p.listen(routes, p.handle); err != nil {
		p.Close()
		return nil, fmt.Errorf("testserver: delay proxy: %w", err)
	}
	return p, nil
}

// listen starts serving every route: handle gets each accepted connection
// (already tracked) with the address it goes to.
func (p *relay) listen(routes []ProxyRoute, handle func(client net.Conn, target string)) error {
	for _, r := range routes {
		pairs, err := r.expand()
		if err != nil {
			return err
		}
		for _, pr := range pairs {
			if _, err := p.listenOne(pr[0], pr[1], handle); err != nil {
				return err
			}
		}
	}
	return nil
}

// listenOne listens on addr for connections to target.
func (p *relay) listenOne(addr, target string, handle func(client net.Conn, target string)) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.lns = append(p.lns, ln)
	p.Addrs = append(p.Addrs, ln.Addr().String())
	p.mu.Unlock()
	p.wg.Add(1)
	go p.serve(ln, target, handle)
	return ln, nil
}

// Close stops listening, closes every connection and waits for the
// proxy's goroutines.
func (p *relay) Close() {
	p.once.Do(func() {
		close(p.done)
		p.mu.Lock()
		for _, ln := range p.lns {
			ln.Close()
		}
		for c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
}

func (p *relay) track(c net.Conn, add bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		select {
		case <-p.done:
			return false
		default:
		}
		p.conns[c] = true
	} else {
		delete(p.conns, c)
	}
	return true
}

func (p *relay) serve(ln net.Listener, target string, handle func(client net.Conn, target string)) {
	defer p.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if !p.track(c, true) {
				c.Close()
				return
			}
			defer p.track(c, false)
			defer c.Close()
			handle(c, target)
		}()
	}
}

// dial connects to target, tracked until release; nil when it failed or
// the relay is closing.
func (p *relay) dial(target string) (server net.Conn, release func()) {
	server, err := net.DialTimeout("tcp", target, 10*time.Second)
	if err != nil {
		return nil, nil
	}
	if !p.track(server, true) {
		server.Close()
		return nil, nil
	}
	return server, func() { p.track(server, false); server.Close() }
}

func (p *DelayProxy) handle(client net.Conn, target string) {
	if p.Handshake {
		select {
		case <-time.After(2 * p.Delay):
		case <-p.done:
			return
		}
	}
	server, release := p.dial(target)
	if server == nil {
		return
	}
	defer release()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pump(server, client) }()
	go func() { defer wg.Done(); p.pump(client, server) }()
	wg.Wait()
}

// chunk is data read at one moment, or the end of the data (nil b).
type chunk struct {
	b   []byte
	due time.Time
	err error
}

// pump copies src to dst, each chunk Delay after it was read. On a read
// error other than the end, or a write error, both connections are
// closed.
func (p *DelayProxy) pump(dst, src net.Conn) {
	ch := make(chan chunk, 4096)
	go func() {
		defer close(ch)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				ch <- chunk{b: buf[:n], due: time.Now().Add(p.Delay)}
			}
			if err != nil {
				ch <- chunk{err: err, due: time.Now().Add(p.Delay)}
				return
			}
		}
	}()
	for c := range ch {
		if d := time.Until(c.due); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-p.done:
				t.Stop()
				return
			}
		}
		if c.err != nil {
			var ne net.Error
			if errors.Is(c.err, net.ErrClosed) || errors.As(c.err, &ne) {
				dst.Close()
				src.Close()
			} else if cw, ok := dst.(interface{ CloseWrite() error }); ok {
				cw.CloseWrite() // the end of the data, passed on
			} else {
				dst.Close()
			}
			for range ch {
			}
			return
		}
		if _, err := dst.Write(c.b); err != nil {
			dst.Close()
			src.Close()
			for range ch {
			}
			return
		}
	}
}
