package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Meter draws one transfer's progress on a terminal, at most every
// MeterEvery: curl's one-line meter (percentage, bytes, speed, time
// left), or with bar (curl's -#) a bar of '#' characters. The caller
// decides whether to draw at all (stderr a terminal, output not).
type Meter struct {
	out   *StatusLine
	bar   bool
	total int64 // -1 when unknown
	start time.Time
	last  time.Time
	done  int64
	drawn bool
	now   func() time.Time
}

// MeterEvery is how often a meter is redrawn at most.
const MeterEvery = 200 * time.Millisecond

// NewMeter is a Meter on w of a transfer of total bytes (-1: unknown),
// curl's bar with bar set.
func NewMeter(w io.Writer, bar bool, total int64) *Meter {
	m := &Meter{out: &StatusLine{W: w}, bar: bar, total: total, now: time.Now}
	m.start = m.now()
	return m
}

// Update records that done bytes have arrived.
func (m *Meter) Update(done int64) {
	m.done = done
	if t := m.now(); !m.drawn || t.Sub(m.last) >= MeterEvery {
		m.last = t
		m.draw()
	}
}

// Finish draws the final state and ends the line.
func (m *Meter) Finish() { m.out.End(m.line(80)) }

func (m *Meter) draw() {
	m.drawn = true
	m.out.Draw(m.line(80))
}

// line renders the meter in width columns.
func (m *Meter) line(width int) string {
	elapsed := m.now().Sub(m.start)
	if m.bar {
		if m.total <= 0 {
			// Unknown size: a marker bouncing along the line.
			n := width - 2
			pos := int(m.done/(64<<10)) % n
			return strings.Repeat(" ", pos) + "<=>" + strings.Repeat(" ", max(0, n-pos-3))
		}
		pct := min(float64(m.done)/float64(m.total), 1)
		n := width - 8
		fill := int(pct * float64(n))
		return strings.Repeat("#", fill) + strings.Repeat(" ", n-fill) + fmt.Sprintf(" %5.1f%%", 100*pct)
	}
	speed := float64(0)
	if s := elapsed.Seconds(); s > 0 {
		speed = float64(m.done) / s
	}
	var b strings.Builder
	if m.total > 0 {
		pct := min(float64(m.done)/float64(m.total), 1)
		fmt.Fprintf(&b, "%5.1f%%  %s / %s", 100*pct, fetch.SizeString(m.done), fetch.SizeString(m.total))
	} else {
		fmt.Fprintf(&b, "  --.-%%  %s", fetch.SizeString(m.done))
	}
	fmt.Fprintf(&b, "  %s/s  %s", fetch.SizeString(int64(speed)), clock(elapsed))
	if m.total > 0 && speed > 0 && m.done < m.total {
		left := time.Duration(float64(m.total-m.done) / speed * float64(time.Second))
		fmt.Fprintf(&b, "  ETA %s", clock(left))
	}
	s := b.String()
	if len(s) < width-1 {
		s += strings.Repeat(" ", width-1-len(s))
	}
	return s
}

// clock prints d as h:mm:ss.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}

// MultiMeter is one progress line for transfers running at once (curl's
// -Z), redrawn every MeterEvery: the transfers done, under way, the bytes
// received of the sizes known, sent, and the speed. Its methods do nothing
// on a nil MultiMeter (none drawn).
type MultiMeter struct {
	line *StatusLine
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
	paused bool
	closed bool
}

// NewMultiMeter starts a MultiMeter drawn on w; Stop ends it.
func NewMultiMeter(w io.Writer) *MultiMeter {
	m := &MultiMeter{line: &StatusLine{W: w}, now: time.Now, quit: make(chan struct{}), done: make(chan struct{})}
	m.start = m.now()
	m.tick = time.NewTicker(MeterEvery)
	go func() {
		defer close(m.done)
		for {
			select {
			case <-m.quit:
				return
			case <-m.tick.C:
				m.mu.Lock()
				if !m.paused && !m.closed {
					m.line.Draw(m.text(80))
				}
				m.mu.Unlock()
			}
		}
	}()
	return m
}

// Started counts a transfer begun, Ended one ended, Sent n bytes sent.
func (m *MultiMeter) Started() {
	if m != nil {
		m.nStarted.Add(1)
	}
}

func (m *MultiMeter) Ended() {
	if m != nil {
		m.nEnded.Add(1)
	}
}

func (m *MultiMeter) Sent(n int) { m.uploaded.Add(int64(n)) }

// Progress is the fetch.Trace Progress of one transfer: what its bodies
// bring (a retry's body starts again from 0) goes to the counts.
func (m *MultiMeter) Progress() func(done, total int64) {
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

// Pause clears the line so that a message can be written; Resume lets the
// line be drawn again.
func (m *MultiMeter) Pause() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.paused = true
	m.line.Clear()
	m.mu.Unlock()
}

func (m *MultiMeter) Resume() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.paused = false
	m.mu.Unlock()
}

// Stop draws the final line and ends it; it may be called more than once.
func (m *MultiMeter) Stop() {
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
	m.line.End(m.text(80))
}

// text renders the summary in width columns: "3 done, 47 going", the bytes
// received (of the total, with a percentage, when every transfer begun
// announced its size), the speed and the time so far.
func (m *MultiMeter) text(width int) string {
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

// Sending is r, a body of size bytes being sent, drawing a Meter on w as
// it is read.
func Sending(w io.Writer, bar bool, r io.Reader, size int64) io.Reader {
	return &countingReader{r: r, m: NewMeter(w, bar, size)}
}

// countingReader is a body being sent, drawing its meter as it is read.
type countingReader struct {
	r    io.Reader
	m    *Meter
	n    int64
	done bool
}

func (u *countingReader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	u.n += int64(n)
	if !u.done {
		u.m.Update(u.n)
		if err != nil {
			u.done = true
			u.m.Finish()
		}
	}
	return n, err
}
