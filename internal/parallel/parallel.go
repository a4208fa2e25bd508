// Package parallel runs jobs a bounded number at a time: the engine behind
// urlget's -Z/--parallel (curl's parallel transfers).
//
// Run takes the jobs from an iterator, so that a glob of a million URLs
// is never held whole; it starts each as soon as a place is free, and
// hands each result to one callback, on the caller's goroutine, in the
// order the jobs finish. Nothing a job shares (a fetch.Client and its
// kept-alive connections) is Run's business: the caller's do function
// closes over it.
package parallel

import (
	"context"
	"iter"
)

// Run calls do for every job of jobs, at most n at once (n < 1 counts as
// 1), and done with each result as it comes, on the goroutine that called
// Run, so that done needs no lock of its own. done returning false, or ctx
// ending, stops the start of further jobs; the jobs under way are waited
// for, and their results still go to done. Run returns when every job
// started has been handed to done.
func Run[J, R any](ctx context.Context, n int, jobs iter.Seq[J], do func(context.Context, J) R, done func(R) bool) {
	n = max(n, 1)
	next, stop := iter.Pull(jobs)
	defer stop()
	results := make(chan R, n)
	running, more := 0, true
	for {
		for more && running < n && ctx.Err() == nil {
			j, ok := next()
			if !ok {
				more = false
				break
			}
			running++
			go func() { results <- do(ctx, j) }()
		}
		if running == 0 {
			return
		}
		r := <-results
		running--
		if !done(r) {
			more = false
		}
	}
}
