package testserver

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// echoServer answers each connection by echoing what it reads until the
// client closes its side, then closes.
func echoServer(t *testing.T) string {
	return fetchtest.NewServer(t, func(c net.Conn) { io.Copy(c, c) }).Addr
}

func TestDelayProxyRoundTrip(t *testing.T) {
	target := echoServer(t)
	const delay = 30 * time.Millisecond
	p := StartDelayProxy(t, delay, ProxyRoute{Listen: "127.0.0.1:0", Target: target})
	c, err := net.Dial("tcp", p.Addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Several round trips: each takes at least two delays; the bytes come
	// back in order.
	buf := make([]byte, 5)
	for i := 0; i < 3; i++ {
		start := time.Now()
		msg := []byte("ping" + strconv.Itoa(i))
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		if rtt := time.Since(start); rtt < 2*delay {
			t.Errorf("round trip %d took %v, want at least %v", i, rtt, 2*delay)
		}
		if !bytes.Equal(buf, msg) {
			t.Errorf("echo %q, want %q", buf, msg)
		}
	}
	// A large transfer arrives whole and in order, and the end of the
	// data is passed on (the echo server closes after our CloseWrite).
	big := make([]byte, 4<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	go func() {
		c.Write(big)
		c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("large transfer: %d bytes (%v), want %d equal", len(got), err, len(big))
	}
}

func TestDelayProxyPortRange(t *testing.T) {
	// Three consecutive free ports on 127.0.0.1 for the targets are hard
	// to come by; map a range onto echo servers found by trying.
	var base int
	var lns []net.Listener
	for try := 0; try < 50 && base == 0; try++ {
		p, err := PickPort()
		if err != nil {
			t.Fatal(err)
		}
		lns = lns[:0]
		ok := true
		for i := 0; i < 3 && ok; i++ {
			ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(p+i))
			if err != nil {
				ok = false
				break
			}
			lns = append(lns, ln)
		}
		if ok {
			base = p
		} else {
			for _, ln := range lns {
				ln.Close()
			}
		}
	}
	if base == 0 {
		t.Skip("no three consecutive free ports")
	}
	for i, ln := range lns {
		t.Cleanup(func() { ln.Close() })
		go func(i int, ln net.Listener) {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Write([]byte{byte('a' + i)})
				c.Close()
			}
		}(i, ln)
	}
	// The proxy listens on the same port numbers on another loopback
	// address, as it does for FTP passive ports.
	route := ProxyRoute{Listen: "127.0.0.2:" + strconv.Itoa(base) + "-" + strconv.Itoa(base+2), Target: "127.0.0.1:" + strconv.Itoa(base)}
	p, err := LaunchDelayProxy(time.Millisecond, route)
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	defer p.Close()
	if len(p.Addrs) != 3 {
		t.Fatalf("addresses %q, want 3", p.Addrs)
	}
	for i := 0; i < 3; i++ {
		c, err := net.Dial("tcp", "127.0.0.2:"+strconv.Itoa(base+i))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(c)
		c.Close()
		if string(b) != string(rune('a'+i)) {
			t.Errorf("port %d answered %q, want %q", base+i, b, string(rune('a'+i)))
		}
	}
}

func TestParseProxyRoute(t *testing.T) {
	r, err := ParseProxyRoute("127.0.0.2:41500-41599=127.0.0.1:41500")
	if err != nil || r.Listen != "127.0.0.2:41500-41599" || r.Target != "127.0.0.1:41500" {
		t.Errorf("ParseProxyRoute = %+v, %v", r, err)
	}
	pairs, err := r.expand()
	if err != nil || len(pairs) != 100 || pairs[99] != [2]string{"127.0.0.2:41599", "127.0.0.1:41599"} {
		t.Errorf("expand: %d pairs, last %v, %v", len(pairs), pairs[len(pairs)-1], err)
	}
	for _, bad := range []string{"x", "127.0.0.1:1=", "127.0.0.1:9-1=127.0.0.1:5", "127.0.0.1:1=127.0.0.1:0", "127.0.0.1:1-2=127.0.0.1:65535"} {
		r, err := ParseProxyRoute(bad)
		if err == nil {
			_, err = r.expand()
		}
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
