package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"sync/atomic"
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
	// closed is set by Close, which may come from another goroutine while
	// a Read is under way (fetch.Buffered's read-ahead, left inside a Read
	// when its renderer stopped early): Close touches nothing else of
	// the reading's state, and the reader fails its next Read.
	closed atomic.Bool
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
	if b.isClosed() {
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
		return b.copyLoop(w, nil)
	}
	return b.straight(w, b.bulkChunk(), func() io.Reader { return f }, func(err error) error { return fileCopyError(b, err) })
}

// bulkChunk is how much a copy the kernel does (splice, copy_file_range)
// takes at once where only progress needs it back sooner: 64 MiB, or 1 MiB
// when progress is reported, so that a meter moves at least every MiB. A
// copy from a connection needs no check of the context between chunks:
// the context's end closes the connection, which ends the copy; a local
// file copied into a file ends at disk speed.
func (b *body) bulkChunk() int64 {
	if b.progress != nil {
		return 1 << 20
	}
	return 64 << 20
}

// A StraightBody is a fetcher's Body whose bytes can be taken straight
// from the connection they arrive on, so that CopyBody can have the kernel
// move them from socket to socket (splice) without reading them into
// memory.
type StraightBody interface {
	io.ReadCloser
	// Straight returns the reader the body's next bytes come from as they
	// are, a *net.TCPConn read to its end (StraightConn), or nil when
	// they do not: bytes already buffered, a conversion, TLS. It is
	// asked again after every read.
	Straight() io.Reader
	// Took tells the body that n bytes were read from Straight's reader
	// past it. When that reader ends, its outcome is the body's next Read
	// (io.EOF, or the error the protocol's end gives).
	Took(n int64)
}

// StraightConn is the TCP connection under c whose bytes are c's own
// (under the Client's context watch, not TLS, not traced), for a
// StraightBody's Straight; nil when there is none.
func StraightConn(c net.Conn) io.Reader {
	if cc, ok := c.(*ctxConn); ok {
		c = cc.Conn
	}
	if tc, ok := c.(*net.TCPConn); ok {
		return tc
	}
	return nil
}

// fileChunk is how much CopyBody takes from a local file at once between
// the checks of the context, the size cap and progress: the end of the
// context does not end a sendfile to a client that reads slowly.
const fileChunk = 1 << 20

// CopyBody copies body, a Resource's Body, to w, as a gateway passes a
// document on: when w has ReadFrom (a TCP connection, an
// http.ResponseWriter) and the fetcher's body can give its bytes straight
// from its connection (StraightBody) or file, the kernel moves them
// (splice, sendfile) and buf is not used; otherwise they are read through
// buf (nil: 256 KiB). An error is the transfer's (ErrPartial, ErrTimeout,
// ...) whichever side it came from: a caller that must tell a failed write
// from a failed read uses io.Copy.
func CopyBody(w io.Writer, rc io.Reader, buf []byte) (int64, error) {
	b, ok := rc.(*body)
	if !ok {
		if buf == nil {
			return io.Copy(w, rc)
		}
		return io.CopyBuffer(w, struct{ io.Reader }{rc}, buf)
	}
	if !b.canGoStraight(w) {
		return b.copyLoop(w, buf)
	}
	if f, local := b.rc.(*os.File); local {
		return b.straight(w, fileChunk, func() io.Reader { return f }, func(err error) error { return fileCopyError(b, err) })
	}
	sb := b.rc.(StraightBody)
	return b.straight(w, b.bulkChunk(), sb.Straight, func(err error) error {
		b.end(err)
		return b.err
	})
}

// CanGoStraight reports whether CopyBody(w, body, …) would have the
// kernel move body's bytes (a Resource's Body from a Client): w takes
// ReadFrom, the body is a local file or a StraightBody, and no rate limit
// or low-speed watch needs to see every read.
func CanGoStraight(w io.Writer, rc io.Reader) bool {
	b, ok := rc.(*body)
	return ok && b.canGoStraight(w)
}

func (b *body) canGoStraight(w io.Writer) bool {
	if _, rf := w.(io.ReaderFrom); !rf || b.pace.rate != nil || b.pace.slow != nil {
		return false
	}
	switch b.rc.(type) {
	case *os.File, StraightBody:
		return true
	}
	return false
}

// straight copies the body to w (a ReaderFrom) in chunks of at most chunk
// bytes read straight from src() (nil: one Read of the body through a
// small buffer, for bytes it holds already), checking the context, the
// size cap and progress between chunks; fail types an error of the copy.
// The end of src's bytes is the body's next Read (a StraightBody's
// protocol end), or io.EOF for a file.
func (b *body) straight(w io.Writer, chunk int64, src func() io.Reader, fail func(error) error) (int64, error) {
	var written int64
	sb, _ := b.rc.(StraightBody)
	var small []byte
	for b.err == nil && !b.isClosed() {
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
				n, err := b.rc.Read(one[:])
				if n > 0 {
					b.err = b.tooLarge()
				} else if err != nil {
					b.end(err)
				}
				continue
			}
			want = min(want, left)
		}
		r := src()
		if r == nil {
			// Bytes the fetcher holds (read with the reply's head): through
			// a buffer, then straight again.
			if small == nil {
				small = make([]byte, 32<<10)
			}
			// b.read records the end or an error in b.err.
			if n, _ := b.read(small[:min(int64(len(small)), want)]); n > 0 {
				m, werr := w.Write(small[:n])
				written += int64(m)
				if werr != nil {
					b.err = fail(werr)
				}
			}
			continue
		}
		lr := &io.LimitedReader{R: r, N: want}
		n, err := io.Copy(w, lr)
		written += n
		b.n += n
		b.pace.slow.add(int(n))
		if sb != nil {
			sb.Took(n)
		}
		if n > 0 {
			b.report()
		}
		switch {
		case err != nil:
			b.err = fail(err)
		case lr.N > 0 && sb != nil:
			// The connection ended: the fetcher's Read says how (io.EOF,
			// or its protocol's error).
			var one [1]byte
			if m, _ := b.read(one[:]); m > 0 {
				m, werr := w.Write(one[:m])
				written += int64(m)
				if werr != nil {
					b.err = fail(werr)
				}
			}
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

// copyLoop is WriteTo through Read, one buffer at a time (buf; nil: 256
// KiB).
func (b *body) copyLoop(w io.Writer, buf []byte) (int64, error) {
	if buf == nil {
		buf = make([]byte, 256<<10)
	}
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

// isClosed reports whether Close was called, making it the body's error
// when no other ended it before.
func (b *body) isClosed() bool {
	if !b.closed.Load() {
		return false
	}
	if b.err == nil {
		b.err = &Error{Kind: ErrOther, URL: b.url, Msg: "read from a closed body"}
	}
	return true
}

func (b *body) tooLarge() error {
	return &Error{Kind: ErrTooLarge, URL: b.url, Msg: "maximum file size exceeded"}
}

func (b *body) report() {
	if b.progress != nil {
		b.progress(b.n, b.size)
	}
}

// Close closes the fetcher's body, which ends a Read under way in another
// goroutine; later Reads fail (or give the end already reached).
func (b *body) Close() error {
	b.closed.Store(true)
	err := b.rc.Close()
	b.pace.slow.done()
	if b.stop != nil {
		b.stop()
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
