package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
)

// Bad serve command lines are usage errors (2) in one line; --help says
// the default address.
func TestServeUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--listen", "0.0.0.0:0"}, "--allow-from"},
		{[]string{"serve", "--allow-from", "10.0.0.0/33"}, "--allow-from: want an address or CIDR block"},
		{[]string{"serve", "--listen", "nonsense"}, "--listen: want host:port"},
		{[]string{"serve", "--max-total", "0"}, "want at least 1"},
		{[]string{"serve", "--timeout", "soon"}, "--timeout"},
		{[]string{"serve", "extra"}, "takes no arguments"},
		{[]string{"serve", "--allow-file", "/nonexistent/dir"}, "no such directory"},
	} {
		code, _, errs := runOut(t, c.args...)
		if code != serveExitUsage || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d, %q", c.args, code, errs)
		}
	}
	code, out, _ := runOut(t, "serve", "--help")
	if code != 0 || !strings.Contains(out, "127.0.0.1:7070") || !strings.Contains(out, "--allow-private") {
		t.Errorf("serve --help: exit %d\n%s", code, out)
	}
	if code, out, _ := runOut(t, "help", "serve"); code != 0 || !strings.Contains(out, "usage: urlget serve") {
		t.Errorf("help serve: exit %d", code)
	}
}

// startServe runs urlget serve on a free port until the test ends, and
// returns its address and the name of its access log.
func startServe(t *testing.T, args ...string) (addr, log string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log = filepath.Join(t.TempDir(), "access.log")
	addrc := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- runServeWith(ctx, env{args: append([]string{"--listen", "127.0.0.1:0", "--access-log", log}, args...), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard},
			func(a string) { addrc <- a })
	}()
	select {
	case addr = <-addrc:
	case code := <-done:
		t.Fatalf("serve ended at once: exit %d", code)
	}
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve: exit %d after the stop", code)
		}
	})
	return addr, log
}

// urlget -x through urlget serve writes to a pipe what urlget writes there
// directly, byte for byte (a gopher menu as sent, an ftp listing's lines
// in LF); the access log has a line per request.
func TestServeProxyAsDirect(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	site := &gophertest.Site{Items: map[string]*gophertest.Item{
		"":   {Type: '1', Menu: []string{"iHello", "0Text\t/t"}},
		"/t": {Type: '0', Data: []byte("a\r\n..b\r\nc\r\n"), DotStuff: true},
	}}
	g := gophertest.Start(t, site)
	f := ftptest.New(t)
	f.AddFile("/pub/f.txt", []byte("one\r\ntwo\n"), time.Now())
	addr, logFile := startServe(t)
	for _, u := range []string{"gopher://" + g.Addr + "/1", "gopher://" + g.Addr + "/0/t", "ftp://" + f.Addr + "/pub/", "ftp://" + f.Addr + "/pub/f.txt"} {
		code, raw, errs := runOut(t, "-q", u)
		if code != 0 {
			t.Fatalf("%s: exit %d %s", u, code, errs)
		}
		code, via, errs := runOut(t, "-q", "-x", "http://"+addr, u)
		if code != 0 || via != raw || raw == "" {
			t.Errorf("-x %s: exit %d %s\n%q\nwant %q", u, code, errs, via, raw)
		}
	}
	res, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	log, err := os.ReadFile(logFile)
	if res.StatusCode != 200 || err != nil || !strings.Contains(string(log), `"GET / HTTP/1.1" 200 `) || !strings.Contains(string(log), `"GET gopher://`+g.Addr+`/1 HTTP/1.1" 200 `) {
		t.Errorf("front page %d; access log (%v):\n%s", res.StatusCode, err, log)
	}
}

// A stop (SIGINT, SIGTERM: the context here) lets a request in flight run
// for --grace, then cuts it; the command exits 0.
func TestServeGraceThenCut(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	g := gophertest.Start(t, gophertest.NoClose([]byte("0partial\t/p\th\t70\r\n")))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addrc, done := make(chan string, 1), make(chan int, 1)
	go func() {
		done <- runServeWith(ctx, env{args: []string{"--listen", "127.0.0.1:0", "--grace", "0.3", "--access-log", ""}, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard},
			func(a string) { addrc <- a })
	}()
	addr := <-addrc
	res, err := http.Get("http://" + addr + "/gopher://" + g.Addr + "/1/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	buf := make([]byte, 4096)
	var got []byte
	for !strings.Contains(string(got), ">partial</a>") {
		n, err := res.Body.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			t.Fatalf("before the stop: %v, %q", err, got)
		}
	}
	stopped := time.Now()
	cancel()
	_, err = io.ReadAll(res.Body)
	if err == nil {
		t.Errorf("the request in flight ended cleanly; want it cut")
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d", code)
		}
		if d := time.Since(stopped); d < 250*time.Millisecond {
			t.Errorf("stopped after %v, before the grace period", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}

// TestServeNewsPageFlag: --news-page sets how many articles a group page
// shows.
func TestServeNewsPageFlag(t *testing.T) {
	n := (&nntptest.Server{Groups: nntptest.Sample()}).Start(t)
	addr, _ := startServe(t, "--news-page", "1")
	res, err := http.Get("http://" + addr + "/nntp://" + n.Addr + "/local.test")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`articles ([0-9]+)–([0-9]+) of ([0-9]+)`).FindStringSubmatch(string(b))
	if m == nil || m[1] != m[2] || m[3] == "1" {
		t.Errorf("a group page with --news-page 1 says %q, want one article of several:\n%s", m, b)
	}
	if code, _, errs := runOut(t, "serve", "--news-page", "0"); code != 2 || !strings.Contains(errs, "at least 1") {
		t.Errorf("--news-page 0: exit %d %q", code, errs)
	}
}
