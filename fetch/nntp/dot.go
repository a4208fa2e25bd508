package nntp

import (
	"bufio"
	"io"
	"sync"
)

// dotReader streams the data of a multi-line reply (RFC 3977 §3.1.1) with
// dot-stuffing undone and the terminating "." line removed. Line ends are
// passed through as the server sent them (CRLF). It never holds more than
// the connection's read buffer: a line longer than the buffer is passed on
// in pieces, so article lines have no length limit and memory stays
// bounded whatever the server sends.
type dotReader struct {
	c         *conn
	atStart   bool   // the next byte starts a line
	pending   []byte // bytes of the read buffer still to hand out
	done      bool   // the terminator was seen
	err       error  // sticky error
	onTermEOF func() // called once when the terminator is seen
}

func newDotReader(c *conn) *dotReader { return &dotReader{c: c, atStart: true} }

func (d *dotReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(d.pending) == 0 {
			if d.err != nil {
				return n, d.err
			}
			if d.done {
				return n, io.EOF
			}
			if n > 0 && d.c.br.Buffered() == 0 {
				// Hand out what we have rather than block for more.
				return n, nil
			}
			d.fill()
			continue
		}
		k := copy(p[n:], d.pending)
		d.pending = d.pending[k:]
		n += k
	}
	return n, nil
}

// fill reads the next line, or the next piece of a long line.
func (d *dotReader) fill() {
	line, err := d.c.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		// A piece of a line longer than the buffer: a terminator is never
		// this long, so only a leading stuffed dot needs undoing.
		if d.atStart && line[0] == '.' {
			line = line[1:]
		}
		d.atStart = false
		d.pending = line
	case err != nil:
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		d.err = d.c.ioError(err, "reading the article")
	default:
		if d.atStart && line[0] == '.' {
			if string(line) == ".\r\n" || string(line) == ".\n" {
				d.done = true
				if d.onTermEOF != nil {
					d.onTermEOF()
				}
				return
			}
			line = line[1:]
		}
		d.atStart = true
		d.pending = line
	}
}

// body is a Resource body backed by the session: closing it ends the
// session (QUIT when the reply was read to its end, a plain close
// otherwise).
type body struct {
	r    io.Reader
	c    *conn
	once sync.Once
	// complete reports whether the server's reply was read to its end.
	complete func() bool
}

func (b *body) Read(p []byte) (int, error) { return b.r.Read(p) }

func (b *body) Close() error {
	b.once.Do(func() {
		if b.complete != nil && b.complete() {
			b.c.quit()
		} else {
			b.c.close()
		}
	})
	return nil
}
