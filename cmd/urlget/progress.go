package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// meter draws transfer progress on stderr, at most every meterEvery: a
// one-line meter (percentage, bytes, speed, time left), or with -# a bar
// of '#' characters. The caller decides whether to draw at all (stderr a
// terminal, output not).
type meter struct {
	w     io.Writer
	bar   bool
	total int64 // -1 when unknown
	start time.Time
	last  time.Time
	done  int64
	drawn bool
	now   func() time.Time
}

const meterEvery = 200 * time.Millisecond

func newMeter(w io.Writer, bar bool, total int64) *meter {
	m := &meter{w: w, bar: bar, total: total, now: time.Now}
	m.start = m.now()
	return m
}

// update records that done bytes have arrived.
func (m *meter) update(done int64) {
	m.done = done
	if t := m.now(); !m.drawn || t.Sub(m.last) >= meterEvery {
		m.last = t
		m.draw()
	}
}

// finish draws the final state and ends the line.
func (m *meter) finish() {
	m.draw()
	io.WriteString(m.w, "\n")
}

func (m *meter) draw() {
	m.drawn = true
	redraw(m.w, m.line(80))
}

// redraw writes line over the line drawn before on w (a terminal).
func redraw(w io.Writer, line string) { io.WriteString(w, "\r"+line) }

// line renders the meter in width columns.
func (m *meter) line(width int) string {
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
