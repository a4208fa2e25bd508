package fetch_test

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// traceLog records a Trace's events by name, in order.
type traceLog struct {
	mu     sync.Mutex
	events []string
}

func (l *traceLog) add(s string) {
	l.mu.Lock()
	l.events = append(l.events, s)
	l.mu.Unlock()
}

func (l *traceLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.events, " ")
}

func (l *traceLog) trace() *fetch.Trace {
	return &fetch.Trace{
		DNSDone: func(host string, addrs []netip.Addr) { l.add("dns:" + host) },
		Connected: func(local, remote net.Addr, data bool) {
			if data {
				l.add("data")
			} else {
				l.add("connect")
			}
		},
		TLSDone:      func(tls.ConnectionState) { l.add("tls") },
		WroteRequest: func(local, remote net.Addr) { l.add("wrote") },
		FirstByte:    func() { l.add("first") },
		Redirect:     func(url string) { l.add("redirect") },
		BodySent:     func(n int) { l.add("body") },
	}
}

func TestTraceEvents(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	port := strings.TrimPrefix(srv.URL, "https://127.0.0.1:")
	c := &fetch.Client{Insecure: true, FollowRedirects: true,
		Resolve: []fetch.ResolveRule{mustResolve(t, "example.test:"+port+":127.0.0.1")}}
	var l traceLog
	ctx := fetch.WithTrace(context.Background(), l.trace())
	_, body, err := doAll(c, ctx, &fetch.Request{URL: parse(t, "https://example.test:"+port+"/old")})
	if err != nil || string(body) != "ok" {
		t.Fatalf("%q %v", body, err)
	}
	// The TLS handshake's own writes and reads are not the request's; the
	// second hop goes over the same kept-alive connection (the redirect's
	// short body read to its end), so no new lookup, connect or handshake.
	want := "dns:example.test connect tls wrote first redirect wrote first"
	if got := l.String(); got != want {
		t.Errorf("https with a redirect:\n got %s\nwant %s", got, want)
	}

	f := ftptest.New(t)
	f.AddFile("/f", []byte("data"), time.Now())
	l = traceLog{}
	ctx = fetch.WithTrace(context.Background(), l.trace())
	if _, body, err = doAll(&fetch.Client{}, ctx, &fetch.Request{URL: parse(t, "ftp://"+f.Addr+"/f")}); err != nil || string(body) != "data" {
		t.Fatalf("ftp: %q %v", body, err)
	}
	// The greeting comes before any request; each command is an exchange;
	// the data connection is flagged and not traced further.
	if got := l.String(); !strings.HasPrefix(got, "dns:127.0.0.1 connect wrote first wrote first") || strings.Count(got, "data") != 1 {
		t.Errorf("ftp: %s", got)
	}
}

// TestTraceKeptConnection: a kept connection (HTTP keep-alive, the ftp
// pool) reports a later request's exchanges to that request's Trace, not
// to the Trace of the request that opened it.
func TestTraceKeptConnection(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	f := ftptest.New(t)
	f.AddFile("/f", []byte("data"), time.Now())
	for _, u := range []string{srv.URL + "/", "ftp://" + f.Addr + "/f"} {
		c := &fetch.Client{}
		var first, second traceLog
		for _, l := range []*traceLog{&first, &second} {
			ctx := fetch.WithTrace(context.Background(), l.trace())
			if _, _, err := doAll(c, ctx, &fetch.Request{URL: parse(t, u)}); err != nil {
				t.Fatal(err)
			}
		}
		c.CloseIdleConnections()
		if got := first.String(); !strings.HasPrefix(got, "dns:127.0.0.1 connect wrote first") {
			t.Errorf("%s: first request: %s", u, got)
		}
		if got := second.String(); strings.Contains(got, "connect ") || !strings.HasPrefix(got, "wrote first") {
			t.Errorf("%s: second request, on the kept connection: %q, want its exchanges and no connect", u, got)
		}
	}
}
