package mirror

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
	"github.com/urlget/urlget/fetch/ftp"
)

// ftpConn is one logged-in FTP control connection of the mirror. It is
// used by one worker at a time, for the whole run: it keeps its login, its
// working directory and its TYPE I, and sends commands in batches (several
// commands in one write, their replies read in order) — RFC 959 servers
// read commands one after another from the connection, so the next file's
// CWD/MDTM/EPSV can be on its way while the current file arrives.
type ftpConn struct {
	e       *engine
	nc      net.Conn
	br      *bufio.Reader
	peer    string // the server's address as dialled: data connections go there
	cwd     string // "" when unknown
	home    string
	mlsd    bool // MLSD is offered (FEAT MLST/MLSD)
	mdtm    bool
	noEPSV  bool
	noMLSD  bool
	listArg string // "-a" until the server refuses it
	verbose io.Writer
	stop    func() bool
	// greeting is the server's 220 text ("Pure-FTPd" refuses commands
	// sent during a transfer).
	greeting string
}

// ftpReply is one reply: its code and lines.
type ftpReply struct {
	code  int
	lines []string
}

func (r *ftpReply) text() string {
	if len(r.lines) == 0 {
		return ""
	}
	l := r.lines[len(r.lines)-1]
	if len(l) > 4 {
		l = l[4:]
	}
	return printableLine(l)
}

func (r *ftpReply) String() string { return strconv.Itoa(r.code) + " " + r.text() }

// ftpError is a refused command: Kind for the exit code, the reply for
// people.
type ftpError struct {
	verb  string
	reply *ftpReply
}

func (f *ftpError) Error() string { return "ftp: " + f.verb + ": " + f.reply.String() }

// Temporary reports a 4xx reply (RFC 959: transient negative completion).
func (f *ftpError) Temporary() bool { return f.reply.code >= 400 && f.reply.code < 500 }

func (f *ftpError) kind() fetch.Kind {
	switch c := f.reply.code; {
	case c == 421:
		return fetch.ErrConnect
	case c == 530:
		return fetch.ErrLoginDenied
	case c == 550 || c == 450:
		return fetch.ErrNotFound
	case c >= 400 && c < 500:
		return fetch.ErrPartial
	}
	return fetch.ErrRetrFailed
}

func refusedErr(verb string, r *ftpReply) error {
	fe := &ftpError{verb: verb, reply: r}
	return &fetch.Error{Kind: fe.kind(), Msg: "", Err: fe}
}

func printableLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// ftpLogin holds what a connection needs to log in.
type ftpLogin struct {
	addr    string
	user    string
	pass    string
	hasPass bool
	dialer  fetch.Dialer
	connect time.Duration
	verbose io.Writer
	email   string
}

// dialFTP connects and logs in: greeting, USER and PASS (sent together),
// then TYPE I, FEAT and PWD (together).
func (e *engine) dialFTP(ctx context.Context, lg *ftpLogin) (*ftpConn, error) {
	dctx := ctx
	if lg.connect > 0 {
		var cancel context.CancelFunc
		dctx, cancel = context.WithTimeout(ctx, lg.connect)
		defer cancel()
	}
	nc, err := lg.dialer.DialContext(dctx, "tcp", lg.addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		k := fetch.KindOf(err)
		if k == fetch.ErrOther {
			k = fetch.ErrConnect
		}
		return nil, &fetch.Error{Kind: k, Msg: "ftp: connecting to " + lg.addr, Err: err}
	}
	c := &ftpConn{e: e, nc: nc, br: bufio.NewReaderSize(nc, 64<<10), verbose: lg.verbose, listArg: "-a"}
	c.peer = lg.addr
	if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		c.peer = ta.IP.String()
	} else if h, _, err := net.SplitHostPort(lg.addr); err == nil {
		c.peer = h
	}
	c.stop = context.AfterFunc(ctx, func() { nc.Close() })
	if err := c.login(lg); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *ftpConn) close() {
	if c.stop != nil {
		c.stop()
	}
	c.nc.Close()
}

// quit says goodbye (not waiting long for the answer) and closes.
func (c *ftpConn) quit() {
	c.nc.SetDeadline(time.Now().Add(time.Second))
	if c.send("QUIT") == nil {
		c.read()
	}
	c.close()
}

func (c *ftpConn) login(lg *ftpLogin) error {
	for {
		r, err := c.read()
		if err != nil {
			return c.ioErr("reading the greeting", err)
		}
		if r.code == 120 {
			continue
		}
		if r.code != 220 {
			return refusedErr("(greeting)", r)
		}
		c.greeting = strings.Join(r.lines, "\n")
		break
	}
	user, pass := lg.user, lg.pass
	if user == "" {
		user = "anonymous"
		if !lg.hasPass {
			pass = lg.email
		}
	}
	if err := c.send("USER "+user, "PASS "+pass); err != nil {
		return c.ioErr("USER", err)
	}
	ru, err := c.read()
	if err != nil {
		return c.ioErr("USER", err)
	}
	rp, err := c.read()
	if err != nil {
		return c.ioErr("PASS", err)
	}
	switch {
	case ru.code == 230:
		// No password needed: PASS got 230 or 503, both fine.
	case ru.code == 331 || ru.code == 332:
		if rp.code != 230 && rp.code != 202 {
			return refusedErr("PASS", rp)
		}
	default:
		return refusedErr("USER", ru)
	}
	if err := c.send("TYPE I", "FEAT", "PWD"); err != nil {
		return c.ioErr("TYPE", err)
	}
	rt, err := c.read()
	if err != nil {
		return c.ioErr("TYPE", err)
	}
	if rt.code/100 != 2 {
		return &fetch.Error{Kind: fetch.ErrTypeFailed, Err: &ftpError{verb: "TYPE I", reply: rt}}
	}
	rf, err := c.read()
	if err != nil {
		return c.ioErr("FEAT", err)
	}
	if rf.code == 211 {
		for _, l := range rf.lines {
			f := strings.ToUpper(strings.TrimSpace(l))
			switch {
			case strings.HasPrefix(f, "MLST"), strings.HasPrefix(f, "MLSD"):
				c.mlsd = true
			case f == "MDTM":
				c.mdtm = true
			}
		}
	}
	rw, err := c.read()
	if err != nil {
		return c.ioErr("PWD", err)
	}
	if rw.code == 257 {
		c.home, _ = ftp.ParsePWD(rw.lines[0])
	}
	if c.home == "" {
		c.home = "/"
	}
	c.cwd = c.home
	return nil
}

// send writes commands in one write.
func (c *ftpConn) send(cmds ...string) error {
	var b strings.Builder
	for _, cmd := range cmds {
		if strings.ContainsAny(cmd, "\r\n\x00") {
			return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ftp: a name holds CR, LF or NUL: it cannot be sent"}
		}
		b.WriteString(cmd)
		b.WriteString("\r\n")
		if c.verbose != nil {
			if strings.HasPrefix(cmd, "PASS ") {
				cmd = "PASS ****"
			}
			fmt.Fprintf(c.verbose, "> %s\n", printableLine(cmd))
		}
	}
	c.nc.SetWriteDeadline(time.Now().Add(c.e.timeout))
	_, err := io.WriteString(c.nc, b.String())
	return err
}

// read reads one reply, bounded as fetch/ftp's ReadReply bounds it, within
// the engine's timeout.
func (c *ftpConn) read() (*ftpReply, error) {
	c.nc.SetReadDeadline(time.Now().Add(c.e.timeout))
	code, lines, err := ftp.ReadReply(c.br, c.verbose)
	if err != nil {
		return nil, err
	}
	return &ftpReply{code: code, lines: lines}, nil
}

func (c *ftpConn) ioErr(what string, err error) error {
	if c.e.ctx.Err() != nil {
		return c.e.ctx.Err()
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fe
	}
	k := fetch.KindOf(err)
	if k == fetch.ErrOther {
		k = fetch.ErrProtocol
	}
	return &fetch.Error{Kind: k, Msg: "ftp: " + what, Err: err}
}

// dataPort reads the reply to EPSV (or PASV) and returns the port to
// connect to. The address in a PASV reply is ignored: data connections go
// to the server the control connection reached (no bounce to a third
// host).
func (c *ftpConn) dataPort(r *ftpReply, verb string) (int, error) {
	line := r.lines[len(r.lines)-1]
	switch {
	case verb == "EPSV" && r.code == 229:
		if p, ok := ftp.ParseEPSV(line); ok {
			return p, nil
		}
	case verb == "PASV" && r.code == 227:
		if _, p, ok := ftp.ParsePASV(line); ok {
			return p, nil
		}
	case r.code >= 400:
		return 0, refusedErr(verb, r)
	default:
		// A positive reply that is not the one asked for: the replies are
		// out of step with the commands.
		return 0, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: " + verb + ": unexpected reply " + strconv.Quote(r.String())}
	}
	return 0, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: cannot read the port in " + strconv.Quote(printableLine(line))}
}

// dialData opens the passive data connection.
func (c *ftpConn) dialData(port int, lg *ftpLogin) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(c.e.ctx, c.e.timeout)
	defer cancel()
	dc, err := lg.dialer.DialContext(ctx, "tcp", net.JoinHostPort(c.peer, strconv.Itoa(port)))
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrConnect, Msg: "ftp: opening the data connection", Err: err}
	}
	if tc, ok := dc.(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 20)
	}
	// The mirror only reads data connections: say so at once. Servers that
	// wait for the client's end of the data connection before their final
	// reply (vsftpd, ProFTPD: a lingering close) then do not wait a round
	// trip for it.
	if cw, ok := dc.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	return dc, nil
}

// deadlineReader extends the connection's read deadline before each read:
// a transfer may last long, but not stall longer than the timeout.
type deadlineReader struct {
	c       net.Conn
	timeout time.Duration
}

func (d deadlineReader) Read(p []byte) (int, error) {
	d.c.SetReadDeadline(time.Now().Add(d.timeout))
	return d.c.Read(p)
}
