package gopher

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/internal/lineproto"
)

// dotMode says how the "." line of RFC 1436 is treated in a reply.
type dotMode = lineproto.DotMode

const (
	dotNone   = lineproto.DotNone   // no dot processing: bytes as received
	dotEnd    = lineproto.DotEnd    // a lone "." line ends the data (menus, Gopher+ +-1)
	dotAuto   = lineproto.DotAuto   // a lone "." line ends the data only when it is the last line
	dotStrict = lineproto.DotStrict // RFC 1436 text: a lone "." ends it, ".." at a line start is unstuffed
)

// newDotReader streams a reply up to its "." line (lineproto.DotReader); with
// requireTerm, the end of input without it is a partial transfer.
func newDotReader(br *bufio.Reader, mode dotMode, requireTerm bool, what string) *lineproto.DotReader {
	d := lineproto.NewDotReader(br, mode)
	if requireTerm {
		d.Unterminated = func() error {
			return &fetch.Error{Kind: fetch.ErrPartial, Msg: "gopher: the server closed the connection before the \".\" line that ends the " + what}
		}
	}
	return d
}

// exactReader reads exactly n bytes (Gopher+ "+N"): fewer is a partial
// transfer.
type exactReader struct {
	r     io.Reader
	left  int64
	total int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		return n, &fetch.Error{Kind: fetch.ErrPartial, Msg: "gopher: the server announced " + strconv.FormatInt(e.total, 10) +
			" bytes (Gopher+ header) and closed the connection after " + strconv.FormatInt(e.total-e.left, 10)}
	}
	if e.left <= 0 && err == nil {
		err = io.EOF
	}
	return n, err
}

// netReader reads from the connection and turns errors other than io.EOF
// into typed fetch errors: the context's when it ended (the connection is
// closed then), ErrTimeout for a deadline, ErrPartial otherwise.
type netReader struct {
	ctx context.Context
	c   net.Conn
}

func (r netReader) Read(p []byte) (int, error) {
	n, err := r.c.Read(p)
	if err != nil && err != io.EOF {
		err = ioError(r.ctx, err, "reading the reply")
	}
	return n, err
}

func ioError(ctx context.Context, err error, doing string) error {
	return fetch.IOError(ctx, err, "gopher: "+doing)
}

// body is a Resource body: reading goes through the framing readers,
// closing closes the connection.
type body struct {
	r    io.Reader
	c    *conn
	once sync.Once
}

func (b *body) Read(p []byte) (int, error) { return b.r.Read(p) }

// Straight is the connection itself (fetch.StraightBody) when the body is
// the rest of it as received (an item read to its end, a raw reply) and
// nothing of it is buffered; nil otherwise.
func (b *body) Straight() io.Reader {
	if b.r != io.Reader(b.c.br) || b.c.br.Buffered() > 0 {
		return nil
	}
	return fetch.StraightConn(b.c.nc)
}

// Took does nothing: the body counts no bytes.
func (b *body) Took(int64) {}

func (b *body) Close() error {
	b.once.Do(func() { b.c.close() })
	return nil
}
