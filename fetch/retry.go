package fetch

import (
	"errors"
	"io"
	"syscall"
)

// Retryable reports whether a request that failed with err may succeed
// when made again, unchanged: the one rule for every retry (the CLI's
// --retry, the mirror's Retries). It is true for
//
//   - ErrTimeout, ErrConnect, ErrResolve (a name server can fail for a
//     moment) and ErrPartial;
//   - a connection cut in the middle of an exchange (reset by the peer,
//     closed before a reply was complete);
//   - a server reply its protocol calls transient: an error in err's chain
//     with a Transient() bool method that says so (ftp.ReplyError: a 4xx
//     reply, RFC 959's "transient negative completion").
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
	case ErrTimeout, ErrConnect, ErrResolve, ErrPartial:
		return true
	}
	var t interface{ Transient() bool }
	if errors.As(err, &t) && t.Transient() {
		return true
	}
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EPIPE)
}
