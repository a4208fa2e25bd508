package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/fetch"
)

// -Z/--parallel, as curl's: the URLs (globs expanded, in order) are fetched
// at once, up to --parallel-max at a time, by download.Downloader.Parallel
// (one Client: the transfers share its kept-alive and logged-in
// connections; each transfer is the serial one, Do). What the command adds
// is behind locks: stdout and stderr (syncWriter), the terminal's
// questions (ask). The results are told as the transfers end — error
// message, kept bytes, -w — and the exit status is the last failure's in
// that order, as curl's is with -Z. One summary line on stderr stands for
// all the transfers' meters (parMeter).

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
	meter *parMeter // nil when none is drawn
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

// runParallel is run for -Z.
func (c *fetchCmd) runParallel(ctx context.Context) int {
	c.par = &parState{}
	if c.progress {
		c.par.meter = newParMeter(c.e.stderr)
		defer c.par.meter.stop()
	}
	status := 0
	var globErr error
	var interrupted []*download.Result
	jobs := func(yield func(download.Job) bool) {
		for j := range c.jobs() {
			if j.err != nil {
				globErr = j.err
				return
			}
			if !yield(j.Job) {
				return
			}
		}
	}
	// No meter of a transfer's own (the run's summary line is drawn
	// instead), and no terminal lent to a session.
	d := c.dl
	d.Meter, d.Sending, d.Session = nil, nil, nil
	d.Parallel(ctx, c.o.par.limit(), jobs, c.transfer, func(r *download.Result) bool {
		if ctx.Err() != nil {
			interrupted = append(interrupted, r)
			return false
		}
		if r.Err != nil || c.wo != nil {
			// A line will be written: not over the summary.
			c.par.meter.pause()
			defer c.par.meter.resume()
		}
		return c.report(r, &status)
	})
	c.par.meter.stop()
	switch {
	case ctx.Err() != nil:
		if !c.o.silent || c.o.showError {
			fmt.Fprintf(c.e.stderr, "urlget: interrupted\n")
			for _, r := range interrupted {
				c.reportKept(r)
			}
		}
		return fetchExitInterrupted
	case globErr != nil:
		return c.globFailed(globErr)
	}
	return status
}

// transfer readies one transfer of a -Z run (Parallel's each): the -d
// warning, and the transfer's part of the summary line (its Trace).
func (c *fetchCmd) transfer(ctx context.Context, j download.Job) (context.Context, func()) {
	c.warnData(j.URL)
	m := c.par.meter
	if m == nil {
		return ctx, nil
	}
	m.started()
	var tr fetch.Trace
	if t := fetch.ContextTrace(ctx); t != nil {
		tr = *t // the -w Timer's
	}
	tr.Progress = m.progress()
	sent := tr.BodySent
	tr.BodySent = func(n int) {
		m.uploaded.Add(int64(n))
		if sent != nil {
			sent(n)
		}
	}
	return fetch.WithTrace(ctx, &tr), m.ended
}

// ask is askUser, one question at a time when transfers run at once.
func (c *fetchCmd) ask(err error) fetch.Options {
	if c.par != nil {
		c.par.askMu.Lock()
		defer c.par.askMu.Unlock()
	}
	return askUser(c.e, err)
}

// parMeter is the one progress line of a -Z run, redrawn every meterEvery:
// the transfers done, under way, the bytes received of the sizes known,
// and the speed.
type parMeter struct {
	w    io.Writer
	now  func() time.Time
	tick *time.Ticker
	quit chan struct{}
	done chan struct{}

	nStarted, nEnded  atomic.Int64
	received          atomic.Int64 // body bytes of every transfer
	uploaded          atomic.Int64
	expected, unknown atomic.Int64 // sizes announced; transfers of no known size

	mu     sync.Mutex
	start  time.Time
	drawn  bool
	paused bool
	closed bool
}

func newParMeter(w io.Writer) *parMeter {
	m := &parMeter{w: w, now: time.Now, quit: make(chan struct{}), done: make(chan struct{})}
	m.start = m.now()
	m.tick = time.NewTicker(meterEvery)
	go func() {
		defer close(m.done)
		for {
			select {
			case <-m.quit:
				return
			case <-m.tick.C:
				m.mu.Lock()
				if !m.paused && !m.closed {
					m.draw()
				}
				m.mu.Unlock()
			}
		}
	}()
	return m
}

func (m *parMeter) started() {
	if m != nil {
		m.nStarted.Add(1)
	}
}

func (m *parMeter) ended() {
	if m != nil {
		m.nEnded.Add(1)
	}
}

// progress is the Trace.Progress of one transfer: what its bodies bring
// (a retry's body starts again from 0) goes to the run's counts.
func (m *parMeter) progress() func(done, total int64) {
	var last int64
	sized := false
	return func(done, total int64) {
		if !sized {
			sized = true
			if total >= 0 {
				m.expected.Add(total)
			} else {
				m.unknown.Add(1)
			}
		}
		if done < last {
			last = 0
		}
		m.received.Add(done - last)
		last = done
	}
}

// pause clears the line so that a message can be written; resume lets the
// line be drawn again.
func (m *parMeter) pause() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.paused = true
	if m.drawn {
		redraw(m.w, strings.Repeat(" ", 79)+"\r")
		m.drawn = false
	}
	m.mu.Unlock()
}

func (m *parMeter) resume() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.paused = false
	m.mu.Unlock()
}

// stop draws the final line and ends it; it may be called more than once.
func (m *parMeter) stop() {
	if m == nil {
		return
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.closed = true
	m.mu.Unlock()
	m.tick.Stop()
	close(m.quit)
	<-m.done
	redraw(m.w, m.line(80)+"\n")
}

func (m *parMeter) draw() {
	m.drawn = true
	redraw(m.w, m.line(80))
}

// line renders the summary in width columns: "3 done, 47 going", the bytes
// received (of the total, with a percentage, when every transfer begun
// announced its size), the speed and the time so far.
func (m *parMeter) line(width int) string {
	elapsed := m.now().Sub(m.start)
	started, ended := m.nStarted.Load(), m.nEnded.Load()
	got, want := m.received.Load(), m.expected.Load()
	var b strings.Builder
	fmt.Fprintf(&b, "%d done, %d going  %s", ended, started-ended, fetch.SizeString(got))
	if m.unknown.Load() == 0 && want > 0 {
		fmt.Fprintf(&b, " / %s %5.1f%%", fetch.SizeString(want), 100*min(float64(got)/float64(want), 1))
	}
	if up := m.uploaded.Load(); up > 0 {
		fmt.Fprintf(&b, "  sent %s", fetch.SizeString(up))
	}
	speed := int64(0)
	if s := elapsed.Seconds(); s > 0 {
		speed = int64(float64(got) / s)
	}
	fmt.Fprintf(&b, "  %s/s  %s", fetch.SizeString(speed), clock(elapsed))
	s := b.String()
	if len(s) < width-1 {
		s += strings.Repeat(" ", width-1-len(s))
	}
	return s
}
