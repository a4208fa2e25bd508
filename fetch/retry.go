package fetch

import (
	"cmp"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"syscall"
	"time"
)

// Retryable reports whether a request that failed with err may succeed
// when made again, unchanged: the one rule for every retry (the CLI's
// --retry, the mirror's Retries). It is true for
//
//   - ErrTimeout, ErrConnect, ErrResolve (a name server can fail for a
//     moment), ErrPartial and ErrRecv (a connection broken before the
//     reply was complete);
//   - a connection cut in the middle of an exchange (reset by the peer,
//     closed before a reply was complete);
//   - a server reply its protocol calls transient: an error in err's chain
//     with a Transient() bool method that says so (ftp.ReplyError: a 4xx
//     reply, RFC 959's "transient negative completion"), or an HTTP status
//     that says "try again" (ErrHTTP under Client.Fail; TransientStatus).
//
// It is false for nil, for a cancelled request (ErrAborted) and for every
// other error: a request refused, malformed or not understood fails the
// same way the next time.
func Retryable(err error) bool {
	if err == nil {
		return false
	}
	switch KindOf(err) {
	case ErrAborted:
		return false
	case ErrTimeout, ErrConnect, ErrResolve, ErrPartial, ErrRecv:
		return true
	case ErrHTTP:
		var fe *Error
		if errors.As(err, &fe) && TransientStatus(fe.Status) {
			return true
		}
	}
	var t interface{ Transient() bool }
	if errors.As(err, &t) && t.Transient() {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE)
}

// TransientStatus reports whether an HTTP status says "try again": curl's
// list (408, 429, 500, 502, 503, 504, 522, 524).
func TransientStatus(code int) bool {
	switch code {
	case 408, 429, 500, 502, 503, 504, 522, 524:
		return true
	}
	return false
}

// Defaults of a RetryPolicy's zero fields.
const (
	DefaultRetryDelay    = time.Second
	DefaultMaxRetryDelay = 10 * time.Minute
)

// A RetryPolicy says whether and when a failed request is tried again:
// the one policy of the CLI's --retry flags and the mirror's Retries.
type RetryPolicy struct {
	Retries int // how many times a request is tried again (0: never)
	// Delay is the wait before the first retry (0: DefaultRetryDelay);
	// it doubles for each retry after, up to MaxDelay, unless Fixed.
	Delay time.Duration
	Fixed bool
	// MaxDelay caps the doubling, and a server's Retry-After too (a
	// hostile or confused server must not park the client for days);
	// 0: DefaultMaxRetryDelay.
	MaxDelay time.Duration
	// Jitter spreads each backoff by ± this fraction (0.2: ±20 %), so that
	// the workers of a mirror do not come back at the same instant.
	Jitter float64
	// MaxTime: no retry starts once this long has passed since the first
	// attempt (0: no limit).
	MaxTime time.Duration
	// AllErrors retries any error but a cancellation (curl's
	// --retry-all-errors); Refused retries a refused connection
	// (--retry-connrefused), which is otherwise final.
	AllErrors, Refused bool
	// Sleep waits between tries in Do (nil: Sleep).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Do calls try (attempt 0, 1, ...) until it succeeds, ctx ends, or the
// policy gives up (Again, then Wait with the time spent since the first
// try began), waiting between tries. before, when set, is called before
// each wait with the number of the try that failed (from 0), its error
// and the wait, and ends the tries when it
// returns false (a caller's own rule: an error of its own never retried);
// it is where a program says that it will retry. Do returns try's last
// error (nil on success), also when ctx ended during a wait.
func (p *RetryPolicy) Do(ctx context.Context, try func(attempt int) error, before func(attempt int, err error, wait time.Duration) bool) error {
	sleep := p.Sleep
	if sleep == nil {
		sleep = Sleep
	}
	first := time.Now()
	for attempt := 0; ; attempt++ {
		err := try(attempt)
		if err == nil || ctx.Err() != nil || !p.Again(attempt, err) {
			return err
		}
		wait, ok := p.Wait(attempt+1, err, time.Since(first))
		if !ok || before != nil && !before(attempt, err, wait) || sleep(ctx, wait) != nil {
			return err
		}
	}
}

// Again reports whether a request that failed with err, after done
// retries, is tried once more (Wait says when): while retries remain, an
// error Retryable says is transient, a refused connection only with
// Refused, any error but a cancellation with AllErrors.
func (p *RetryPolicy) Again(done int, err error) bool {
	switch {
	case done >= p.Retries || err == nil || KindOf(err) == ErrAborted:
		return false
	case p.AllErrors:
		return true
	case errors.Is(err, syscall.ECONNREFUSED):
		return p.Refused
	}
	return Retryable(err)
}

// Wait is how long to wait before retry number n (from 1) of a request
// that failed with err, spent after its first attempt began: the server's
// Retry-After when err carries one (capped at MaxDelay), else the backoff.
// With MaxTime, ok is false when no time is left, or when the server's
// Retry-After would run past the limit (as curl); a backoff is cut to the
// time left.
func (p *RetryPolicy) Wait(n int, err error, spent time.Duration) (wait time.Duration, ok bool) {
	maxDelay := cmp.Or(p.MaxDelay, DefaultMaxRetryDelay)
	wait = cmp.Or(p.Delay, DefaultRetryDelay)
	for i := 1; i < n && !p.Fixed && wait < maxDelay; i++ {
		wait *= 2
	}
	wait = min(wait, maxDelay)
	if p.Jitter > 0 {
		wait = time.Duration(float64(wait) * (1 - p.Jitter + 2*p.Jitter*rand.Float64()))
	}
	var ra interface{ RetryAfter() time.Duration }
	serverSaid := errors.As(err, &ra) && ra.RetryAfter() > 0
	if serverSaid {
		wait = min(ra.RetryAfter(), maxDelay)
	}
	if p.MaxTime > 0 {
		left := p.MaxTime - spent
		switch {
		case left <= 0:
			return 0, false
		case wait > left && serverSaid:
			return 0, false
		case wait > left:
			wait = left
		}
	}
	return wait, true
}
