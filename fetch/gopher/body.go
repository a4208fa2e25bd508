package gopher

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/urlget/urlget/fetch"
)

// dotMode says how the "." line of RFC 1436 is treated in a reply.
type dotMode int

const (
	dotNone   dotMode = iota // no dot processing: bytes as received
	dotEnd                   // a lone "." line ends the data (menus, Gopher+ +-1)
	dotAuto                  // a lone "." line ends the data only when it is the last line
	dotStrict                // RFC 1436 text: a lone "." ends it, ".." at a line start is unstuffed
)

// dotReader streams the data of a reply up to its "." terminator, in
// constant memory: lines longer than the buffer pass through in pieces.
// Line ends are passed on as the server sent them.
type dotReader struct {
	br          *bufio.Reader
	mode        dotMode
	requireTerm bool // the end of input without the "." is a partial transfer
	what        string

	atStart    bool
	pending    []byte
	dot        [3]byte // a lone "." line held while looking past it
	done       bool
	terminated bool
	err        error
}

func newDotReader(br *bufio.Reader, mode dotMode, requireTerm bool, what string) *dotReader {
	return &dotReader{br: br, mode: mode, requireTerm: requireTerm, what: what, atStart: true}
}

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
			if n > 0 && d.br.Buffered() == 0 {
				return n, nil // hand out what we have rather than block
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

func isLoneDot(line []byte) bool {
	s := string(line)
	return s == ".\r\n" || s == ".\n" || s == "."
}

func (d *dotReader) fill() {
	line, err := d.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		if d.atStart && d.mode == dotStrict && line[0] == '.' {
			line = line[1:]
		}
		d.atStart = false
		d.pending = line
		return
	case err == io.EOF:
		d.done = true
		if len(line) > 0 {
			if d.atStart && d.mode != dotNone && isLoneDot(line) {
				d.terminated = true
				return
			}
			if d.atStart && d.mode == dotStrict && line[0] == '.' {
				line = line[1:]
			}
			d.pending = line
		}
		if d.requireTerm && !d.terminated {
			d.err = &fetch.Error{Kind: fetch.ErrPartial, Msg: "gopher: the server closed the connection before the \".\" line that ends the " + d.what}
			d.done = false
		}
		return
	case err != nil:
		d.err = err
		return
	}
	if d.atStart && d.mode != dotNone && isLoneDot(line) {
		switch d.mode {
		case dotEnd, dotStrict:
			d.done, d.terminated = true, true
			return
		case dotAuto:
			// Only the last line: servers that send no terminator (and do
			// not dot-stuff) may have a lone "." inside a text. The line
			// is copied first: Peek may move the buffer under it.
			n := copy(d.dot[:], line)
			line = d.dot[:n]
			if _, perr := d.br.Peek(1); perr != nil {
				d.done, d.terminated = true, true
				return
			}
		}
	} else if d.atStart && d.mode == dotStrict && line[0] == '.' {
		line = line[1:]
	}
	d.atStart = true
	d.pending = line
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

func (b *body) Close() error {
	b.once.Do(func() { b.c.close() })
	return nil
}
