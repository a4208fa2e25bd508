package testserver

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// FaultProxy is a TCP proxy that misbehaves on purpose, for tests of how
// a client survives a bad network: each connection it accepts is given a
// Fault by the proxy's plan (by the connection's number), which strikes
// once the server has sent Fault.After bytes towards the client. The
// client's bytes always go to the server unharmed.
//
// Faults: a reset (the client's connection closed with RST, the server's
// too), a cut (the client's connection closed cleanly, the rest of the
// server's data dropped), a stall (the server's bytes held back for a while, or for good), a
// trickle (a few bytes at a time), a half-close (the client is sent FIN
// while the connection stays open). The target may be changed at any time
// (SetTarget), and a function set with OnConnect runs before each connection is passed on: a
// test restarts the real server there, between a client's attempts.
//
// An FTP proxy (StartFTPFaultProxy) also carries the data connections: it
// rewrites the server's 227 and 229 replies to name a port of its own, and
// gives each data connection a Fault from the data plan.
type FaultProxy struct {
	relay

	plan     func(n int) Fault
	dataPlan func(n int) Fault // FTP data connections; nil: not FTP

	mu        sync.Mutex
	target    string
	onConnect func(n int)
	conns     atomic.Int64
	dataConns atomic.Int64
	struck    atomic.Int64
}

// Fault is what happens to one proxied connection. The zero Fault passes
// everything on.
type Fault struct {
	// After is how many bytes of the server's go through before the fault
	// strikes.
	After int64
	// Reset closes the connection to the client with a TCP RST (and the one
	// to the server) once After bytes have passed. As on a real network,
	// bytes the client had not read yet may be lost with the reset: the
	// proxy waits until they were acknowledged and 20 ms more, which makes
	// that rare on loopback, not impossible.
	Reset bool
	// HalfClose sends the client FIN once After bytes have passed; the
	// rest of the server's data is dropped, the connection stays open until
	// the client closes it.
	HalfClose bool
	// Cut ends the connection to the client cleanly (FIN) once After bytes
	// have passed, as a NAT or a firewall's FTP helper may: the rest of
	// the server's data is read to its end and dropped first, so that the
	// server saw a whole transfer (an FTP server sends its 226 on the
	// control connection) while the client got only After bytes. For a
	// server that ends its data (an FTP data connection, a response that
	// closes its connection).
	Cut bool
	// Stall holds the server's data back for this long once After bytes
	// have passed (then it flows again); StallForever holds it until the
	// client gives up.
	Stall time.Duration
	// Trickle, when > 0, passes at most Trickle bytes every TrickleEvery
	// (default 100 ms) once After bytes have passed.
	Trickle      int
	TrickleEvery time.Duration
}

// resetGrace is how long a reset waits after the client has acknowledged
// every byte, so that it has read them too (a reset discards what the
// client's kernel holds unread): it makes the bytes a reset connection
// delivers, in practice, exactly Fault.After.
const resetGrace = 20 * time.Millisecond

// StallForever as Fault.Stall holds the data until the client closes.
const StallForever = time.Duration(-1)

// None reports whether f does nothing.
func (f Fault) None() bool {
	return !f.Reset && !f.HalfClose && !f.Cut && f.Stall == 0 && f.Trickle == 0
}

// ResetPlan gives the first k connections a reset at a random point, at
// least min and at most max bytes into the server's data, from a seeded
// generator (the same seed, the same points); later connections are clean.
func ResetPlan(seed uint64, k int, min, max int64) func(n int) Fault {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	points := make([]int64, k)
	for i := range points {
		points[i] = min + rng.Int64N(max-min+1)
	}
	return func(n int) Fault {
		if n < k {
			return Fault{After: points[n], Reset: true}
		}
		return Fault{}
	}
}

// Always gives every connection the same fault.
func Always(f Fault) func(int) Fault { return func(int) Fault { return f } }

// StartFaultProxy starts a proxy on a free port of 127.0.0.1 to target for
// the rest of the test; plan gives each connection its fault (nil: none).
func StartFaultProxy(t testing.TB, target string, plan func(n int) Fault) *FaultProxy {
	t.Helper()
	p, err := LaunchFaultProxy(target, plan, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// StartFTPFaultProxy is StartFaultProxy for an FTP server: control
// connections get plan's faults, passive data connections dataPlan's.
func StartFTPFaultProxy(t testing.TB, target string, plan, dataPlan func(n int) Fault) *FaultProxy {
	t.Helper()
	if dataPlan == nil {
		dataPlan = Always(Fault{})
	}
	p, err := LaunchFaultProxy(target, plan, dataPlan)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// LaunchFaultProxy starts a proxy outside a test; the caller must Close it.
// A non-nil dataPlan makes it an FTP proxy.
func LaunchFaultProxy(target string, plan, dataPlan func(n int) Fault) (*FaultProxy, error) {
	if plan == nil {
		plan = Always(Fault{})
	}
	p := &FaultProxy{relay: newRelay(), plan: plan, dataPlan: dataPlan, target: target}
	if _, err := p.listenOne("127.0.0.1:0", "", p.handle); err != nil {
		p.Close()
		return nil, fmt.Errorf("testserver: fault proxy: %w", err)
	}
	return p, nil
}

// Addr is the address the proxy listens on.
func (p *FaultProxy) Addr() string { return p.Addrs[0] }

// SetTarget sends the connections accepted from now on to addr.
func (p *FaultProxy) SetTarget(addr string) {
	p.mu.Lock()
	p.target = addr
	p.mu.Unlock()
}

// OnConnect makes f run with the number of each connection (from 0)
// accepted from now on, before the proxy connects it to the target.
func (p *FaultProxy) OnConnect(f func(n int)) {
	p.mu.Lock()
	p.onConnect = f
	p.mu.Unlock()
}

// Conns is the number of connections accepted so far (control connections
// for FTP); DataConns the number of FTP data connections.
func (p *FaultProxy) Conns() int     { return int(p.conns.Load()) }
func (p *FaultProxy) DataConns() int { return int(p.dataConns.Load()) }

// Struck is the number of faults that struck.
func (p *FaultProxy) Struck() int { return int(p.struck.Load()) }

func (p *FaultProxy) handle(client net.Conn, _ string) {
	n := int(p.conns.Add(1) - 1)
	p.mu.Lock()
	f := p.onConnect
	p.mu.Unlock()
	if f != nil {
		f(n)
	}
	p.mu.Lock()
	target := p.target
	p.mu.Unlock()
	server, release := p.dial(target)
	if server == nil {
		return
	}
	defer release()
	var toClient io.Reader = server
	if p.dataPlan != nil {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(p.rewritePassive(pw, server, target)) }()
		toClient = pr
	}
	p.relayConn(client, server, toClient, p.plan(n))
}

// relayConn copies client to server, and from (the server's data) to
// client with fault f.
func (p *FaultProxy) relayConn(client, server net.Conn, from io.Reader, f Fault) {
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		io.Copy(server, client)
		if tc, ok := server.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}()
	p.pumpFault(client, server, from, f, gone)
}

// pumpFault writes from to client, applying f after f.After bytes. It
// returns when the data ends, the fault ended the connection, or the proxy
// closes.
// gone is closed when the client has closed its side.
func (p *FaultProxy) pumpFault(client, server net.Conn, from io.Reader, f Fault, gone <-chan struct{}) {
	buf := make([]byte, 32<<10)
	var sent int64
	struck := false
	for {
		want := buf
		if !f.None() && !struck && f.After-sent < int64(len(want)) {
			want = buf[:max(f.After-sent, 0)]
		}
		if !f.None() && !struck && len(want) == 0 {
			struck = true
			p.struck.Add(1)
			switch {
			case f.Reset:
				if tc, ok := client.(*net.TCPConn); ok {
					// Let the client's kernel have every byte sent, and
					// the client a moment to read them: a reset throws
					// away what is still unread.
					for i := 0; i < 200 && unacked(tc) > 0; i++ {
						time.Sleep(time.Millisecond)
					}
					p.sleep(resetGrace, gone)
					tc.SetLinger(0)
				}
				client.Close()
				server.Close()
				return
			case f.Cut:
				io.Copy(io.Discard, from)
				if tc, ok := client.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
				p.sleep(StallForever, gone)
				return
			case f.HalfClose:
				if tc, ok := client.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
				go io.Copy(io.Discard, from)
				p.sleep(StallForever, gone)
				return
			case f.Stall != 0:
				if !p.sleep(f.Stall, gone) {
					return
				}
			}
			continue
		}
		if struck && f.Trickle > 0 {
			want = buf[:min(f.Trickle, len(buf))]
		}
		k, err := from.Read(want)
		if k > 0 {
			if _, werr := client.Write(want[:k]); werr != nil {
				server.Close()
				return
			}
			sent += int64(k)
		}
		if err != nil {
			if tc, ok := client.(*net.TCPConn); ok && err == io.EOF {
				tc.CloseWrite()
				p.sleep(StallForever, gone)
			}
			return
		}
		if struck && f.Trickle > 0 {
			every := f.TrickleEvery
			if every <= 0 {
				every = 100 * time.Millisecond
			}
			if !p.sleep(every, gone) {
				return
			}
		}
	}
}

// sleep waits d (until the end for StallForever), or until the client
// closes its side or the proxy closes; false when the wait was cut short.
func (p *FaultProxy) sleep(d time.Duration, gone <-chan struct{}) bool {
	var timeout <-chan time.Time
	if d != StallForever {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-gone:
		return false
	case <-p.done:
		return false
	}
}

var (
	epsvRe = regexp.MustCompile(`\(\|\|\|(\d+)\|\)`)
	pasvRe = regexp.MustCompile(`(\d+),(\d+),(\d+),(\d+),(\d+),(\d+)`)
)

// rewritePassive copies the server's control replies to w, replacing the
// port of each 227 and 229 reply with one the proxy listens on for that
// data connection.
func (p *FaultProxy) rewritePassive(w io.Writer, server net.Conn, target string) error {
	host, _, _ := net.SplitHostPort(target)
	br := bufio.NewReader(server)
	for {
		line, err := br.ReadString('\n')
		if strings.HasPrefix(line, "229 ") {
			if m := epsvRe.FindStringSubmatchIndex(line); m != nil {
				if port, lerr := p.dataListener(net.JoinHostPort(host, line[m[2]:m[3]])); lerr == nil {
					line = line[:m[2]] + strconv.Itoa(port) + line[m[3]:]
				}
			}
		} else if strings.HasPrefix(line, "227 ") {
			if m := pasvRe.FindStringSubmatchIndex(line); m != nil {
				hi, _ := strconv.Atoi(line[m[10]:m[11]])
				lo, _ := strconv.Atoi(line[m[12]:m[13]])
				if port, lerr := p.dataListener(net.JoinHostPort(host, strconv.Itoa(hi*256+lo))); lerr == nil {
					line = line[:m[2]] + fmt.Sprintf("127,0,0,1,%d,%d", port/256, port%256) + line[m[13]:]
				}
			}
		}
		if len(line) > 0 {
			if _, werr := io.WriteString(w, line); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
	}
}

// dataListener listens once on a free port for a data connection to
// target and relays it with the data plan's next fault.
func (p *FaultProxy) dataListener(target string) (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	p.lns = append(p.lns, ln)
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer ln.Close()
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(30 * time.Second))
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c, true) {
			c.Close()
			return
		}
		defer p.track(c, false)
		defer c.Close()
		server, release := p.dial(target)
		if server == nil {
			return
		}
		defer release()
		n := int(p.dataConns.Add(1) - 1)
		p.relayConn(c, server, server, p.dataPlan(n))
	}()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
