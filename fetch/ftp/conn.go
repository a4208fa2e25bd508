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
)

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
// *fetch.Error that Open returns for it.
type ReplyError struct {
	Command string // the command as sent, the PASS argument masked
	Code    int    // the reply code
	Text    string // the reply's first line after the code, control bytes replaced
}

func (e *ReplyError) Error() string {
	return fmt.Sprintf("%s: %d %s", e.Command, e.Code, e.Text)
}

// reply is one complete server reply.
type reply struct {
	code  int
	lines []string // every line as received, cut at MaxReplyLine
}

// text is the first line's text after the code, printable only.
func (r *reply) text() string {
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

// printable makes server text (or a name) safe for a message or the
// verbose log: fetch.Sanitize, cut to 512 bytes.
func printable(s string) string { return fetch.SanitizeLine(s, 512) }

func (r *reply) positive() bool     { return r.code >= 200 && r.code < 300 }
func (r *reply) preliminary() bool  { return r.code >= 100 && r.code < 200 }
func (r *reply) intermediate() bool { return r.code >= 300 && r.code < 400 }

// conn is one control connection and what is known of its session.
type conn struct {
	raw     net.Conn      // as returned by the Dialer
	br      *bufio.Reader // sized MaxReplyLine: a longer line is cut
	verbose io.Writer
	life    context.CancelFunc // ends the dial context: the Dialer then closes raw
	key     poolKey

	peerHost  string // host for passive data connections (see dataHost)
	localIP   net.IP // the control connection's local address (ftp-port "-")
	remoteIP  net.IP // the control connection's peer, nil through a SOCKS proxy
	viaSOCKS  bool
	reusable  bool     // may go back to the pool after this request
	home      string   // PWD after login, when known
	homeKnown bool     //
	path      []cwdArg // CWD arguments sent since the login directory
	typ       byte     // current TYPE: 'a', 'i', or 0 when not yet set
	noEPSV    bool     // EPSV refused once: go straight to PASV
	noEPRT    bool     // EPRT refused once: go straight to PORT
	feat      map[string]string
	featDone  bool
	reused    bool // taken from the pool for this request
	answered  bool // a reply arrived during this request (a reused connection is alive)
	broken    bool // out of step or closed: never reuse
	got421    bool // the server said it is closing the connection
	lastVerb  string
	cmds      int // commands sent on this connection
	stopWatch func() bool
}

// cwdArg is one CWD to send: bare is a CWD without an argument.
type cwdArg struct {
	arg  string
	bare bool
}

// badLineByte reports whether s holds a byte that would end or corrupt a
// command line. The Client refuses such URLs before any fetcher runs; this
// is the fetcher's own check, for callers that bypass the Client and for
// values from options.
func badLineByte(s string) bool {
	return strings.ContainsAny(s, "\r\n\x00")
}

// send writes one command. An argument holding CR, LF or NUL is refused
// (ErrMalformed) and nothing is written.
func (c *conn) send(verb, arg string, hasArg bool) error {
	if badLineByte(verb) || badLineByte(arg) {
		return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ftp: refusing to send " + verb + " with CR, LF or NUL in its argument"}
	}
	line := verb
	if hasArg {
		line += " " + arg
	}
	if c.verbose != nil {
		shown := line
		if verb == "PASS" || verb == "ACCT" {
			shown = verb + " ****"
		}
		fmt.Fprintf(c.verbose, "> %s\n", shown)
	}
	c.cmds++
	c.lastVerb = verb
	if _, err := io.WriteString(c.raw, line+"\r\n"); err != nil {
		c.broken = true
		return err
	}
	return nil
}

// readReply reads one complete reply and notes what it means for the
// connection (421: closing; an error: not reusable).
func (c *conn) readReply() (*reply, error) {
	code, lines, err := ReadReply(c.br, c.verbose)
	if err != nil {
		c.broken = true
		return nil, err
	}
	if code == 421 {
		c.got421, c.broken = true, true
	}
	c.answered = true
	return &reply{code: code, lines: lines}, nil
}

// ReadReply reads one complete FTP reply, single or multi-line (RFC 959
// §4.2), from br: its code and its lines without CRLF. It stays within
// MaxReplyLine bytes a line (the rest of a longer line is dropped),
// MaxReplyLines lines and MaxReplyBytes in all, so a hostile server cannot
// make it grow without bound. A reply that does not start with a code is
// ErrProtocol. With verbose set, each line is written there as "< line".
func ReadReply(br *bufio.Reader, verbose io.Writer) (code int, lines []string, err error) {
	total := 0
	first, err := readReplyLine(br, verbose, &total)
	if err != nil {
		return 0, nil, err
	}
	code, ok := replyCode(first)
	if !ok {
		return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: malformed reply " + strconv.Quote(printable(first))}
	}
	lines = []string{first}
	if len(first) > 3 && first[3] == '-' {
		for {
			line, err := readReplyLine(br, verbose, &total)
			if err != nil {
				return 0, nil, err
			}
			if len(lines) >= MaxReplyLines {
				return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("ftp: reply %d longer than %d lines", code, MaxReplyLines)}
			}
			lines = append(lines, line)
			if len(line) >= 3 && line[:3] == first[:3] && (len(line) == 3 || line[3] == ' ') {
				break
			}
		}
	}
	return code, lines, nil
}

// readReplyLine reads one line without its CRLF (or bare LF), cut at
// MaxReplyLine bytes; *total counts the bytes of the whole reply.
func readReplyLine(br *bufio.Reader, verbose io.Writer, total *int) (string, error) {
	var keep []byte
	for {
		part, err := br.ReadSlice('\n')
		*total += len(part)
		if *total > MaxReplyBytes {
			return "", &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("ftp: reply longer than %d bytes", MaxReplyBytes)}
		}
		if room := MaxReplyLine - len(keep); room > 0 {
			keep = append(keep, part[:min(len(part), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		break
	}
	s := strings.TrimSuffix(string(keep), "\n")
	s = strings.TrimSuffix(s, "\r")
	if verbose != nil {
		fmt.Fprintf(verbose, "< %s\n", printable(s))
	}
	return s, nil
}

// replyCode reads the three-digit code that starts a reply.
func replyCode(line string) (int, bool) {
	if len(line) < 3 || len(line) > 3 && line[3] != ' ' && line[3] != '-' {
		return 0, false
	}
	n := 0
	for i := range 3 {
		d := line[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int(d-'0')
	}
	if n < 100 || n >= 600 {
		return 0, false
	}
	return n, true
}

// cmd sends a command and reads its reply.
func (c *conn) cmd(verb, arg string, hasArg bool) (*reply, error) {
	if err := c.send(verb, arg, hasArg); err != nil {
		return nil, err
	}
	return c.readReply()
}

// refused builds the typed error for a reply that refused a command.
func refused(kind fetch.Kind, verb, arg string, r *reply) error {
	shown := verb
	if arg != "" {
		shown += " " + printable(arg)
	}
	if verb == "PASS" || verb == "ACCT" {
		shown = verb + " ****"
	}
	re := &ReplyError{Command: shown, Code: r.code, Text: r.text()}
	return &fetch.Error{Kind: kind, Msg: "ftp: server refused " + verb, Err: re}
}

// ioError types an error met on the control connection: the context's
// error once the context is done (the Client turns it into ErrTimeout or
// ErrAborted), a typed error as it is, a timeout as ErrTimeout, anything
// else (the server closed, reset) as kind.
func ioError(ctx context.Context, kind fetch.Kind, what string, err error) error {
	if ctx.Err() != nil {
		return fetch.ContextError(ctx)
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fe
	}
	if fetch.KindOf(err) == fetch.ErrTimeout {
		return &fetch.Error{Kind: fetch.ErrTimeout, Msg: "ftp: " + what + ": timed out", Err: err}
	}
	return &fetch.Error{Kind: kind, Msg: "ftp: " + what, Err: err}
}

// watch closes the connection when ctx is done, until the returned stop is
// called; stop reports whether the connection is still open.
func (c *conn) watch(ctx context.Context) {
	raw := c.raw
	c.stopWatch = context.AfterFunc(ctx, func() { raw.Close() })
}

func (c *conn) unwatch() bool {
	if c.stopWatch == nil {
		return true
	}
	ok := c.stopWatch()
	c.stopWatch = nil
	return ok
}

// close ends the connection at once.
func (c *conn) close() {
	c.unwatch()
	c.broken = true
	c.raw.Close()
	if c.life != nil {
		c.life()
	}
}

// quit says goodbye (QUIT, waiting briefly for the 221) and closes.
func (c *conn) quit() {
	if !c.broken {
		c.raw.SetDeadline(time.Now().Add(2 * time.Second))
		if c.send("QUIT", "", false) == nil {
			c.readReply()
		}
	}
	c.close()
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
