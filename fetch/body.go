package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// body is the Client's wrapper around a fetcher's Body. It keeps the
// transfer honest: progress, the size cap, early ends as ErrPartial, and
// typed errors once the context is done. It implements io.WriterTo so that
// io.Copy still reaches the destination's ReadFrom (copy_file_range,
// splice, sendfile) with the fetcher's own reader.
type body struct {
	rc       io.ReadCloser
	ctx      context.Context
	url      string
	size     int64 // expected body size, -1 when unknown
	limit    int64 // bytes allowed in this body, -1 for no cap
	n        int64 // bytes delivered so far
	progress func(done, total int64)
	pace     pace  // Client.LimitRate and the low-speed watchdog
	err      error // sticky: io.EOF or an *Error
	failed   error // Client.FailWithBody's error, returned in place of io.EOF
	// maxTime is Client.MaxTime (0: none), stop ends its clock.
	maxTime time.Duration
	stop    context.CancelFunc
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.read(p)
	if err != nil && err != io.EOF {
		b.timedOut()
		err = b.err
	}
	return n, err
}

// timedOut says, when Client.MaxTime ended the transfer, what arrived of
// what (maxTimeError).
func (b *body) timedOut() {
	if b.maxTime > 0 && b.err != nil && b.err != io.EOF && errors.Is(context.Cause(b.ctx), errMaxTime) {
		b.err = maxTimeError(b.maxTime, b.n, b.size)
	}
}

func (b *body) read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.ctx.Err() != nil {
		b.err = ctxError(b.ctx, b.url)
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if b.limit >= 0 && int64(len(p)) > b.limit-b.n+1 {
		// One byte past the cap tells a body of exactly the cap from a
		// longer one.
		p = p[:b.limit-b.n+1]
	}
	n, err := b.pace.read(b.rc, p)
	if b.limit >= 0 && b.n+int64(n) > b.limit {
		n = int(b.limit - b.n)
		b.n = b.limit
		b.report()
		b.err = b.tooLarge()
		return n, b.err
	}
	b.n += int64(n)
	if n > 0 {
		b.report()
	}
	if err != nil {
		b.end(err)
		return n, b.err
	}
	return n, nil
}

// WriteTo copies the body to w. A local file's body going to a writer
// with ReadFrom (an *os.File, say) is copied in large chunks straight from
// the *os.File, so that the kernel's copy_file_range or sendfile does the
// work; anything else goes through Read with a 256 KiB buffer, which knows
// a read error from a write error.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	f, local := b.rc.(*os.File)
	if _, rf := w.(io.ReaderFrom); !local || !rf || b.pace.rate != nil {
		return b.copyLoop(w)
	}
	chunk := int64(64 << 20)
	if b.progress != nil {
		chunk = 1 << 20
	}
	var written int64
	for b.err == nil {
		if b.ctx.Err() != nil {
			b.err = ctxError(b.ctx, b.url)
			break
		}
		want := chunk
		if b.limit >= 0 {
			left := b.limit - b.n
			if left == 0 {
				// At the cap: one more byte, read but not written,
				// tells whether the body goes on.
				var one [1]byte
				n, err := f.Read(one[:])
				if n > 0 {
					b.err = b.tooLarge()
				} else if err != nil {
					b.end(err)
				}
				continue
			}
			want = min(want, left)
		}
		lr := &io.LimitedReader{R: f, N: want}
		n, err := io.Copy(w, lr)
		written += n
		b.n += n
		b.pace.slow.add(int(n))
		if n > 0 {
			b.report()
		}
		switch {
		case err != nil:
			b.err = fileCopyError(b, err)
		case lr.N > 0:
			b.end(io.EOF) // the file ended before the chunk did
		}
	}
	if b.err == io.EOF {
		return written, nil
	}
	b.timedOut()
	return written, b.err
}

// fileCopyError types an error from copying a local file to a ReaderFrom:
// a read of the file failed, or else the write did.
func fileCopyError(b *body, err error) error {
	var fe *Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &fe), b.ctx.Err() != nil,
		errors.As(err, &pe) && pe.Op == "read" && pe.Path == b.rc.(*os.File).Name():
		b.end(err)
		return b.err
	}
	return &Error{Kind: ErrWrite, URL: b.url, Msg: "writing output", Err: err}
}

// copyLoop is WriteTo through Read, one buffer at a time.
func (b *body) copyLoop(w io.Writer) (int64, error) {
	buf := make([]byte, 256<<10)
	var written int64
	for {
		n, err := b.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			written += int64(m)
			if werr == nil && m < n {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				var fe *Error
				if !errors.As(werr, &fe) {
					fe = &Error{Kind: ErrWrite, URL: b.url, Msg: "writing output", Err: werr}
				}
				b.err = fe
				return written, fe
			}
		}
		if err == io.EOF {
			return written, nil
		}
		if err != nil {
			return written, err
		}
	}
}

// end records the end of the fetcher's reader: io.EOF is success only when
// the whole announced size arrived.
func (b *body) end(err error) {
	if err == io.EOF {
		if b.size >= 0 && b.n < b.size {
			b.err = &Error{Kind: ErrPartial, URL: b.url,
				Msg: fmt.Sprintf("transfer closed with %d bytes remaining to read", b.size-b.n)}
			return
		}
		b.err = io.EOF
		if b.failed != nil {
			b.err = b.failed
		}
		return
	}
	b.err = bodyError(b.ctx, b.url, err)
}

func (b *body) tooLarge() error {
	return &Error{Kind: ErrTooLarge, URL: b.url, Msg: "maximum file size exceeded"}
}

func (b *body) report() {
	if b.progress != nil {
		b.progress(b.n, b.size)
	}
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.pace.slow.done()
	if b.stop != nil {
		b.stop()
	}
	if b.err == nil {
		b.err = &Error{Kind: ErrOther, URL: b.url, Msg: "read from a closed body"}
	}
	return err
}

// bodyError types an error from reading a body. Once the context is done,
// whatever the read failed with (a closed connection, usually) is the
// context's error. A read that fails for any other reason ends the transfer
// early: ErrPartial, unless the error says otherwise.
func bodyError(ctx context.Context, url string, err error) error {
	if ctx.Err() != nil {
		return ctxError(ctx, url)
	}
	var fe *Error
	if errors.As(err, &fe) {
		if fe.URL == "" {
			fe.URL = url
		}
		return fe
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &Error{Kind: ErrFileRead, URL: url, Msg: "reading the file", Err: err}
	}
	switch k := KindOf(err); k {
	case ErrTimeout, ErrAborted:
		return &Error{Kind: k, URL: url, Err: err}
	}
	return &Error{Kind: ErrPartial, URL: url, Msg: "transfer ended early", Err: err}
}

// wrapError types an error a Fetcher returned from Open.
func wrapError(ctx context.Context, url string, err error) error {
	if ctx.Err() != nil {
		var fe, cause *Error
		if !errors.As(err, &fe) || fe.Kind != ErrAborted && fe.Kind != ErrTimeout || errors.As(context.Cause(ctx), &cause) {
			return ctxError(ctx, url)
		}
	}
	var fe *Error
	if errors.As(err, &fe) {
		if fe.URL == "" {
			fe.URL = url
		}
		var ine *InputNeededError
		if errors.As(err, &ine) {
			return err // the caller may answer it: keep it
		}
		return fe
	}
	return &Error{Kind: KindOf(err), URL: url, Err: err}
}

// ctxError is the error for a done context: ErrTimeout for a deadline,
// ErrAborted for a cancellation.
func ctxError(ctx context.Context, url string) error {
	var fe *Error
	if errors.As(context.Cause(ctx), &fe) {
		// The Client's own reason (the low-speed watchdog).
		e := *fe
		e.URL = url
		return &e
	}
	err := context.Cause(ctx)
	if err == nil {
		err = ctx.Err()
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Kind: ErrTimeout, URL: url, Msg: "operation timed out", Err: err}
	}
	return &Error{Kind: ErrAborted, URL: url, Msg: "operation aborted", Err: err}
}
