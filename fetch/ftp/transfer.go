package ftp

import (
	"context"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/urlget/urlget/fetch"
)

// A Transfer is one data transfer on a Conn (RETR, LIST, MLSD, NLST, STOR,
// APPE) over
// a passive data connection, jlaffaye's ServerConn.Retr in two halves so
// that a caller can pipeline: Retr and List send the command and return at
// once, more commands may then be sent (Conn.Send) while the server works,
// Start reads the command's first reply, Read streams the data (each read
// waits at most the Conn's timeout: a transfer may be long, not stalled),
// (Write sends it, for Stor), and Finish closes the data connection and
// reads the final reply.
//
// A refusal is a reply, as with Cmd (see RefusedError). Errors are typed;
// after a Read error, Finish still reads the final reply and keeps the Conn
// in step, while an error from Start or Finish means the Conn is not
// usable any more. Close ends the data connection without reading the
// final reply, for a caller that gives up on the Conn.
type Transfer struct {
	c       *Conn
	ctx     context.Context
	data    net.Conn
	cancel  context.CancelFunc
	verb    string
	arg     string
	first   *Reply // Start's reply
	started bool
	done    bool
}

// Retr asks for the file name (in the current directory) over a data
// connection to addr (from Passive). An offset > 0 is sent as REST first,
// and its reply (350) awaited: a refused REST is ErrResume, since a RETR
// sent with it would start from the beginning.
func (c *Conn) Retr(ctx context.Context, addr, name string, offset int64) (*Transfer, error) {
	if offset > 0 {
		rest := strconv.FormatInt(offset, 10)
		r, err := c.Cmd("REST", rest)
		if err != nil {
			return nil, err
		}
		if r.code != 350 {
			return nil, replyError(fetch.ErrResume, "ftp: the server cannot resume (REST "+rest+")", "REST", r)
		}
	}
	return c.startData(ctx, addr, "RETR", name)
}

// List asks for a listing of the current directory with verb (LIST, MLSD
// or NLST) and arg ("" for none) over a data connection to addr.
func (c *Conn) List(ctx context.Context, addr, verb, arg string) (*Transfer, error) {
	return c.startData(ctx, addr, verb, arg)
}

// Stor stores what is written to the Transfer as the file name (in the
// current directory), APPE instead of STOR when appending, over a data
// connection to addr. Finish ends the data, and its reply says whether the
// server kept them.
func (c *Conn) Stor(ctx context.Context, addr, name string, appending bool) (*Transfer, error) {
	verb := "STOR"
	if appending {
		verb = "APPE"
	}
	return c.startData(ctx, addr, verb, name)
}

// startData opens the data connection and sends the command. A data
// connection that is only read has its write side shut at once, so that
// servers that wait for the client's end before their final reply
// (vsftpd, ProFTPD: a lingering close) do not wait a round trip for it.
func (c *Conn) startData(ctx context.Context, addr, verb, arg string) (*Transfer, error) {
	dctx, cancel := context.WithCancel(ctx)
	if c.timeout > 0 {
		t := time.AfterFunc(c.timeout, cancel)
		defer t.Stop()
	}
	dc, err := c.DialData(dctx, addr)
	if err != nil {
		cancel()
		return nil, err
	}
	if tc, ok := netConn(dc).(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 20)
	}
	if cw, ok := dc.(interface{ CloseWrite() error }); ok && verb != "STOR" && verb != "APPE" {
		cw.CloseWrite()
	}
	t := &Transfer{c: c, ctx: ctx, data: dc, cancel: cancel, verb: verb, arg: arg}
	if err := c.Send(Command{Verb: verb, Arg: arg}); err != nil {
		t.closeData()
		return nil, err
	}
	return t, nil
}

// netConn is the connection under a Client dialer's wrappers.
func netConn(c net.Conn) net.Conn {
	for {
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return c
		}
		c = u.NetConn()
	}
}

// Start reads the command's first reply: 1xx, the data follow; 2xx, they
// came already; anything else is a refusal (the data connection is then
// closed). Replies to commands sent before the transfer's are the caller's
// to read first.
func (t *Transfer) Start() (*Reply, error) {
	if t.started {
		return t.first, nil
	}
	t.started = true
	r, err := t.c.ReadReply()
	if err != nil {
		t.closeData()
		return nil, err
	}
	t.first = r
	if !r.Preliminary() && !r.Positive() {
		t.closeData()
		t.done = true
	}
	return r, nil
}

// Read reads the data. A failure of the data connection is ErrTimeout
// (stalled longer than the Conn's timeout) or ErrPartial.
func (t *Transfer) Read(p []byte) (int, error) {
	if t.c.timeout > 0 {
		t.data.SetReadDeadline(time.Now().Add(t.c.timeout))
	}
	n, err := t.data.Read(p)
	if err != nil && err != io.EOF {
		what := t.verb
		if t.verb == "RETR" {
			what += " " + strconv.Quote(t.arg)
		}
		return n, dataError(t.ctx, what, err)
	}
	return n, err
}

// Write sends data (Stor), once Start's reply said the server takes them.
// A failure is ErrUpload.
func (t *Transfer) Write(p []byte) (int, error) {
	if t.c.timeout > 0 {
		t.data.SetWriteDeadline(time.Now().Add(t.c.timeout))
	}
	n, err := t.data.Write(p)
	if err != nil {
		if t.ctx.Err() != nil {
			return n, fetch.ContextError(t.ctx)
		}
		return n, &fetch.Error{Kind: fetch.ErrUpload, Msg: "ftp: " + t.verb + " " + strconv.Quote(t.arg) + ": data connection failed", Err: err}
	}
	return n, nil
}

// Finish closes the data connection and returns the server's final reply
// (Start's, when that was final already). Some servers (ProFTPD) send it
// only once the client closed the data connection.
func (t *Transfer) Finish() (*Reply, error) {
	if _, err := t.Start(); err != nil {
		return nil, err
	}
	t.closeData()
	if t.done || !t.first.Preliminary() {
		t.done = true
		return t.first, nil
	}
	t.done = true
	return t.c.ReadReply()
}

// Close closes the data connection (again, after Finish).
func (t *Transfer) Close() error {
	t.closeData()
	return nil
}

func (t *Transfer) closeData() {
	t.data.Close()
	t.cancel()
}
