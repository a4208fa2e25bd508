package fetch

import (
	"bufio"
	"io"
	"sync"
)

// renderBuffer is the size of the buffer Buffered writes through.
const renderBuffer = 64 << 10

// Buffered runs render with a buffered writer in front of w and a body that
// flushes that buffer whenever render goes back to body for more input: a
// renderer that writes one line per item then costs one write to w per
// buffer-full instead of one per item, and a person watching a terminal
// still sees every item that has arrived as soon as the input pauses. A
// failed write to w is an *Error of kind ErrWrite; read errors from body
// are returned as they are.
func Buffered(w io.Writer, body io.Reader, render func(w io.Writer, body io.Reader) error) error {
	bw := bufio.NewWriterSize(&writeErr{w: w}, renderBuffer)
	err := render(bw, &flushFirst{r: body, w: bw})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// flushFirst flushes w before each read from r.
type flushFirst struct {
	r io.Reader
	w *bufio.Writer
}

func (f *flushFirst) Read(p []byte) (int, error) {
	if f.w.Buffered() > 0 {
		if err := f.w.Flush(); err != nil {
			return 0, err
		}
	}
	return f.r.Read(p)
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
