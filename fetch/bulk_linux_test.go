package fetch_test

import (
	"context"
	"net"
	"syscall"
	"testing"

	"github.com/urlget/urlget/fetch"
)

// TestReadToEndSetsLowat checks that ReadToEnd reaches the socket under the
// Client's connection wrapper and sets its receive low-water mark.
func TestReadToEndSetsLowat(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			defer c.Close()
			c.Write([]byte("short reply, then close"))
		}
	}()
	// A Fetcher built by a Client has the Client's dialer, whose
	// connections wrap the TCP one.
	var cfg fetch.Config
	c := &fetch.Client{Fetchers: map[string]func(fetch.Config) fetch.Fetcher{"x-test": func(fc fetch.Config) fetch.Fetcher {
		cfg = fc
		return fetch.FetcherFunc(func(ctx context.Context, r *fetch.Request) (*fetch.Resource, error) {
			return &fetch.Resource{}, nil
		})
	}}}
	if _, err := c.Open(context.Background(), "x-test://h/"); err != nil {
		t.Fatal(err)
	}
	nc, err := fetch.Connect(context.Background(), cfg.Dialer, ln.Addr().String(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	fetch.ReadToEnd(nc)

	var tcp *net.TCPConn
	for c := net.Conn(nc); tcp == nil; {
		switch v := c.(type) {
		case *net.TCPConn:
			tcp = v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			t.Fatalf("cannot reach the TCP connection under %T", c)
		}
	}
	rc, err := tcp.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got int
	var gerr error
	rc.Control(func(fd uintptr) { got, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT) })
	if gerr != nil || got != fetch.BulkReadSize {
		t.Fatalf("SO_RCVLOWAT = %d (%v), want %d", got, gerr, fetch.BulkReadSize)
	}
	// A reply shorter than the mark still arrives, at the close.
	b := make([]byte, 100)
	n, _ := nc.Read(b)
	if string(b[:n]) != "short reply, then close" {
		t.Fatalf("read %q", b[:n])
	}
}
