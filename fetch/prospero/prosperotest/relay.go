package prosperotest

import (
	"errors"
	"math/rand/v2"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// Relay forwards datagrams between clients and a server, losing some on
// the way: each datagram, in either direction, is dropped, duplicated or
// held back (and so reordered behind the next one) with the given
// probabilities, drawn from a generator seeded by Seed so that a failing
// run can be repeated.
type Relay struct {
	Target  string // the server, "ip:port"
	Seed    uint64
	Drop    float64
	Dup     float64
	Reorder float64

	conn    *net.UDPConn
	mu      sync.Mutex
	rnd     *rand.Rand
	up      map[netip.AddrPort]*net.UDPConn
	held    [2][]byte // per direction: a datagram held back, and where it goes
	heldTo  [2]func([]byte)
	done    chan struct{}
	wg      sync.WaitGroup
	dropped int
}

// NewRelay is a Relay to target with 20% drops, 20% duplicates and 20%
// reorders.
func NewRelay(target string, seed uint64) *Relay {
	return &Relay{Target: target, Seed: seed, Drop: 0.2, Dup: 0.2, Reorder: 0.2}
}

// Start listens on 127.0.0.1 and relays until the test ends; it returns
// the address clients send to.
func (r *Relay) Start(t testing.TB) string {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	r.conn = c
	r.rnd = rand.New(rand.NewPCG(r.Seed, r.Seed^0x9e3779b97f4a7c15))
	r.up = map[netip.AddrPort]*net.UDPConn{}
	r.done = make(chan struct{})
	r.wg.Add(1)
	go r.fromClients()
	t.Cleanup(r.Close)
	return c.LocalAddr().String()
}

// Dropped is how many datagrams the relay dropped.
func (r *Relay) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Close stops the relay.
func (r *Relay) Close() {
	select {
	case <-r.done:
		return
	default:
	}
	close(r.done)
	r.conn.Close()
	r.mu.Lock()
	for _, u := range r.up {
		u.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

func (r *Relay) fromClients() {
	defer r.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, peer, err := r.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			select {
			case <-r.done:
				return
			default:
				continue
			}
		}
		r.mu.Lock()
		u := r.up[peer]
		if u == nil {
			addr, err := net.ResolveUDPAddr("udp", r.Target)
			if err == nil {
				u, err = net.DialUDP("udp", nil, addr)
			}
			if err != nil {
				r.mu.Unlock()
				continue
			}
			r.up[peer] = u
			r.wg.Add(1)
			go r.fromServer(u, peer)
		}
		r.mu.Unlock()
		pkt := append([]byte(nil), buf[:n]...)
		r.pass(0, pkt, func(b []byte) { u.Write(b) })
	}
}

func (r *Relay) fromServer(u *net.UDPConn, peer netip.AddrPort) {
	defer r.wg.Done()
	buf := make([]byte, 65536)
	for {
		n, err := u.Read(buf)
		if err != nil {
			select {
			case <-r.done:
				return
			default:
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			if isClosed(err) {
				return
			}
			continue
		}
		pkt := append([]byte(nil), buf[:n]...)
		r.pass(1, pkt, func(b []byte) { r.conn.WriteToUDPAddrPort(b, peer) })
	}
}

func isClosed(err error) bool { return errors.Is(err, net.ErrClosed) }

// pass sends pkt on (dir 0: to the server, 1: to the client), losing it
// as the odds say. A held datagram goes out after the next one in the same
// direction, or after 20 ms.
func (r *Relay) pass(dir int, pkt []byte, send func([]byte)) {
	if len(pkt) == 0 {
		return
	}
	r.mu.Lock()
	x := r.rnd.Float64()
	var out [][]byte
	switch {
	case x < r.Drop:
		r.dropped++
	case x < r.Drop+r.Dup:
		out = [][]byte{pkt, pkt}
	case x < r.Drop+r.Dup+r.Reorder && r.held[dir] == nil:
		r.held[dir], r.heldTo[dir] = pkt, send
		time.AfterFunc(20*time.Millisecond, func() { r.release(dir, pkt) })
	default:
		out = [][]byte{pkt}
	}
	var held []byte
	var heldTo func([]byte)
	if len(out) > 0 && r.held[dir] != nil {
		held, heldTo = r.held[dir], r.heldTo[dir]
		r.held[dir] = nil
	}
	r.mu.Unlock()
	for _, b := range out {
		send(b)
	}
	if held != nil {
		heldTo(held)
	}
}

func (r *Relay) release(dir int, pkt []byte) {
	r.mu.Lock()
	if r.held[dir] == nil || &r.held[dir][0] != &pkt[0] {
		r.mu.Unlock()
		return
	}
	send := r.heldTo[dir]
	r.held[dir] = nil
	r.mu.Unlock()
	select {
	case <-r.done:
	default:
		send(pkt)
	}
}
