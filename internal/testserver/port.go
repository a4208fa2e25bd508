package testserver

import (
	"fmt"
	"net"
	"sync"
	"testing"
	"time"
)

var (
	portsMu sync.Mutex
	// portsGiven holds every port this process has handed out, so that two
	// servers started by the same test binary never get the same one even
	// if the first has not bound it yet.
	portsGiven = map[int]bool{}
)

// PickPort returns a TCP port on 127.0.0.1 that was free a moment ago and has
// not been returned before by this process. Another process can still take
// it before the server binds it; LaunchOnFreePort retries in that case.
func PickPort() (int, error) {
	for range 50 {
		l, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("testserver: picking a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		portsMu.Lock()
		given := portsGiven[port]
		portsGiven[port] = true
		portsMu.Unlock()
		if !given {
			return port, nil
		}
	}
	return 0, fmt.Errorf("testserver: no fresh free port after 50 tries")
}

// FreePort is PickPort for tests: it fails the test on error.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := PickPort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// FreeAddr returns "127.0.0.1:PORT" with a port from FreePort: an address
// to start a server on, or one where nothing listens (connection refused).
func FreeAddr(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", FreePort(t))
}

// WaitPort waits until a TCP connection to addr succeeds, or timeout passes.
func WaitPort(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := dialOnce(addr)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("testserver: %s did not answer within %v: %w", addr, timeout, err)
		}
		time.Sleep(pollInterval)
	}
}

const pollInterval = 20 * time.Millisecond

func dialOnce(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}
