package nntp

import (
	"io"
	"sync"

	"github.com/urlget/urlget/fetch/internal/lineproto"
)

// newDotReader streams the data of a multi-line reply (RFC 3977 §3.1.1)
// with dot-stuffing undone and the terminating "." line removed
// (lineproto.DotReader): line ends as the server sent them, memory bounded by
// the connection's read buffer whatever the line lengths.
func newDotReader(c *conn) *lineproto.DotReader {
	d := lineproto.NewDotReader(c.br, lineproto.DotStrict)
	d.Unterminated = func() error { return c.ioError(io.ErrUnexpectedEOF, "reading the article") }
	d.ReadError = func(err error) error { return c.ioError(err, "reading the article") }
	return d
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
