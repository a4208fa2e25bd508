package mirror

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// flakyResolver fails the first n dials as a name server would (a
// resolve failure), then dials.
type flakyResolver struct {
	fails atomic.Int64
	n     int64
}

func (d *flakyResolver) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if d.fails.Add(1) <= d.n {
		return nil, &net.DNSError{Err: "server misbehaving", Name: "ftp.example", IsTemporary: true}
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

// A resolve failure is retried, as the fetch command's --retry does
// (fetch.Retryable); a refusal is not.
func TestFTPRetriesResolveFailures(t *testing.T) {
	s := ftptest.New(t)
	want := ftpTree(s)
	d := &flakyResolver{n: 2}
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: "ftp://" + s.Addr + "/pub/", Dir: dir, Parallel: 1, RetryWait: time.Millisecond,
		Client: &fetch.Client{Dialer: d}})
	if sum.New != int64(len(want))-1 || sum.Links != 1 || d.fails.Load() < 3 { // want has the link
		t.Errorf("%+v after %d dials", countsOf(sum), d.fails.Load())
	}
	sameTree(t, tree(t, dir), want)

	// Out of retries: the resolve failure is the run's error (exit 6).
	d = &flakyResolver{n: 100}
	_, err := Run(context.Background(), Options{URL: "ftp://" + s.Addr + "/pub/", Dir: t.TempDir(), Retries: 2,
		RetryWait: time.Millisecond, Client: &fetch.Client{Dialer: d}})
	if fetch.ExitCode(err) != 6 || d.fails.Load() != 3 {
		t.Errorf("unresolvable: %v (exit %d) after %d dials, want exit 6 after 3", err, fetch.ExitCode(err), d.fails.Load())
	}

	// A directory the server refuses is not retried, and is exit 9 as
	// for a fetch.
	n := len(s.Lines())
	_, err = Run(context.Background(), Options{URL: "ftp://" + s.Addr + "/nodir/", Dir: t.TempDir(), RetryWait: time.Millisecond})
	cwds := 0
	for _, l := range s.Lines()[n:] {
		if strings.HasPrefix(l, "CWD /nodir") {
			cwds++
		}
	}
	if fetch.ExitCode(err) != 9 || cwds != 1 {
		t.Errorf("refused directory: %v (exit %d), CWD sent %d times", err, fetch.ExitCode(err), cwds)
	}
}
