package mirror

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// TestRealGopherCutMenu: a gophernicus menu cut (the connection closed
// cleanly) before its "." line is not taken as the whole menu: it is read
// again and every item arrives; on a rerun with --delete, a menu cut on
// every try fails, and the items it had are neither deleted nor dropped
// from the manifest.
func TestRealGopherCutMenu(t *testing.T) {
	root := t.TempDir()
	want := map[string]string{}
	for i := range 20 {
		name := fmt.Sprintf("file%02d.txt", i)
		fetchtest.WriteFile(t, filepath.Join(root, "d", name), fmt.Sprintf("file %d\n", i), t1)
		want[name] = fmt.Sprintf("file %d\r\n", i) // text, as gophernicus sends it
	}
	openUp(t, root)
	s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
	// Connection 0 asks for robots.txt, 1 for the menu; from cutFrom on
	// every one is cut (robots.txt's answer is shorter than the cut).
	var cutFrom atomic.Int64
	cutFrom.Store(1 << 30)
	p := testserver.StartFaultProxy(t, s.Addr, func(n int) testserver.Fault {
		if n == 1 || int64(n) >= cutFrom.Load() {
			// In the menu's fifth line: its first items go through.
			return testserver.Fault{After: 300, Cut: true}
		}
		return testserver.Fault{}
	})
	// gophernicus names its own port in its items: the connections to it
	// go through the relay.
	client := &fetch.Client{Dialer: viaDialer{s.Addr, p.Addr()}}
	url := s.URL("1/d/")
	dir := t.TempDir()
	sum, err := Run(context.Background(), Options{URL: url, Dir: dir, Client: client, Parallel: 1, RetryWait: time.Millisecond})
	if err != nil || sum.New != 20 || sum.Failed != 0 || p.Struck() != 1 {
		m, _ := os.ReadFile(filepath.Join(dir, menuFile))
		t.Fatalf("%v: %+v, %d cuts, %d conns; menu %q", err, countsOf(sum), p.Struck(), p.Conns(), m)
	}
	got := tree(t, dir)
	delete(got, menuFile)
	sameTree(t, got, want)
	if m, err := os.ReadFile(filepath.Join(dir, menuFile)); err != nil || !strings.HasSuffix(string(m), "\r\n.\r\n") {
		t.Errorf("the menu saved is not the whole one (%v): ...%q", err, m[max(0, len(m)-40):])
	}

	// Cut on every try: the menu fails, its items stay.
	cutFrom.Store(int64(p.Conns()))
	sum, err = Run(context.Background(), Options{URL: url, Dir: dir, Client: client, Parallel: 1, Retries: 2, RetryWait: time.Millisecond, Delete: true})
	if err == nil || sum.Deleted != 0 || sum.Gone != 0 {
		t.Errorf("menu cut on every try: %v, %+v; want an error, nothing deleted", err, countsOf(sum))
	}
	got = tree(t, dir)
	delete(got, menuFile)
	sameTree(t, got, want)
	n := 0
	for u, r := range records(t, dir) {
		if strings.Contains(u, "/d/file") {
			n++
			if r.Status != StatusOK {
				t.Errorf("%s: %+v", u, r)
			}
		}
	}
	if n != 20 {
		t.Errorf("%d files in the manifest after the cut menu, want 20", n)
	}
}

// viaDialer dials to instead of from, any other address as asked.
type viaDialer struct{ from, to string }

func (d viaDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == d.from {
		addr = d.to
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}
