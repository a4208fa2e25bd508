package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/internal/testserver"
)

// stubResolver answers names from a table, never from DNS; a name with
// several answers gives them in turn, one per lookup (the last one again
// and again).
type stubResolver struct {
	names   map[string][]string
	lookups atomic.Int64
	n       map[string]*atomic.Int64
}

func newStub(names map[string][]string) *stubResolver {
	s := &stubResolver{names: names, n: map[string]*atomic.Int64{}}
	for k := range names {
		s.n[k] = new(atomic.Int64)
	}
	return s
}

func (s *stubResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	s.lookups.Add(1)
	answers, ok := s.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(int(s.n[host].Add(1))-1, len(answers)-1)
	return []netip.Addr{netip.MustParseAddr(answers[i])}, nil
}

// gateway starts the handler on an httptest server; the Client ignores
// the environment's proxies.
func gateway(t *testing.T, o Options) (*Handler, *httptest.Server) {
	t.Helper()
	if o.Resolver == nil {
		o.Resolver = newStub(nil)
	}
	h, err := New(&fetch.Client{NoProxy: "*"}, o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

// get fetches path from the gateway, with the Accept field given.
func get(t *testing.T, srv *httptest.Server, path, accept string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res, string(b)
}

// hostileMenu has HTML and script in every field a server sends.
func hostileMenu(g *gophertest.Server) string {
	hp := g.Host + "\t" + strconv.Itoa(g.Port)
	return strings.Join([]string{
		"i<script>alert('info')</script>\t\tnull.host\t1",
		"0<script>alert(1)</script> & \"quotes\"\t/doc\"><script>x</script>\t" + hp,
		"1<img src=x onerror=alert(2)>\t/dir'onmouseover='alert(3)\t" + hp,
		"1menu on another host\t/x\t\"><script>alert(4)</script>\t70",
		"hjs link\tURL:javascript:alert(5)\t" + hp,
		"hdata link\tURL:data:text/html,<script>alert(6)</script>\t" + hp,
		"hvb link\tURL:VBScript:msgbox(7)\t" + hp,
		"hweb link\tURL:https://example.org/a?b=1&c=<2>\t" + hp,
		"7search <b>here</b>\t/search\t" + hp,
		"8telnet <i>box</i>\tguest\t" + hp,
		"TIBM <u>host</u>\t\t" + hp,
		"3an <em>error</em>\t\terror.host\t1",
		"9binary\t/bin\t" + hp,
		"not a menu line <script>alert(8)</script>",
		".",
	}, "\r\n") + "\r\n"
}

// Every field of a hostile menu stays text: no element, attribute or
// script of the server's reaches the page, and only safe schemes become
// links.
func TestMenuEscaped(t *testing.T) {
	var g *gophertest.Server
	g = gophertest.Start(t, gophertest.HandlerFunc(func(c *gophertest.Conn, r *gophertest.Request) {
		c.WriteString(hostileMenu(g))
	}))
	_, srv := gateway(t, Options{})
	res, body := get(t, srv, "/gopher://"+g.Addr+"/1/", "")
	if res.StatusCode != 200 {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
	checkPage(t, body, "a", "b")
	for _, want := range []string{
		"&lt;script&gt;alert(&#39;info&#39;)&lt;/script&gt;",
		"&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;quotes&#34;",
		`<a href="https://example.org/a?b=1&amp;c=&lt;2&gt;">web link</a>`,
		`<a href="telnet://guest@127.0.0.1:` + strconv.Itoa(g.Port) + `/">telnet &lt;i&gt;box&lt;/i&gt;</a>`,
		`<a href="tn3270://127.0.0.1:` + strconv.Itoa(g.Port),
		`action="/.search"`,
		`name="u" value="gopher://127.0.0.1:` + strconv.Itoa(g.Port) + `/7/search"`,
		`<a href="/gopher://127.0.0.1:` + strconv.Itoa(g.Port) + `/9/bin">binary</a>`,
		"not a menu line &lt;script&gt;",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") || !strings.Contains(csp, "form-action 'self'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", res.Header.Get("X-Content-Type-Options"))
	}
	if testing.Verbose() {
		t.Log(body)
	}
}

// schemeOf refuses what a browser would turn into an active scheme.
func TestSchemeOf(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"http://x/", "http", true},
		{"GOPHER://x/", "gopher", true},
		{"java\tscript:alert(1)", "", false},
		{"java\nscript:alert(1)", "", false},
		{" javascript:alert(1)", "", false},
		{"/\\evil.example/", "", false},
		{"//evil.example/", "", false},
		{"1http://x", "", false},
		{"javascript:alert(1)", "javascript", true},
	} {
		got, ok := schemeOf(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("schemeOf(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	p := &page{front: true}
	for _, u := range []string{"javascript:alert(1)", "data:text/html,x", "vbscript:x", "JavaScript:x", "java\tscript:x", "about:blank", "blob:x"} {
		if k := p.linkTo(u); k != noLink {
			t.Errorf("linkTo(%q) = %d: a link", u, k)
		}
	}
}

// A listing links to the directory above it only where the scheme's
// paths are directories (fetch.DirPaths): never up a gopher selector.
func TestParentOf(t *testing.T) {
	for _, c := range []struct{ scheme, u, want string }{
		{"ftp", "ftp://h/pub/a/", "ftp://h/pub/"},
		{"ftp", "ftp://h/pub/", "ftp://h/"},
		{"ftp", "ftp://h/", ""},
		{"file", "file:///tmp/a/", "file:///tmp/"},
		{"prospero", "prospero://h//pub/docs", "prospero://h//pub"},
		{"prospero", "prospero://h:1526//pub/docs/", "prospero://h:1526//pub"},
		{"prospero", "prospero://h//pub", ""},
		// A gateway's names are no paths: their parents crash dirsrv.
		{"prospero", "prospero://h/GOPHER-GW/127.0.0.1(70)/1/", ""},
		{"prospero", "prospero://h/GOPHER-GW/127.0.0.1(70)/1/a/b", ""},
		{"prospero", "prospero://h/ARCHIE/HOST/ftp.example/pub", ""},
		{"gopher", "gopher://h/1/pub/a/", ""},
		{"wais", "wais://h/db/a", ""},
	} {
		s, ok := fetch.LookupScheme(c.scheme)
		if !ok {
			t.Fatalf("%s: not registered", c.scheme)
		}
		if got := parentOf(s, c.u); got != c.want {
			t.Errorf("parentOf(%s) = %q, want %q", c.u, got, c.want)
		}
	}
}

// An endless menu is shown as it arrives: its first items reach the
// browser while the server is still sending, so nothing is held whole.
func TestEndlessMenuStreams(t *testing.T) {
	var sent atomic.Int64
	g := gophertest.Start(t, gophertest.HandlerFunc(func(c *gophertest.Conn, r *gophertest.Request) {
		bw := bufio.NewWriter(c)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(bw, "0item %d\t/f%d\t127.0.0.1\t70\r\n", i, i); err != nil {
				return
			}
			sent.Add(1)
		}
	}))
	_, srv := gateway(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/gopher://"+g.Addr+"/1/", nil)
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	seen := 0
	for seen < 20000 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d items: %v", seen, err)
		}
		if strings.Contains(line, ">item ") {
			seen++
		}
	}
	if sent.Load() <= int64(seen) {
		t.Fatalf("%d items sent, %d seen", sent.Load(), seen)
	}
}

// A server that never answers is cut by Options.Timeout: 504.
func TestSlowUpstreamCut(t *testing.T) {
	g := gophertest.Start(t, gophertest.Stall())
	_, srv := gateway(t, Options{Timeout: 300 * time.Millisecond})
	res, body := get(t, srv, "/gopher://"+g.Addr+"/1/", "")
	if res.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("status %d: %s", res.StatusCode, body)
	}
}

// Serve stops when its context is done: at once when no request runs;
// a request still running after the grace period is cut (ErrCut).
func TestServeStop(t *testing.T) {
	g := gophertest.Start(t, gophertest.NoClose([]byte("0partial\t/p\th\t70\r\n")))
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil)})
	if err != nil {
		t.Fatal(err)
	}
	start := func(grace time.Duration) (string, context.CancelFunc, chan error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- h.Serve(ctx, ln, grace) }()
		return ln.Addr().String(), cancel, done
	}
	_, cancel, done := start(time.Minute)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("idle: %v", err)
	}

	addr, cancel, done := start(200 * time.Millisecond)
	defer cancel()
	res, err := (&http.Client{Transport: &http.Transport{}}).Get("http://" + addr + "/gopher://" + g.Addr + "/1/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	br := bufio.NewReader(res.Body)
	for line := ""; !strings.Contains(line, ">partial</a>"); {
		if line, err = br.ReadString('\n'); err != nil {
			t.Fatalf("before the stop: %v", err)
		}
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, ErrCut) || !strings.Contains(err.Error(), "after 200ms") {
			t.Errorf("a request in flight: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not stop")
	}
	if _, err := io.ReadAll(br); err == nil {
		t.Errorf("the request in flight ended cleanly; want it cut")
	}
}

// remote asks h for path as a client at addr (not this machine).
func remote(h *Handler, addr, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", path, nil)
	r.RemoteAddr, r.Host = addr, "127.0.0.1:7070"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

var menuOK = gophertest.HandlerFunc(func(c *gophertest.Conn, r *gophertest.Request) {
	c.WriteString("iThe internal menu\t\tnull.host\t1\r\n.\r\n")
})

// A client that is not on this machine cannot reach this machine (or a
// private network) through a name, an address literal or an ftp passive
// address; a local client can, and AllowPrivate lets everyone.
func TestPrivateRefused(t *testing.T) {
	g := gophertest.Start(t, menuOK)
	port := strconv.Itoa(g.Port)
	stub := newStub(map[string][]string{"internal.test": {"127.0.0.1"}, "ten.test": {"10.1.2.3"}})
	outside := netip.MustParsePrefix("203.0.113.0/24")
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: stub, AllowFrom: []netip.Prefix{outside, netip.MustParsePrefix("127.0.0.0/8")}})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"gopher://internal.test:" + port + "/1/", "gopher://127.0.0.1:" + port + "/1/",
		"gopher://[::ffff:127.0.0.1]:" + port + "/1/", "gopher://ten.test:" + port + "/1/", "gopher://0.0.0.0:" + port + "/1/"} {
		w := remote(h, "203.0.113.9:4000", "/"+target)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "not a public address") {
			t.Errorf("%s from outside: %d %s", target, w.Code, w.Body.String())
		}
	}
	if n := g.Accepted(); n != 0 {
		t.Errorf("the internal server was reached %d times", n)
	}
	if w := remote(h, "127.0.0.1:4000", "/gopher://internal.test:"+port+"/1/"); w.Code != 200 || !strings.Contains(w.Body.String(), "The internal menu") {
		t.Errorf("from this machine: %d %s", w.Code, w.Body.String())
	}
	if w := remote(h, "198.51.100.1:4000", "/gopher://internal.test:"+port+"/1/"); w.Code != http.StatusForbidden {
		t.Errorf("a client not allowed: %d", w.Code)
	}
	hp, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: stub, AllowPrivate: true, AllowFrom: []netip.Prefix{outside}})
	if err != nil {
		t.Fatal(err)
	}
	if w := remote(hp, "203.0.113.9:4000", "/gopher://internal.test:"+port+"/1/"); w.Code != 200 {
		t.Errorf("AllowPrivate: %d %s", w.Code, w.Body.String())
	}
	// This machine is served beside AllowFrom without being named in it.
	if w := remote(hp, "127.0.0.1:4000", "/gopher://internal.test:"+port+"/1/"); w.Code != 200 {
		t.Errorf("AllowFrom without loopback, from this machine: %d %s", w.Code, w.Body.String())
	}
}

// A name that resolves to a public address first and to 127.0.0.1 next
// (DNS rebinding) reaches only the public one: the check is on the
// address dialled, one lookup per connection.
func TestDNSRebinding(t *testing.T) {
	g := gophertest.Start(t, menuOK)
	port := strconv.Itoa(g.Port)
	// 127.0.0.2 plays the public address here (no test leaves this
	// machine): a decoy server listens there on the same port.
	ln, err := net.Listen("tcp4", "127.0.0.2:"+port)
	if err != nil {
		t.Skipf("no 127.0.0.2 here: %v", err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(c).ReadString('\n')
			io.WriteString(c, "iThe public menu\t\tnull.host\t1\r\n.\r\n")
			c.Close()
		}
	}()
	public := netip.MustParseAddr("127.0.0.2")
	old := blocked
	blocked = func(ip netip.Addr) bool { return ip.Unmap() != public && old(ip) }
	defer func() { blocked = old }()
	stub := newStub(map[string][]string{"rebind.test": {"127.0.0.2", "127.0.0.1"}})
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: stub, AllowFrom: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
	if err != nil {
		t.Fatal(err)
	}
	w := remote(h, "203.0.113.9:4000", "/gopher://rebind.test:"+port+"/1/")
	if w.Code != 200 || !strings.Contains(w.Body.String(), "The public menu") {
		t.Fatalf("first request: %d %s", w.Code, w.Body.String())
	}
	w = remote(h, "203.0.113.9:4000", "/gopher://rebind.test:"+port+"/1/")
	if w.Code != http.StatusForbidden {
		t.Errorf("second request, name now 127.0.0.1: %d %s", w.Code, w.Body.String())
	}
	if n := g.Accepted(); n != 0 {
		t.Errorf("the loopback server was reached %d times", n)
	}
	if n := stub.lookups.Load(); n != 2 {
		t.Errorf("%d lookups for two requests", n)
	}
}

// CONNECT is answered 405, never tunnelled.
func TestConnectRefused(t *testing.T) {
	g := gophertest.Start(t, menuOK)
	_, srv := gateway(t, Options{})
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", g.Addr, g.Addr)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(string(b), "does not tunnel") || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("CONNECT: %d %q Allow %q", res.StatusCode, b, res.Header.Get("Allow"))
	}
	if g.Accepted() != 0 {
		t.Errorf("the target was connected to")
	}
}

// mailto, telnet, rlogin and tn3270 are never carried out; file URLs only
// below AllowFile.
func TestRefusedSchemes(t *testing.T) {
	dir := t.TempDir()
	inside := filepath.Join(dir, "pub")
	os.Mkdir(inside, 0o755)
	os.WriteFile(filepath.Join(inside, "a.txt"), []byte("inside\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "secret"), []byte("secret\n"), 0o644)
	os.Symlink(filepath.Join(dir, "secret"), filepath.Join(inside, "link"))
	_, srv := gateway(t, Options{})
	for _, p := range []string{"/mailto:a@example.org", "/telnet://127.0.0.1:1/", "/rlogin://127.0.0.1:1/", "/tn3270://127.0.0.1:1/", "/file://" + filepath.Join(inside, "a.txt")} {
		if res, body := get(t, srv, p, ""); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d %s", p, res.StatusCode, body)
		}
	}
	// The port rules of the fetchers hold: no gopher request to a mail
	// server.
	if res, body := get(t, srv, "/gopher://127.0.0.1:25/0/HELO", ""); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "25") {
		t.Errorf("gopher to port 25: %d %s", res.StatusCode, body)
	}
	_, fsrv := gateway(t, Options{AllowFile: inside})
	if res, body := get(t, fsrv, "/file://"+filepath.Join(inside, "a.txt"), ""); res.StatusCode != 200 || body != "inside\n" {
		t.Errorf("file inside: %d %q", res.StatusCode, body)
	}
	if res, body := get(t, fsrv, "/file://"+inside+"/", ""); res.StatusCode != 200 || !strings.Contains(body, ">a.txt</a>") {
		t.Errorf("directory inside: %d %q", res.StatusCode, body)
	}
	for _, p := range []string{"/file://" + filepath.Join(dir, "secret"), "/file://" + filepath.Join(inside, "link"), "/file://" + inside + "/../secret", "/file://" + inside + "/%2e%2e/secret"} {
		if res, body := get(t, fsrv, p, ""); res.StatusCode != http.StatusForbidden || strings.Contains(body, "secret\n") {
			t.Errorf("%s: %d %q", p, res.StatusCode, body)
		}
	}
}

// Over MaxPerHost, a request is answered 503 at once.
func TestLimits(t *testing.T) {
	g := gophertest.Start(t, gophertest.Stall())
	_, srv := gateway(t, Options{MaxPerHost: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/gopher://"+g.Addr+"/1/", nil)
		close(started)
		if res, err := srv.Client().Do(req); err == nil {
			res.Body.Close()
		}
	}()
	<-started
	deadline := time.Now().Add(10 * time.Second)
	for g.Accepted() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	res, body := get(t, srv, "/gopher://"+g.Addr+"/1/", "")
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "too many requests at once to gopher://"+g.Addr) {
		t.Errorf("second request: %d %s", res.StatusCode, body)
	}
}

// The access log has one Common Log Format line per request.
func TestAccessLog(t *testing.T) {
	var log bytes.Buffer
	g := gophertest.Start(t, menuOK)
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{AccessLog: &log})
	if err != nil {
		t.Fatal(err)
	}
	w := remote(h, "127.0.0.1:5000", "/gopher://"+g.Addr+"/1/%22x")
	remote(h, "127.0.0.1:5000", "/gopher://"+g.Addr+"/1/\"x")
	remote(h, "127.0.0.1:5000", "/ftp://me:secret@"+testserver.FreeAddr(t)+"/")
	line, rest, _ := strings.Cut(log.String(), "\n")
	second, third, _ := strings.Cut(rest, "\n")
	want := `127.0.0.1 - - [`
	if !strings.HasPrefix(line, want) || !strings.HasSuffix(line, `] "GET /gopher://`+g.Addr+`/1/%22x HTTP/1.1" 200 `+strconv.Itoa(w.Body.Len())) {
		t.Errorf("log line %q", line)
	}
	if !strings.Contains(second, `"GET /gopher://`+g.Addr+`/1/\x22x HTTP/1.1" 200 `) {
		t.Errorf("log line %q", second)
	}
	if !strings.Contains(third, `"GET /ftp://me:****@127.0.0.1:`) || strings.Contains(log.String(), "secret") {
		t.Errorf("log line %q: the password not masked", third)
	}
}

// checkPage parses an HTML page as a browser does and fails on anything
// active in it: an element other than those the gateway writes, an event
// attribute, a link or form to a scheme that is not safe, a style or
// script attribute; allowed lists the elements the page may hold besides
// the skeleton.
func checkPage(t *testing.T, body string, allowed ...string) {
	t.Helper()
	ok := map[string]bool{"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true,
		"form": true, "input": true, "button": true, "h1": true, "p": true, "pre": true, "span": true,
		"table": true, "tr": true, "th": true, "td": true}
	for _, a := range allowed {
		ok[a] = true
	}
	z := html.NewTokenizer(strings.NewReader(body))
	styles := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Errorf("page: %v", z.Err())
			}
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		if !ok[tok.Data] {
			t.Errorf("page holds a <%s> element", tok.Data)
		}
		if tok.Data == "style" {
			if styles++; styles > 1 {
				t.Errorf("page holds a second <style>")
			}
		}
		for _, a := range tok.Attr {
			k := strings.ToLower(a.Key)
			switch {
			case strings.HasPrefix(k, "on"), k == "style", k == "src", k == "srcdoc", k == "formaction":
				t.Errorf("<%s %s=%q>", tok.Data, a.Key, a.Val)
			case k == "href" || k == "action":
				v := strings.TrimSpace(a.Val)
				if strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "//") && !strings.HasPrefix(v, "/\\") {
					continue
				}
				sch, _, _ := strings.Cut(strings.ToLower(v), ":")
				switch sch {
				case "http", "https", "telnet", "tn3270", "rlogin", "mailto", "gopher", "gophers", "ftp", "news", "nntp", "wais", "prospero":
				default:
					t.Errorf("<%s %s=%q>", tok.Data, a.Key, a.Val)
				}
			}
		}
	}
}

// A Gopher+ item links to its attributes; they show the abstract and a
// link per view, and a view comes with its own type.
func TestGopherPlus(t *testing.T) {
	site := &gophertest.Site{Items: map[string]*gophertest.Item{
		"":       {Type: '1', Menu: []string{"0Plain\t/plain", "0Rich <b>doc</b>\t/rich"}},
		"/plain": {Type: '0', Data: []byte("plain\n")},
		"/rich": {Type: '0', Plus: true, Display: "Rich <b>doc</b>", Data: []byte("rich text\n"), Abstract: "About <script>x</script> it",
			Views: map[string][]byte{"text/plain": []byte("rich text\n"), "application/pdf": []byte("%PDF-1.4 fake")}, ViewOrder: []string{"text/plain", "application/pdf"}},
	}}
	g := gophertest.Start(t, site)
	_, srv := gateway(t, Options{})
	_, body := get(t, srv, "/gopher://"+g.Addr+"/1", "")
	attr := "/gopher://" + g.Addr + "/0/rich%09%09!"
	if !strings.Contains(body, `<a href="`+attr+`">[Gopher+ attributes and views]</a>`) || strings.Count(body, "Gopher+ attributes") != 1 {
		t.Fatalf("menu without the attributes link %s:\n%s", attr, body)
	}
	res, body := get(t, srv, attr, "")
	pdf := "/gopher://" + g.Addr + "/0/rich%09%09+application/pdf"
	for _, want := range []string{"<pre>About &lt;script&gt;x&lt;/script&gt; it\n</pre>", `<a href="` + pdf + `">application/pdf`, ">Rich &lt;b&gt;doc&lt;/b&gt;</a></h2>"} {
		if !strings.Contains(body, want) {
			t.Errorf("attributes page (%d) lacks %s:\n%s", res.StatusCode, want, body)
		}
	}
	checkPage(t, body, "a", "h2", "h3", "ul", "li")
	res, body = get(t, srv, pdf, "")
	if res.Header.Get("Content-Type") != "application/pdf" || body != "%PDF-1.4 fake" {
		t.Errorf("view: %q %q", res.Header.Get("Content-Type"), body)
	}
}

// The front page's form sends the URL typed to /URL; a URL typed without
// its scheme gets curl's guess.
func TestFrontForm(t *testing.T) {
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for typed, want := range map[string]string{
		"gopher://h/1/a b":       "/gopher://h/1/a%20b",
		"gopher.example.org/1/":  "/gopher://gopher.example.org/1/",
		"ftp.example.org/pub/":   "/ftp://ftp.example.org/pub/",
		"news:comp.lang.go":      "/news:comp.lang.go",
		"example.org:8080/x#top": "/http://example.org:8080/x%23top",
	} {
		w := remote(h, "127.0.0.1:1", "/?u="+url.QueryEscape(typed))
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != want {
			t.Errorf("%q: %d Location %q, want %q", typed, w.Code, w.Header().Get("Location"), want)
		}
	}
	w := remote(h, "127.0.0.1:1", "/")
	if w.Code != 200 || !strings.Contains(w.Body.String(), `<form class="addr" method="get" action="/"><input name="u"`) {
		t.Errorf("front page: %d\n%s", w.Code, w.Body.String())
	}
	checkPage(t, w.Body.String())
}

// The web front answers to IP addresses, localhost and the names it is
// given, so that another site's name pointed at it (DNS rebinding) gets
// nothing; a browser's request for another site's page (Sec-Fetch-Site
// cross-site or same-site) is refused.
func TestOtherSites(t *testing.T) {
	g := gophertest.Start(t, menuOK)
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil), AllowHosts: []string{"gw.example"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host, site string
		want       int
	}{
		{"127.0.0.1:7070", "", 200}, {"[::1]:7070", "", 200}, {"localhost:7070", "same-origin", 200}, {"GW.example.:7070", "none", 200},
		{"evil.example:7070", "", http.StatusMisdirectedRequest}, {"127.0.0.1.evil.example", "", http.StatusMisdirectedRequest},
		{"127.0.0.1:7070", "cross-site", http.StatusForbidden}, {"127.0.0.1:7070", "same-site", http.StatusForbidden},
	} {
		r := httptest.NewRequest("GET", "/gopher://"+g.Addr+"/1/", nil)
		r.RemoteAddr, r.Host = "127.0.0.1:5000", c.host
		if c.site != "" {
			r.Header.Set("Sec-Fetch-Site", c.site)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.want {
			t.Errorf("Host %s, Sec-Fetch-Site %q: %d, want %d", c.host, c.site, w.Code, c.want)
		}
	}
	if n := g.Accepted(); n != 4 {
		t.Errorf("the server was reached %d times, want 4", n)
	}
}

// A gopher search item is a form; the words come back as a menu.
func TestGopherSearch(t *testing.T) {
	site := &gophertest.Site{Items: map[string]*gophertest.Item{
		"/find": {Type: '7', Search: func(q string) []string { return []string{"iYou asked for <" + q + ">"} }},
	}}
	g := gophertest.Start(t, site)
	_, srv := gateway(t, Options{})
	res, body := get(t, srv, "/gopher://"+g.Addr+"/7/find", "")
	if res.StatusCode != 200 || !strings.Contains(body, `name="u" value="gopher://`+g.Addr+`/7/find"`) || len(g.Requests()) != 0 {
		t.Errorf("search item: %d, %d requests\n%s", res.StatusCode, len(g.Requests()), body)
	}
	menu := &gophertest.Site{Items: map[string]*gophertest.Item{"": {Type: '1', Menu: []string{"7Find\t/find"}}}}
	gm := gophertest.Start(t, menu)
	if _, body := get(t, srv, "/gopher://"+gm.Addr+"/1", ""); !strings.Contains(body, `<span class="t">[IDX]</span> Find`) || strings.Contains(body, "ASK") {
		t.Errorf("a search item is labelled as something else than an index-search:\n%s", body)
	}
	_, body = get(t, srv, "/.search?u="+url.QueryEscape("gopher://"+g.Addr+"/7/find")+"&q="+url.QueryEscape("apple <pie>"), "")
	if !strings.Contains(body, "You asked for &lt;apple &lt;pie&gt;&gt;") || !strings.Contains(body, `<input name="q" size="30" value="apple &lt;pie&gt;"`) {
		t.Errorf("search result:\n%s", body)
	}
	checkPage(t, body, "a")
}

func TestFrontTarget(t *testing.T) {
	for in, want := range map[string]string{
		"gopher://h/1/a%20b":             "gopher://h/1/a%20b",
		"gopher%3A%2F%2Fh%2F1%2Fa%2520b": "gopher://h/1/a%20b",
		"news%3acomp.lang.go":            "news:comp.lang.go",
		"ftp://h/pub/file%3Aname":        "ftp://h/pub/file%3Aname",
		"h/dir%3A":                       "h/dir%3A",
	} {
		if got := frontTarget(in); got != want {
			t.Errorf("frontTarget(%q) = %q, want %q", in, got, want)
		}
	}
}

// Many requests at once: the gateway carries out MaxTotal of them, answers
// the others 503 at once, and none hangs (the stalled ones end at the
// timeout).
func TestManyAtOnce(t *testing.T) {
	g := gophertest.Start(t, gophertest.Stall())
	_, srv := gateway(t, Options{MaxTotal: 20, MaxPerClient: 1000, MaxPerHost: 1000, Timeout: 5 * time.Second})
	const n = 300
	codes := make(chan int, n)
	tr := &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 60 * time.Second}
	for range n {
		go func() {
			res, err := cl.Get(srv.URL + "/gopher://" + g.Addr + "/1/")
			if err != nil {
				codes <- 0
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			codes <- res.StatusCode
		}()
	}
	count := map[int]int{}
	for range n {
		count[<-codes]++
	}
	if count[http.StatusGatewayTimeout] > 20 || count[http.StatusGatewayTimeout]+count[http.StatusServiceUnavailable] != n {
		t.Errorf("replies by status: %v", count)
	}
	if count[http.StatusServiceUnavailable] < n-20 {
		t.Errorf("only %d refused at once: %v", count[http.StatusServiceUnavailable], count)
	}
}

// gophernicus's type 7 search (a gophermap's "7" line, its CGI) is
// labelled [IDX], an index-search, not [ASK], which reads as a Gopher+
// form; asked, it answers a menu of hits.
func TestGopherSearchGophernicus(t *testing.T) {
	gs := testserver.Gophernicus(t)
	_, srv := gateway(t, Options{})
	res, body := get(t, srv, "/"+gs.URL("1/menu"), "")
	if res.StatusCode != 200 || !strings.Contains(body, `<span class="t">[IDX]</span> Search the docs`) || strings.Contains(body, "ASK") {
		t.Errorf("gophernicus's search item, labelled as something else than an index-search: %d\n%s", res.StatusCode, body)
	}
	res, body = get(t, srv, "/.search?u="+url.QueryEscape(gs.URL("7/cgi-bin/search.cgi"))+"&q=one", "")
	if res.StatusCode != 200 || !strings.Contains(body, "one") || !strings.Contains(body, `value="one"`) {
		t.Errorf("gophernicus's search, asked: %d\n%s", res.StatusCode, body)
	}
}

// A Gopher+ item with a +ASK form shows it as an HTML form; the answers
// sent back reach the server in order, and stay out of the access log.
func TestGopherAsk(t *testing.T) {
	var got []string
	site := &gophertest.Site{Items: map[string]*gophertest.Item{
		"/form": {Type: '0', Display: "Order", Ask: []string{"Note: Fill <this> in", "Ask: Name?\tanon", "AskP: Secret?", "Choose: Size?\tsmall\tlarge"},
			Answer: func(a []string) []byte { got = a; return []byte("thanks\n") }},
	}}
	g := gophertest.Start(t, site)
	var log bytes.Buffer
	_, srv := gateway(t, Options{AccessLog: &log})
	_, body := get(t, srv, "/gopher://"+g.Addr+"/0/form%09%09!", "")
	for _, want := range []string{`action="/.ask"`, `name="u" value="gopher://` + g.Addr + `/0/form%09%09%3F"`, "Fill &lt;this&gt; in",
		`<input type="text" name="a" size="40" value="anon">`, `<input type="password" name="a"`, `<option value="large">large</option>`} {
		if !strings.Contains(body, want) {
			t.Errorf("form lacks %s:\n%s", want, body)
		}
	}
	checkPage(t, body, "a", "h2", "h3", "ul", "li", "label", "select", "option")
	q := url.Values{"u": {"gopher://" + g.Addr + "/0/form%09%09%3F"}, "a": {"Ann", "hunter2", "large"}}
	res, body := get(t, srv, "/.ask?"+q.Encode(), "")
	if res.StatusCode != 200 || body != "thanks\n" || strings.Join(got, "|") != "Ann|hunter2|large" {
		t.Errorf("answers: %d %q, server got %q", res.StatusCode, body, got)
	}
	if strings.Contains(log.String(), "hunter2") {
		t.Errorf("the access log holds an answer:\n%s", log.String())
	}
}
