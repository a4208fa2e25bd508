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
	"github.com/urlget/urlget/internal/parallel"
)

// -Z/--parallel, as curl's: the URLs (globs expanded, in order) are fetched
// at once, up to --parallel-max at a time, through the one Client, so that
// they share its kept-alive connections (http) and logged-in ones (ftp).
// Each transfer is the serial one (fetchCmd.one: output files through
// NAME.part, retries, resume), run on a copy of the command of its own
// (forTransfer); what they share is behind locks: stdout and stderr
// (syncWriter), an output file two of them name and directories
// (download.Files), the terminal's questions (ask). The results are told as the transfers end —
// error message, kept bytes, -w — and the exit status is the last failure's
// in that order, as curl's is with -Z. One summary line on stderr stands
// for all the transfers' meters (parMeter).

// Curl's bounds of --parallel-max: a value under 1 is the default, one over
// the maximum is the maximum.
const (
	parallelDefault = 50
	parallelMaxMax  = 300
)

// parBufSize is the copy buffer of one parallel transfer: smaller than
// download.BufferSize, so that --parallel-max transfers at once keep memory small
// (50 at once: 6.4 MiB of buffers).
const parBufSize = 128 << 10

var parBufs = sync.Pool{New: func() any { b := make([]byte, parBufSize); return &b }}

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
	files download.Files
}

// syncWriter is w for writers from many goroutines: an *os.File writes
// each Write whole already (its own lock); any other writer gets a lock.
func syncWriter(w io.Writer) io.Writer {
	if _, ok := w.(*os.File); ok {
		return w
	}
	return &fetch.SyncWriter{W: w}
}

// parResult is one transfer's end, for runParallel's report.
type parResult struct {
	r       *download.Result
	globErr error
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
	parallel.Run(ctx, c.o.par.limit(), c.jobs(), func(ctx context.Context, j fetchJob) parResult {
		if j.err != nil {
			return parResult{globErr: j.err}
		}
		t := c.forTransfer()
		defer t.release()
		ctx = t.traceContext(ctx)
		return parResult{r: t.one(ctx, j)}
	}, func(p parResult) bool {
		if p.globErr != nil {
			globErr = p.globErr
			return false
		}
		if ctx.Err() != nil {
			interrupted = append(interrupted, p.r)
			return false
		}
		if p.r.Err != nil || c.wo != nil {
			// A line will be written: not over the summary.
			c.par.meter.pause()
			defer c.par.meter.resume()
		}
		return c.report(p.r, &status)
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

// forTransfer is a copy of the command for one transfer of a -Z run: its
// own -w trace and copy buffer; no meter of its own (the run's summary
// line is drawn instead), and no terminal lent to a session.
func (c *fetchCmd) forTransfer() *fetchCmd {
	t := *c
	t.meter, t.lent, t.progress = nil, nil, false
	t.dl.Meter, t.dl.Sending, t.dl.Session = nil, nil, nil
	t.dl.Files = &c.par.files
	if c.wo != nil {
		t.dl.Timer = &fetch.Timer{}
	}
	t.dl.Buffer = *parBufs.Get().(*[]byte)
	t.par.meter.started()
	return &t
}

// release gives back what forTransfer took.
func (t *fetchCmd) release() {
	b := t.dl.Buffer
	t.dl.Buffer = nil
	parBufs.Put(&b)
	t.par.meter.ended()
}

// traceContext is ctx with the transfer's Trace: its -w times and its part
// of the summary line.
func (t *fetchCmd) traceContext(ctx context.Context) context.Context {
	tr := &fetch.Trace{}
	if t.dl.Timer != nil {
		tr = fetch.ContextTrace(t.dl.Timer.Context(ctx))
	}
	if m := t.par.meter; m != nil {
		tr.Progress = m.progress()
		sent := tr.BodySent
		tr.BodySent = func(n int) {
			m.uploaded.Add(int64(n))
			if sent != nil {
				sent(n)
			}
		}
	}
	return fetch.WithTrace(ctx, tr)
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
	fmt.Fprintf(&b, "%d done, %d going  %s", ended, started-ended, sizeStr(got))
	if m.unknown.Load() == 0 && want > 0 {
		fmt.Fprintf(&b, " / %s %5.1f%%", sizeStr(want), 100*min(float64(got)/float64(want), 1))
	}
	if up := m.uploaded.Load(); up > 0 {
		fmt.Fprintf(&b, "  sent %s", sizeStr(up))
	}
	speed := int64(0)
	if s := elapsed.Seconds(); s > 0 {
		speed = int64(float64(got) / s)
	}
	fmt.Fprintf(&b, "  %s/s  %s", sizeStr(speed), clock(elapsed))
	s := b.String()
	if len(s) < width-1 {
		s += strings.Repeat(" ", width-1-len(s))
	}
	return s
}
