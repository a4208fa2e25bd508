package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"os"
	"sync"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// -Z/--parallel, as curl's: the URLs (globs expanded, in order) are fetched
// at once, up to --parallel-max at a time, by download.Downloader.Parallel
// (one Client: the transfers share its kept-alive and logged-in
// connections; each transfer is the serial one, Do). What the command adds
// is behind locks: stdout and stderr (syncWriter), the terminal's
// questions (ask). The results are told as the transfers end — error
// message, kept bytes, -w — and the exit status is the last failure's in
// that order, as curl's is with -Z. One summary line on stderr stands for
// all the transfers' meters (cli.MultiMeter).

// Curl's bounds of --parallel-max: a value under 1 is the default, one over
// the maximum is the maximum.
const (
	parallelDefault = 50
	parallelMaxMax  = 300
)

// parOpts are the parallel flags.
type parOpts struct {
	on        bool // -Z
	max       int  // --parallel-max
	immediate bool // --parallel-immediate
}

func addParallelFlags(fs *pflag.FlagSet, p *parOpts) {
	fs.BoolVarP(&p.on, "parallel", "Z", false, "fetch the URLs at once, up to --parallel-max at a time, with one progress line for all; the exit status is that of the last transfer to fail")
	fs.IntVar(&p.max, "parallel-max", parallelDefault, fmt.Sprintf("with -Z, at most `N` transfers at once (1 to %d)", parallelMaxMax))
	fs.BoolVar(&p.immediate, "parallel-immediate", false, "with -Z, open a connection for each transfer at once rather than wait to share one (urlget always does)")
}

// limit is --parallel-max as curl reads it.
func (p parOpts) limit() int {
	switch {
	case p.max < 1:
		return parallelDefault
	case p.max > parallelMaxMax:
		return parallelMaxMax
	}
	return p.max
}

// parState is what the transfers of a -Z run share.
type parState struct {
	meter *cli.MultiMeter // nil when none is drawn
	askMu sync.Mutex
}

// syncWriter is w for writers from many goroutines: an *os.File writes
// each Write whole already (its own lock); any other writer gets a lock.
func syncWriter(w io.Writer) io.Writer {
	if _, ok := w.(*os.File); ok {
		return w
	}
	return &fetch.SyncWriter{W: w}
}

// runParallel is run's -Z: the jobs at once, each result given to done.
func (c *fetchCmd) runParallel(ctx context.Context, jobs iter.Seq[download.Job], done func(*download.Result) bool) {
	c.par = &parState{}
	if c.progress {
		c.par.meter = cli.NewMultiMeter(c.e.stderr)
		defer c.par.meter.Stop()
	}
	// No meter of a transfer's own (the run's summary line is drawn
	// instead), and no terminal lent to a session.
	d := c.dl
	d.Meter, d.Sending, d.Session = nil, nil, nil
	d.Parallel(ctx, c.o.par.limit(), jobs, c.transfer, func(r *download.Result) bool {
		if r.Err != nil || c.wo != nil {
			// A line will be written: not over the summary.
			c.par.meter.Pause()
			defer c.par.meter.Resume()
		}
		return done(r)
	})
}

// transfer readies one transfer of a -Z run (Parallel's each): its part of the summary line (its Trace).
func (c *fetchCmd) transfer(ctx context.Context, j download.Job) (context.Context, func()) {
	m := c.par.meter
	if m == nil {
		return ctx, nil
	}
	m.Started()
	var tr fetch.Trace
	if t := fetch.ContextTrace(ctx); t != nil {
		tr = *t // the -w Timer's
	}
	tr.Progress = m.Progress()
	sent := tr.BodySent
	tr.BodySent = func(n int) {
		m.Sent(n)
		if sent != nil {
			sent(n)
		}
	}
	return fetch.WithTrace(ctx, &tr), m.Ended
}

// ask is cli.Ask, one question at a time when transfers run at once.
func (c *fetchCmd) ask(err error) fetch.Options {
	if c.par != nil {
		c.par.askMu.Lock()
		defer c.par.askMu.Unlock()
	}
	return cli.Ask(c.e.stdin, c.e.stderr, err)
}
