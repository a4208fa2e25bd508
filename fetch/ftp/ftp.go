package ftp

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Fetcher carries out the ftp access method. Its zero value is ready to
// use; New builds the one a Client uses. A Fetcher keeps a pool of
// logged-in control connections (see the package documentation) and is
// safe for concurrent use.
type Fetcher struct {
	// MaxIdlePerHost bounds the idle control connections kept per server
	// and login (0: DefaultMaxIdlePerHost; negative: no reuse at all).
	MaxIdlePerHost int
	// IdleTimeout closes an idle connection after this long (0:
	// DefaultIdleTimeout).
	IdleTimeout time.Duration
	// FinalReplyTimeout bounds the wait for the server's final reply (226)
	// once a data connection has ended (0: DefaultFinalTimeout). When it
	// passes, the transfer is ErrPartial: without that reply nothing says
	// the data was complete.
	FinalReplyTimeout time.Duration
	// AcceptTimeout bounds the wait for the server to connect back in
	// active mode (0: DefaultAcceptTimeout).
	AcceptTimeout time.Duration

	// Config gives the dialer (its SOCKS proxy: the data connections go
	// through it too) and the verbose log.
	Config fetch.Config

	mu   sync.Mutex
	idle map[poolKey][]*idleConn
}

// New is the Fetcher for cfg (fetch.Scheme.New).
func New(cfg fetch.Config) fetch.Fetcher { return &Fetcher{Config: cfg} }

// Transfer methods for the ftp-method option.
const (
	MultiCWD  = "multicwd"  // one CWD per <cwd> segment (RFC 1738; the default)
	SingleCWD = "singlecwd" // one CWD with the segments joined by "/"
	NoCWD     = "nocwd"     // no CWD: every command gets the whole path
)

// options are the Request.Options this fetcher reads.
type options struct {
	method    string
	pasvTrust bool
	port      string
	noEPSV    bool
	noEPRT    bool
	pret      bool // ftp-pret
	listOnly  bool
	mlsd      bool
	email     string
	account   string
	altUser   string // ftp-alternative-to-user
	typ       byte
	mdtm      bool
	reuse     bool
	quote     []quoteCmd // ftp-quote, in the order given
	mkdirs    bool       // ftp-create-dirs
	tls       int        // tlsNone, tlsTry, tlsControl, tlsAll (tlsLevel)
	implicit  bool       // an ftps URL: TLS from the first byte
	ccc       string     // CCC after the login in TLS: "" none, CCCPassive, CCCActive (cccMode)
}

// Request.Options keys this package reads (the CLI flag in brackets).
const (
	OptMethod    = "ftp-method"              // multicwd (default), singlecwd or nocwd (--ftp-method)
	OptPasvTrust = "ftp-pasv-trust"          // "1": use the address in a PASV reply (--ftp-pasv-trust)
	OptPort      = "ftp-port"                // active mode: the address to listen on, "-" for the control connection's (-P)
	OptEPSV      = "ftp-epsv"                // "0": never try EPSV (--disable-epsv)
	OptEPRT      = "ftp-eprt"                // "0": never try EPRT (--disable-eprt)
	OptPRET      = "ftp-pret"                // "1": send PRET before EPSV/PASV (--ftp-pret)
	OptListOnly  = "ftp-list-only"           // "1": list directories with NLST (-l)
	OptMLSD      = "ftp-mlsd"                // "1": list directories with MLSD when the server has it (--ftp-mlsd)
	OptMDTM      = fetch.OptModTime          // "1": ask MDTM for Meta.ModTime (-R)
	OptReuse     = "ftp-reuse"               // "0": never reuse a logged-in connection (--ftp-no-reuse)
	OptAccount   = "ftp-account"             // ACCT data (--ftp-account)
	OptType      = "ftp-type"                // "a" or "i": the type when the URL gives none (-B, --ftp-binary)
	OptEmail     = "ftp-email"               // the anonymous password (--ftp-email)
	OptAppend    = "ftp-append"              // "1": a Request.Body is appended to the file (APPE), not stored (STOR) (--append)
	OptCRLF      = "ftp-crlf"                // "1": a Request.Body's LFs are sent as CRLF, whatever the TYPE (--crlf)
	OptAltUser   = "ftp-alternative-to-user" // a command sent when USER is refused, its reply taken as USER's (--ftp-alternative-to-user)
	OptQuote     = "ftp-quote"               // commands to send, one a line, "-" and "+" prefixed as curl's -Q (-Q/--quote)
	OptMkdirs    = "ftp-create-dirs"         // "1": MKD a directory that CWD refuses, then CWD again (--ftp-create-dirs)
)

func init() {
	ftp := []string{"ftp", "ftps"}
	fetch.Register(fetch.Scheme{Name: "ftp", New: New, HostPrefix: "ftp.",
		Caps: fetch.RedirectTarget | fetch.ReferralTarget | fetch.Gateway | fetch.SendsBody | fetch.ResumesUpload | fetch.Lists | fetch.Ranges | fetch.DirPaths | fetch.StartTLS,
		Options: []fetch.Option{
			{Key: OptMethod, Kind: fetch.String, Arg: "METHOD", Default: MultiCWD, Schemes: ftp, Values: []string{MultiCWD, SingleCWD, NoCWD},
				Help: "multicwd (one CWD per segment, RFC 1738), singlecwd or nocwd"},
			{Key: OptPasvTrust, Kind: fetch.Bool, Schemes: ftp,
				Help: "connect to the address in a PASV reply (by default the control connection's address is used)"},
			{Key: OptPasvTrust, Flag: "ftp-skip-pasv-ip", Kind: fetch.Bool, Set: "0", Schemes: ftp,
				Help: "connect to the control connection's address, not the one in a PASV reply (the default, as curl's; undoes --ftp-pasv-trust)"},
			{Key: OptPort, Short: "P", Kind: fetch.String, Arg: "ADDR", Schemes: ftp,
				Help: "active mode (EPRT/PORT), listening on ADDR (\"-\": the control connection's address)"},
			{Key: OptEPSV, Flag: "disable-epsv", Kind: fetch.Bool, Set: "0", Schemes: ftp, Help: "passive mode with PASV only"},
			{Key: OptEPRT, Flag: "disable-eprt", Kind: fetch.Bool, Set: "0", Schemes: ftp, Help: "active mode with PORT only"},
			{Key: OptPRET, Kind: fetch.Bool, Schemes: ftp, Help: "passive mode: send PRET and the transfer command before EPSV/PASV (drftpd needs it); refused: exit 84"},
			{Key: OptListOnly, Flag: "list-only", Short: "l", Kind: fetch.Bool, Schemes: ftp, Help: "list directories with NLST (names only)"},
			{Key: OptMLSD, Kind: fetch.Bool, Schemes: ftp, Help: "list directories with MLSD where the server has it"},
			{Key: OptReuse, Flag: "ftp-no-reuse", Kind: fetch.Bool, Set: "0", Schemes: ftp, Help: "a new connection for every URL"},
			{Key: OptEmail, Kind: fetch.String, Arg: "ADDR", Default: DefaultEmail, Schemes: ftp, Help: "the anonymous password"},
			{Key: OptAccount, Kind: fetch.String, Arg: "DATA", Schemes: ftp, Help: "ACCT data when the server asks for an account"},
			{Key: OptAltUser, Kind: fetch.String, Arg: "COMMAND", Schemes: ftp, Help: "send COMMAND when USER is refused, and go on as after USER (curl's)"},
			{Key: OptType, Flag: "use-ascii", Short: "B", Kind: fetch.Bool, Set: "a", Schemes: ftp,
				Help: "ASCII transfers (CRLF made LF) when the URL has no ;type= (default: binary, the server's bytes)"},
			{Key: OptType, Flag: "ftp-binary", Kind: fetch.Bool, Set: "i", Schemes: ftp,
				Help: "binary transfers when the URL has no ;type= (the default; undoes -B)"},
			{Key: OptAppend, Flag: "append", Kind: fetch.Bool, Schemes: ftp, Help: "with -T, append to the remote file (APPE)"},
			{Key: OptCRLF, Flag: "crlf", Kind: fetch.Bool, Schemes: ftp, Help: "with -T, send each LF not after a CR as CRLF (in binary mode too, as curl's --crlf)"},
			{Key: OptQuote, Flag: "quote", Short: "Q", Kind: fetch.Strings, Arg: "CMD", Schemes: ftp,
				Help: "send CMD after login (\"-CMD\": after the transfer; \"+CMD\": after the CWDs, just before it; \"*\" after those: a refusal is ignored); repeatable"},
			{Key: OptMkdirs, Flag: "ftp-create-dirs", Kind: fetch.Bool, Schemes: ftp, Help: "make the directories of the URL's path that are missing (MKD)"},
			{Key: fetch.OptSSL, Flag: "ftp-ssl", Kind: fetch.Bool, Set: "try", Schemes: ftp, Help: "curl's older name of --ssl for ftp: AUTH TLS where the server has it"},
			{Key: fetch.OptSSL, Flag: "ftp-ssl-reqd", Kind: fetch.Bool, Set: "required", Schemes: ftp, Help: "curl's older name of --ssl-reqd for ftp: TLS for the login and the data, or exit 64"},
			{Key: OptSSLControl, Kind: fetch.Bool, Schemes: ftp, Help: "TLS for the login (or exit 64), the data in the clear (PROT C)"},
			{Key: OptCCC, Kind: fetch.Bool, Schemes: ftp, Help: "after the login in TLS, CCC: the control connection goes on in the clear (refused: it stays in TLS)"},
			{Key: OptCCCMode, Kind: fetch.String, Arg: "MODE", Default: CCCPassive, Values: []string{CCCActive, CCCPassive}, Schemes: ftp,
				Help: "how TLS ends after CCC: passive (wait for the server's close_notify) or active (send ours first); implies --ftp-ssl-ccc"},
		},
		Examples: []fetch.Example{
			{Args: "ftp://ftp.gnu.org/gnu/", Help: "a directory listing"},
			{Args: "-O ftp://ftp.gnu.org/gnu/hello/hello-2.12.tar.gz", Help: "download under the remote name"},
			{Args: "-C - -O ftp://ftp.gnu.org/gnu/hello/hello-2.12.tar.gz", Help: "resume an interrupted download"},
			{Args: "-u me -T notes.txt ftp://ftp.example.org/incoming/", Help: "upload (STOR incoming/notes.txt); -T - reads stdin"},
			{Args: "--json-lines ftp://ftp.gnu.org/gnu/", Help: "the listing as JSON lines"},
			{Args: "--ssl-reqd -u me ftp://ftp.example.org/notes.txt", Help: "login and data inside TLS (AUTH TLS, PROT P)"},
		},
	})
	// ftps: the same client, in TLS from the first byte (port 990).
	fetch.Register(fetch.Scheme{Name: "ftps", New: New,
		Caps: fetch.RedirectTarget | fetch.ReferralTarget | fetch.SendsBody | fetch.ResumesUpload | fetch.Lists | fetch.Ranges | fetch.DirPaths | fetch.StartTLS,
		Examples: []fetch.Example{
			{Args: "-u me ftps://ftp.example.org/notes.txt", Help: "implicit FTPS: TLS from the first byte, data in TLS too"},
		},
	})
}

// requestOptions are the options of req: its Options, and the TLS its
// URL's scheme asks for.
func requestOptions(req *fetch.Request) (*options, error) {
	o, err := parseOptions(req.Options)
	if err != nil {
		return nil, err
	}
	o.implicit = req.URL.Scheme == "ftps"
	if o.tls, err = tlsLevel(req.Options, o.implicit); err != nil {
		return nil, err
	}
	if o.ccc, err = cccMode(req.Options); err != nil {
		return nil, err
	}
	return o, nil
}

func parseOptions(m fetch.Options) (*options, error) {
	o := &options{method: MultiCWD}
	bad := func(k, v, want string) error {
		return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "option " + k + "=" + strconv.Quote(v) + ": want " + want}
	}
	if v, ok := m[OptMethod]; ok && v != "" {
		switch strings.ToLower(v) {
		case MultiCWD, SingleCWD, NoCWD:
			o.method = strings.ToLower(v)
		default:
			return nil, bad(OptMethod, v, "multicwd, singlecwd or nocwd")
		}
	}
	var err error
	var noReuse bool
	for _, b := range []struct {
		key string
		v   *bool
	}{{OptPasvTrust, &o.pasvTrust}, {OptPRET, &o.pret}, {OptListOnly, &o.listOnly}, {OptMLSD, &o.mlsd}, {OptMDTM, &o.mdtm}, {OptMkdirs, &o.mkdirs}} {
		if *b.v, err = m.Bool(b.key); err != nil {
			return nil, err
		}
	}
	for _, b := range []struct {
		key string
		v   *bool
	}{{OptEPSV, &o.noEPSV}, {OptEPRT, &o.noEPRT}, {OptReuse, &noReuse}} {
		if *b.v, err = m.Bool(b.key); err != nil {
			return nil, err
		}
		*b.v = m.String(b.key) != "" && !*b.v // set to a false value: off
	}
	o.reuse = !noReuse
	o.port = m[OptPort]
	o.account = m[OptAccount]
	o.altUser = m[OptAltUser]
	if v := m[OptType]; v != "" {
		switch strings.ToLower(v) {
		case "a", "ascii":
			o.typ = 'a'
		case "i", "binary", "image":
			o.typ = 'i'
		default:
			return nil, bad(OptType, v, "a or i")
		}
	}
	o.email = m[OptEmail]
	if o.email == "" {
		o.email = DefaultEmail
	}
	for k, v := range map[string]string{OptEmail: o.email, OptAccount: o.account, OptAltUser: o.altUser, OptPort: o.port, OptQuote: m[OptQuote]} {
		if k == OptQuote {
			v = strings.ReplaceAll(v, "\n", " ") // the lines are separate commands
		}
		if badLineByte(v) {
			return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "option " + k + " holds CR, LF or NUL"}
		}
	}
	if o.quote, err = parseQuote(m.Strings(OptQuote)); err != nil {
		return nil, err
	}
	return o, nil
}

// DefaultEmail is the anonymous password when ftp-email is not set: a
// fixed address that names no one, curl's. RFC 1738 §3.2.1 suggests "the
// end user's email address", but that tells every server the user's login
// and machine name; servers only check that an address has an "@".
const DefaultEmail = "ftp@example.com"

// plan is what one URL asks the server for.
type plan struct {
	cwd       []cwdArg // CWDs to send from the login directory
	mkdirs    bool     // MKD what CWD refuses (ftp-create-dirs)
	name      string   // argument of SIZE, MDTM, RETR, STOR (the whole path with nocwd)
	list      bool     // a listing: NLST, LIST or MLSD
	verb      string   // the listing command
	listArg   string
	typ       byte // TYPE for the transfer; 0 for a listing without a typecode
	dirSegs   []string
	entryURLs bool // listing entries get URLs
}

func makePlan(u *urlparse.URL, o *options, up *upload) (*plan, error) {
	f := &u.FTP
	p := &plan{mkdirs: o.mkdirs}
	segs := f.CWD
	prefix := ""
	switch o.method {
	case MultiCWD:
		for _, s := range segs {
			p.cwd = append(p.cwd, cwdArg{arg: s, bare: s == ""})
		}
	case SingleCWD:
		if len(segs) > 0 {
			dir := strings.Join(segs, "/")
			if dir == "" {
				dir = "/"
			}
			p.cwd = []cwdArg{{arg: dir}}
		}
	case NoCWD:
		if len(segs) > 0 {
			prefix = strings.Join(segs, "/") + "/"
		}
	}
	dirPath := strings.TrimSuffix(prefix, "/")
	if dirPath == "" && prefix != "" {
		dirPath = "/"
	}
	if up != nil {
		if f.Name == "" || f.Type == 'd' {
			return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ftp: an upload needs a file name at the end of the URL (not a directory, not ;type=d)"}
		}
		p.name = prefix + f.Name
		p.typ = f.Type
		if p.typ == 0 {
			p.typ = o.typ
		}
		if p.typ == 0 {
			p.typ = 'i' // uploads are never guessed: see the package documentation
		}
		return p, nil
	}
	switch {
	case f.Type == 'd':
		p.list, p.verb = true, "NLST"
		switch {
		case f.Name != "":
			p.listArg = prefix + f.Name
		case dirPath != "":
			p.listArg = dirPath
		}
		p.dirSegs, p.entryURLs = segs, f.Name == ""
	case f.Name == "":
		p.list, p.verb = true, "LIST"
		if o.listOnly {
			p.verb = "NLST"
		}
		if dirPath != "" {
			p.listArg = dirPath
		}
		p.typ = f.Type
		p.dirSegs, p.entryURLs = segs, true
	default:
		p.name = prefix + f.Name
		p.typ = f.Type
		if p.typ == 0 {
			p.typ = o.typ
		}
		if p.typ == 0 {
			// RFC 1738 leaves the type to the client's guess: binary,
			// the only guess that never alters the data (as curl, wget
			// and lftp); ASCII only for ;type=a or -B.
			p.typ = 'i'
		}
	}
	return p, nil
}

// Open fetches one ftp URL (see the package documentation); with a
// Request.Body it stores the body there instead (see Upload).
func (f *Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	var up *upload
	if req.Body != nil {
		app, err := req.Options.Bool(OptAppend)
		if err != nil {
			return nil, err
		}
		crlf, err := req.Options.Bool(OptCRLF)
		if err != nil {
			return nil, err
		}
		up = &upload{r: req.Body, size: req.BodySize, append: app, crlf: crlf}
	}
	return f.do(ctx, req, up)
}

// SendsBody reports that a Request.Body can be stored at ftp URLs
// (fetch.BodySender); one that names a directory is refused by Open with
// ErrMalformed before anything is sent.
func (f *Fetcher) SendsBody(*urlparse.URL) bool { return true }

func (f *Fetcher) do(ctx context.Context, req *fetch.Request, up *upload) (*fetch.Resource, error) {
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	u := req.URL
	if ctx.Err() != nil {
		return nil, fetch.ContextError(ctx)
	}
	o, err := requestOptions(req)
	if err != nil {
		return nil, err
	}
	p, err := makePlan(u, o, up)
	if err != nil {
		return nil, err
	}
	key := poolKey{addr: serverAddr(req), user: req.User, tls: o.tls, ccc: o.ccc}
	if req.HasPassword {
		key.pass = "\x00" + req.Password
	}
	// Quoted commands may change what the connection's state is known
	// to be (a CWD, a TYPE, a logout): such a connection is never reused.
	reuse := o.reuse && f.maxIdle() > 0 && len(o.quote) == 0
	for attempt := 0; ; attempt++ {
		var c *pconn
		if reuse && attempt == 0 {
			c = f.take(key)
		}
		if c != nil {
			c.reused, c.answered, c.gone = true, false, false
			c.verbose = f.Config.Verbose
			c.pasvTrust = o.pasvTrust
			c.disableEPSV(o.noEPSV)
			c.noEPRT = c.noEPRT || o.noEPRT
			c.pret = o.pret
			c.SetActive(o.port, f.acceptTimeout())
			c.watch(ctx)
			fetch.Retrace(ctx, c.raw)
		} else {
			if c, err = f.dial(ctx, req, o, key, reuse); err != nil {
				return nil, err
			}
		}
		res, err := f.run(ctx, c, req, o, p, up)
		if err == nil {
			return res, nil
		}
		if c.reused && attempt == 0 && ctx.Err() == nil && (c.broken && !c.answered || c.gone) {
			// The pooled connection had died (the server's idle timeout,
			// or its session process: Reply.Gone):
			// nothing was done on it; start again on a new one.
			c.Close()
			continue
		}
		if c.broken {
			c.Close()
		} else {
			f.release(c)
		}
		return nil, err
	}
}

// chdir sends the plan's CWDs. On a reused connection it first goes back
// to the login directory (CWD to the directory PWD gave after login,
// loggedIn) —
// unless the connection is already where the plan leads, or on the way.
//
// With mkdirs (ftp-create-dirs), a refused CWD is followed by MKD of the
// same argument and the CWD once more, as curl's --ftp-create-dirs: a
// refused MKD is no error of its own (another client may have made the
// directory meanwhile), the second CWD's refusal is.
func (f *Fetcher) chdir(ctx context.Context, c *pconn, cwd []cwdArg, mkdirs bool) error {
	if len(c.path) > 0 {
		if hasPrefix(cwd, c.path) {
			cwd = cwd[len(c.path):]
		} else {
			if !c.homeKnown {
				c.broken = true
				return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: cannot return to the login directory"}
			}
			r, err := c.cmd("CWD", c.home, true)
			if err != nil {
				return ioError(ctx, fetch.ErrProtocol, "CWD", err)
			}
			if !r.Positive() {
				c.broken = true
				return RefusedError("CWD", c.home, r)
			}
			c.path = nil
		}
	}
	for _, a := range cwd {
		r, err := c.cmd("CWD", a.arg, !a.bare)
		if err != nil {
			return ioError(ctx, fetch.ErrProtocol, "CWD", err)
		}
		if !r.Positive() && mkdirs && !a.bare {
			if _, err := c.cmd("MKD", a.arg, true); err != nil {
				return ioError(ctx, fetch.ErrProtocol, "MKD", err)
			}
			if r, err = c.cmd("CWD", a.arg, true); err != nil {
				return ioError(ctx, fetch.ErrProtocol, "CWD", err)
			}
		}
		if !r.Positive() {
			return RefusedError("CWD", a.arg, r)
		}
		c.path = append(c.path, a)
	}
	return nil
}

func hasPrefix(a, prefix []cwdArg) bool {
	if len(prefix) > len(a) {
		return false
	}
	for i := range prefix {
		if a[i] != prefix[i] {
			return false
		}
	}
	return true
}

// run carries out the plan on a logged-in connection.
func (f *Fetcher) run(ctx context.Context, c *pconn, req *fetch.Request, o *options, p *plan, up *upload) (*fetch.Resource, error) {
	if err := f.quote(ctx, c, o.quote, quoteLogin); err != nil {
		return nil, err
	}
	if err := f.chdir(ctx, c, p.cwd, p.mkdirs); err != nil {
		return nil, err
	}
	switch {
	case up != nil:
		return f.store(ctx, c, req, o, p, up)
	case p.list:
		return f.list(ctx, c, req, o, p)
	}
	return f.retrieve(ctx, c, req, o, p)
}

// transfer sends a transfer command through the Conn's one data path
// (passive, or active with ftp-port; REST before RETR, the whole file when
// it is refused) on t, the data connection opened already (openTransfer),
// or on a new one when t is nil, and reads its first reply: 1xx, or 2xx
// when the server skipped the 1xx. A refusal is returned with its reply.
func (f *Fetcher) transfer(ctx context.Context, c *pconn, t *Transfer, verb, arg string, rest int64) (*Transfer, *Reply, error) {
	if t == nil {
		var err error
		if t, err = c.openTransfer(ctx, Command{Verb: verb, Arg: arg}); err != nil {
			return nil, nil, err
		}
	}
	if err := t.command("", verb, arg, rest, false); err != nil {
		return nil, nil, err
	}
	t.what = verb
	r, err := t.start()
	if err != nil {
		t.Close()
		return nil, nil, ioError(ctx, fetch.ErrProtocol, verb, err)
	}
	if !r.Preliminary() && !r.Positive() {
		return nil, r, RefusedError(verb, arg, r)
	}
	return t, r, nil
}

// retrieve fetches a file in curl's order: MDTM when needed (a time
// condition that fails needs nothing more), then the data connection
// (EPSV/PASV or EPRT/PORT), TYPE, the "+" quoted commands, SIZE (binary),
// REST, RETR. A HEAD opens no data connection: MDTM, TYPE, SIZE.
func (f *Fetcher) retrieve(ctx context.Context, c *pconn, req *fetch.Request, o *options, p *plan) (*fetch.Resource, error) {
	var mtime time.Time
	mdtm := 0 // MDTM's reply code, 0 when not asked
	if req.Head || o.mdtm || req.Offset > 0 && !req.Since.IsZero() || !req.IfModifiedSince.IsZero() || !req.IfUnmodifiedSince.IsZero() {
		r, err := c.cmd("MDTM", p.name, true)
		if err != nil {
			return nil, ioError(ctx, fetch.ErrProtocol, "MDTM", err)
		}
		mdtm = r.code
		if r.code == 213 {
			mtime, _ = ParseMDTM(r.Text())
		}
	}
	if !req.Head && req.Unchanged(mtime) {
		return f.done(ctx, c, o, fetch.Meta{Size: 0, ModTime: mtime, Status: 213, NotModified: true})
	}
	t, err := f.startTransfer(ctx, c, o, p.typ, !req.Head, Command{Verb: "RETR", Arg: p.name})
	if err != nil {
		return nil, err
	}
	if t != nil {
		defer t.closeUnused()
	}
	// With OptIgnoreLength no size is asked for or checked: the data
	// go until the data connection closes (a file still growing), as
	// curl's --ignore-content-length.
	unsized, _ := req.Options.Bool(fetch.OptIgnoreLength)
	unsized = unsized && !req.Head
	if t != nil && unsized {
		t.unsized = true
	}
	size := int64(-1)
	missing := false
	if (p.typ == 'i' || req.Head) && !unsized {
		// SIZE counts the bytes of the file as stored, which is what a
		// binary transfer sends; in ASCII mode it is no promise about
		// the converted body (and ProFTPD refuses it), but -I reports
		// the server's answer, as curl does.
		r, err := c.cmd("SIZE", p.name, true)
		if err != nil {
			return nil, ioError(ctx, fetch.ErrProtocol, "SIZE", err)
		}
		switch n, ok := ParseSize(r); {
		case ok:
			size = n
		case r.code == 550 && p.typ == 'i':
			missing = true
		}
	}
	switch {
	case mdtm == 550:
		missing = p.typ != 'i' || missing
	case mdtm != 0 && mdtm != 213:
		missing = false
	}
	if req.Head {
		if missing {
			return nil, &fetch.Error{Kind: fetch.ErrNotFound, Msg: "ftp: no such file: " + printable(p.name)}
		}
		// curl's -I also asks REST 0: whether the server resumes
		// ("Accept-ranges: bytes" among the fields it prints).
		r, err := c.cmd("REST", "0", true)
		if err != nil {
			return nil, ioError(ctx, fetch.ErrProtocol, "REST", err)
		}
		return f.done(ctx, c, o, fetch.Meta{Size: size, ModTime: mtime, Status: 213, Header: headFields(size, mtime, r.code == 350)})
	}
	offset, limit := req.Offset, int64(-1)
	if req.Range != nil {
		start, n, err := req.Range.Span(size)
		if err != nil {
			return nil, err
		}
		offset, limit = start, n
		if n == 0 {
			return f.done(ctx, c, o, fetch.Meta{Size: 0, ModTime: mtime, Offset: offset, Status: 213})
		}
	} else if offset > 0 {
		switch {
		case p.typ != 'i':
			offset = 0 // REST in ASCII mode counts the server's bytes: not resumable
		case size >= 0 && size < offset && (req.Since.IsZero() || !mtime.After(req.Since)):
			// Smaller than what is held, and not known to have
			// changed: nothing to resume, and no RETR (curl's 36, its
			// test 111).
			return nil, &fetch.Error{Kind: fetch.ErrResume, Msg: fmt.Sprintf("ftp: cannot resume at byte %d: the resource has %d bytes", offset, size)}
		case size >= 0 && size < offset:
			offset = 0 // the file shrank since the part was fetched: whole
		case !req.Since.IsZero() && !mtime.IsZero() && mtime.After(req.Since):
			offset = 0 // changed since the part held was fetched
		case size == offset:
			// Nothing left to fetch.
			return f.done(ctx, c, o, fetch.Meta{Size: 0, ModTime: mtime, Offset: offset, Status: 213})
		}
	}
	t, r, err := f.transfer(ctx, c, t, "RETR", p.name, offset)
	if err != nil {
		if res, ok, lerr := f.dirWithoutSlash(ctx, c, req, o, p, r); ok {
			return res, lerr
		}
		return nil, err
	}
	if req.Range != nil && t.Offset() != offset {
		t.Close()
		c.broken = true
		return nil, &fetch.Error{Kind: fetch.ErrResume, Msg: fmt.Sprintf("ftp: the server cannot start at byte %d (REST refused)", offset)}
	}
	offset = t.Offset()
	want := int64(-1)
	if size >= 0 && p.typ == 'i' {
		want = size - offset
	}
	// curl stops after the range's end whenever it has one, even at the
	// file's end: it then aborts (ABOR) rather than waiting for the 226.
	stop := limit >= 0 && (req.Range.End >= 0 || req.Range.Last > 0)
	if stop && want >= 0 {
		want = limit // else limit is only an upper bound
	}
	if !t.HasData() {
		// 2xx without a 1xx and no connection (active): an empty file.
		if want > 0 {
			return nil, &fetch.Error{Kind: fetch.ErrPartial, Msg: "ftp: RETR ended without data"}
		}
		return f.done(ctx, c, o, fetch.Meta{Size: 0, ModTime: mtime, Offset: offset, Status: r.code})
	}
	switch {
	case stop && want >= 0:
		t.Expect(offset+want, "the range")
	case want >= 0:
		t.Expect(size, "SIZE")
	}
	b := f.newBody(ctx, c, t, r, p.typ == 'a', "RETR")
	if stop {
		b.stopAt(limit)
	}
	b.post = o.quote
	b.res = &fetch.Resource{
		Meta: fetch.Meta{Size: want, ModTime: mtime, Offset: offset, Status: r.code},
		Body: b,
	}
	if b.ascii {
		b.res.WireBytes = b.wireBytes
	}
	return b.res, nil
}

// headFields are the fields curl prints for -I on an ftp file, in its
// order: the MDTM time, the SIZE, and "Accept-ranges: bytes" when REST
// was taken.
func headFields(size int64, mtime time.Time, ranges bool) fetch.Header {
	var h fetch.Header
	if !mtime.IsZero() {
		h = append(h, fetch.HeaderField{Name: "Last-Modified", Value: mtime.UTC().Format(http.TimeFormat)})
	}
	if size >= 0 {
		h = append(h, fetch.HeaderField{Name: "Content-Length", Value: strconv.FormatInt(size, 10)})
	}
	if ranges {
		h = append(h, fetch.HeaderField{Name: "Accept-ranges", Value: "bytes"})
	}
	return h
}

func (f *Fetcher) newBody(ctx context.Context, c *pconn, t *Transfer, r *Reply, ascii bool, what string) *dataBody {
	b := &dataBody{f: f, c: c, ctx: ctx, data: t, ascii: ascii, final: r.Positive(), what: what}
	b.r = t
	if ascii {
		b.r = fetch.LFReader(t)
	}
	return b
}

// list fetches a listing: NLST for ;type=d and ftp-list-only, MLSD with
// ftp-mlsd when FEAT offers it, LIST otherwise. The order is curl's: the
// data connection, TYPE A (unless the connection is known to be in
// ASCII), the listing command.
func (f *Fetcher) list(ctx context.Context, c *pconn, req *fetch.Request, o *options, p *plan) (*fetch.Resource, error) {
	verb := p.verb
	if verb == "LIST" && o.mlsd {
		feat, err := c.Features()
		if err != nil {
			return nil, err
		}
		if _, ok := feat["MLST"]; ok {
			verb = "MLSD"
		} else if _, ok := feat["MLSD"]; ok {
			verb = "MLSD"
		}
	}
	res := &fetch.Resource{Meta: fetch.Meta{Size: -1, Dir: true}}
	res.Listing = f.listing(req.URL, p, verb, listHint(c, verb))
	if req.Head {
		return f.doneListing(ctx, c, o, res)
	}
	t, err := c.openTransfer(ctx, Command{Verb: verb, Arg: p.listArg})
	if err != nil {
		return nil, err
	}
	defer t.closeUnused()
	typ := p.typ
	if typ == 0 {
		typ = 'a' // listings travel in ASCII (RFC 959 §4.1.3)
	}
	if err := c.Type(typ); err != nil {
		return nil, err
	}
	t, r, err := f.transfer(ctx, c, t, verb, p.listArg, 0)
	if err != nil && verb == "MLSD" && r != nil && r.code >= 500 && r.code <= 504 {
		verb = "LIST"
		res.Listing = f.listing(req.URL, p, verb, listHint(c, verb))
		t, r, err = f.transfer(ctx, c, nil, verb, p.listArg, 0)
	}
	if err != nil {
		if r != nil && r.code == 450 {
			// "No files found" (ProFTPD, wu-ftpd on an empty NLST): an
			// empty listing, not a failure.
			res.Status = 450
			return f.doneListing(ctx, c, o, res)
		}
		return nil, err
	}
	res.Status = r.code
	if !t.HasData() {
		return f.doneListing(ctx, c, o, res)
	}
	// A listing is text in NVT-ASCII: its lines end in LF here, as
	// curl and lftp print them (fetch.TextReader).
	b := f.newBody(ctx, c, t, r, false, verb)
	b.post = o.quote
	b.r = fetch.TextReader(b.r, req.Options)
	res.Body, b.res, res.WireBytes = b, res, b.wireBytes
	return res, nil
}

// listHint is the format a LIST on c is expected in, from the server's SYST
// reply when the login asked for it (see loggedIn); ListAuto for other verbs
// and when SYST was not asked.
func listHint(c *pconn, verb string) ListFormat {
	if verb != "LIST" || !c.systDone {
		return ListAuto
	}
	return SystemListFormat(c.syst)
}

// listing returns the Resource.Listing for a listing command's output.
func (f *Fetcher) listing(u *urlparse.URL, p *plan, verb string, hint ListFormat) func([]byte) fetch.Entry {
	scheme, host, port, user := u.Scheme, u.Host, u.PortOrDefault(), u.User
	if !u.HasUserinfo {
		user = ""
	}
	segs := append([]string(nil), p.dirSegs...)
	withURL := p.entryURLs
	lp := NewListParser(hint) // one per listing: its first lines settle the format
	return func(line []byte) fetch.Entry {
		var e fetch.Entry
		switch verb {
		case "NLST":
			e = ParseNLST(string(line))
		case "MLSD":
			var self, ok bool
			if e, self, ok = parseMLSx(string(line)); !ok {
				e = unparsed(string(line))
			} else if self {
				return e
			}
		default:
			e = lp.Parse(string(line))
		}
		if withURL && !e.Unparsed && e.Name != "" && e.Name != "." && e.Name != ".." && e.Type != fetch.EntryOther {
			if e.Type == fetch.EntryDir {
				e.URL = urlparse.FTPSchemeURL(scheme, host, port, user, "", append(segs[:len(segs):len(segs)], e.Name), "", 0)
			} else {
				e.URL = urlparse.FTPSchemeURL(scheme, host, port, user, "", segs, e.Name, 0)
			}
		}
		return e
	}
}
