package ftp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/internal/lineproto"
)

// This file is the wire of the control connection: commands out (masked in
// verbose output, CR/LF/NUL refused), bounded replies in, and the one table
// that turns a refusal into an error kind. Conn (serverconn.go) is the
// session built on it.

// Bounds on what a server may send on the control connection. A reply line
// longer than MaxReplyLine is cut (the rest is read and dropped); a reply
// longer than MaxReplyBytes in all, or with more than MaxReplyLines lines,
// is ErrProtocol. Memory per connection stays within these bounds whatever
// the server sends.
const (
	MaxReplyLine  = 4096
	MaxReplyBytes = 256 << 10
	MaxReplyLines = 2000
)

// ReplyError is a server reply that refused a command. It is the Err of the
// *fetch.Error that RefusedError builds for it.
type ReplyError struct {
	Command string // the command as sent, the PASS and ACCT arguments masked
	Code    int    // the reply code
	Text    string // the reply's first line after the code, control bytes replaced
	Gone    bool   // the reply said the session is over (Reply.Gone)
}

func (e *ReplyError) Error() string {
	return fmt.Sprintf("%s: %d %s", e.Command, e.Code, e.Text)
}

// Transient reports whether the reply says the command may succeed later:
// a 4xx reply, RFC 959's "transient negative completion", or a reply that
// said the session is over (Reply.Gone), which is no answer to the command
// (fetch.Retryable reads it).
func (e *ReplyError) Transient() bool { return e.Gone || e.Code >= 400 && e.Code < 500 }

// SessionGone reports whether err is a reply that said the session is over
// (Reply.Gone): the connection is dead, and what was asked is to be asked
// again on a new one.
func SessionGone(err error) bool {
	var re *ReplyError
	return errors.As(err, &re) && re.Gone
}

// Reply is one complete server reply.
type Reply struct {
	code  int
	lines []string // every line as received, cut at MaxReplyLine
	verb  string   // the command it answers, as far as the connection knows
}

// Code is the reply's three-digit code.
func (r *Reply) Code() int { return r.code }

// Verb is the command the reply answers, as far as the connection knows
// ("" for the greeting).
func (r *Reply) Verb() string { return r.verb }

// Lines are the reply's lines as received (without CRLF, each cut at
// MaxReplyLine bytes): one, or several for a multi-line reply. They are the
// server's bytes: sanitize them before showing them on a terminal.
func (r *Reply) Lines() []string { return r.lines }

// Text is the first line's text after the code, control bytes replaced.
func (r *Reply) Text() string {
	if len(r.lines) == 0 {
		return ""
	}
	s := r.lines[0]
	if len(s) > 4 {
		s = s[4:]
	} else {
		s = ""
	}
	return printable(s)
}

func (r *Reply) String() string { return strconv.Itoa(r.code) + " " + r.Text() }

// Positive reports a 2xx reply (completion).
func (r *Reply) Positive() bool { return r.code >= 200 && r.code < 300 }

// Gone reports whether the reply says the session is over, whatever the
// command: 421 (RFC 959: the service is closing the control connection),
// or vsftpd's "500 OOPS: ..." (its session process or its privileged
// helper died — "500 OOPS: priv_sock_get_int" under load — and it closes
// the connection after it). Such a reply is no refusal of the command.
func (r *Reply) Gone() bool {
	if r.code == 421 {
		return true
	}
	return r.code == 500 && len(r.lines) > 0 && len(r.lines[0]) > 4 &&
		strings.HasPrefix(strings.ToUpper(strings.TrimLeft(r.lines[0][4:], " ")), "OOPS")
}

// Preliminary reports a 1xx reply (a transfer starts; another reply follows).
func (r *Reply) Preliminary() bool { return r.code >= 100 && r.code < 200 }

// printable makes server text (or a name) safe for a message or the
// verbose log: fetch.Sanitize, cut to 512 bytes.
func printable(s string) string { return fetch.SanitizeLine(s, 512) }

// ReplyKind is the one table from a refused command to the error kind (and
// so the exit code) every caller reports, curl's: 421 (the server is
// closing the connection, which servers say when a session was idle too
// long) is ErrTimeout whatever the command; a refused login (USER, PASS)
// ErrLoginDenied, ACCT ErrAccount; CWD (and MKD, RMD, DELE, RNFR, RNTO:
// the changes a mirror makes) ErrAccessDenied; TYPE ErrTypeFailed; RETR,
// SIZE and MDTM ErrNotFound for 550, else ErrRetrFailed; the listings
// ErrRetrFailed; STOR, APPE and STOU ErrUpload; passive mode (EPSV, PASV)
// ErrPassive, active mode (EPRT, PORT) ErrActive; anything else
// ErrProtocol.
func ReplyKind(verb string, code int) fetch.Kind {
	if code == 421 {
		return fetch.ErrTimeout
	}
	switch strings.ToUpper(verb) {
	case "USER", "PASS":
		return fetch.ErrLoginDenied
	case "ACCT":
		return fetch.ErrAccount
	case "CWD", "CDUP", "MKD", "RMD", "DELE", "RNFR", "RNTO":
		return fetch.ErrAccessDenied
	case "TYPE":
		return fetch.ErrTypeFailed
	case "RETR", "SIZE", "MDTM":
		if code == 550 {
			return fetch.ErrNotFound
		}
		return fetch.ErrRetrFailed
	case "LIST", "NLST", "MLSD", "MLST":
		return fetch.ErrRetrFailed
	case "STOR", "APPE", "STOU":
		return fetch.ErrUpload
	case "EPSV", "PASV":
		return fetch.ErrPassive
	case "EPRT", "PORT":
		return fetch.ErrActive
	}
	return fetch.ErrProtocol
}

// RefusedError is the typed error for a reply r that refused the command
// verb arg: a *fetch.Error of ReplyKind(verb, code) wrapping a *ReplyError.
// The arguments of PASS and ACCT never appear in it.
func RefusedError(verb, arg string, r *Reply) error {
	return replyError(ReplyKind(verb, r.code), "ftp: server refused "+verb, shownCommand(verb, arg), r)
}

// replyError is the error of a reply that refused what was asked: the
// reply's code is both the *fetch.Error's Status (-w %{response_code},
// fetch.StatusOf) and its *ReplyError's Code.
func replyError(kind fetch.Kind, msg, command string, r *Reply) *fetch.Error {
	return &fetch.Error{Kind: kind, Msg: msg, Status: r.code, Err: &ReplyError{Command: command, Code: r.code, Text: r.Text(), Gone: r.Gone()}}
}

// shownCommand is a command as verbose output and errors show it: the
// argument of PASS and ACCT masked, control bytes replaced.
func shownCommand(verb, arg string) string {
	switch {
	case verb == "PASS" || verb == "ACCT":
		return verb + " ****"
	case arg != "":
		return printable(verb + " " + arg)
	}
	return printable(verb)
}

// conn is the wire of one control connection.
type conn struct {
	raw     net.Conn      // as returned by the Dialer
	br      *bufio.Reader // sized MaxReplyLine: a longer line is cut
	verbose io.Writer
	replies io.Writer     // Config.Replies
	timeout time.Duration // > 0: bounds each write and each wait for a reply

	broken   bool      // out of step or closed: never reuse
	gone     bool      // the server said the session is over (Reply.Gone)
	answered bool      // a reply arrived (since the pool last cleared it)
	queue    []Command // commands sent whose final replies were not read, in order
	lastVerb string
	cmds     int // commands sent on this connection
	// observe, when set, sees every reply with the command it answers
	// (Conn keeps its session state with it).
	observe func(cmd Command, r *Reply)
}

// badLineByte reports whether s holds a byte that would end or corrupt a
// command line. The Client refuses such URLs before any fetcher runs; this
// is the connection's own check, for callers that bypass the Client and for
// names from listings and values from options.
func badLineByte(s string) bool {
	return strings.ContainsAny(s, "\r\n\x00")
}

// send writes one command. An argument holding CR, LF or NUL is refused
// (ErrMalformed) and nothing is written.
func (c *conn) send(verb, arg string, hasArg bool) error {
	return c.sendAll([]Command{{Verb: verb, Arg: arg}}, hasArg)
}

// sendAll writes commands in one write; a command's argument is sent when
// it is not empty, or when hasArg (one command only) says so. Nothing is
// written when any of them holds CR, LF or NUL (ErrMalformed).
func (c *conn) sendAll(cmds []Command, hasArg bool) error {
	var b strings.Builder
	for _, cmd := range cmds {
		if badLineByte(cmd.Verb) || badLineByte(cmd.Arg) {
			return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ftp: refusing to send " + printable(cmd.Verb) + " with CR, LF or NUL in its argument"}
		}
	}
	for _, cmd := range cmds {
		b.WriteString(cmd.Verb)
		if cmd.Arg != "" || hasArg {
			b.WriteByte(' ')
			b.WriteString(cmd.Arg)
		}
		b.WriteString("\r\n")
		if c.verbose != nil {
			fetch.Logf(c.verbose, "> %s", shownCommand(cmd.Verb, cmd.Arg))
		}
		c.cmds++
		c.queue = append(c.queue, cmd)
		c.lastVerb = cmd.Verb
	}
	if c.timeout > 0 {
		c.raw.SetWriteDeadline(time.Now().Add(c.timeout))
	}
	if _, err := io.WriteString(c.raw, b.String()); err != nil {
		c.broken = true
		return err
	}
	return nil
}

// readReply reads one complete reply and notes what it means for the
// connection (421 or vsftpd's 500 OOPS, Reply.Gone: closing; an error: not
// usable any more).
func (c *conn) readReply() (*Reply, error) {
	if c.timeout > 0 {
		c.raw.SetReadDeadline(time.Now().Add(c.timeout))
	}
	code, lines, err := readReply(c.br, c.verbose, c.replies)
	if err != nil {
		c.broken = true
		return nil, err
	}
	r := &Reply{code: code, lines: lines}
	if r.Gone() {
		c.gone, c.broken = true, true
	}
	var cmd Command
	if len(c.queue) > 0 {
		cmd = c.queue[0]
		if code >= 200 {
			// A 1xx reply is followed by another to the same command.
			c.queue = c.queue[1:]
		}
	}
	r.verb = cmd.Verb
	c.answered = true
	if c.observe != nil {
		c.observe(cmd, r)
	}
	return r, nil
}

// cmd sends a command and reads its reply.
func (c *conn) cmd(verb, arg string, hasArg bool) (*Reply, error) {
	if err := c.send(verb, arg, hasArg); err != nil {
		return nil, err
	}
	return c.readReply()
}

// ReadReply reads one complete FTP reply, single or multi-line (RFC 959
// §4.2), from br: its code and its lines without CRLF. It stays within
// MaxReplyLine bytes a line (the rest of a longer line is dropped),
// MaxReplyLines lines and MaxReplyBytes in all, so a hostile server cannot
// make it grow without bound. A reply that does not start with a code is
// ErrProtocol. Empty lines before a reply are skipped, as curl skips them
// (its test server ends a SIZE reply with a stray CRLF), up to
// MaxReplyLines of them. With verbose set, each line is written there as
// "< line".
func ReadReply(br *bufio.Reader, verbose io.Writer) (code int, lines []string, err error) {
	return readReply(br, verbose, nil)
}

// readReply is ReadReply that also writes each line to replies, when not
// nil, as it came: its line end (CRLF or a bare LF) as the server sent it,
// as curl's -D writes it.
func readReply(br *bufio.Reader, verbose, replies io.Writer) (code int, lines []string, err error) {
	for range MaxReplyLines {
		b, err := br.Peek(1)
		if err != nil || b[0] != '\r' && b[0] != '\n' {
			break
		}
		if b[0] == '\r' {
			if b, err = br.Peek(2); err != nil || b[1] != '\n' {
				break
			}
			br.Discard(1)
		}
		br.Discard(1)
	}
	seen := func(s, end string) {
		if verbose != nil {
			fetch.Logf(verbose, "< %s", s)
		}
		if replies != nil {
			io.WriteString(replies, s+end)
		}
	}
	code, lines, err = lineproto.ReadReplyEnds(br, &replyLimits, seen)
	re, _ := err.(*lineproto.ReplyError) // ReadReply returns it as it is
	switch {
	case err == io.EOF:
		return 0, nil, io.ErrUnexpectedEOF
	case re != nil && re.Err == lineproto.ErrMalformed:
		return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: malformed reply " + strconv.Quote(printable(re.Line))}
	case re != nil && re.Err == lineproto.ErrTooManyLines:
		return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("ftp: reply %d longer than %d lines", re.Code, MaxReplyLines)}
	case re != nil && re.Err == lineproto.ErrTooLong:
		return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("ftp: reply longer than %d bytes", MaxReplyBytes)}
	}
	return code, lines, err
}

var replyLimits = lineproto.Limits{Line: MaxReplyLine, Lines: MaxReplyLines, Bytes: MaxReplyBytes, Cut: true,
	Continue: lineproto.FreeText, MinCode: 100, MaxCode: 599}

// ioError types an error met on the control connection: the context's
// error once the context is done (the Client turns it into ErrTimeout or
// ErrAborted), a typed error as it is, a timeout as ErrTimeout, anything
// else (the server closed, reset) as kind.
func ioError(ctx context.Context, kind fetch.Kind, what string, err error) error {
	return typeIOError(ctx, kind, "ftp: "+what+": timed out", "ftp: "+what, err)
}

// dataError types a failure of a data connection the same way: the
// context's end, a stall past the timeout, or a transfer cut short.
func dataError(ctx context.Context, what string, err error) error {
	return typeIOError(ctx, fetch.ErrPartial, "ftp: "+what+": data connection timed out", "ftp: "+what+": data connection failed", err)
}

// typeIOError is the rule of ioError and dataError, with their words.
func typeIOError(ctx context.Context, kind fetch.Kind, timedOut, failed string, err error) error {
	if ctx != nil && ctx.Err() != nil {
		return fetch.ContextError(ctx)
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fe
	}
	if fetch.KindOf(err) == fetch.ErrTimeout {
		return &fetch.Error{Kind: fetch.ErrTimeout, Msg: timedOut, Err: err}
	}
	return &fetch.Error{Kind: kind, Msg: failed, Err: err}
}

// ParsePWD reads the directory from a 257 reply: `257 "/dir" is current`,
// with "" standing for a quote inside the name (RFC 959 Appendix II).
func ParsePWD(line string) (string, bool) {
	i := strings.IndexByte(line, '"')
	if i < 0 {
		return "", false
	}
	var b strings.Builder
	for j := i + 1; j < len(line); j++ {
		if line[j] == '"' {
			if j+1 < len(line) && line[j+1] == '"' {
				b.WriteByte('"')
				j++
				continue
			}
			return b.String(), true
		}
		b.WriteByte(line[j])
	}
	return "", false
}
