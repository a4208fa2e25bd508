package wais

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/wais/apdu"
)

// Limits on what the server sends.
const (
	// serverBuffer is freeWAIS-sf's message buffer (BUFSZ), and the size
	// this client announces in its Init.
	serverBuffer = 100000
	// maxMessage bounds a message from the server. freeWAIS-sf never sends
	// more than serverBuffer bytes; a header announcing more than this is
	// refused before anything is allocated for it.
	maxMessage = 1 << 20
	// readBufSize is the connection's read buffer.
	readBufSize = 64 << 10
)

// conn is one connection to a WAIS server: requests and replies strictly
// in order.
type conn struct {
	ctx     context.Context
	nc      net.Conn
	br      *bufio.Reader
	verbose io.Writer
	url     string

	msg       []byte // the last message read (reused)
	maxRecord int    // the server's message buffer
	asked     string // the request whose reply is awaited, for errors
}

func dial(ctx context.Context, cfg *fetch.Config, p *plan) (*conn, error) {
	nc, err := fetch.Connect(ctx, cfg.Dialer, p.addr, "wais: connecting to")
	if err != nil {
		return nil, err
	}
	fetch.Logf(cfg.Verbose, "* connected to %s", p.addr)
	c := &conn{ctx: ctx, nc: nc, verbose: cfg.Verbose, url: p.url, maxRecord: serverBuffer}
	// Closing the connection is what ends a read or a write stalled on a
	// server that does not answer: do it when the context ends.
	c.br = bufio.NewReaderSize(nc, readBufSize)
	return c, nil
}

func (c *conn) close() { c.nc.Close() }

// ioError types an error from the connection: the context's when it
// ended, ErrTimeout for a deadline, else ErrPartial (the server went away
// in the middle of the exchange).
func (c *conn) ioError(err error, doing string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = errServerClosed
		if c.asked != "" {
			err = fmt.Errorf("%w after %s", errServerClosed, c.asked)
		}
	}
	return fetch.IOError(c.ctx, err, "wais: "+doing)
}

// errServerClosed is wrapped by the error of a connection the server
// closed before its reply was complete.
var errServerClosed = errors.New("the server closed the connection")

func (c *conn) protocol(format string, a ...any) error {
	return &fetch.Error{Kind: fetch.ErrProtocol, URL: c.url, Msg: "wais: " + fmt.Sprintf(format, a...)}
}

func (c *conn) write(b []byte) error {
	if _, err := c.nc.Write(b); err != nil {
		return c.ioError(err, "sending a request")
	}
	return nil
}

// read reads one message and returns its APDU, valid until the next read.
// A zero-length APDU (the server could not answer) is returned as such.
func (c *conn) read() ([]byte, error) {
	var hb [apdu.HeaderLen]byte
	if _, err := io.ReadFull(c.br, hb[:]); err != nil {
		return nil, c.ioError(err, "reading a reply")
	}
	h, err := apdu.ParseHeader(hb[:])
	if err != nil {
		return nil, c.protocol("%v", err)
	}
	if h.Length > maxMessage {
		return nil, c.protocol("the server announces a message of %d bytes (the limit is %d)", h.Length, maxMessage)
	}
	n := int(h.Length)
	// Grow with what arrives, so that a header that lies costs nothing.
	c.msg = c.msg[:0]
	for len(c.msg) < n {
		k := min(n-len(c.msg), readBufSize)
		if cap(c.msg)-len(c.msg) < k {
			grown := make([]byte, len(c.msg), max(2*cap(c.msg), len(c.msg)+k))
			copy(grown, c.msg)
			c.msg = grown
		}
		m, err := io.ReadFull(c.br, c.msg[len(c.msg):len(c.msg)+k])
		c.msg = c.msg[:len(c.msg)+m]
		if err != nil {
			return nil, c.ioError(err, fmt.Sprintf("reading a reply (%d of %d bytes)", len(c.msg), n))
		}
	}
	return c.msg, nil
}

// initialize sends an Init and reads the answer. A server that refuses it
// (Result 0) or cannot read it (a zero-length reply) is used without one,
// as Lynx always does; an accepted Init gives the server's buffer size.
func (c *conn) initialize() error {
	fetch.Logf(c.verbose, "> Init (message size %d)", serverBuffer)
	c.asked = "the Init"
	if err := c.write(apdu.AppendInit(nil, serverBuffer, "urlget")); err != nil {
		return err
	}
	a, err := c.read()
	if err != nil {
		return err
	}
	if len(a) == 0 {
		fetch.Logf(c.verbose, "< (empty reply: the server does not take an Init; going on without)")
		return nil
	}
	r, err := apdu.ParseInitResponse(a)
	if err != nil {
		return c.protocol("reading the InitResponse: %v", err)
	}
	if !r.Accepted {
		fetch.Logf(c.verbose, "< InitResponse: refused (going on without an Init)")
		return nil
	}
	if r.MaxRecord > 0 && int(r.MaxRecord) < c.maxRecord {
		c.maxRecord = int(r.MaxRecord)
	}
	fetch.Logf(c.verbose, "< InitResponse: accepted, message size %d", r.MaxRecord)
	return nil
}
