package parallel

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
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
// some point n at once. The jobs wait for the test's word to finish, and
// synctest.Wait returns only when Run and every job are blocked, so what
// is running at each check is settled, not the scheduler's luck: the
// first n are running together and no more, and each job the test lets
// finish makes room for exactly one more.
func TestRunBounded(t *testing.T) {
	const jobs = 40
	for _, n := range []int{1, 3, 50} {
		synctest.Test(t, func(t *testing.T) {
			var now atomic.Int32
			finish := make(chan struct{}, jobs)
			defer close(finish) // a failed check lets the rest finish
			var got []int
			go Run(context.Background(), n, count(jobs), func(_ context.Context, j int) int {
				now.Add(1)
				<-finish
				now.Add(-1)
				return j
			}, func(r int) bool { got = append(got, r); return true })
			want := int32(min(n, jobs))
			for left := jobs; left > 0; left-- {
				synctest.Wait()
				if c := now.Load(); c != min(want, int32(left)) {
					t.Fatalf("n=%d: %d running with %d jobs left, want %d", n, c, left, min(want, int32(left)))
				}
				finish <- struct{}{}
			}
			synctest.Wait()
			slices.Sort(got)
			if !slices.Equal(got, slices.Collect(count(jobs))) {
				t.Errorf("n=%d: results %v", n, got)
			}
		})
	}
}

// TestRunOrderOfFinish: done hears of the jobs as they finish, not in the
// order they started. Each job finishes when the test lets it, last first.
func TestRunOrderOfFinish(t *testing.T) {
	gates := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
	reported := make(chan int)
	end := make(chan struct{})
	go func() {
		defer close(end)
		Run(context.Background(), 3, count(3), func(_ context.Context, j int) int {
			<-gates[j]
			return j
		}, func(r int) bool { reported <- r; return true })
	}()
	var got []int
	for _, j := range []int{2, 1, 0} {
		close(gates[j])
		got = append(got, <-reported)
	}
	<-end
	if !slices.Equal(got, []int{2, 1, 0}) {
		t.Errorf("finished %v, want [2 1 0]", got)
	}
}

// counted yields 0, 1, … up to n, counting in pulled how many it has
// handed out: a job Run has taken is a job it starts.
func counted(n int, pulled *atomic.Int32) func(func(int) bool) {
	return func(yield func(int) bool) {
		for i := range n {
			pulled.Add(1)
			if !yield(i) {
				return
			}
		}
	}
}

// TestRunStops: done's false, and a cancelled context, start no further
// job, while those under way are still reported.
func TestRunStops(t *testing.T) {
	var pulled atomic.Int32
	var atStop int32 = -1
	reported := 0
	Run(context.Background(), 2, counted(100, &pulled), func(_ context.Context, j int) int {
		return j
	}, func(r int) bool {
		reported++
		if r == 5 || atStop >= 0 {
			if atStop < 0 {
				atStop = pulled.Load()
			}
			return false
		}
		return true
	})
	if atStop < 0 {
		t.Fatal("job 5 was never reported")
	}
	if p := pulled.Load(); p != atStop || int(p) != reported {
		t.Errorf("after a stop at job 5: %d taken when done said stop, %d taken in all, %d reported", atStop, p, reported)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int32
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
