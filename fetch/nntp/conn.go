package nntp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/internal/lineproto"
)

// Limits on what the client accepts from a server. A reply longer than
// these is refused (ErrProtocol) instead of being buffered.
const (
	// MaxReplyLine bounds a status line (RFC 3977 §3.1 allows 512 octets).
	MaxReplyLine = 4096
	// MaxDataLine bounds one line of a listing (overview, LIST, headers read
	// for the HEAD fallback). Article bodies have no line limit: they are
	// passed through in pieces of at most the buffer size.
	MaxDataLine = 64 << 10
	// maxQuote bounds how much of a server line an error message quotes.
	maxQuote = 160
	// bufSize is the read buffer: every line the client parses fits in it.
	bufSize = MaxDataLine + 2
)

func newReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, bufSize) }

// reply is one status line: a three-digit code and the text after it.
type reply struct {
	code int
	line string // the whole line, without its CRLF
}

func (r reply) text() string {
	if len(r.line) > 4 {
		return r.line[4:]
	}
	return ""
}

// conn is one NNTP session.
type conn struct {
	ctx     context.Context
	nc      net.Conn
	br      *bufio.Reader
	verbose io.Writer
	req     *fetch.Request
	host    string // as the user named it, for URLs and TLS
	port    int
	tls     bool // the session is encrypted
	tlsCfg  *tls.Config

	caps       map[string][]string // CAPABILITIES, nil when unknown
	modeReader bool                // MODE READER was sent
	authed     bool                // AUTHINFO was attempted
	closed     bool
}

// dial connects, reads the greeting and prepares the session for reading
// (capabilities, MODE READER, STARTTLS); it does not authenticate until the
// server asks (480).
func dial(ctx context.Context, cfg *fetch.Config, req *fetch.Request, host string, port int, implicitTLS bool) (*conn, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	nc, err := fetch.Connect(ctx, cfg.Dialer, addr, "nntp: connect to")
	if err != nil {
		return nil, err
	}
	c := &conn{ctx: ctx, nc: nc, verbose: cfg.Verbose, tlsCfg: cfg.TLS, req: req, host: host, port: port}
	// Cancelling the context closes the connection, which ends any read or
	// write in progress, including reads of a body already returned.
	if implicitTLS {
		if err := c.handshake(); err != nil {
			c.close()
			return nil, err
		}
	} else {
		c.br = newReader(nc)
	}
	if err := c.start(); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// close ends the session without QUIT.
func (c *conn) close() {
	if c.closed {
		return
	}
	c.closed = true
	c.nc.Close()
}

// quit sends QUIT (without waiting for the answer) and closes.
func (c *conn) quit() {
	if c.closed {
		return
	}
	c.send("QUIT")
	c.close()
}

// tlsConfig is the request's TLS configuration for this host.
// handshake starts TLS on the connection. Whatever the server sent before
// the handshake and the client has not read is discarded by the caller: the
// new reader starts empty.
func (c *conn) handshake() error {
	tc, err := fetch.HandshakeTLS(c.ctx, c.tlsCfg, c.nc, c.host, "nntp: "+net.JoinHostPort(c.host, strconv.Itoa(c.port)))
	if err != nil {
		return err
	}
	c.nc = tc
	c.br = newReader(tc)
	c.tls = true
	c.logf("* TLS %s established", tls.VersionName(tc.ConnectionState().Version))
	return nil
}

// start reads the greeting and sets the session up for reading.
func (c *conn) start() error {
	r, err := c.readReply()
	if err != nil {
		return err
	}
	switch r.code {
	case 200, 201:
	case 400:
		return &fetch.Error{Kind: fetch.ErrConnect, Msg: "nntp: service not available: " + quote(r.line)}
	case 502:
		return &fetch.Error{Kind: fetch.ErrAccessDenied, Msg: "nntp: server refuses access: " + quote(r.line)}
	default:
		return protoError("greeting", r)
	}
	if err := c.capabilities(); err != nil {
		return err
	}
	if c.caps == nil || (c.hasCap("MODE-READER") && !c.hasCap("READER")) {
		// Mode-switching servers (and old ones without CAPABILITIES) need
		// MODE READER before reader commands.
		if err := c.modeRead(); err != nil {
			return err
		}
	}
	if !c.tls {
		switch ssl := c.req.Options[OptSSL]; ssl {
		case "", "no", "0":
		case "try", "required":
			if err := c.startTLS(ssl == "required"); err != nil {
				return err
			}
		default:
			return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "nntp: option " + OptSSL + " must be try or required, not " + strconv.Quote(ssl)}
		}
	}
	return nil
}

// capabilities asks for CAPABILITIES; a server without it leaves c.caps nil.
func (c *conn) capabilities() error {
	c.caps = nil
	if err := c.send("CAPABILITIES"); err != nil {
		return err
	}
	r, err := c.readReply()
	if err != nil {
		return err
	}
	if r.code != 101 {
		return nil
	}
	caps := map[string][]string{}
	for {
		line, err := c.readDataLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		f := strings.Fields(string(line))
		if len(f) > 0 && len(caps) < 256 {
			caps[strings.ToUpper(f[0])] = f[1:]
		}
	}
	c.caps = caps
	return nil
}

func (c *conn) hasCap(name string) bool {
	_, ok := c.caps[name]
	return ok
}

// modeRead sends MODE READER. Refusals other than 502 are ignored: the
// commands that follow tell whether reading is possible.
func (c *conn) modeRead() error {
	c.modeReader = true
	if err := c.send("MODE READER"); err != nil {
		return err
	}
	r, err := c.readReply()
	if err != nil {
		return err
	}
	switch r.code {
	case 200, 201:
		if c.caps != nil {
			return c.capabilities()
		}
	case 502:
		return &fetch.Error{Kind: fetch.ErrAccessDenied, Msg: "nntp: MODE READER refused: " + quote(r.line)}
	}
	return nil
}

// startTLS upgrades the session with STARTTLS (RFC 4642). required says
// what to do when the server cannot: fail, or go on in the clear.
func (c *conn) startTLS(required bool) error {
	if c.caps != nil && !c.hasCap("STARTTLS") {
		if required {
			return &fetch.Error{Kind: fetch.ErrTLS, Msg: "nntp: TLS required but the server does not offer STARTTLS"}
		}
		c.logf("* server does not offer STARTTLS; going on without TLS")
		return nil
	}
	if err := c.send("STARTTLS"); err != nil {
		return err
	}
	r, err := c.readReply()
	if err != nil {
		return err
	}
	if r.code != 382 {
		if required {
			return &fetch.Error{Kind: fetch.ErrTLS, Msg: "nntp: TLS required but STARTTLS was refused: " + quote(r.line)}
		}
		c.logf("* STARTTLS refused; going on without TLS")
		return nil
	}
	// Anything the server sent after 382 and before the handshake was not
	// protected by TLS and must not be taken as a reply (CVE-2021-22947).
	if n := c.br.Buffered(); n > 0 {
		c.logf("* discarding %d bytes the server sent before the TLS handshake", n)
	}
	c.br = nil
	if err := c.handshake(); err != nil {
		return err
	}
	// RFC 4642 §2.2.2: capabilities may change; ask again.
	return c.capabilities()
}

// auth runs AUTHINFO USER/PASS (RFC 4643) with the request's credentials.
func (c *conn) auth(trigger reply) error {
	c.authed = true
	if c.req.User == "" {
		return &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "nntp: the server requires authentication (" + quote(trigger.line) + "): give a user name and password with -u USER:PASSWORD, in the URL, or in .netrc"}
	}
	if err := c.send("AUTHINFO USER " + c.req.User); err != nil {
		return err
	}
	r, err := c.readReply()
	if err != nil {
		return err
	}
	if r.code == 381 {
		if !c.req.HasPassword && c.req.Password == "" {
			return &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "nntp: the server asks for a password and none was given: " + quote(r.line)}
		}
		if err := c.send("AUTHINFO PASS " + c.req.Password); err != nil {
			return err
		}
		if r, err = c.readReply(); err != nil {
			return err
		}
	}
	switch r.code {
	case 281:
		return nil
	case 481, 482:
		return &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "nntp: login refused: " + quote(r.line)}
	case 483:
		return &fetch.Error{Kind: fetch.ErrAccessDenied, Msg: "nntp: the server requires TLS before login (use nntps:// or Options[ssl]=required): " + quote(r.line)}
	case 502:
		return &fetch.Error{Kind: fetch.ErrAccessDenied, Msg: "nntp: AUTHINFO refused: " + quote(r.line)}
	}
	return protoError("AUTHINFO", r)
}

// do sends a command and reads its status line, authenticating when the
// server answers 480 and switching to reader mode when it answers 401
// MODE-READER, then sending the command again (once each).
func (c *conn) do(cmd string) (reply, error) {
	for {
		if err := c.send(cmd); err != nil {
			return reply{}, err
		}
		r, err := c.readReply()
		if err != nil {
			return r, err
		}
		switch {
		case r.code == 480 && !c.authed:
			if err := c.auth(r); err != nil {
				return r, err
			}
			continue
		case r.code == 401 && !c.modeReader && strings.Contains(strings.ToUpper(r.text()), "MODE-READER"):
			if err := c.modeRead(); err != nil {
				return r, err
			}
			continue
		}
		return r, nil
	}
}

// send writes one command line. It refuses, before anything is written, a
// command holding CR, LF or NUL: those would let URL data inject commands.
func (c *conn) send(cmd string) error {
	if i := strings.IndexAny(cmd, "\r\n\x00"); i >= 0 {
		return &fetch.Error{Kind: fetch.ErrMalformed, Msg: fmt.Sprintf("nntp: refusing to send a command holding byte %#02x", cmd[i])}
	}
	if strings.HasPrefix(cmd, "AUTHINFO PASS ") {
		c.logf("> AUTHINFO PASS ****")
	} else {
		c.logf("> %s", cmd)
	}
	if _, err := io.WriteString(c.nc, cmd+"\r\n"); err != nil {
		return c.ioError(err, "sending "+commandWord(cmd))
	}
	return nil
}

// commandWord is a command's verb, for messages (never its arguments,
// which may be a password).
func commandWord(cmd string) string {
	if strings.HasPrefix(cmd, "AUTHINFO ") {
		return "AUTHINFO"
	}
	if i := strings.IndexByte(cmd, ' '); i >= 0 {
		return cmd[:i]
	}
	return cmd
}

// readReply reads and parses one status line (lineproto.ReadReply).
func (c *conn) readReply() (reply, error) {
	code, lines, err := lineproto.ReadReply(c.br, &replyLimits, func(s string) { c.logf("< %s", s) })
	re, _ := err.(*lineproto.ReplyError) // ReadReply returns it as it is
	switch {
	case re != nil && re.Err == lineproto.ErrLineTooLong:
		return reply{}, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("nntp: server reply line over %d bytes: %s", MaxReplyLine, quote(re.Line))}
	case re != nil:
		return reply{}, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "nntp: malformed server reply: " + quote(re.Line)}
	case err != nil:
		return reply{}, c.ioError(err, "reading the server's reply")
	}
	return reply{code: code, line: lines[0]}, nil
}

var replyLimits = lineproto.Limits{Line: MaxReplyLine, Lines: 1, Continue: lineproto.Single, MinCode: 100, MaxCode: 599}

// readDataLine reads one line of a multi-line block (lineproto.ReadDotLine,
// at most MaxDataLine bytes) with dot-stuffing undone; io.EOF marks the
// terminating ".". The line is valid until the next read.
func (c *conn) readDataLine() ([]byte, error) {
	line, err := lineproto.ReadDotLine(c.br, MaxDataLine)
	switch {
	case err == io.EOF:
		return nil, err
	case errors.Is(err, lineproto.ErrLineTooLong):
		return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("nntp: server sent a line over %d bytes: %s", MaxDataLine, quote(string(line)))}
	case err != nil:
		return nil, c.ioError(err, "reading a multi-line reply")
	}
	return line, nil
}

// ioError classifies a read or write failure: the context's error when it
// is done (it closed the connection), a timeout, or an early close.
func (c *conn) ioError(err error, doing string) error {
	if c.ctx.Err() != nil {
		return fetch.ContextError(c.ctx)
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	k := fetch.KindOf(err)
	switch {
	case k == fetch.ErrTimeout:
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &fetch.Error{Kind: fetch.ErrPartial, Msg: "nntp: connection closed by the server while " + doing}
	default:
		k = fetch.ErrPartial
	}
	return &fetch.Error{Kind: k, Msg: "nntp: " + doing, Err: err}
}

// logf writes one verbose line (fetch.Logf).
func (c *conn) logf(format string, a ...any) { fetch.Logf(c.verbose, format, a...) }

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// quote quotes a server line for an error message, truncated.
func quote(s string) string {
	if len(s) > maxQuote {
		return strconv.Quote(s[:maxQuote]) + "…"
	}
	return strconv.Quote(s)
}

// protoError is the error for a reply the client did not expect.
func protoError(what string, r reply) error {
	return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "nntp: unexpected reply to " + what + ": " + quote(r.line)}
}

// replyError maps a refusal to a typed error.
func replyError(what string, r reply) error {
	var k fetch.Kind
	var msg string
	switch r.code {
	case 411:
		k, msg = fetch.ErrNotFound, "no such newsgroup"
	case 420, 423, 430:
		k, msg = fetch.ErrNotFound, "no such article"
	case 480:
		k, msg = fetch.ErrLoginDenied, "authentication required and refused"
	case 481, 482:
		k, msg = fetch.ErrLoginDenied, "login refused"
	case 483:
		k, msg = fetch.ErrAccessDenied, "the server requires TLS (use nntps:// or Options[ssl]=required)"
	case 502:
		k, msg = fetch.ErrAccessDenied, "access denied"
	case 400:
		k, msg = fetch.ErrConnect, "service no longer available"
	default:
		return protoError(what, r)
	}
	return &fetch.Error{Kind: k, Msg: "nntp: " + what + ": " + msg + ": " + quote(r.line), Status: r.code}
}
