package fetchtest

import (
	"bytes"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a raw TCP server on 127.0.0.1 for failure-mode tests: each
// connection is handed to a handler, and Accepted counts them. The server
// and every connection it still holds are closed by t.Cleanup.
type Server struct {
	Addr string // "127.0.0.1:PORT"

	ln       net.Listener
	accepted atomic.Int64
	mu       sync.Mutex
	conns    map[net.Conn]bool
	done     chan struct{}
	wg       sync.WaitGroup
}

// NewServer starts a server that runs handle, in a goroutine of its own,
// for every connection. The handler need not close the connection.
func NewServer(t testing.TB, handle func(net.Conn)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]bool{}, done: make(chan struct{})}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			s.mu.Lock()
			s.conns[c] = true
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer func() {
					s.mu.Lock()
					delete(s.conns, c)
					s.mu.Unlock()
					c.Close()
				}()
				handle(c)
			}()
		}
	}()
	t.Cleanup(s.Close)
	return s
}

// Accepted is how many connections the server has accepted.
func (s *Server) Accepted() int { return int(s.accepted.Load()) }

// Done is closed when the server is closing: handlers that hold a
// connection open wait on it.
func (s *Server) Done() <-chan struct{} { return s.done }

// Close stops the server and closes its connections.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
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
