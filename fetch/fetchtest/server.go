package fetchtest

import (
	"bytes"
	"cmp"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Loop is the accept loop of an in-tree test server: every connection
// accepted on its listener is handed to a handler in a goroutine of its own
// until Close. ftptest, gophertest, nntptest and the other in-tree servers
// run on it, so that closing one works the same everywhere.
type Loop struct {
	ln       net.Listener
	accepted atomic.Int64
	mu       sync.Mutex
	conns    map[net.Conn]bool
	done     chan struct{}
	wg       sync.WaitGroup
}

// Serve runs handle for every connection accepted on ln until Close. The
// handler need not close the connection.
func Serve(ln net.Listener, handle func(net.Conn)) *Loop {
	l := NewLoop(ln)
	l.Start(handle)
	return l
}

// NewLoop makes the loop for ln without accepting yet: a server keeps it
// (and its Done channel, which handlers wait on) before Start hands the
// first connection to a handler.
func NewLoop(ln net.Listener) *Loop {
	return &Loop{ln: ln, conns: map[net.Conn]bool{}, done: make(chan struct{})}
}

// Start runs handle for every connection accepted until Close.
func (l *Loop) Start(handle func(net.Conn)) {
	ln := l.ln
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.accepted.Add(1)
			l.mu.Lock()
			if l.closing() {
				l.mu.Unlock()
				c.Close()
				return
			}
			l.conns[c] = true
			l.wg.Add(1)
			l.mu.Unlock()
			go func() {
				defer l.wg.Done()
				defer func() {
					l.mu.Lock()
					delete(l.conns, c)
					l.mu.Unlock()
					c.Close()
				}()
				handle(c)
			}()
		}
	}()
}

func (l *Loop) closing() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// Addr is the listener's address ("127.0.0.1:PORT").
func (l *Loop) Addr() string { return l.ln.Addr().String() }

// Accepted is how many connections the loop has accepted.
func (l *Loop) Accepted() int { return int(l.accepted.Load()) }

// Done is closed when Close starts: handlers that hold a connection open
// wait on it.
func (l *Loop) Done() <-chan struct{} { return l.done }

// Close closes the listener and every connection still open, and waits
// for the handlers to return. It may be called more than once.
func (l *Loop) Close() {
	l.mu.Lock()
	if l.closing() {
		l.mu.Unlock()
		return
	}
	close(l.done)
	l.ln.Close()
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
}

// Server is a raw TCP server on 127.0.0.1 for failure-mode tests: a Loop
// on a fresh listener, closed by t.Cleanup.
type Server struct {
	*Loop
	Addr string // "127.0.0.1:PORT"
}

// NewServer starts a server that runs handle, in a goroutine of its own,
// for every connection. The handler need not close the connection.
func NewServer(t testing.TB, handle func(net.Conn)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Serve(ln, handle)
	t.Cleanup(l.Close)
	return &Server{Loop: l, Addr: l.Addr()}
}

// Stall starts a server that, on each connection, waits for the client to
// send until (for example "\r\n\r\n" for HTTP, "\r\n" for gopher; "" to not
// wait, for protocols where the server speaks first), writes reply (which
// may be empty), and then sends nothing more while holding the connection
// open until the client closes it or the test ends.
func Stall(t testing.TB, until string, reply []byte) *Server {
	t.Helper()
	s := NewServer(t, func(c net.Conn) {
		if !readUntil(c, until) {
			return
		}
		if len(reply) > 0 {
			if _, err := c.Write(reply); err != nil {
				return
			}
		}
		// Hold the connection: this returns when the client closes it or
		// Close closes it at the end of the test.
		io.Copy(io.Discard, c)
	})
	return s
}

// CloseEarly starts a server that, on each connection, waits for the client
// to send until (as for Stall), writes reply, and closes the connection in
// good order (FIN, not RST: what the client has sent is read first). Give a
// reply that promises more than it holds, for example an HTTP head with a
// Content-Length larger than the body that follows.
func CloseEarly(t testing.TB, until string, reply []byte) *Server {
	t.Helper()
	return NewServer(t, func(c net.Conn) {
		if !readUntil(c, until) {
			return
		}
		c.Write(reply)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		// Drain briefly so that unread request bytes do not turn the close
		// into a reset, which could discard the reply on the client side.
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.Copy(io.Discard, c)
	})
}

// readUntil reads from c until the bytes read so far contain until.
func readUntil(c net.Conn, until string) bool {
	if until == "" {
		return true
	}
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, []byte(until)) {
		n, err := c.Read(buf)
		seen = append(seen, buf[:n]...)
		if len(seen) > 1<<20 {
			seen = seen[len(seen)-len(until):]
		}
		if err != nil {
			return bytes.Contains(seen, []byte(until))
		}
	}
	return true
}

// CountingListener wraps l and counts the connections it accepts, for
// servers (httptest.Server) whose listener a test can replace.
func CountingListener(l net.Listener) (net.Listener, func() int) {
	cl := &countingListener{Listener: l}
	return cl, func() int { return int(cl.n.Load()) }
}

type countingListener struct {
	net.Listener
	n atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// Sink connects to a server on 127.0.0.1 that reads everything sent to it:
// the connection (a *net.TCPConn, which has ReadFrom as an
// http.ResponseWriter has) and, once it is closed, what arrived.
func Sink(t testing.TB) (net.Conn, <-chan []byte) {
	t.Helper()
	got := make(chan []byte, 1)
	s := NewServer(t, func(c net.Conn) {
		b, _ := io.ReadAll(c)
		got <- b
	})
	c, err := net.Dial("tcp4", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, got
}

// Paced is a slow server's body for a test that a reader gets bytes as
// they come: Send writes data Piece bytes at a time, each only once the
// reader (Read) has the one before, so that a reader held back until more
// bytes gather than were sent never gets them.
type Paced struct {
	Data  []byte
	Piece int
	Bound time.Duration // how long Send waits for a piece to be read (0: 30 s)
	read  chan struct{}
}

// NewPaced is a Paced sending n pieces of piece bytes from data.
func NewPaced(data []byte, n, piece int) *Paced {
	return &Paced{Data: data[:n*piece], Piece: piece, read: make(chan struct{}, n)}
}

// Send writes the pieces to c, each once the one before has been read; it
// reports false when a piece was not read within Bound.
func (p *Paced) Send(c net.Conn) bool {
	bound := cmp.Or(p.Bound, 30*time.Second)
	for i := 0; i < len(p.Data); i += p.Piece {
		c.Write(p.Data[i : i+p.Piece])
		select {
		case <-p.read: // the reader has this piece
		case <-time.After(bound):
			return false
		}
	}
	return true
}

// Read reads r until it has every piece (or fails), telling Send as each
// piece arrives, and returns what it read.
func (p *Paced) Read(r io.Reader) ([]byte, error) {
	var got []byte
	buf := make([]byte, 1<<20)
	for len(got) < len(p.Data) {
		n, err := r.Read(buf)
		got = append(got, buf[:n]...)
		for range len(got)/p.Piece - (len(got)-n)/p.Piece {
			p.read <- struct{}{}
		}
		if err != nil {
			return got, err
		}
	}
	return got, nil
}
