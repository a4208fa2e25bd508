package ftp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// A Transfer is one data transfer on a Conn (RETR, LIST, MLSD, NLST, STOR,
// APPE), jlaffaye's ServerConn.Retr in two halves so that a caller can
// pipeline: Retr and List send the command and return at once, more
// commands may then be sent (Conn.Send) while the server works, Start
// reads the command's first reply, Read streams the data (each read waits
// at most the Conn's timeout: a transfer may be long, not stalled), (Write
// sends it, for Stor), and Finish closes the data connection and reads the
// final reply. It is the one FTP data path: the Fetcher and the mirror both
// transfer through it.
//
// The data connection is passive, to the address a caller got from Passive
// (so that EPSV can be pipelined), or, when that address is "", one the
// Conn sets up itself just before the command: passive (OpenPassive), or
// active (EPRT, else PORT) once SetActive named where to listen; in active
// mode Start accepts the server's connection after its 1xx reply.
//
// A refusal is a reply, as with Cmd (see RefusedError). Errors are typed;
// after a Read error, Finish still reads the final reply and keeps the Conn
// in step, while an error from Start or Finish means the Conn is not
// usable any more. Close ends the data connection without reading the
// final reply, for a caller that gives up on the Conn.
type Transfer struct {
	c         *Conn
	ctx       context.Context
	dctx      context.Context // the data connection's: ctx, ended by closeData
	data      net.Conn        // nil until an active connection is accepted, or when none came
	bulk      *fetch.LowWater // data read to its end: tune (nil: plain reads)
	ln        *dataConn       // active mode: listening until Start accepts
	cancel    context.CancelFunc
	verb      string
	arg       string
	what      string // how errors name the transfer
	offset    int64  // the REST offset in force
	first     *Reply // Start's reply
	n         int64  // bytes of data read (Read, and took for bytes read past it)
	sizes     []statedSize
	unsized   bool // no size stated is checked (fetch.OptIgnoreLength)
	started   bool
	done      bool
	halfClose bool // tune shuts the write side of a download's data connection
	closed    bool // closeData ran
}

// Retr asks for the file name (in the current directory) over a data
// connection to addr (from Passive; "" to let the Conn set it up). An
// offset > 0 is sent as REST first, and its reply (350) awaited: a refused
// REST is ErrResume, since a RETR sent with it would start from the
// beginning.
func (c *Conn) Retr(ctx context.Context, addr, name string, offset int64) (*Transfer, error) {
	return c.transfer(ctx, addr, "RETR", name, offset, true)
}

// RetrOrRestart is Retr, except that a refused REST is not an error: the
// whole file comes then, and Offset says so (0).
func (c *Conn) RetrOrRestart(ctx context.Context, addr, name string, offset int64) (*Transfer, error) {
	return c.transfer(ctx, addr, "RETR", name, offset, false)
}

// List asks for a listing of the current directory with verb (LIST, MLSD
// or NLST) and arg ("" for none) over a data connection to addr (from
// Passive; "" to let the Conn set it up).
func (c *Conn) List(ctx context.Context, addr, verb, arg string) (*Transfer, error) {
	return c.transfer(ctx, addr, verb, arg, 0, true)
}

// Stor stores what is written to the Transfer as the file name (in the
// current directory), APPE instead of STOR when appending, over a data
// connection to addr (from Passive; "" to let the Conn set it up). Finish
// ends the data, and its reply says whether the server kept them.
func (c *Conn) Stor(ctx context.Context, addr, name string, appending bool) (*Transfer, error) {
	verb := "STOR"
	if appending {
		verb = "APPE"
	}
	return c.transfer(ctx, addr, verb, name, 0, true)
}

// transfer prepares the data connection, sends REST when offset > 0, and
// sends the command. A data connection the Conn sets up itself is opened
// before REST (REST must come right before its RETR); one to a given addr
// is dialled after it.
func (c *Conn) transfer(ctx context.Context, addr, verb, arg string, offset int64, strict bool) (*Transfer, error) {
	var t *Transfer
	if addr == "" {
		var err error
		if t, err = c.openTransfer(ctx, Command{Verb: verb, Arg: arg}); err != nil {
			return nil, err
		}
	} else {
		t = c.newTransfer(ctx)
	}
	t.halfClose = true
	if err := t.command(addr, verb, arg, offset, strict); err != nil {
		return nil, err
	}
	return t, nil
}

// newTransfer is a Transfer with no data connection and no command yet.
func (c *Conn) newTransfer(ctx context.Context) *Transfer {
	dctx, cancel := context.WithCancel(ctx)
	return &Transfer{c: c, ctx: ctx, dctx: dctx, cancel: cancel}
}

// openTransfer sets up the data connection of a transfer whose command,
// cmd, comes later (command): passive (PRET cmd with ftp-pret, EPSV, then
// PASV, and the connection) or active (EPRT, then PORT, and the
// listener), so that TYPE, SIZE and the like can be sent between, in
// curl's order.
func (c *Conn) openTransfer(ctx context.Context, cmd Command) (*Transfer, error) {
	t := c.newTransfer(ctx)
	d, err := c.openData(t.dctx, cmd)
	if err != nil {
		t.closeData()
		return nil, err
	}
	t.data, t.ln = d.conn, d
	if d.ln == nil {
		t.ln = nil
	}
	return t, nil
}

// command sends REST when offset > 0 (a refusal is ErrResume when strict,
// else the whole file comes) and the transfer command, dialling addr
// after REST when the Transfer has no data connection of its own. On an
// error the data connection is closed.
func (t *Transfer) command(addr, verb, arg string, offset int64, strict bool) error {
	c := t.c
	t.verb, t.arg, t.what = verb, arg, verb
	if verb == "RETR" || verb == "STOR" || verb == "APPE" {
		t.what += " " + strconv.Quote(arg)
	}
	fail := func(err error) error {
		t.closeData()
		return err
	}
	if offset > 0 {
		rest := strconv.FormatInt(offset, 10)
		r, err := c.Cmd("REST", rest)
		if err != nil {
			return fail(err)
		}
		if r.code != 350 {
			if strict {
				return fail(replyError(fetch.ErrResume, "ftp: the server cannot resume (REST "+rest+")", "REST", r))
			}
			offset = 0 // the whole file
		}
	}
	t.offset = offset
	if addr != "" {
		if c.timeout > 0 {
			tm := time.AfterFunc(c.timeout, t.cancel)
			defer tm.Stop()
		}
		dc, err := c.DialData(t.dctx, addr)
		if err != nil {
			return fail(err)
		}
		t.data = dc
	}
	if t.data != nil {
		t.tune()
	}
	if err := c.Send(Command{Verb: verb, Arg: arg}); err != nil {
		return fail(err)
	}
	return nil
}

// tune readies a data connection that is only read for bulk: a large
// receive buffer, reads woken for large chunks (stream mode: the server
// closes the data connection at the end), and, for Conn's Retr and List
// (halfClose), the write side shut at once, so that servers that wait for
// the client's end before their final reply (vsftpd, ProFTPD: a lingering
// close) do not wait a round trip for it. The Fetcher's transfers keep it
// open, as curl does: a server may take the client's end as the end of
// the transfer and stop sending (curl's test server does).
func (t *Transfer) tune() {
	if t.verb == "STOR" || t.verb == "APPE" {
		return
	}
	t.bulk = fetch.ReadToEnd(t.data) // the receive buffer set with the mark
	if tc, ok := fetch.ConnLayer[*net.TCPConn](t.data); ok && t.bulk == nil {
		tc.SetReadBuffer(fetch.LowWaterBuffer) // TLS too, where ReadToEnd does nothing
	}
	if _, isTLS := t.data.(*tls.Conn); !t.halfClose || isTLS {
		// TLS: the close_notify would end the server's side too.
		return
	}
	if cw, ok := t.data.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
}

// statedSize is a size of the whole file the server stated, and where.
type statedSize struct {
	size int64
	by   string // "SIZE", "the listing", "the 150 reply"
}

// ErrWrongSize is in the error of a transfer whose data were not the size
// the server had stated (Expect, the 150 reply): a cut data connection
// that the server's final reply did not see, or a file that changed.
var ErrWrongSize = errors.New("the data are not the size the server stated")

// Expect tells the transfer the size of the whole file as the server
// stated it before the transfer (by: "SIZE", "the listing"): its data
// must be the bytes from Offset to that size, which Finish checks. A RETR
// in TYPE I from the start checks the 150 reply's "(N bytes)" on its own
// (vsftpd, ProFTPD and wu-ftpd write it; curl reads it).
func (t *Transfer) Expect(size int64, by string) {
	if size >= 0 {
		t.sizes = append(t.sizes, statedSize{size, by})
	}
}

// ParseSize is the size a reply to SIZE gives (213 N); false for any
// other reply.
func ParseSize(r *Reply) (int64, bool) {
	if r == nil || r.code != 213 {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(r.Text()), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// openingBytes is the size at the end of a 150 reply: "Opening BINARY
// mode data connection for f (33983 bytes)."
var openingBytes = regexp.MustCompile(`\((\d{1,19}) bytes\)\.?\s*$`)

// noteOpening takes the size from a RETR's 150 reply. It counts the file
// as stored: only a binary transfer from the start (no REST: servers
// differ on whether they count from the offset) is checked against it.
func (t *Transfer) noteOpening(r *Reply) {
	if t.verb != "RETR" || !r.Preliminary() || t.c.typ != 'i' || t.offset != 0 || len(r.lines) == 0 {
		return
	}
	if m := openingBytes.FindStringSubmatch(r.lines[len(r.lines)-1]); m != nil {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			t.Expect(n, "the 150 reply")
		}
	}
}

// took counts n bytes of data read past Read (straight from the data
// connection).
func (t *Transfer) took(n int64) { t.n += n }

// checkSize is ErrPartial (with ErrWrongSize) when the data read are not
// every size the server stated: short or long.
func (t *Transfer) checkSize() error {
	if t.unsized {
		return nil
	}
	for _, s := range t.sizes {
		want := s.size - t.offset
		if t.n == want {
			continue
		}
		msg := fmt.Sprintf("ftp: %s: transfer closed with %d bytes remaining to read (%s: %d bytes)", t.what, want-t.n, s.by, s.size)
		if t.n > want {
			msg = fmt.Sprintf("ftp: %s: %d bytes more than the server stated (%s: %d bytes)", t.what, t.n-want, s.by, s.size)
		}
		return &fetch.Error{Kind: fetch.ErrPartial, Msg: msg, Err: ErrWrongSize}
	}
	return nil
}

// Offset is the offset the data start at: Retr's, or 0 when RetrOrRestart
// met a refused REST.
func (t *Transfer) Offset() int64 { return t.offset }

// Start reads the command's first reply: 1xx, the data follow; 2xx, they
// came already; anything else is a refusal (the data connection is then
// closed). In active mode a 1xx is followed by the server's connection,
// awaited at most the Conn's accept timeout; a 2xx without a 1xx means no
// connection and no data. Replies to commands sent before the transfer's
// are the caller's to read first.
func (t *Transfer) Start() (*Reply, error) {
	r, err := t.start()
	if err != nil {
		return nil, t.c.ioError(t.verb, err)
	}
	return r, nil
}

// start is Start with the control connection's own errors untyped.
func (t *Transfer) start() (*Reply, error) {
	if t.started {
		return t.first, nil
	}
	t.started = true
	r, err := t.c.readReply()
	if err != nil {
		t.closeData()
		return nil, err
	}
	t.first = r
	t.noteOpening(r)
	if !r.Preliminary() && !r.Positive() {
		t.closeData()
		t.done = true
		return r, nil
	}
	if t.ln != nil {
		ln := t.ln
		t.ln = nil
		if r.Positive() {
			ln.close() // no 1xx: the server will not connect
			return r, nil
		}
		nc, err := ln.acceptWatching(t.ctx, t.c, t.c.acceptTimeout)
		if fe, ok := err.(*fetch.Error); ok && fe.Kind == fetch.ErrAccept {
			// The server gave up and said so: its final reply is read,
			// the session is in step (curl then sends QUIT).
			ln.close()
			t.closeData()
			t.done = true
			return nil, err
		}
		if err != nil {
			ln.close()
			t.closeData()
			t.c.broken = true
			return nil, err
		}
		t.data = t.c.dataConnTLS(nc)
		t.tune()
	}
	if r.Preliminary() && t.data != nil {
		// The server starts the data connection's TLS once it has
		// taken the command.
		if t.c.timeout > 0 {
			t.data.SetDeadline(time.Now().Add(t.c.timeout))
		}
		err := handshakeData(t.dctx, t.data, "ftp: "+t.what+": data connection")
		if err == nil {
			t.data.SetDeadline(time.Time{})
		} else {
			t.closeData()
			t.c.broken = true // the server's reply to the failed transfer is still due
			return nil, err
		}
	}
	return r, nil
}

// HasData reports whether the transfer has a data connection: false in
// active mode when the server gave its final reply without connecting.
func (t *Transfer) HasData() bool { return t.data != nil }

// Read reads the data. A failure of the data connection is ErrTimeout
// (stalled longer than the Conn's timeout) or ErrPartial.
func (t *Transfer) Read(p []byte) (int, error) {
	if t.data == nil {
		return 0, io.EOF
	}
	if t.c.timeout > 0 {
		t.data.SetReadDeadline(time.Now().Add(t.c.timeout))
	}
	n, err := t.bulk.Read(t.data, p, fetch.BulkReadSize)
	t.n += int64(n)
	if err != nil && err != io.EOF {
		return n, dataError(t.ctx, t.what, err)
	}
	return n, err
}

// Write sends data (Stor), once Start's reply said the server takes them
// — or, on a passive data connection (open from the start), before Start:
// a small file fits in the socket buffers, and Finish then ends the data
// before it reads the replies (a refusal among them), a round trip less.
// A failure is ErrUpload.
func (t *Transfer) Write(p []byte) (int, error) {
	if t.data == nil {
		return 0, &fetch.Error{Kind: fetch.ErrUpload, Msg: "ftp: " + t.what + ": no data connection"}
	}
	if t.c.timeout > 0 {
		t.data.SetWriteDeadline(time.Now().Add(t.c.timeout))
	}
	n, err := t.data.Write(p)
	if err != nil {
		if t.ctx.Err() != nil {
			return n, fetch.ContextError(t.ctx)
		}
		return n, &fetch.Error{Kind: fetch.ErrUpload, Msg: "ftp: " + t.what + ": data connection failed", Err: err}
	}
	return n, nil
}

// Finish closes the data connection and returns the server's final reply
// (Start's, when that was final already). Some servers (ProFTPD) send it
// only once the client closed the data connection. For Stor, a data
// connection that fails to close is ErrUpload. When the final reply is
// positive but the data read were not the size the server stated
// (Expect, the 150 reply), the error is ErrPartial with ErrWrongSize,
// and the Conn is in step: only the file failed.
func (t *Transfer) Finish() (*Reply, error) {
	r, err := t.finish()
	if err != nil {
		return nil, t.c.ioError(t.verb, err)
	}
	if r.Positive() {
		if err := t.checkSize(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// finish is Finish with the control connection's own errors untyped.
func (t *Transfer) finish() (*Reply, error) {
	upload := t.verb == "STOR" || t.verb == "APPE"
	if upload && t.data != nil && !t.closed {
		// An upload of nothing: the TLS handshake is still due, or the
		// server takes the closed connection for a failed one.
		if err := handshakeData(t.dctx, t.data, "ftp: "+t.what+": data connection"); err != nil {
			t.done = true
			t.c.broken = true
			t.closeData()
			return nil, err
		}
	}
	if upload && !t.started && t.data != nil && !t.closed {
		// Data written before the first reply was read (a passive
		// connection, open already): their end goes first, since the
		// server may read them all before it says anything.
		if err := t.closeData(); err != nil {
			t.done = true
			t.c.broken = true
			return nil, &fetch.Error{Kind: fetch.ErrUpload, Msg: "ftp: " + t.verb + ": closing the data connection", Err: err}
		}
	}
	if _, err := t.start(); err != nil {
		return nil, err
	}
	if err := t.closeData(); err != nil && upload && !t.done {
		t.done = true
		t.c.broken = true
		return nil, &fetch.Error{Kind: fetch.ErrUpload, Msg: "ftp: " + t.verb + ": closing the data connection", Err: err}
	}
	if t.done || !t.first.Preliminary() {
		t.done = true
		return t.first, nil
	}
	t.done = true
	return t.c.readReply()
}

// Abort ends a transfer before its end, as curl does once a range has
// arrived: it closes the data connection, sends ABOR (RFC 959 §4.1.3) and
// reads the transfer's final reply, whatever it is (426 when aborted, 226
// when it had ended), then ABOR's (226, or 225 when no transfer was left).
// It returns ABOR's reply; an error means the Conn is not usable any more.
func (t *Transfer) Abort() (*Reply, error) {
	t.closeData()
	if t.done {
		return nil, nil
	}
	t.done = true
	if err := t.c.send("ABOR", "", false); err != nil {
		return nil, t.c.ioError("ABOR", err)
	}
	var r *Reply
	var err error
	for t.c.Pending() > 0 && err == nil {
		r, err = t.c.readReply()
	}
	if err != nil {
		return nil, t.c.ioError("ABOR", err)
	}
	return r, nil
}

// closeUnused closes the data connection of a Transfer whose command was
// never sent: the request ended before it (a HEAD-like answer, a refusal).
func (t *Transfer) closeUnused() {
	if t.verb == "" {
		t.closeData()
	}
}

// Close closes the data connection (again, after Finish).
func (t *Transfer) Close() error {
	t.closeData()
	return nil
}

func (t *Transfer) closeData() error {
	var err error
	if t.data != nil && !t.closed {
		err = t.data.Close()
		t.closed = true
	}
	if t.ln != nil {
		t.ln.close()
	}
	t.cancel()
	return err
}
