package fetch

import (
	"bufio"
	"io"
	"sync"
)

// renderBuffer is the size of the buffer Buffered writes through.
const renderBuffer = 64 << 10

// Buffered runs render with a buffered writer in front of w, and body read
// ahead by a goroutine of its own: a renderer that writes one line per item
// then costs one write to w per buffer-full instead of one per item, the
// socket reads overlap the rendering, and the buffer is flushed whenever
// render has to wait for input, so a person watching a terminal sees every
// item that has arrived as soon as the input pauses. A failed write to w is
// an *Error of kind ErrWrite; read errors from body are returned as they
// are. Once render returns, body is no longer read: the caller closes it.
// When render read body to its end (io.EOF or a read error), the read-ahead
// goroutine has already stopped; when render returns before that (a failed
// write), it may still be inside one Read of body, and stops once that Read
// returns (the caller's Close of a network body ends it).
func Buffered(w io.Writer, body io.Reader, render func(w io.Writer, body io.Reader) error) error {
	bw := bufio.NewWriterSize(&writeErr{w: w}, renderBuffer)
	ra := readAhead(body)
	defer close(ra.done)
	err := render(bw, &flushWhenWaiting{ra: ra, w: bw})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// chunk is one read of the body: the bytes and the error it returned.
type chunk struct {
	b   []byte
	err error
}

// aheadReader reads a body in a goroutine, a few buffers ahead.
type aheadReader struct {
	full chan chunk
	free chan []byte
	done chan struct{}
}

const aheadBuffers = 4

func readAhead(r io.Reader) *aheadReader {
	ra := &aheadReader{full: make(chan chunk, aheadBuffers), free: make(chan []byte, aheadBuffers), done: make(chan struct{})}
	for range aheadBuffers {
		ra.free <- make([]byte, renderBuffer)
	}
	go func() {
		for {
			var buf []byte
			select {
			case buf = <-ra.free:
			case <-ra.done:
				return
			}
			n, err := r.Read(buf)
			select {
			case ra.full <- chunk{buf[:n], err}:
			case <-ra.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ra
}

// flushWhenWaiting hands out the read-ahead chunks, flushing w whenever the
// next chunk has not arrived yet.
type flushWhenWaiting struct {
	ra   *aheadReader
	w    *bufio.Writer
	cur  chunk
	rest []byte
	err  error
}

func (f *flushWhenWaiting) Read(p []byte) (int, error) {
	for len(f.rest) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		if f.cur.b != nil {
			f.ra.free <- f.cur.b[:cap(f.cur.b)]
			f.cur.b = nil
		}
		var c chunk
		select {
		case c = <-f.ra.full:
		default:
			if f.w.Buffered() > 0 {
				if err := f.w.Flush(); err != nil {
					return 0, err
				}
			}
			c = <-f.ra.full
		}
		f.cur, f.rest, f.err = c, c.b, c.err
	}
	n := copy(p, f.rest)
	f.rest = f.rest[n:]
	return n, nil
}

// writeErr marks write errors as ErrWrite, so that a renderer's caller
// tells them from read errors.
type writeErr struct{ w io.Writer }

func (e *writeErr) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil {
		if _, ok := err.(*Error); !ok {
			err = &Error{Kind: ErrWrite, Msg: "writing the output", Err: err}
		}
	}
	return n, err
}

// SyncWriter serialises writes to W from several goroutines (a verbose log
// shared by parallel connections).
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}
