package fetch

import (
	"context"
	"errors"
	"slices"
	"syscall"
	"testing"
	"time"
)

func TestRetryPolicyWait(t *testing.T) {
	p := RetryPolicy{Retries: 9}
	for n, want := range []time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 11: DefaultMaxRetryDelay} {
		if want == 0 {
			continue
		}
		if got, ok := p.Wait(n, nil, 0); !ok || got != want {
			t.Errorf("backoff before retry %d: %v %v, want %v", n, got, ok, want)
		}
	}
	fixed := RetryPolicy{Delay: 3 * time.Second, Fixed: true}
	if got, _ := fixed.Wait(5, nil, 0); got != 3*time.Second {
		t.Errorf("fixed delay: %v", got)
	}
	server := &Error{Kind: ErrHTTP, Status: 503, retryAfter: 24 * time.Hour}
	if got, _ := p.Wait(1, server, 0); got != DefaultMaxRetryDelay {
		t.Errorf("Retry-After not capped: %v", got)
	}
	if _, ok := (&RetryPolicy{MaxTime: time.Minute}).Wait(1, server, 0); ok {
		t.Error("a Retry-After past MaxTime is waited for")
	}
	j := RetryPolicy{Delay: 10 * time.Second, Jitter: 0.2}
	for range 100 {
		if got, _ := j.Wait(1, nil, 0); got < 8*time.Second || got > 12*time.Second {
			t.Fatalf("jitter out of ±20 %%: %v", got)
		}
	}
}

func TestRetryPolicyAgain(t *testing.T) {
	refused := &Error{Kind: ErrConnect, Err: syscall.ECONNREFUSED}
	denied := &Error{Kind: ErrAccessDenied}
	for _, tc := range []struct {
		p    RetryPolicy
		done int
		err  error
		want bool
	}{
		{RetryPolicy{Retries: 2}, 1, &Error{Kind: ErrTimeout}, true},
		{RetryPolicy{Retries: 2}, 2, &Error{Kind: ErrTimeout}, false},
		{RetryPolicy{Retries: 2}, 0, &Error{Kind: ErrHTTP, Status: 503}, true},
		{RetryPolicy{Retries: 2}, 0, &Error{Kind: ErrHTTP, Status: 404}, false},
		{RetryPolicy{Retries: 2}, 0, refused, false},
		{RetryPolicy{Retries: 2, Refused: true}, 0, refused, true},
		{RetryPolicy{Retries: 2}, 0, denied, false},
		{RetryPolicy{Retries: 2, AllErrors: true}, 0, denied, true},
		{RetryPolicy{Retries: 2, AllErrors: true}, 0, &Error{Kind: ErrAborted}, false},
		{RetryPolicy{Retries: 2, AllErrors: true}, 0, nil, false},
		{RetryPolicy{Retries: 2}, 0, errors.New("other"), false},
	} {
		if got := tc.p.Again(tc.done, tc.err); got != tc.want {
			t.Errorf("%+v.Again(%d, %v) = %v", tc.p, tc.done, tc.err, got)
		}
	}
}

func TestStatusOf(t *testing.T) {
	inner := &Error{Kind: ErrNotFound, Status: 550}
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("x"), 0},
		{&Error{Kind: ErrOther, Err: inner}, 550},
		{&Error{Kind: ErrOther, Status: 421, Err: inner}, 421},
		{errors.Join(errors.New("x"), inner), 550},
	} {
		if got := StatusOf(tc.err); got != tc.want {
			t.Errorf("StatusOf(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}

func TestRetryPolicyDo(t *testing.T) {
	var waits []time.Duration
	p := RetryPolicy{Retries: 3, Delay: time.Second, Sleep: func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}}
	var told []int
	tries := 0
	err := p.Do(context.Background(), func(attempt int) error {
		if attempt != tries {
			t.Errorf("try %d called as attempt %d", tries, attempt)
		}
		tries++
		if tries < 3 {
			return NewError(ErrTimeout, "slow", nil)
		}
		return nil
	}, func(attempt int, err error, wait time.Duration) bool {
		told = append(told, attempt)
		return true
	})
	if err != nil || tries != 3 || !slices.Equal(told, []int{0, 1}) || !slices.Equal(waits, []time.Duration{time.Second, 2 * time.Second}) {
		t.Errorf("Do = %v after %d tries, told %v, waits %v", err, tries, told, waits)
	}
	// before refusing, and an error Again refuses, end the tries.
	tries = 0
	timeout := NewError(ErrTimeout, "slow", nil)
	if err := p.Do(context.Background(), func(int) error { tries++; return timeout },
		func(int, error, time.Duration) bool { return false }); err != timeout || tries != 1 {
		t.Errorf("before refused: Do = %v after %d tries", err, tries)
	}
	tries = 0
	denied := NewError(ErrAccessDenied, "no", nil)
	if err := p.Do(context.Background(), func(int) error { tries++; return denied }, nil); err != denied || tries != 1 {
		t.Errorf("denied: Do = %v after %d tries", err, tries)
	}
}
