package download

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Parallel runs at most n transfers at once, hands every Result to done
// with its Job's Num, gives each transfer its own -w Timer through each's
// context, and writes a file two jobs name one job after the other.
func TestParallel(t *testing.T) {
	dir := t.TempDir()
	var running, most atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		io.WriteString(w, r.URL.Path)
	}))
	defer srv.Close()
	jobs := []Job{{0, srv.URL + "/a", Target{Name: "a"}}, {1, srv.URL + "/b", Target{Name: "same"}},
		{2, srv.URL + "/c", Target{Name: "same"}}, {3, srv.URL + "/d", Target{Name: "d"}}, {4, srv.URL + "/e", Target{Name: "e"}}}
	d := &Downloader{Client: &fetch.Client{}, OutputDir: dir, Timer: &fetch.Timer{}}
	var mu sync.Mutex
	var started, ended []int
	each := func(ctx context.Context, j Job) (context.Context, func()) {
		if fetch.ContextTrace(ctx) == nil {
			t.Error("no Trace of the transfer's Timer")
		}
		mu.Lock()
		started = append(started, j.Num)
		mu.Unlock()
		return ctx, func() { mu.Lock(); ended = append(ended, j.Num); mu.Unlock() }
	}
	var nums []int
	d.Parallel(context.Background(), 2, slices.Values(jobs), each, func(r *Result) bool {
		if r.Err != nil || r.Timing.Start.IsZero() || r.URL != jobs[r.Num].URL {
			t.Errorf("%d: %v, timing %v", r.Num, r.Err, r.Timing)
		}
		nums = append(nums, r.Num)
		return true
	})
	slices.Sort(nums)
	if fmt.Sprint(nums) != "[0 1 2 3 4]" || len(started) != 5 || len(ended) != 5 || most.Load() > 2 {
		t.Errorf("results %v, started %v, ended %v, at most %d at once", nums, started, ended, most.Load())
	}
	for name, want := range map[string][]string{"a": {"/a"}, "d": {"/d"}, "same": {"/b", "/c"}} {
		b, err := os.ReadFile(dir + "/" + name)
		if err != nil || !slices.Contains(want, string(b)) {
			t.Errorf("%s: %q %v", name, b, err)
		}
	}
	if _, err := os.Stat(dir + "/same.part"); !os.IsNotExist(err) {
		t.Errorf("same.part left: %v", err)
	}

	// done returning false starts no more transfers.
	nums = nil
	d.Parallel(context.Background(), 1, slices.Values(jobs), nil, func(r *Result) bool {
		nums = append(nums, r.Num)
		return false
	})
	if fmt.Sprint(nums) != "[0]" {
		t.Errorf("after done said stop: %v", nums)
	}
}
