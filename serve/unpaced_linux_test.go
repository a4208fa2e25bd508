package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/urlget/urlget/fetch"
)

// keptListener hands the connections it accepts to conns as well.
type keptListener struct {
	net.Listener
	conns chan net.Conn
}

func (l keptListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.conns <- c
	}
	return c, err
}

// congestionControl is the TCP congestion control of c.
func congestionControl(t *testing.T, c syscall.Conn) string {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var cc string
	var cerr error
	rc.Control(func(fd uintptr) {
		cc, cerr = unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	})
	if cerr != nil {
		t.Fatal(cerr)
	}
	return cc
}

// TestLoopbackClientUnpaced: a client on this machine is answered without
// BBR's pacing (reno), which on loopback only costs the gateway CPU.
func TestLoopbackClientUnpaced(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// The accepted connections take the listener's congestion control.
	rc, err := ln.(*net.TCPListener).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, "bbr")
	})
	if serr != nil {
		t.Skipf("no BBR here: %v", serr)
	}
	kl := keptListener{ln, make(chan net.Conn, 4)}
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Serve(ctx, kl, 0) }()
	defer func() {
		cancel()
		<-done
	}()
	res, err := (&http.Client{Transport: &http.Transport{}}).Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	c := (<-kl.conns).(*net.TCPConn)
	if cc := congestionControl(t, c); cc != "reno" {
		t.Errorf("the loopback client's connection: congestion control %q, want reno", cc)
	}
}
