package ftp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Command is one command line: Verb and, when not empty, Arg.
type Command struct {
	Verb string
	Arg  string
}

// Conn is one logged-in FTP control connection: the building block the
// Fetcher's pool and the mirror both use. Dial connects and logs in; Cmd
// sends a command and reads its reply; Send and ReadReply pipeline (several
// commands in one write, their replies read in order); Passive and DialData
// open passive data connections; Type and Features keep what the session
// knows. Every command goes through one writer that refuses CR, LF and NUL
// and masks PASS and ACCT in verbose output, every reply through ReadReply's
// bounds, and every refusal through ReplyKind's table.
//
// A Conn is used by one goroutine at a time.
type Conn struct {
	conn
	dialer    fetch.Dialer
	life      context.CancelFunc // ends the dial context: the Dialer then closes raw
	greeting  string
	pasvTrust bool

	peerHost      string // host for passive data connections (see dataHost)
	localIP       net.IP // the control connection's local address (ftp-port "-")
	remoteIP      net.IP // the control connection's peer, nil through a SOCKS proxy
	viaSOCKS      bool
	typ           byte          // current TYPE: 'a', 'i', or 0 when not known
	noEPSV        bool          // EPSV refused once (or ftp-epsv=0): go straight to PASV
	noEPRT        bool          // EPRT refused once (or ftp-eprt=0): go straight to PORT
	pret          bool          // ftp-pret: PRET before each passive data connection (Pret)
	active        string        // active mode: where to listen (ftp-port, SetActive); "" passive
	acceptTimeout time.Duration // active mode: the wait for the server's data connection
	feat          map[string]string
	featDone      bool
	syst          string // the SYST reply's text, once asked
	systDone      bool
	stopWatch     func() bool
	watched       context.Context // the context of the last Watch
	tls           *tls.Config     // this connection's and its data connections' (tlsConfig)
	tlsOn         bool            // the control connection is in TLS
	dataTLS       bool            // PROT P was taken: data connections in TLS
}

// Dial connects to the server of req.URL (an ftp URL) and logs in, as the
// Fetcher does for a request: through cfg.Dialer (a Client's brings its
// connect timeout and SOCKS proxy), with req.User,
// req.Password and req.HasPassword (see the package documentation for
// anonymous logins, ACCT and *PasswordNeededError), and the ftp options of
// req.Options that concern a connection (ftp-email, ftp-account,
// ftp-pasv-trust, ftp-epsv, ftp-eprt, ftp-pret). Verbose output goes to cfg.Verbose.
// fetch.Client.Prepare gives req and cfg with a Client's policy.
//
// ctx bounds the dial and the login. The connection outlives it: tie it to
// a context with Watch, end it with Quit or Close.
func Dial(ctx context.Context, cfg fetch.Config, req *fetch.Request) (*Conn, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fetch.ContextError(ctx)
	}
	o, err := requestOptions(req)
	if err != nil {
		return nil, err
	}
	return dial(ctx, &cfg, req, o)
}

// checkRequest refuses a request no ftp connection can serve.
func checkRequest(req *fetch.Request) error {
	u := req.URL
	if u == nil || u.Scheme != "ftp" && u.Scheme != "ftps" {
		return &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "ftp: not an ftp URL"}
	}
	if err := fetch.CheckURL(u); err != nil {
		return err
	}
	if badLineByte(req.User) || badLineByte(req.Password) {
		return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ftp: user or password holds CR, LF or NUL"}
	}
	if u.Host == "" {
		return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ftp: URL has no host"}
	}
	return nil
}

// serverAddr is the host:port req.URL names.
func serverAddr(req *fetch.Request) string {
	return net.JoinHostPort(req.URL.Host, strconv.Itoa(req.URL.PortOrDefault()))
}

// dial opens and logs in a new control connection. It is dialled under a
// context of its own, so that it can outlive ctx (in the pool); ctx still
// aborts the dial and the login.
func dial(ctx context.Context, cfg *fetch.Config, req *fetch.Request, o *options) (*Conn, error) {
	addr := serverAddr(req)
	d := cfg.Dialer
	if d == nil {
		d = &net.Dialer{}
	}
	lctx, life := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, life)
	raw, err := d.DialContext(lctx, "tcp", addr)
	stop()
	if err != nil {
		life()
		if ctx.Err() != nil {
			return nil, fetch.ContextError(ctx)
		}
		var fe *fetch.Error
		if errors.As(err, &fe) {
			return nil, fe
		}
		return nil, &fetch.Error{Kind: fetch.KindOf(err), Msg: "ftp: connecting to " + addr, Err: err}
	}
	c := &Conn{
		conn:          conn{raw: raw, br: bufio.NewReaderSize(raw, MaxReplyLine), verbose: cfg.Verbose, replies: cfg.Replies},
		dialer:        fetch.DataDialer(d), // data connections go where the server says, not where --connect-to sends the URL
		life:          life,
		pasvTrust:     o.pasvTrust,
		noEPRT:        o.noEPRT,
		pret:          o.pret,
		active:        o.port,
		acceptTimeout: DefaultAcceptTimeout,
	}
	c.observe = c.note
	// Through a proxy, the data goes to the host the control connection
	// was sent to (after ConnectTo), as curl sends it.
	toHost, _, _ := net.SplitHostPort(fetch.Redirected(d, addr))
	c.peerHost, c.remoteIP, c.viaSOCKS = dataHost(raw, toHost)
	c.disableEPSV(o.noEPSV)
	if la, ok := raw.LocalAddr().(*net.TCPAddr); ok {
		c.localIP = la.IP
	}
	c.watch(ctx)
	if o.tls != tlsNone {
		c.tls = tlsConfig(cfg.TLS, req.URL.Host)
	}
	if o.implicit {
		err = c.startTLS(ctx, "ftps: "+addr)
	}
	if err == nil {
		err = c.login(ctx, req, o)
	}
	c.unwatch()
	if err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// dataHost chooses where passive data connections go: the address the
// control connection reached, so that a name resolving to several hosts
// cannot send the data connection to another one. Through a SOCKS proxy
// (the connection reports the proxy's BoundAddr) the peer address is the
// proxy's, so the URL's host (after ConnectTo) is used and the proxy
// connects to it.
func dataHost(raw net.Conn, urlHost string) (host string, ip net.IP, socks bool) {
	if _, ok := fetch.ConnLayer[interface{ BoundAddr() net.Addr }](raw); ok {
		return urlHost, nil, true
	}
	if ta, ok := raw.RemoteAddr().(*net.TCPAddr); ok {
		return ta.IP.String(), ta.IP, false
	}
	if h, _, err := net.SplitHostPort(raw.RemoteAddr().String()); err == nil {
		return h, net.ParseIP(h), false
	}
	return urlHost, nil, false
}

// login reads the greeting and logs in (RFC 959 §5.4: USER, PASS, ACCT).
//
// Credentials: Request.User and Request.Password (the Client puts there the
// URL's userinfo, -u, or netrc); without a user, "anonymous" with
// ftp-email (default DefaultEmail, ftp@example.com) as the password. A user without a
// password whose server asks for one (331) ends the login with a
// *PasswordNeededError (Kind ErrLoginDenied) and no PASS sent: the caller
// asks the person and tries again with the password. A greeting of 230
// needs no USER; any 2xx reply to USER, PASS or ACCT is logged in (curl's
// reading: its test server says "200 fine, proceed without password").
func (c *Conn) login(ctx context.Context, req *fetch.Request, o *options) error {
	for {
		r, err := c.readReply()
		if err != nil {
			return ioError(ctx, fetch.ErrProtocol, "reading the greeting", err)
		}
		if r.code == 120 { // service ready in nnn minutes: the 220 follows
			continue
		}
		if r.code != 220 && r.code != 230 {
			return replyError(fetch.ErrConnect, "ftp: the server refused the connection", "(greeting)", r)
		}
		c.greeting = strings.Join(r.lines, "\n")
		if o.tls != tlsNone && !c.tlsOn {
			if err := c.auth(ctx, o.tls); err != nil {
				return err
			}
		}
		if r.code == 230 {
			// Logged in already (a greeting that needs no USER): curl
			// goes on without one, and so do we.
			return c.protect(ctx, o.tls, o.ccc)
		}
		break
	}
	user, pass, hasPass := req.User, req.Password, req.HasPassword
	if user == "" {
		user = "anonymous"
		if !hasPass {
			pass, hasPass = o.email, true
		}
	}
	r, err := c.cmd("USER", user, true)
	if err != nil {
		return ioError(ctx, fetch.ErrProtocol, "USER", err)
	}
	if o.altUser != "" && r.code != 331 && r.code != 332 && r.code/100 != 2 {
		// USER refused: curl sends the alternative, whose reply stands
		// for USER's.
		verb, arg, hasArg := strings.Cut(o.altUser, " ")
		if r, err = c.cmd(verb, arg, hasArg); err != nil {
			return ioError(ctx, fetch.ErrProtocol, verb, err)
		}
	}
	if r.code == 331 {
		if !hasPass {
			return &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "ftp: the server wants a password for " + strconv.Quote(user),
				Err: &fetch.InputNeededError{Key: fetch.OptPassword, Prompt: "Enter host password for user '" + user + "': ", Secret: true,
					Err: &PasswordNeededError{User: user, Host: req.URL.Host, Port: req.URL.PortOrDefault()}}}
		}
		if r, err = c.cmd("PASS", pass, true); err != nil {
			return ioError(ctx, fetch.ErrProtocol, "PASS", err)
		}
	}
	if r.code == 332 {
		if o.account == "" {
			return replyError(fetch.ErrLoginDenied, "ftp: the server asks for an account (ACCT) and none was given", shownCommand(c.lastVerb, ""), r)
		}
		if r, err = c.cmd("ACCT", o.account, true); err != nil {
			return ioError(ctx, fetch.ErrProtocol, "ACCT", err)
		}
	}
	if r.code/100 == 2 {
		// 230, 202 (RFC 959), or another 2xx: logged in, as curl takes it
		return c.protect(ctx, o.tls, o.ccc)
	}
	return RefusedError(c.lastVerb, "", r)
}

// PasswordNeededError says the server asked for a password (331) for a
// user that came without one. It is wrapped in a *fetch.InputNeededError
// for fetch.OptPassword, the Err of a *fetch.Error of Kind ErrLoginDenied;
// nothing was sent after USER. A program with a person at a terminal asks
// for the password and fetches again with it (Options[fetch.OptPassword],
// fetch.Client Password and HasPassword, or the URL's userinfo); others
// report the error (exit 67).
type PasswordNeededError struct {
	User string
	Host string
	Port int
}

func (e *PasswordNeededError) Error() string {
	return "password needed for " + e.User + "@" + net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
}

// note keeps the session state from the replies, whoever sent the command
// and however many were pipelined: the TYPE in force, the FEAT list.
func (c *Conn) note(cmd Command, r *Reply) {
	switch cmd.Verb {
	case "TYPE":
		if r.Positive() && cmd.Arg != "" {
			c.typ = strings.ToLower(cmd.Arg)[0]
		}
	case "FEAT":
		c.featDone = true
		c.feat = map[string]string{}
		if r.code == 211 && len(r.lines) > 2 {
			for _, l := range r.lines[1 : len(r.lines)-1] {
				name, params, _ := strings.Cut(strings.TrimSpace(l), " ")
				c.feat[strings.ToUpper(name)] = params
			}
		}
	}
}

// Greeting is the server's 220 reply, its lines joined with "\n", as sent
// (sanitize before showing it).
func (c *Conn) Greeting() string { return c.greeting }

// SetTimeout bounds, from now on, each write of commands and each wait for
// a reply (0: no bound but the context given to Watch). A reply that does
// not come in time is an error (ErrTimeout), and the connection is not
// usable any more.
func (c *Conn) SetTimeout(d time.Duration) { c.timeout = d }

// Cmd sends one command (arg "" for none) and reads its reply. The error is
// typed (a *fetch.Error) and means the connection is not usable any more; a
// refusal is a reply, not an error: see RefusedError.
func (c *Conn) Cmd(verb, arg string) (*Reply, error) {
	r, err := c.cmd(verb, arg, arg != "")
	if err != nil {
		return nil, c.ioError(verb, err)
	}
	return r, nil
}

// Send writes several commands in one write, without waiting: read their
// replies with ReadReply, in order. RFC 959 servers read commands one after
// the other, so the next commands travel while the server is busy with the
// first. Nothing is sent when any of them holds CR, LF or NUL
// (ErrMalformed).
func (c *Conn) Send(cmds ...Command) error {
	if len(cmds) == 0 {
		return nil
	}
	if err := c.sendAll(cmds, false); err != nil {
		return c.ioError(cmds[0].Verb, err)
	}
	return nil
}

// ReadReply reads the next reply: the answer to the oldest command sent
// whose final reply has not been read (a 1xx reply is followed by another
// one to the same command).
func (c *Conn) ReadReply() (*Reply, error) {
	r, err := c.readReply()
	if err != nil {
		verb := "reading a reply"
		if len(c.queue) > 0 {
			verb = c.queue[0].Verb
		}
		return nil, c.ioError(verb, err)
	}
	return r, nil
}

// Pending is the number of commands sent whose final replies have not been
// read.
func (c *Conn) Pending() int { return len(c.queue) }

// ioError types an I/O error of the control connection (see ioError), with
// the context the connection is watched by.
func (c *Conn) ioError(what string, err error) error {
	c.broken = true
	return ioError(c.watched, fetch.ErrProtocol, what, err)
}

// Type sets the transfer type, 'a' (TYPE A) or 'i' (TYPE I), unless the
// connection is in it already; a refusal is ErrTypeFailed.
func (c *Conn) Type(t byte) error {
	if t == 0 || c.typ == t {
		return nil
	}
	arg := "I"
	if t == 'a' {
		arg = "A"
	}
	r, err := c.Cmd("TYPE", arg)
	if err != nil {
		return err
	}
	if !r.Positive() {
		return RefusedError("TYPE", arg, r)
	}
	return nil
}

// Features returns what FEAT lists (RFC 2389), by upper-case name, with
// each feature's parameters: asked once per connection (an empty map when
// the server has no FEAT). A FEAT sent with Send counts too.
func (c *Conn) Features() (map[string]string, error) {
	if c.featDone {
		return c.feat, nil
	}
	if _, err := c.Cmd("FEAT", ""); err != nil {
		return nil, err
	}
	return c.feat, nil
}

// System returns the text of the server's SYST reply (RFC 959), asked once
// per connection: "" when the server refuses SYST. It is a hint for
// reading LIST output (SystemListFormat).
func (c *Conn) System() (string, error) {
	if c.systDone {
		return c.syst, nil
	}
	r, err := c.Cmd("SYST", "")
	if err != nil {
		return "", err
	}
	c.systDone = true
	if r.code/100 == 2 {
		c.syst = r.Text()
	}
	return c.syst, nil
}

// SetActive makes the transfers whose address is "" use active mode:
// listen on addr (an ftp-port value: "-" for the control connection's
// local address, an IP address, an interface or a host name, optionally
// with ":PORT" or ":LOW-HIGH") and tell the server with EPRT, or PORT when
// EPRT is refused; the server's connection is awaited at most accept
// (0: no bound but the context). addr "" goes back to passive mode.
func (c *Conn) SetActive(addr string, accept time.Duration) {
	c.active, c.acceptTimeout = addr, accept
}

// disableEPSV turns EPSV off (ftp-epsv=0) unless the control connection
// is IPv6: PASV cannot give an IPv6 address, and curl sends EPSV then
// whatever --disable-epsv says.
func (c *Conn) disableEPSV(off bool) {
	if off && (c.remoteIP == nil || c.remoteIP.To4() != nil) {
		c.noEPSV = true
	}
}

// Pret tells the server which transfer command the next passive data
// connection is for — PRET, then cmd as it will be sent ("PRET RETR
// name", "PRET LIST") — when the connection was dialled with ftp-pret;
// without it Pret sends nothing. Some servers (drftpd, whose files live
// on other machines) need it to choose where the data connection goes.
// Retr, List and Stor with no address send it themselves; a caller that
// pipelines PassiveCommand sends it first. Any reply but 200 is ErrPRET
// (curl's 84, "PRET command not accepted"), and the connection is not
// usable any more: curl ends the session without QUIT (its test 1108).
func (c *Conn) Pret(cmd Command) error {
	if !c.pret {
		return nil
	}
	arg := cmd.Verb
	if cmd.Arg != "" {
		arg += " " + cmd.Arg
	}
	r, err := c.Cmd("PRET", arg)
	if err != nil {
		return err
	}
	if r.code != 200 {
		c.broken = true
		return replyError(fetch.ErrPRET, "ftp: the server refused PRET "+printable(arg), shownCommand("PRET", arg), r)
	}
	return nil
}

// PassiveCommand is the command that asks for a passive data connection on
// this connection: EPSV (RFC 2428), or PASV once EPSV was refused or turned
// off with ftp-epsv=0.
func (c *Conn) PassiveCommand() string {
	if c.noEPSV {
		return "PASV"
	}
	return "EPSV"
}

// Passive reads the reply r to EPSV or PASV (sent with Cmd or Send) and
// returns the address to open the data connection to. When EPSV was
// refused (any 3xx to 5xx reply but one that says the session is over,
// Reply.Gone) it asks PASV (and does so from
// then on). The address in a PASV
// reply is not used — the data connection goes to the address the control
// connection reached — unless ftp-pasv-trust says so: a server naming
// another host could otherwise turn the client against a third party (RFC
// 2577 §3, the "FTP bounce"). Through a SOCKS proxy the URL's host is
// used, and the proxy connects to it.
//
// A refusal is RefusedError's; a positive reply that is not the one asked
// for is ErrProtocol: the replies are out of step with the commands.
func (c *Conn) Passive(r *Reply) (string, error) {
	verb := r.verb
	switch {
	case verb == "EPSV" && r.code == 229:
		p, ok := ParseEPSV(r.lines[0])
		if !ok {
			return "", weirdPassive(r)
		}
		return net.JoinHostPort(c.peerHost, strconv.Itoa(p)), nil
	case verb == "PASV" && r.code == 227:
		ip, p, ok := ParsePASV(r.lines[0])
		if !ok {
			c.broken = true // curl ends the session without QUIT (its test 237)
			return "", weirdPassive(r)
		}
		host := c.peerHost
		if c.pasvTrust {
			host = ip.String()
		}
		return net.JoinHostPort(host, strconv.Itoa(p)), nil
	case verb == "EPSV" && r.code >= 300 && !r.Gone():
		// Refused, or a reply that is no answer (curl's test server
		// says 314): PASV, as curl does.
		c.noEPSV = true
		r2, err := c.Cmd("PASV", "")
		if err != nil {
			return "", err
		}
		return c.Passive(r2)
	case r.code >= 300 && (verb == "EPSV" || verb == "PASV"):
		return "", RefusedError(verb, "", r)
	}
	return "", c.protocolError("unexpected reply " + strconv.Quote(r.String()) + " to " + verb + ": the replies are out of step with the commands")
}

// weirdPassive is the error of an EPSV or PASV reply whose address cannot
// be read (a port past 65535, no numbers): ErrPassive for EPSV,
// ErrPassiveFormat for PASV (curl's 13 and 14). The replies are in step:
// after EPSV the session ends with QUIT, as curl's does; after PASV curl
// drops it, and so does Passive.
func weirdPassive(r *Reply) error {
	kind := fetch.ErrPassive
	if r.verb == "PASV" {
		kind = fetch.ErrPassiveFormat
	}
	return replyError(kind, "ftp: malformed "+r.verb+" reply "+strconv.Quote(printable(r.lines[0])), r.verb, r)
}

func (c *Conn) protocolError(msg string) error {
	c.broken = true
	return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: " + msg}
}

// DialData opens a data connection to addr (from Passive) through the
// connection's Dialer, under ctx (a Client's Dialer closes it when ctx is
// done). The error is typed.
func (c *Conn) DialData(ctx context.Context, addr string) (net.Conn, error) {
	nc, err := fetch.Connect(ctx, c.dialer, addr, "ftp: data connection to")
	if err != nil {
		return nil, err
	}
	return c.dataConnTLS(nc), nil
}

// OpenPassive asks for a passive data connection (EPSV, else PASV) and
// opens it; when the port EPSV named cannot be connected to, it asks PASV.
func (c *Conn) OpenPassive(ctx context.Context) (net.Conn, error) {
	r, err := c.Cmd(c.PassiveCommand(), "")
	if err != nil {
		return nil, err
	}
	addr, err := c.Passive(r)
	if err != nil {
		return nil, err
	}
	dc, err := c.DialData(ctx, addr)
	if err != nil && r.verb == "EPSV" && ctx.Err() == nil && fetch.KindOf(err) == fetch.ErrConnect {
		// The port EPSV named cannot be reached (a firewall that
		// knows only PASV): PASV, from now on, as curl does.
		c.noEPSV = true
		if r, err = c.Cmd("PASV", ""); err != nil {
			return nil, err
		}
		if addr, err = c.Passive(r); err != nil {
			return nil, err
		}
		dc, err = c.DialData(ctx, addr)
	}
	return dc, err
}

// Watch closes the connection when ctx is done, until stop is called; stop
// reports whether the connection was still open then.
func (c *Conn) Watch(ctx context.Context) (stop func() bool) {
	raw := c.raw
	c.watched = ctx
	return context.AfterFunc(ctx, func() { raw.Close() })
}

func (c *Conn) watch(ctx context.Context) { c.stopWatch = c.Watch(ctx) }

func (c *Conn) unwatch() bool {
	if c.stopWatch == nil {
		return true
	}
	ok := c.stopWatch()
	c.stopWatch, c.watched = nil, nil
	return ok
}

// Close ends the connection at once.
func (c *Conn) Close() error {
	c.unwatch()
	c.broken = true
	err := c.raw.Close()
	if c.life != nil {
		c.life()
	}
	return err
}

// Quit says goodbye (QUIT, waiting at most two seconds for the 221) and
// closes; a connection out of step is closed without QUIT.
func (c *Conn) Quit() error {
	if !c.broken && len(c.queue) == 0 {
		c.replies = nil // the goodbye is no transfer's header (curl's -D)
		c.raw.SetDeadline(time.Now().Add(2 * time.Second))
		if c.send("QUIT", "", false) == nil {
			c.readReply()
		}
	}
	return c.Close()
}
