package download

import (
	"context"
	"iter"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/parallel"
)

// A Job is one URL of a run of transfers (Parallel) and where it goes;
// its Result's Num is the Job's.
type Job struct {
	Num    int
	URL    string
	Target Target
}

// DoJob is Do for a Job: its URL into its Target, the Result numbered as
// the Job.
func (d *Downloader) DoJob(ctx context.Context, j Job) *Result {
	r := d.Do(ctx, j.URL, j.Target)
	r.Num = j.Num
	return r
}

// ParallelBufferSize is the copy buffer of each transfer Parallel runs:
// smaller than BufferSize, so that many transfers at once keep memory
// small (50 at once: 6.4 MiB of buffers).
const ParallelBufferSize = 128 << 10

var parBufs = sync.Pool{New: func() any { b := make([]byte, ParallelBufferSize); return &b }}

// Parallel fetches jobs at once, at most n at a time (n < 1: one), as
// curl's -Z does: through d's one Client, so that the transfers share its
// kept connections. Each transfer is Do's, on a copy of d with a copy
// buffer of its own and, when d.Timer is set, a Timer of its own (added to
// the transfer's context: ctx needs none); the transfers share d.Files, or
// one Parallel makes, so that two jobs naming one file write it one after
// the other. The jobs are taken from the iterator one by one as places
// free up: a glob of millions of URLs is never held whole.
//
// each, when set, is called as a transfer starts, on its goroutine: it
// returns the context to fetch with (ctx with a fetch.Trace of its own for
// a meter: the Timer's Trace, if any, is ContextTrace of the ctx it is
// given) and a function called as the transfer ends. done is given each
// Result as its transfer ends, one at a time on the goroutine that called
// Parallel, in the order they end; when it returns false, or ctx ends, no
// more transfers start, and those under way are waited for and still
// handed to done. d's function fields (Ask, Warn, Retrying, Meter,
// Sending, Session) are called from the transfers' goroutines at once:
// they lock what they share.
func (d *Downloader) Parallel(ctx context.Context, n int, jobs iter.Seq[Job], each func(ctx context.Context, j Job) (context.Context, func()), done func(*Result) bool) {
	shared := *d
	if shared.Files == nil {
		shared.Files = &Files{}
	}
	parallel.Run(ctx, n, jobs, func(ctx context.Context, j Job) *Result {
		t := shared
		b := parBufs.Get().(*[]byte)
		defer parBufs.Put(b)
		t.Buffer = *b
		if d.Timer != nil {
			t.Timer = &fetch.Timer{}
			ctx = t.Timer.Context(ctx)
		}
		if each != nil {
			var end func()
			ctx, end = each(ctx, j)
			if end != nil {
				defer end()
			}
		}
		return t.DoJob(ctx, j)
	}, done)
}
