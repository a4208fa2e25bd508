package http_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	fetchhttp "github.com/urlget/urlget/fetch/http"
)

// A Client's requests to one host go out on one connection, the server
// counting its accepts; each Meta.Header is its own response's head, read
// again from the wire of a reused connection; Client.CloseIdleConnections
// closes the connection (the server sees it end).
func TestKeepAlive(t *testing.T) {
	var mu sync.Mutex
	closed := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		w.Header().Set("X-N", n)
		if r.Header.Get("If-None-Match") != "" {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		io.WriteString(w, "body "+n)
	}))
	l, accepts := fetchtest.CountingListener(srv.Listener)
	srv.Listener = l
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			mu.Lock()
			closed++
			mu.Unlock()
		}
	}
	srv.Start()
	defer srv.Close()

	var verbose bytes.Buffer
	c := &fetch.Client{Verbose: &verbose}
	for i := range 6 {
		n := strconv.Itoa(i)
		u := parse(t, srv.URL+"/f?n="+n)
		req := &fetch.Request{URL: u}
		if i%2 == 1 {
			req.IfNoneMatch = `"x"`
		}
		res, body, err := get(t, c, req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if got := res.Header.Get("X-N"); got != n {
			t.Errorf("request %d: X-N %q: the head of another response", i, got)
		}
		if want := "body " + n; i%2 == 0 && string(body) != want || i%2 == 1 && (!res.NotModified || len(body) != 0) {
			t.Errorf("request %d: status %d, body %q", i, res.Status, body)
		}
	}
	if n := accepts(); n != 1 {
		t.Errorf("6 requests on %d connections, want 1", n)
	}
	if n := bytes.Count(verbose.Bytes(), []byte("* Re-using the connection")); n != 5 {
		t.Errorf("verbose log says Re-using %d times, want 5:\n%s", n, verbose.Bytes())
	}
	mu.Lock()
	before := closed
	mu.Unlock()
	if before != 0 {
		t.Errorf("%d connections closed before CloseIdleConnections", before)
	}
	c.CloseIdleConnections()
	srv.Close() // waits for the server's connections to end
	mu.Lock()
	defer mu.Unlock()
	if closed != 1 {
		t.Errorf("%d connections closed, want 1", closed)
	}
}

// A Fetcher without New (the zero value) keeps nothing: a connection per
// request, closed with its Body.
func TestZeroFetcherNoKeepAlive(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "x")
	}))
	l, accepts := fetchtest.CountingListener(srv.Listener)
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	c := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"http": fetchhttp.Fetcher{}})}
	for i := range 3 {
		if _, _, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/")}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if n := accepts(); n != 3 {
		t.Errorf("3 requests on %d connections, want 3", n)
	}
}

// Replies without a body (304) free their connection as soon as their
// head is read, before the fetcher has taken the head as received: the
// next request on it, from another goroutine, must not take it over. Each
// result carries its own reply's X-N.
func TestKeepAliveConcurrentHeads(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-N", r.URL.Query().Get("n"))
		w.WriteHeader(http.StatusNotModified)
	}))
	defer srv.Close()
	c := &fetch.Client{}
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 100 {
				n := strconv.Itoa(g*100 + i)
				res, _, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/?n="+n), IfNoneMatch: `"x"`})
				if err != nil {
					t.Errorf("request %s: %v", n, err)
					return
				}
				if got := res.Header.Get("X-N"); got != n {
					t.Errorf("request %s: X-N %q: the head of another reply", n, got)
				}
			}
		})
	}
	wg.Wait()
}

// Client.IdlePerHost keeps as many connections as the requests run at
// once: n requests held at the server together (n connections), then n
// again, go out on the first n connections; without it, those past the
// fetcher's own bound (8) are closed after the first round and dialled
// again for the second.
func TestIdlePerHost(t *testing.T) {
	const n = 12
	for _, tc := range []struct {
		idle int
		want func(accepts int) bool
	}{
		{0, func(a int) bool { return a > n }},
		{n, func(a int) bool { return a == n }},
	} {
		t.Run(strconv.Itoa(tc.idle), func(t *testing.T) {
			arrived := make(chan struct{}, n)
			var mu sync.Mutex
			var release chan struct{}
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				rel := release
				mu.Unlock()
				arrived <- struct{}{}
				<-rel
				io.WriteString(w, "ok")
			}))
			l, accepts := fetchtest.CountingListener(srv.Listener)
			srv.Listener = l
			srv.Start()
			defer srv.Close()
			c := &fetch.Client{IdlePerHost: tc.idle}
			defer c.CloseIdleConnections()
			for round := range 2 {
				mu.Lock()
				release = make(chan struct{})
				mu.Unlock()
				var wg sync.WaitGroup
				for range n {
					wg.Go(func() {
						if _, body, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/")}); err != nil || string(body) != "ok" {
							t.Errorf("round %d: %q, %v", round, body, err)
						}
					})
				}
				for range n {
					<-arrived // all n at the server at once: n connections
				}
				mu.Lock()
				close(release)
				mu.Unlock()
				wg.Wait()
			}
			if a := accepts(); !tc.want(a) {
				t.Errorf("IdlePerHost %d: 2 rounds of %d requests at once on %d connections", tc.idle, n, a)
			}
		})
	}
}

// Client.MaxPerHost bounds the connections to a host: n requests at once
// with MaxPerHost 3 reach the server 3 at a time, on 3 connections, the
// others waiting for one to be free; all of them succeed.
func TestMaxPerHost(t *testing.T) {
	const n, most = 9, 3
	var mu sync.Mutex
	at, peak := 0, 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at++
		peak = max(peak, at)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond) // long enough for the others to pile up
		mu.Lock()
		at--
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	l, accepts := fetchtest.CountingListener(srv.Listener)
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	c := &fetch.Client{MaxPerHost: most}
	defer c.CloseIdleConnections()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if _, body, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/")}); err != nil || string(body) != "ok" {
				t.Errorf("%q, %v", body, err)
			}
		})
	}
	wg.Wait()
	if a := accepts(); a > most || peak > most {
		t.Errorf("MaxPerHost %d: %d requests on %d connections, %d at the server at once", most, n, a, peak)
	}
}

// Meta.Request is the request as the server received it, byte for byte,
// for each request on a kept connection.
func TestRequestAsSent(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan []byte, 2)
	go func() {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		br := bufio.NewReader(nc)
		for range 2 {
			var b []byte
			for {
				line, err := br.ReadSlice('\n')
				b = append(b, line...)
				if err != nil {
					return
				}
				if string(line) == "\r\n" {
					break
				}
			}
			got <- b
			io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	}()
	c := &fetch.Client{UserAgent: "ua-test"}
	defer c.CloseIdleConnections()
	for i, path := range []string{"/first", "/second?q"} {
		res, _, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+l.Addr().String()+path)})
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		want := <-got
		if !bytes.Equal(res.Request, want) {
			t.Errorf("request %d: Meta.Request\n%q\nthe server received\n%q", i, res.Request, want)
		}
	}
}
