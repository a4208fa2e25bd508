package fetch

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Limiter caps the rate at which bytes are read, in bytes per second (curl's
// --limit-rate). One Limiter may be shared by any number of readers at once:
// together they stay under the rate. A nil *Limiter places no cap.
//
// Set Client.LimitRate to one and every Body the Client opens is paced by
// it; a program that reads a protocol's data connection itself (the mirror's
// FTP transfers) wraps it with Reader.
type Limiter struct {
	rate int64 // bytes per second, > 0

	mu   sync.Mutex
	next time.Time // when the bytes granted so far will have been "spent"
}

// NewLimiter returns a Limiter for bytesPerSecond (at least 1).
func NewLimiter(bytesPerSecond int64) *Limiter {
	return &Limiter{rate: max(bytesPerSecond, 1)}
}

// Rate is the cap in bytes per second; 0 for a nil Limiter.
func (l *Limiter) Rate() int64 {
	if l == nil {
		return 0
	}
	return l.rate
}

// chunk is the most a paced reader asks for at once: about an eighth of a
// second's worth, so that the pace is smooth, within [512 B, 256 KiB].
func (l *Limiter) chunk() int {
	return int(min(max(l.rate/8, 512), 256<<10))
}

// limiterBurst is how far behind the schedule a Limiter lets readers fall
// (an idle moment) before it stops giving them credit for it.
const limiterBurst = 100 * time.Millisecond

// Wait accounts n bytes just read and sleeps until reading them keeps the
// rate; it returns early with ctx's error when ctx is done.
func (l *Limiter) Wait(ctx context.Context, n int) error {
	if l == nil || n <= 0 {
		return nil
	}
	l.mu.Lock()
	now := time.Now()
	if l.next.Before(now.Add(-limiterBurst)) {
		l.next = now.Add(-limiterBurst)
	}
	l.next = l.next.Add(time.Duration(float64(n) / float64(l.rate) * float64(time.Second)))
	d := l.next.Sub(now)
	l.mu.Unlock()
	return Sleep(ctx, d)
}

// Reader returns r paced by l (r itself when l is nil). A read cut short
// by ctx returns the bytes read with ctx's error.
func (l *Limiter) Reader(ctx context.Context, r io.Reader) io.Reader {
	if l == nil {
		return r
	}
	return &pacedReader{r: r, pace: pace{ctx: ctx, rate: l}}
}

// pace is what a transfer's reads go through: the rate limit and the
// low-speed watchdog's count (either may be nil).
type pace struct {
	ctx  context.Context
	rate *Limiter
	slow *lowSpeed
}

// read reads from r into p, no more than the rate allows at once, counts
// what it got, and waits until the rate allows it.
func (pc *pace) read(r io.Reader, p []byte) (int, error) {
	if pc.rate != nil {
		if c := pc.rate.chunk(); len(p) > c {
			p = p[:c]
		}
	}
	n, err := r.Read(p)
	pc.slow.add(n)
	if werr := pc.rate.Wait(pc.ctx, n); werr != nil && err == nil {
		err = werr
	}
	return n, err
}

// pacedReader is r read through a pace.
type pacedReader struct {
	r io.Reader
	pace
}

func (pr *pacedReader) Read(p []byte) (int, error) { return pr.read(pr.r, p) }

// Skip drops bytes unpaced (SkipBody).
func (pr *pacedReader) Skip(n int64) (int64, error) { return SkipBody(pr.r, n) }

// lowSpeed is the watchdog of Client.LowSpeedLimit / LowSpeedTime: it
// cancels the request's context with an ErrTimeout when fewer than limit
// bytes a second arrived over the last window.
type lowSpeed struct {
	n      atomic.Int64 // body bytes so far
	stop   chan struct{}
	once   sync.Once
	cancel context.CancelCauseFunc
}

// Defaults when only one of LowSpeedLimit and LowSpeedTime is set, as curl.
const (
	defaultLowSpeedLimit = 1
	defaultLowSpeedTime  = 30 * time.Second
)

// watchLowSpeed starts the watchdog on a context derived from ctx; the
// caller uses the returned context for the request and calls done when the
// transfer ends (done is safe to call more than once).
func watchLowSpeed(ctx context.Context, limit int64, window time.Duration) (context.Context, *lowSpeed) {
	if limit <= 0 {
		limit = defaultLowSpeedLimit
	}
	if window <= 0 {
		window = defaultLowSpeedTime
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &lowSpeed{stop: make(chan struct{}), cancel: cancel}
	tick := min(window/4, time.Second)
	tick = max(tick, 10*time.Millisecond)
	go w.run(limit, window, tick)
	return ctx, w
}

func (w *lowSpeed) run(limit int64, window, tick time.Duration) {
	t := time.NewTicker(tick)
	defer t.Stop()
	type sample struct {
		at time.Time
		n  int64
	}
	start := time.Now()
	// samples holds the counts of the last window, oldest first.
	samples := []sample{{start, 0}}
	for {
		select {
		case <-w.stop:
			return
		case now := <-t.C:
			n := w.n.Load()
			samples = append(samples, sample{now, n})
			for len(samples) > 1 && now.Sub(samples[1].at) >= window {
				samples = samples[1:]
			}
			if now.Sub(samples[0].at) < window {
				continue // not a whole window yet
			}
			span := now.Sub(samples[0].at).Seconds()
			if float64(n-samples[0].n) < float64(limit)*span {
				w.cancel(&Error{Kind: ErrTimeout, Msg: fmt.Sprintf(
					"operation too slow: less than %d bytes/sec transferred the last %s seconds",
					limit, strconv.FormatFloat(window.Seconds(), 'f', -1, 64))})
				return
			}
		}
	}
}

// add counts n body bytes.
func (w *lowSpeed) add(n int) {
	if w != nil {
		w.n.Add(int64(n))
	}
}

// done stops the watchdog and releases its context.
func (w *lowSpeed) done() {
	if w == nil {
		return
	}
	w.once.Do(func() {
		close(w.stop)
		w.cancel(nil)
	})
}

// ParseRetryAfter reads an HTTP Retry-After value (RFC 9110 §10.2.3):
// delay-seconds or an HTTP-date, taken relative to now. A date in the past
// is 0; a value that is neither is not ok.
func ParseRetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 64); err == nil {
		if n > uint64(math.MaxInt64/int64(time.Second)) {
			n = uint64(math.MaxInt64 / int64(time.Second))
		}
		return time.Duration(n) * time.Second, true
	}
	for _, layout := range []string{time.RFC1123, time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, v); err == nil {
			return max(t.Sub(now), 0), true
		}
	}
	return 0, false
}
