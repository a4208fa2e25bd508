//go:build linux

package http

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
)

// lowat is the SO_RCVLOWAT of c's socket.
func lowat(t *testing.T, c *net.TCPConn) int {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	if err := rc.Control(func(fd uintptr) { v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT) }); err != nil {
		t.Fatal(err)
	}
	if gerr != nil {
		t.Fatal(gerr)
	}
	return v
}

// A body read through bulkBody, as net/http reads it (a buffered reader
// over the connection, a limit of Content-Length): after every read the
// socket's low-water mark is 1 or below the bytes that were still due
// (the kernel never waits for bytes that will not come); after the last
// it is 1, and the next reply on the connection (ten bytes, less than
// any raised mark) is read at once. Sizes around fetch.BulkReadSize and
// bulkMin; reads of several sizes, 1 MiB as urlget's.
func TestBulkBodyMarkBelowDue(t *testing.T) {
	const head = 100 // read before the body, as a reply's head: the buffer holds body bytes
	next := []byte("next reply")
	for _, size := range []int{bulkMin + 1, fetch.BulkReadSize - 1, fetch.BulkReadSize, fetch.BulkReadSize + 1, 3*fetch.BulkReadSize + 7, 4 << 20} {
		t.Run(strconv.Itoa(size), func(t *testing.T) {
			data := fetchtest.Pattern(head + size)
			sent := make(chan struct{})
			srv := fetchtest.NewServer(t, func(c net.Conn) {
				c.Write(data)
				<-sent // the client has read the body
				c.Write(next)
				io.Copy(io.Discard, c)
			})
			nc, err := net.Dial("tcp4", srv.Addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			tc := nc.(*net.TCPConn)
			tc.SetReadDeadline(time.Now().Add(30 * time.Second)) // a hang fails, later
			br := bufio.NewReaderSize(nc, 4096)
			if _, err := io.ReadFull(br, make([]byte, head)); err != nil {
				t.Fatal(err)
			}
			body := newBulkBody(io.NopCloser(io.LimitReader(br, int64(size))), int64(size), nc)
			if _, ok := body.(*bulkBody); !ok {
				t.Fatalf("a %d-byte body over plain TCP is read as %T, not through bulkBody", size, body)
			}
			var got []byte
			buf := make([]byte, 1<<20)
			sizes := []int{1 << 20, 7000, 100, 300 << 10, 1}
			raised := false
			for i := 0; ; i++ {
				due := size - len(got)
				n, err := body.Read(buf[:sizes[i%len(sizes)]])
				got = append(got, buf[:n]...)
				if m := lowat(t, tc); m != 1 {
					raised = true
					if m > due-1 {
						t.Fatalf("read %d: mark %d with %d bytes due", i, m, due)
					}
				}
				if err == io.EOF || len(got) == size {
					break
				}
				if err != nil {
					t.Fatalf("read %d: %v", i, err)
				}
			}
			if string(got) != string(data[head:]) {
				t.Fatalf("body: %d bytes, not the %d sent", len(got), size)
			}
			if m := lowat(t, tc); m != 1 {
				t.Fatalf("mark %d after the body's end, want 1", m)
			}
			if !raised {
				t.Errorf("the mark was never raised")
			}
			close(sent)
			b := make([]byte, len(next))
			if _, err := io.ReadFull(br, b); err != nil || string(b) != string(next) {
				t.Fatalf("the next reply: %q, %v", b, err)
			}
		})
	}
}

// Small bodies, TLS and unknown lengths are read as they are.
func TestBulkBodyNotRaised(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	nc, _ := fetchtest.Sink(t)
	body := io.NopCloser(nil)
	for _, tc := range []struct {
		name string
		size int64
		c    net.Conn
	}{
		{"small", bulkMin, nc},
		{"unknown length", -1, nc},
		{"no socket", 1 << 20, a},
		{"TLS", 1 << 20, tls.Client(nc, &tls.Config{})},
	} {
		if got := newBulkBody(body, tc.size, tc.c); got != body {
			t.Errorf("%s: read through %T", tc.name, got)
		}
	}
}
