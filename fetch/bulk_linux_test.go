package fetch_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
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

// A LowWater's Read with the mark at BulkReadSize, from a server that
// sends 1000 bytes and waits for them to be read before it sends more:
// the mark drops after LowWaterWait and the bytes reach the reader (a
// reader held for the mark would wait for the read deadline). Over TLS
// there is no LowWater (the end of a reply there is a record of its own).
func TestLowWaterWaitDrops(t *testing.T) {
	got := make(chan struct{})
	srv := fetchtest.NewServer(t, func(c net.Conn) {
		for range 3 {
			c.Write(make([]byte, 1000))
			select {
			case <-got:
			case <-time.After(time.Minute):
				return
			}
		}
	})
	nc, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if tc := tls.Client(nc, &tls.Config{}); fetch.NewLowWater(tc) != nil {
		t.Errorf("a LowWater over TLS")
	}
	lw := fetch.NewLowWater(nc)
	if lw == nil {
		t.Fatal("no LowWater for a TCP connection")
	}
	nc.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, fetch.BulkReadSize)
	for i := range 3 {
		n, err := lw.Read(nc, buf, fetch.BulkReadSize)
		if err != nil || n == 0 {
			t.Fatalf("read %d: %d bytes, %v", i, n, err)
		}
		if n < 1000 {
			// The rest of the 1000, then on.
			if _, err := io.ReadFull(nc, buf[n:1000]); err != nil {
				t.Fatal(err)
			}
		}
		got <- struct{}{}
	}
}
