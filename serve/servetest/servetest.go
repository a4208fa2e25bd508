// Package servetest runs the gateway of package serve on 127.0.0.1 for
// tests that drive it with real clients (a browser, lynx, curl, urlget -x).
package servetest

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/serve"
)

// Gateway is a running gateway.
type Gateway struct {
	URL     string // http://127.0.0.1:PORT
	Handler *serve.Handler
	log     string // the access log's file
}

// Start serves serve.New(c, o) on 127.0.0.1 for the rest of the test (nil
// c: a fetch.Client of its own), going to every server directly whatever
// the environment's proxies say. Its access log is kept (see Log) unless
// o.AccessLog is set.
func Start(t testing.TB, c *fetch.Client, o serve.Options) *Gateway {
	t.Helper()
	g := &Gateway{log: filepath.Join(t.TempDir(), "access.log")}
	if o.AccessLog == nil {
		// An *os.File takes writes from several goroutines.
		f, err := os.OpenFile(g.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		o.AccessLog = f
	}
	cc := fetch.Client{}
	if c != nil {
		cc = *c
	}
	cc.NoProxy = "*"
	h, err := serve.New(&cc, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.Close()
		h.CloseIdleConnections()
	})
	g.URL, g.Handler = srv.URL, h
	return g
}

// Log is the access log so far ("" when Options.AccessLog was given).
func (g *Gateway) Log() string {
	b, _ := os.ReadFile(g.log)
	return string(b)
}

// Logged reports whether the access log has a request "GET target HTTP/1.x"
// (target as the client sent it: a URL for a proxy client, /URL for the web
// front), waiting up to 2 s: the gateway writes a request's line when its
// handler returns, which can be after the client has read the whole reply.
func (g *Gateway) Logged(target string) bool {
	for range 100 {
		if strings.Contains(g.Log(), `"GET `+target+` HTTP/1`) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
