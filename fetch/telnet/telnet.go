package telnet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Option keys (declared in init; the CLI makes flags of them).
const (
	OptLinger    = "telnet-linger"    // Duration: how long to wait after the end of stdin before half-closing
	OptAutologin = "telnet-autologin" // Bool: answer the first login: and Password: prompts
	OptEscape    = "telnet-escape"    // String: the escape character of a terminal session (read by the CLI)
	OptWindow    = "telnet-window"    // String: COLSxROWS sent by NAWS in script mode
)

// DefaultLinger is the wait after the end of stdin before the session is
// half-closed, so that the replies to the last lines still arrive.
const DefaultLinger = 3 * time.Second

// FirstDataWait bounds how long a script's input waits for the server's
// first data (its prompt) before it is sent anyway.
const FirstDataWait = 2 * time.Second

// DefaultEscape is the escape character of a terminal session: ^] as in
// telnet(1).
const DefaultEscape = "^]"

func init() {
	both := []string{"telnet", "rlogin"}
	fetch.Register(fetch.Scheme{Name: "telnet", New: New,
		Caps: fetch.ReferralTarget | fetch.Session | fetch.SendsBody,
		Options: []fetch.Option{
			{Key: OptLinger, Kind: fetch.Duration, Arg: "SECONDS", Default: DefaultLinger.String(),
				Help: "after the end of stdin, wait this long for replies before half-closing the session", Schemes: both},
			{Key: OptAutologin, Kind: fetch.Bool,
				Help: "answer the first login: and Password: prompts with the URL's user and password", Schemes: both},
			{Key: OptEscape, Kind: fetch.String, Arg: "CHAR", Default: DefaultEscape,
				Help: "escape character of a terminal session (^X, a character, or \"none\")", Schemes: both},
			{Key: OptWindow, Kind: fetch.String, Arg: "COLSxROWS",
				Help: "window size to announce when not on a terminal (NAWS, rlogin window change)", Schemes: both},
		},
		Examples: []fetch.Example{
			{Args: "telnet://bbs.example.org/", Help: "an interactive session on a terminal (^] then q quits)"},
			{Args: "--telnet-autologin telnet://joe:secret@host.example.org/ < cmds.txt", Help: "log in and type a script's lines; the output without the protocol"},
			{Args: "--telnet-linger 5 telnet://host.example.org:7000/ < request.txt", Help: "wait 5 s for replies after the script ends"},
		}})
	fetch.Register(fetch.Scheme{Name: "rlogin", New: NewRlogin,
		Caps: fetch.Session | fetch.SendsBody,
		Examples: []fetch.Example{
			{Args: "rlogin://joe@host.example.org/", Help: "an rlogin session (as root: a reserved source port)"},
		}})
	fetch.Register(fetch.Scheme{Name: "tn3270", New: NewTN3270,
		Caps: fetch.ReferralTarget | fetch.Session | fetch.SendsBody})
}

// Fetcher opens telnet sessions. It sends Request.Body (fetch.BodySender).
// The zero value is ready to use.
type Fetcher struct {
	Config fetch.Config // the dialer, the verbose log, the terminal
}

// New is the telnet Fetcher for cfg (fetch.Scheme.New).
func New(cfg fetch.Config) fetch.Fetcher { return &Fetcher{Config: cfg} }

// SendsBody reports that a telnet session sends Request.Body: what is typed.
func (*Fetcher) SendsBody(*urlparse.URL) bool { return true }

// Open connects and returns the session: Body is what the server sends,
// the protocol stripped, until it closes the connection.
func (f *Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	p, err := prepare(&f.Config, req, "telnet")
	if err != nil {
		return nil, err
	}
	nc, err := fetch.Connect(ctx, f.Config.Dialer, p.addr, "telnet: connecting to")
	if err != nil {
		return nil, err
	}
	if req.Head {
		// Nothing to describe: the connection is the answer.
		nc.Close()
		return &fetch.Resource{Meta: fetch.Meta{Size: -1}}, nil
	}
	c := newConn(nc, p.term != nil, f.Config.Verbose)
	c.ttype, c.user = p.ttype, req.User
	c.cols, c.rows = p.cols, p.rows
	s := &telnetSession{conn: c}
	s.start(ctx, req, p)
	return &fetch.Resource{Meta: fetch.Meta{Size: -1}, Body: s}, nil
}

// params is what Open works out before connecting.
type params struct {
	addr       string
	term       fetch.Terminal
	ttype      string
	cols, rows int
	linger     time.Duration
	autologin  bool
}

// prepare checks the request and reads its options: the byte-safety rule
// for credentials, the options, the terminal, the suggested login.
func prepare(cfg *fetch.Config, req *fetch.Request, scheme string) (*params, error) {
	u := req.URL
	if err := checkCredential("user", req.User); err != nil {
		return nil, err
	}
	if err := checkCredential("password", req.Password); err != nil {
		return nil, err
	}
	p := &params{term: cfg.Terminal}
	var err error
	if p.linger, err = req.Options.Duration(OptLinger, DefaultLinger); err != nil {
		return nil, err
	}
	if p.autologin, err = req.Options.Bool(OptAutologin); err != nil {
		return nil, err
	}
	if p.autologin && req.User == "" {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: scheme + ": --" + OptAutologin + " needs a user in the URL (or -u)"}
	}
	if w := req.Options.String(OptWindow); w != "" {
		cs, rs, ok := strings.Cut(strings.ToLower(w), "x")
		c, err1 := strconv.Atoi(cs)
		r, err2 := strconv.Atoi(rs)
		if !ok || err1 != nil || err2 != nil || c <= 0 || r <= 0 || c > 65535 || r > 65535 {
			return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "--" + OptWindow + ": want COLSxROWS (80x24), not " + strconv.Quote(w)}
		}
		p.cols, p.rows = c, r
	}
	p.ttype = os.Getenv("TERM")
	if p.term != nil {
		p.ttype = p.term.Type()
		if c, r := p.term.Size(); c > 0 && r > 0 {
			p.cols, p.rows = c, r
		}
	}
	p.ttype = termType(p.ttype)
	port := u.Port
	if port < 0 {
		port = urlparse.DefaultPort(scheme)
	}
	p.addr = net.JoinHostPort(u.Host, strconv.Itoa(port))
	if p.term != nil && req.User != "" {
		line := "suggested login: " + fetch.SanitizeLine(req.User, 64)
		if req.HasPassword {
			line += " (password given in the URL)"
		}
		p.term.Notice(line)
	}
	return p, nil
}

// checkCredential refuses a user or password holding a byte that would
// break out of the data it is sent as: IAC (0xFF), CR, LF or NUL (curl's
// CVE-2023-27533).
func checkCredential(what, s string) error {
	if i := indexCredentialByte(s); i >= 0 {
		return &fetch.Error{Kind: fetch.ErrMalformed,
			Msg: "the " + what + " holds byte 0x" + strconv.FormatUint(uint64(s[i]), 16) + " (IAC, CR, LF and NUL are refused in telnet and rlogin credentials)"}
	}
	return nil
}

// indexCredentialByte is the index of the first IAC (0xff), CR, LF or NUL
// byte of s, -1 when it has none. A byte search, not strings.IndexAny: 0xff
// is no UTF-8 character, and IndexAny would take it for any invalid byte.
func indexCredentialByte(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 0xff, '\r', '\n', 0:
			return i
		}
	}
	return -1
}

// termType is the terminal type to send: $TERM when it is a plain name,
// else "dumb".
func termType(t string) string {
	if t == "" || len(t) > 40 {
		return "dumb"
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.+", c) >= 0) {
			return "dumb"
		}
	}
	return t
}

// telnetSession is the Resource's Body and the terminal's Session.
type telnetSession struct {
	*conn
	ctl
}

func (s *telnetSession) start(ctx context.Context, req *fetch.Request, p *params) {
	c := s.conn
	s.ctl = ctl{
		name:  "telnet",
		nc:    c.nc,
		logf:  c.logf,
		write: func(b []byte, flush bool) error { return c.writeData(b, flush) },
		flush: func() {
			if b := c.flushCR(nil); len(b) > 0 {
				c.write(b)
			}
		},
	}
	c.onData = s.sawData
	s.ctl.start(ctx, req, p, s)
}

// ctl is what telnet and rlogin sessions share: the stdin pump with its
// linger and half-close, autologin, the end of the session.
type ctl struct {
	name  string
	nc    net.Conn
	logf  func(format string, a ...any)
	write func(b []byte, flush bool) error // sends data, encoded for the protocol
	flush func()                           // the end of the input: send what the encoder holds
	done  chan struct{}
	once  sync.Once
	login autologin
}

// autologin answers the first login: and Password: prompts, once each.
type autologin struct {
	mu        sync.Mutex
	on        bool
	user      string
	pass      string
	tail      promptTail
	userSent  bool
	passSent  bool
	released  bool          // stdin flows: the login is over
	refused   bool          // a login prompt again after the password
	lastData  time.Time     // output (not only blanks) after the password was answered
	ready     chan struct{} // closed when stdin may flow
	readyOnce sync.Once
}

func (a *autologin) open() { a.readyOnce.Do(func() { close(a.ready) }) }

// start runs the session's side tasks: the context's end closes the
// connection, the terminal is attached, stdin is pumped.
func (s *ctl) start(ctx context.Context, req *fetch.Request, p *params, sess fetch.SessionControl) {
	s.done = make(chan struct{})
	a := &s.login
	a.on, a.user, a.pass = p.autologin, req.User, req.Password
	a.ready = make(chan struct{})
	// The context ends the session: the Client's dialer closes the
	// connection, and so does this (for connections made elsewhere).
	stop := context.AfterFunc(ctx, func() { s.nc.Close() })
	go func() { <-s.done; stop() }()
	if p.term != nil {
		p.term.Attach(sess)
	}
	if req.Body != nil {
		go s.pump(req.Body, p.linger, p.term != nil)
	}
}

// sawData watches the output for the login prompts.
func (s *ctl) sawData(p []byte) {
	a := &s.login
	if !a.on {
		a.open()
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.passSent && a.released {
		return // the shell's business now
	}
	a.tail.add(p)
	switch {
	case a.passSent:
		// Until stdin flows, a login prompt or "Login incorrect" says
		// the password was refused; any other output, the login went on.
		if a.tail.endsWith("login:") || bytes.Contains(bytes.ToLower(p), []byte("login incorrect")) {
			a.refused = true
		} else if len(bytes.TrimSpace(p)) > 0 {
			a.lastData = time.Now()
		}
	case !a.userSent && a.tail.endsWith("login:"):
		a.userSent = true
		s.logf("> (autologin) %s", fetch.SanitizeLine(a.user, 64))
		s.write([]byte(a.user+"\n"), true)
	case a.tail.endsWith("password:"):
		a.passSent = true
		s.logf("> (autologin) ****")
		s.write([]byte(a.pass+"\n"), true)
		a.open()
	}
}

// release lets stdin flow, unless the login was refused.
func (a *autologin) release() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.released = !a.refused
	return a.released
}

// loginErr is ErrLoginDenied once the server refused the autologin: the
// session ends there, before anything of stdin is sent.
func (s *ctl) loginErr() error {
	a := &s.login
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.refused {
		return nil
	}
	return &fetch.Error{Kind: fetch.ErrLoginDenied,
		Msg: s.name + ": the server refused the login as " + fetch.SanitizeLine(a.user, 64) + ": it asked for a login again"}
}

// settle returns once output has come after the password and paused for
// settleTime, or when timeout fires or the session ends.
func (s *ctl) settle(timeout <-chan time.Time) {
	a := &s.login
	tick := time.NewTicker(settleTime / 4)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			a.mu.Lock()
			last, refused := a.lastData, a.refused
			a.mu.Unlock()
			if refused || !last.IsZero() && time.Since(last) >= settleTime {
				return
			}
		case <-timeout:
			return
		case <-s.done:
			return
		}
	}
}

// loginWait bounds the wait for output after the password is answered.
const loginWait = 10 * time.Second

// settleTime is the pause in the output after a login that tells the
// shell is waiting for input.
const settleTime = 300 * time.Millisecond

// pump sends r (stdin, or what the terminal passes on) to the server. At
// the end of r it waits linger, then half-closes the connection: the
// server sees the end of input and closes when done.
func (s *ctl) pump(r io.Reader, linger time.Duration, terminal bool) {
	a := &s.login
	if !terminal {
		// A script's input waits for the server's first data (a prompt):
		// the negotiation is over by then, and nothing typed ahead is
		// echoed or swallowed by a program not yet started. With
		// autologin it waits for the password to be answered. A server
		// that never speaks first gets it after a while.
		wait := FirstDataWait
		if a.on {
			wait += linger
		}
		t := time.NewTimer(wait)
		select {
		case <-a.ready:
			if a.on {
				// login discards what was typed ahead of the shell:
				// wait for its output (the motd, the prompt) to pause.
				// A refused password comes after login's delay (3 s
				// by default): wait for output longer than that.
				t.Reset(loginWait)
				s.settle(t.C)
			}
		case <-t.C:
		case <-s.done:
		}
		t.Stop()
	}
	if a.on && !a.release() {
		return // refused: the session ends with loginErr
	}
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if s.write(buf[:n], terminal) != nil {
				return
			}
		}
		if err != nil {
			break
		}
	}
	s.flush()
	t := time.NewTimer(linger)
	defer t.Stop()
	select {
	case <-t.C:
		s.logf("* %s: end of input; half-closing after %s", s.name, linger)
		if cw, ok := s.nc.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	case <-s.done:
	}
}

// Close ends the session.
func (s *ctl) Close() error {
	s.once.Do(func() { close(s.done) })
	return s.nc.Close()
}

// Close ends the session.
func (s *telnetSession) Close() error { return s.ctl.Close() }

// Read is conn's, with the end of the connection (after the server
// closed) as io.EOF.
func (s *telnetSession) Read(p []byte) (int, error) {
	n, err := s.conn.Read(p)
	if lerr := s.loginErr(); lerr != nil {
		return n, lerr
	}
	if err != nil && err != io.EOF && !errors.Is(err, net.ErrClosed) {
		var fe *fetch.Error
		if !errors.As(err, &fe) {
			err = &fetch.Error{Kind: fetch.KindOf(err), Msg: "telnet: reading from the server", Err: err}
		}
	}
	return n, err
}

func (s *telnetSession) SetWindowSize(cols, rows int) error { return s.setWindowSize(cols, rows) }
func (s *telnetSession) RemoteEcho() bool                   { return s.remoteEcho() }
func (s *telnetSession) Send(name string) error             { return s.sendCommand(name) }
func (s *telnetSession) Commands() [][2]string {
	out := make([][2]string, len(commands))
	for i, k := range commands {
		out[i] = [2]string{k.name, k.help}
	}
	return out
}
