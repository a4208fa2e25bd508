package parallel

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

func count(n int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

// TestRunBounded: every job runs once, never more than n at once, and at
// some point n at once.
func TestRunBounded(t *testing.T) {
	for _, n := range []int{1, 3, 50} {
		var now, peak atomic.Int32
		var got []int
		Run(context.Background(), n, count(40), func(_ context.Context, j int) int {
			c := now.Add(1)
			for p := peak.Load(); c > p && !peak.CompareAndSwap(p, c); p = peak.Load() {
			}
			time.Sleep(2 * time.Millisecond)
			now.Add(-1)
			return j
		}, func(r int) bool { got = append(got, r); return true })
		slices.Sort(got)
		if !slices.Equal(got, slices.Collect(count(40))) {
			t.Errorf("n=%d: results %v", n, got)
		}
		if want := int32(min(n, 40)); peak.Load() != want {
			t.Errorf("n=%d: at most %d at once, want %d", n, peak.Load(), want)
		}
	}
}

// TestRunOrderOfFinish: done hears of the jobs as they finish, not in the
// order they started.
func TestRunOrderOfFinish(t *testing.T) {
	var got []int
	Run(context.Background(), 3, count(3), func(_ context.Context, j int) int {
		time.Sleep(time.Duration(3-j) * 30 * time.Millisecond)
		return j
	}, func(r int) bool { got = append(got, r); return true })
	if !slices.Equal(got, []int{2, 1, 0}) {
		t.Errorf("finished %v, want [2 1 0]", got)
	}
}

// TestRunStops: done's false, and a cancelled context, start no further
// job, while those under way are still reported.
func TestRunStops(t *testing.T) {
	var started atomic.Int32
	var got []int
	Run(context.Background(), 2, count(100), func(_ context.Context, j int) int {
		started.Add(1)
		return j
	}, func(r int) bool { got = append(got, r); return r != 5 })
	if s := int(started.Load()); s > 8 || s != len(got) {
		t.Errorf("after a stop at job 5: %d started, %d reported", s, len(got))
	}

	ctx, cancel := context.WithCancel(context.Background())
	started.Store(0)
	n := 0
	Run(ctx, 4, count(100), func(ctx context.Context, j int) int {
		started.Add(1)
		if j == 0 {
			cancel()
		}
		<-ctx.Done()
		return j
	}, func(int) bool { n++; return true })
	if s := int(started.Load()); s > 4 || s != n {
		t.Errorf("after cancel: %d started, %d reported", s, n)
	}
}
