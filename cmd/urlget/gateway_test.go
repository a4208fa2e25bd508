package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// gatewayReply is a reply: the status line, field lines, body.
type gatewayReply struct {
	status string
	fields []string
	body   string
}

// newGateway is an HTTP proxy acting as a gateway for other schemes (RFC
// 1630): it answers "GET <URL>" with the replies listed for the URL in
// turn (the last one again and again), the header fields written in the
// order and case given.
func newGateway(t *testing.T, replies map[string][]gatewayReply) *fetchtest.Proxy {
	var mu sync.Mutex
	n := map[string]int{}
	return fetchtest.NewProxy(t, func(w io.Writer, req *http.Request) {
		mu.Lock()
		list := replies[req.RequestURI]
		i := min(n[req.RequestURI], len(list)-1)
		n[req.RequestURI]++
		mu.Unlock()
		r := gatewayReply{status: "HTTP/1.1 502 Bad Gateway", fields: []string{"Content-Length: 0"}}
		if i >= 0 {
			r = list[i]
		}
		var b bytes.Buffer
		b.WriteString(r.status + "\r\n")
		for _, f := range r.fields {
			b.WriteString(f + "\r\n")
		}
		b.WriteString("\r\n")
		if req.Method != "HEAD" {
			b.WriteString(r.body)
		}
		w.Write(b.Bytes())
	})
}

// An ftp:// URL fetched through an HTTP proxy gateway gets an HTTP reply:
// -f, -I, -w %{response_code} and --retry treat it as one (issue 10).
func TestGatewayReplyIsHTTP(t *testing.T) {
	for _, k := range []string{"http_proxy", "ftp_proxy", "all_proxy", "no_proxy"} {
		t.Setenv(k, "")
		t.Setenv(strings.ToUpper(k), "")
	}
	notFound := gatewayReply{
		status: "HTTP/1.1 404 Not Found",
		// Wire order and case a map would lose: Connection included.
		fields: []string{"Server: gw/0.1", "content-type: text/plain", "X-Gateway-Cache: MISS",
			"Content-Length: 11", "ETag: \"e1\"", "Connection: keep-alive"},
		body: "no such fil",
	}
	ok := gatewayReply{status: "HTTP/1.1 200 OK", fields: []string{"Content-Length: 3"}, body: "yes"}
	busy := gatewayReply{status: "HTTP/1.1 503 Busy", fields: []string{"Retry-After: 0", "Content-Length: 4"}, body: "busy"}
	g := newGateway(t, map[string][]gatewayReply{
		"ftp://ftp.example/missing": {notFound},
		"ftp://ftp.example/busy":    {busy, ok},
	})
	proxy := "http://" + g.Addr
	runGW := func(args ...string) cliResult {
		t.Helper()
		var out, errb bytes.Buffer
		e := env{args: append([]string{"-x", proxy}, args...), stdin: strings.NewReader(""), stdout: &out, stderr: &errb}
		code := runFetchWith(e, func(c *fetchCmd) {
			c.sleep = func(context.Context, time.Duration) error { return nil }
		})
		return cliResult{code, out.String(), errb.String()}
	}

	if r := runGW("-f", "ftp://ftp.example/missing"); r.code != 22 || r.stdout != "" || !strings.Contains(r.stderr, "404") {
		t.Errorf("-f through the gateway: %+v, want exit 22 and no body", r)
	}
	// Without -f the gateway's page is the result, as for http.
	if r := runGW("ftp://ftp.example/missing"); r.code != 0 || r.stdout != "no such fil" {
		t.Errorf("no -f: %+v", r)
	}
	want := "HTTP/1.1 404 Not Found\r\nServer: gw/0.1\r\ncontent-type: text/plain\r\nX-Gateway-Cache: MISS\r\n" +
		"Content-Length: 11\r\nETag: \"e1\"\r\nConnection: keep-alive\r\n\r\n"
	if r := runGW("-I", "ftp://ftp.example/missing"); r.code != 0 || r.stdout != want {
		t.Errorf("-I through the gateway:\n%q\nwant\n%q (exit %d, %s)", r.stdout, want, r.code, r.stderr)
	}
	if r := runGW("-I", "-f", "ftp://ftp.example/missing"); r.code != 22 || r.stdout != "" {
		t.Errorf("-I -f through the gateway: %+v", r)
	}
	if r := runGW("-s", "-o", "/dev/null", "-w", "%{response_code} %{http_code}", "ftp://ftp.example/missing"); r.stdout != "404 404" {
		t.Errorf("-w through the gateway: %+v", r)
	}
	// -v shows the same head, in the same order.
	r := runGW("-v", "-o", "/dev/null", "ftp://ftp.example/missing")
	if !strings.Contains(r.stderr, "< HTTP/1.1 404 Not Found\n< Server: gw/0.1\n< content-type: text/plain\n< X-Gateway-Cache: MISS\n") {
		t.Errorf("-v through the gateway:\n%s", r.stderr)
	}
	// A 503 from the gateway is retried, as from an http server.
	before := len(g.Requests())
	if r := runGW("--retry", "2", "ftp://ftp.example/busy"); r.code != 0 || r.stdout != "yes" {
		t.Errorf("--retry on the gateway's 503: %+v", r)
	}
	if n := len(g.Requests()) - before; n != 2 {
		t.Errorf("--retry: %d requests to the gateway, want 2", n)
	}
	if got := g.Requests()[0].Line; got != "GET ftp://ftp.example/missing HTTP/1.1" {
		t.Errorf("the gateway got %q", got)
	}
}
