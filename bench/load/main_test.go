package main

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// proxyServer answers every request read on a connection with reply
// (keeping the connection unless reply says "Connection: close"), after
// delay; it counts the requests and checks they are in absolute form.
func proxyServer(t *testing.T, reply string, delay time.Duration) (addr string, requests *atomic.Int64) {
	requests = &atomic.Int64{}
	s := fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			if req.RequestURI != "gopher://127.0.0.1:70/1/" || req.Header.Get("Accept") != "text/html" {
				t.Errorf("request %q, Accept %q", req.RequestURI, req.Header.Get("Accept"))
			}
			requests.Add(1)
			time.Sleep(delay)
			if _, err := c.Write([]byte(reply)); err != nil || strings.Contains(reply, "Connection: close") {
				return
			}
		}
	})
	return s.Addr, requests
}

const req = "GET gopher://127.0.0.1:70/1/ HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n"

func TestRunCounts(t *testing.T) {
	for _, reply := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello", // ended by the close
	} {
		addr, n := proxyServer(t, reply, 0)
		r := run(addr, req, 4, 200*time.Millisecond, 5*time.Second)
		if r.errors != 0 || len(r.latencies) == 0 || int64(len(r.latencies)) != n.Load() || r.bytes != 5*int64(len(r.latencies)) {
			t.Errorf("%q: %d answered (server: %d), %d errors (%s), %d bytes", reply, len(r.latencies), n.Load(), r.errors, r.firstErr, r.bytes)
		}
		if r.rps() <= 0 || pct(r.latencies, 99) < pct(r.latencies, 50) {
			t.Errorf("%q: rps %.1f, p50 %v, p99 %v", reply, r.rps(), pct(r.latencies, 50), pct(r.latencies, 99))
		}
	}
}

// A server slower than the run is still measured: the requests started
// are waited for.
func TestRunWaitsForSlowReplies(t *testing.T) {
	addr, _ := proxyServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 400*time.Millisecond)
	r := run(addr, req, 3, 50*time.Millisecond, 10*time.Second)
	if len(r.latencies) != 3 || r.errors != 0 || r.seconds < 0.4 {
		t.Errorf("%d answered, %d errors, %.2f s", len(r.latencies), r.errors, r.seconds)
	}
}

func TestRunErrors(t *testing.T) {
	addr, _ := proxyServer(t, "HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n", 0)
	r := run(addr, req, 2, 100*time.Millisecond, 5*time.Second)
	if r.errors == 0 || len(r.latencies) != 0 || !strings.Contains(r.firstErr, "503") {
		t.Errorf("503s: %d answered, %d errors (%q)", len(r.latencies), r.errors, r.firstErr)
	}
}

func TestPct(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 100; i++ {
		d = append(d, time.Duration(i))
	}
	if pct(d, 50) != 50 || pct(d, 99) != 99 || pct(d[:1], 99) != 1 || pct(nil, 50) != 0 {
		t.Errorf("pct: %v %v %v", pct(d, 50), pct(d, 99), pct(d[:1], 99))
	}
}
