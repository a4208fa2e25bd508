package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// The transfer-control flags parse as curl's, and reach the Client.
func TestTransferControlFlags(t *testing.T) {
	var stderr strings.Builder
	o, err := parseFetchArgs(env{stderr: &stderr}, []string{"-Y", "3k", "-y", "2.5", "--limit-rate", "1M",
		"--retry-max-time", "7", "--retry-all-errors", "--retry-connrefused", "http://x/"})
	if err != nil {
		t.Fatal(err)
	}
	if o.client.LowSpeedLimit != 3072 || o.client.LowSpeedTime != 2500*time.Millisecond || o.client.LimitRate.Rate() != 1<<20 ||
		o.dl.Retry.MaxTime != 7*time.Second || !o.dl.Retry.AllErrors || !o.dl.Retry.Refused {
		t.Errorf("parsed %+v", o)
	}
	c, err := newFetchCmd(env{stderr: &stderr}, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.client.LowSpeedLimit != 3072 || c.client.LowSpeedTime != 2500*time.Millisecond || c.client.LimitRate.Rate() != 1<<20 {
		t.Errorf("client %+v", c.client)
	}
	for _, bad := range [][]string{
		{"--limit-rate", "0", "http://x/"},
		{"--limit-rate", "fast", "http://x/"},
		{"-Y", "-1", "http://x/"},
		{"-y", "soon", "http://x/"},
		{"--retry-max-time", "-3", "http://x/"},
	} {
		if _, err := parseFetchArgs(env{stderr: &stderr}, bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A refused connection is retried only with --retry-connrefused (or
// --retry-all-errors); --retry-all-errors retries a permanent error; an
// interrupt is never retried.
func TestRetryPolicy(t *testing.T) {
	inDir(t)
	data := []byte("payload")
	refused := fetch.NewError(fetch.ErrConnect, "connect", syscall.ECONNREFUSED)
	srv := newFakeSrv(map[string]*fakeFile{
		"/refused": {data: data, failN: 1, failErr: refused},
		"/deny":    {data: data, failN: 1, failErr: fetch.NewError(fetch.ErrAccessDenied, "denied", nil)},
	})
	if r := runCLI(t, srv, "--retry", "3", "test://h/refused"); r.code != 7 || strings.Contains(r.stderr, "Will retry") {
		t.Errorf("refused without --retry-connrefused: %+v", r)
	}
	srv.attempts = map[string]int{}
	if r := runCLI(t, srv, "--retry", "3", "--retry-connrefused", "test://h/refused"); r.code != 0 || r.stdout != "payload" {
		t.Errorf("--retry-connrefused: %+v", r)
	}
	srv.attempts = map[string]int{}
	if r := runCLI(t, srv, "--retry", "3", "--retry-all-errors", "test://h/refused"); r.code != 0 {
		t.Errorf("--retry-all-errors, refused: %+v", r)
	}
	if r := runCLI(t, srv, "--retry", "3", "test://h/deny"); r.code != 9 {
		t.Errorf("deny: %+v", r)
	}
	srv.attempts = map[string]int{}
	if r := runCLI(t, srv, "--retry", "3", "--retry-all-errors", "test://h/deny"); r.code != 0 || r.stdout != "payload" {
		t.Errorf("--retry-all-errors, deny: %+v", r)
	}
	c := &fetchCmd{o: &fetchOpts{dl: download.Downloader{Retry: fetch.RetryPolicy{Retries: 3, AllErrors: true}}}}
	if pol := c.retryPolicy(); pol.Again(0, fetch.NewError(fetch.ErrAborted, "interrupted", nil)) {
		t.Error("an interrupt is retried")
	}
}

// A server's Retry-After sets the wait (capped at 10 minutes); with
// --retry-max-time a wait past the limit ends the retries, a backoff is cut
// to the time left, and no retry starts once the time is spent.
func TestRetryAfterAndMaxTime(t *testing.T) {
	inDir(t)
	srv := newFakeSrv(map[string]*fakeFile{
		"/503":  {data: []byte("good"), status: []int{503, 200}, after: 3 * time.Second},
		"/long": {data: []byte("good"), status: []int{503, 200}, after: 24 * time.Hour},
	})
	var mu sync.Mutex
	var waits []time.Duration
	record := func(c *fetchCmd) {
		c.sleep = func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return nil
		}
	}
	if r := runCLIWith(t, srv, record, "--retry", "2", "http://h/503"); r.code != 0 || r.stdout != "good" {
		t.Errorf("Retry-After: %+v", r)
	}
	srv.attempts = map[string]int{}
	if r := runCLIWith(t, srv, record, "--retry", "2", "--retry-delay", "1", "http://h/long"); r.code != 0 {
		t.Errorf("long Retry-After: %+v", r)
	}
	if len(waits) != 2 || waits[0] != 3*time.Second || waits[1] != fetch.DefaultMaxRetryDelay {
		t.Errorf("waits %v, want [3s %v]", waits, fetch.DefaultMaxRetryDelay)
	}
	// Past --retry-max-time: the 503 is the answer (exit 0 without -f).
	srv.attempts = map[string]int{}
	waits = nil
	r := runCLIWith(t, srv, record, "--retry", "2", "--retry-max-time", "2", "-s", "-w", "%{http_code}", "http://h/503")
	if r.code != 0 || len(waits) != 0 || !strings.HasSuffix(r.stdout, "503") {
		t.Errorf("Retry-After past --retry-max-time: %+v, waits %v", r, waits)
	}

	c := &fetchCmd{o: &fetchOpts{dl: download.Downloader{Retry: fetch.RetryPolicy{MaxTime: 5 * time.Second, Delay: 8 * time.Second}}, silent: true}}
	pol := c.retryPolicy()
	if w, ok := pol.Wait(1, fetch.NewError(fetch.ErrPartial, "", nil), 2*time.Second); !ok || w != 3*time.Second {
		t.Errorf("backoff past the limit: %v %v, want 3s", w, ok)
	}
	c.o.dl.Retry.Delay = time.Second
	pol = c.retryPolicy()
	if _, ok := pol.Wait(1, fetch.NewError(fetch.ErrPartial, "", nil), 6*time.Second); ok {
		t.Error("a retry after --retry-max-time")
	}
}

// -Y/-y end a stalled transfer with exit 28; --limit-rate paces a body to
// a file and it still arrives whole.
func TestSpeedLimitAndLimitRate(t *testing.T) {
	inDir(t)
	data := []byte(strings.Repeat("0123456789", 6000)) // 60 kB
	srv := newFakeSrv(map[string]*fakeFile{
		"/stall": {data: data, block: true},
		"/data":  {data: data},
	})
	start := time.Now()
	r := runCLI(t, srv, "-Y", "1000", "-y", "0.3", "test://h/stall")
	if r.code != 28 || !strings.Contains(r.stderr, "too slow") {
		t.Errorf("-Y/-y on a stall: %+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("-y 0.3 took %v", d)
	}
	start = time.Now()
	if r := runCLI(t, srv, "--limit-rate", "200k", "-o", "out", "test://h/data"); r.code != 0 || readFile(t, "out") != string(data) {
		t.Errorf("--limit-rate: %+v", r)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("60 kB at 200 KiB/s took %v, want at least 150ms", d)
	}
}

// urlget mirror --limit-rate paces FTP (the mirror reads the data
// connection itself) and gopher (through its Client) alike.
func TestMirrorLimitRate(t *testing.T) {
	f := ftptest.New(t)
	mod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for i := range 4 {
		f.AddFile(fmt.Sprintf("/pub/f%d.bin", i), bytes.Repeat([]byte{byte('a' + i)}, 25000), mod)
	}
	g, _ := sizedSite(t, 4, 25000, 0)
	for _, url := range []string{"ftp://" + f.Addr + "/pub/", g.URL("1")} {
		start := time.Now()
		code, _, stderr := runMirrorTest(t, "--limit-rate", "200k", url, t.TempDir())
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", url, code, stderr)
		}
		// 100 kB at 200 KiB/s: about half a second.
		if d := time.Since(start); d < 350*time.Millisecond {
			t.Errorf("%s: 100 kB at --limit-rate 200k took %v, want at least 350ms", url, d)
		}
	}
	if code, _, stderr := runMirrorTest(t, "--limit-rate", "0", "ftp://"+f.Addr+"/pub/", t.TempDir()); code != 2 {
		t.Errorf("--limit-rate 0: exit %d: %s", code, stderr)
	}
}

// The Client's flags shared with urlget mirror: -x "" leaves the proxy
// alone, as before they were bound to the Client; -u without a password;
// -x, -u and --limit-rate reach the mirror's Client as the fetch's.
func TestClientFlags(t *testing.T) {
	for _, args := range [][]string{{"-x", "", "-u", "kim", "--limit-rate", "2k", "http://x/"}, {"mirror", "-x", "", "-u", "kim", "--limit-rate", "2k", "ftp://x/", "d"}} {
		var cl *fetch.Client
		if args[0] == "mirror" {
			o, err := parseMirrorArgs(env{stderr: io.Discard}, args[1:])
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			cl = o.options().Client
		} else {
			o, err := parseFetchArgs(env{stderr: io.Discard}, args)
			if err != nil {
				t.Fatalf("%q: %v", args, err)
			}
			cl = &o.client
		}
		if cl.Proxy != nil || !cl.HasUser || cl.User != "kim" || cl.HasPassword || cl.LimitRate.Rate() != 2048 {
			t.Errorf("%q: proxy %v, user %v %q %v, rate %v", args, cl.Proxy, cl.HasUser, cl.User, cl.HasPassword, cl.LimitRate)
		}
	}
	o, err := parseFetchArgs(env{stderr: io.Discard}, []string{"-x", "socks5h://p:1080", "-u", "a:b:c", "http://x/"})
	if err != nil || o.client.Proxy == nil || o.client.Proxy.Host != "p" || o.client.User != "a" || o.client.Password != "b:c" {
		t.Errorf("-x socks5h://p:1080 -u a:b:c: %v %+v", err, o.client)
	}
}
