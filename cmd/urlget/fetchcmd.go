package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all" // every scheme
	"github.com/urlget/urlget/fetch/telnet"
	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/urlparse"
)

// Exit statuses of the fetch command that do not come from a fetch error.
const (
	fetchExitUsage       = 2   // bad flag or flag value, no URL (curl's CURLE_FAILED_INIT)
	fetchExitInterrupted = 130 // SIGINT or SIGTERM: 128+SIGINT, as a shell reports it
)

// fetchOpts holds the parsed command line. A flag that sets a field of the
// Client or the Downloader is bound to that field (client, dl); the
// others are here as given, or in the groups of the files that define
// them.
type fetchOpts struct {
	client        fetch.Client        // the Client's fields the flags set
	dl            download.Downloader // the Downloader's fields the flags set
	outputs       []download.Target
	uploads       []string // -T: the Nth for the Nth URL
	remoteNameAll bool
	headerName    bool // -J: -O files named by Content-Disposition
	noClobber     bool // --no-clobber (--clobber: false), when given
	failEarly     bool
	globOff       bool // -g: URLs are not globs
	maxRedirs     int
	silent        bool
	showError     bool
	verbose       bool
	progressBar   bool
	noMeter       bool // --no-progress-meter
	writeOut      string
	help          bool
	version       bool
	urls          []string
	scheme        schemeOpts     // the scheme flags (schemeflags.go)
	req           reqOpts        // the request flags (request.go)
	conn          connOpts       // the connection and TLS flags (connflags.go)
	out           outOpts        // the output flags (outflags.go)
	par           parOpts        // -Z and its companions (parallel.go)
	options       fetch.Options  // Request.Options they ask for
	fs            *pflag.FlagSet // the flags, as parsed
}

// newFetchFlags defines every flag of the fetch command on a new FlagSet.
func newFetchFlags(e env, o *fetchOpts) *pflag.FlagSet {
	fs := cli.NewFlagSet("urlget", e.stderr)

	// -o and -O append to one list, so that the Nth of them belongs to the
	// Nth URL, as in curl.
	fs.VarP(cli.Func("string", func(s string) error {
		o.outputs = append(o.outputs, download.Target{Name: s})
		return nil
	}), "output", "o", "write the next URL to `FILE` instead of stdout (\"-\": stdout); once per URL, in order; #1, #2, ...: a glob's values")
	cli.Switch(fs, "remote-name", "O", "write the next URL to a file named after its last path segment", func() {
		o.outputs = append(o.outputs, download.Target{Remote: true})
	})
	// curl's --no-remote-name takes the next URL's output slot, as -O
	// does, for stdout: undoing --remote-name-all for that URL.
	cli.Switch(fs, "no-remote-name", "", "write the next URL to stdout, as -o - (undoes --remote-name-all for it)", func() {
		o.outputs = append(o.outputs, download.Target{Name: "-"})
	})
	fs.BoolVar(&o.remoteNameAll, "remote-name-all", false, "-O for every URL that has no -o/-O of its own")
	fs.BoolVarP(&o.headerName, "remote-header-name", "J", false, "with -O, name the file as an HTTP reply's Content-Disposition does (its directory part dropped); such a file replaces none (see --no-clobber)")
	fs.BoolVar(&o.noClobber, "no-clobber", false, "never replace an existing output file: write NAME.1, NAME.2, ... up to NAME.100 instead (exit 23 when all exist); --clobber replaces, a -J file too")
	fs.BoolVar(&o.dl.RemoveOnError, "remove-on-error", false, "remove the output file of a failed transfer instead of keeping its bytes in NAME.part for a resume")
	fs.BoolVar(&o.failEarly, "fail-early", false, "stop at the first transfer that fails, leaving the remaining URLs")
	fs.StringVar(&o.dl.OutputDir, "output-dir", "", "put -o and -O files (relative names) in `DIR`")
	fs.BoolVar(&o.dl.CreateDirs, "create-dirs", false, "create the directories an output file needs")
	fs.BoolVarP(&o.globOff, "globoff", "g", false, "take URLs as they are: no {a,b} and [1-9] globs (#N in -o then stays)")
	fs.VarP(cli.Func("string", func(at string) (err error) {
		o.dl.Resume, o.dl.ResumeFrom = true, download.ResumeAtEnd
		if at != "-" {
			if o.dl.ResumeFrom, err = strconv.ParseInt(at, 10, 64); err != nil || o.dl.ResumeFrom < 0 {
				return fmt.Errorf("want \"-\" or a byte offset, not %q", at)
			}
		}
		return nil
	}), "continue-at", "C", "resume at byte `OFFSET`, or \"-\": at the size of the -o/-O file")
	fs.BoolVarP(&o.dl.RemoteTime, "remote-time", "R", false, "give output files the remote modification time")
	fs.BoolVarP(&o.dl.Head, "head", "I", false, "fetch metadata only: HTTP response headers, or Content-Length/Last-Modified/Content-Type lines")
	fs.BoolVarP(&o.client.Fail, "fail", "f", false, "fail with exit 22 on an HTTP status >= 400, writing no body")
	fs.BoolVarP(&o.client.FollowRedirects, "location", "L", false, "follow redirects (to http, https, ftp and ftps only)")
	o.maxRedirs = 50
	fs.Var(cli.Int(&o.maxRedirs, "a count >= 0 or -1", func(n int) bool { return n >= -1 }), "max-redirs", "follow at most `N` redirects and referrals (-1: no limit; referrals stop at 50)")
	for _, status := range []int{301, 302, 303} {
		keep := func() { o.client.KeepPost = append(o.client.KeepPost, status) }
		cli.Switch(fs, "post"+strconv.Itoa(status), "", "with -L, send the body again with its method after a "+strconv.Itoa(status)+" (default: a GET without the body; a 307 or 308 always sends it again)", keep)
	}
	fs.Var(cli.Int(&o.dl.Retry.Retries, "a count >= 0", func(n int) bool { return n >= 0 }), "retry", "retry a transient failure (timeout, connection failure but a refused one, partial, HTTP 408/429/5xx) up to `N` times")
	fs.Var(cli.Seconds(&o.dl.Retry.Delay), "retry-delay", "wait `SECONDS` between retries (default: 1 s, doubling; a server's Retry-After wins)")
	fs.Var(cli.Seconds(&o.dl.Retry.MaxTime), "retry-max-time", "start no retry once `SECONDS` have passed since the first attempt")
	fs.BoolVar(&o.dl.Retry.AllErrors, "retry-all-errors", false, "with --retry, retry on any error (not an interrupt)")
	fs.BoolVar(&o.dl.Retry.Refused, "retry-connrefused", false, "with --retry, retry a refused connection too")
	fs.VarP(cli.Size(&o.client.LowSpeedLimit, false), "speed-limit", "Y", "fail with exit 28 when under `BYTES` a second for --speed-time (default 1 when only -y is given)")
	fs.VarP(cli.Seconds(&o.client.LowSpeedTime), "speed-time", "y", "fail with exit 28 after `SECONDS` under --speed-limit (default 30 when only -Y is given)")
	fs.Var(rateFlag(&o.client), "limit-rate", "move at most `SPEED` bytes a second, uploads too (suffix k, M, G)")
	fs.VarP(cli.Seconds(&o.client.MaxTime), "max-time", "m", "give each transfer at most `SECONDS` (exit 28)")
	fs.Var(cli.Seconds(&o.client.ConnectTimeout), "connect-timeout", "give each connection attempt at most `SECONDS`")
	fs.VarP(userFlag(&o.client), "user", "u", "credentials `USER[:PASSWORD]`, overriding the URL's")
	fs.BoolVarP(&o.client.Netrc, "netrc", "n", false, "take credentials from ~/.netrc")
	fs.Var(netrcFileFlag(&o.client), "netrc-file", "take credentials from `FILE` (implies --netrc)")
	cli.Switch(fs, "netrc-optional", "", "--netrc, a missing --netrc-file being an empty one", func() {
		o.client.Netrc, o.client.NetrcOptional = true, true
	})
	fs.BoolVar(&o.client.NoURLUser, "disallow-username-in-url", false, "refuse a URL holding a user name (exit 67)")
	fs.VarP(proxyFlag(&o.client), "proxy", "x", "use the proxy `URL` ([scheme://]host[:port]) for every scheme")
	fs.Var(cli.Func("string", func(s string) error {
		if err := proxyFlag(&o.client).Set(s); err != nil {
			return err
		}
		o.client.ProxyHTTP10 = true
		return nil
	}), "proxy1.0", "as -x `HOST[:PORT]`, the HTTP proxy's CONNECT sent as HTTP/1.0")
	fs.Var(cli.Func("string", func(s string) error {
		p, err := fetch.ParsePreProxy(s)
		if err == nil {
			o.client.PreProxy = p
		}
		return err
	}), "preproxy", "reach the HTTP proxy through the SOCKS proxy `URL` ([socks4|socks4a|socks5|socks5h://]host[:port], socks4 when none); alone, the proxy itself")
	fs.BoolVarP(&o.client.ProxyTunnel, "proxytunnel", "p", false, "reach every URL through the -x HTTP proxy's CONNECT tunnel (an http URL, an ftp data connection too) instead of sending the proxy the request")
	fs.Var(cli.Func("PATH", func(s string) error { o.client.UnixSocket = s; return nil }), "unix-socket", "connect to the Unix domain socket `PATH` instead of each URL's host and port (the request still names them)")
	fs.Var(cli.Func("NAME", func(s string) error { o.client.UnixSocket = "@" + s; return nil }), "abstract-unix-socket", "as --unix-socket, to the abstract socket `NAME` (Linux)")
	fs.Var(socksFlag(&o.client, "socks5"), "socks5", "use the SOCKS5 proxy `HOST[:PORT]`, resolving names here (as -x socks5://HOST[:PORT])")
	fs.Var(socksFlag(&o.client, "socks5h"), "socks5-hostname", "use the SOCKS5 proxy `HOST[:PORT]`, which resolves names (as -x socks5h://HOST[:PORT])")
	fs.Var(socksFlag(&o.client, "socks4"), "socks4", "use the SOCKS4 proxy `HOST[:PORT]`, resolving names here (as -x socks4://HOST[:PORT])")
	fs.Var(socksFlag(&o.client, "socks4a"), "socks4a", "use the SOCKS4a proxy `HOST[:PORT]`, which resolves names (as -x socks4a://HOST[:PORT])")
	fs.VarP(cli.Func("string", func(s string) error {
		o.client.HasProxyUser = true
		o.client.ProxyUser, o.client.ProxyPassword, _ = strings.Cut(s, ":")
		return nil
	}), "proxy-user", "U", "send `USER[:PASSWORD]` to the proxy, in place of the proxy URL's")
	fs.Var(noProxyFlag(&o.client), "noproxy", "comma-separated `HOSTS` to reach without a proxy (\"*\": all; \"\": none, whatever no_proxy says)")
	fs.StringVarP(&o.client.UserAgent, "user-agent", "A", "", "send `NAME` as the user agent (\"\": none)")
	fs.Var(cli.Size(&o.client.MaxFileSize, false), "max-filesize", "refuse or stop a body over `BYTES` (suffix k, M, G allowed; exit 63)")
	fs.BoolVarP(&o.client.Insecure, "insecure", "k", false, "do not verify TLS certificates")
	fs.BoolVar(&o.client.ProxyInsecure, "proxy-insecure", false, "do not verify the TLS certificate of an https:// proxy")
	fs.StringVar(&o.conn.cacert, "cacert", "", "trust the CA certificates in `FILE` (PEM) instead of the system's")
	fs.StringVar(&o.conn.capath, "capath", "", "trust the CA certificates in the PEM files in `DIR` instead of the system's")
	fs.StringVar(&o.conn.crlfile, "crlfile", "", "refuse a server certificate listed in the revocation lists in `FILE` (PEM or DER; each certificate of the chain but the root needs a current list from its issuer: exit 60)")
	fs.BoolVar(&o.client.Compressed, "compressed", false, "ask for a compressed body and decode it")
	fs.BoolVarP(&o.silent, "silent", "s", false, "no progress meter, no error messages")
	fs.BoolVarP(&o.showError, "show-error", "S", false, "with -s, still print error messages")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "show the protocol exchange on stderr (passwords masked)")
	fs.BoolVarP(&o.progressBar, "progress-bar", "#", false, "show a progress bar instead of the meter (only when stderr is a terminal)")
	fs.BoolVar(&o.noMeter, "no-progress-meter", false, "no progress meter or bar; error messages and warnings stay (curl's; -s silences both)")
	fs.StringVarP(&o.writeOut, "write-out", "w", "", "print `FORMAT` after each transfer (%{http_code}, %{json}, ...; @FILE reads it from FILE, @- from stdin)")
	fs.BoolVarP(&o.help, "help", "h", false, "print this help; --help SCHEME: one scheme's options and examples")
	fs.BoolVarP(&o.version, "version", "V", false, "print the version and the supported schemes")
	fs.VarP(cli.Func("string", func(s string) error {
		o.uploads = append(o.uploads, s)
		return nil
	}), "upload-file", "T", "upload `FILE` (\"-\": stdin; a glob: each file) to the next URL instead of fetching it (http: PUT, ftp: STOR; a URL ending in \"/\" gets FILE's name); once per URL, in order")
	addSchemeFlags(fs, &o.scheme)
	addRequestFlags(fs, &o.req, &o.dl)
	addConnFlags(fs, &o.conn, &o.client)
	addProtoFlags(fs, &o.client, &o.req.protoDefault)
	addOutFlags(fs, &o.out, &o.dl, &o.client)
	// curl's HTTP authentication and request-path flags, the Client's (-j
	// the cookie jar's).
	fs.BoolVar(&o.client.Digest, "digest", false, "send the -u credentials by HTTP Digest (RFC 7616), answering the server's 401 challenge")
	fs.BoolVar(&o.req.basic, "basic", false, "send the -u credentials by HTTP Basic (the default; with --digest: as --anyauth)")
	fs.BoolVar(&o.client.AnyAuth, "anyauth", false, "send the -u credentials as the server's 401 asks: Digest when offered, else NTLM, else Basic (the first request goes without them)")
	fs.BoolVar(&o.client.NTLM, "ntlm", false, "send the -u credentials by NTLM (DOMAIN\\USER for a domain), the exchange on one connection")
	fs.BoolVar(&o.client.ProxyNTLM, "proxy-ntlm", false, "send the proxy credentials (-U, the -x URL's) by NTLM, the exchange on one connection")
	fs.BoolVar(&o.client.ProxyAnyAuth, "proxy-anyauth", false, "send the proxy credentials as the proxy's 407 asks: Digest when offered, else NTLM, else Basic (the first request goes without them)")
	fs.Var(cli.Func("LINE", func(s string) error {
		o.client.ProxyHeader = append(o.client.ProxyHeader, s)
		return nil
	}), "proxy-header", `send "Name: value" to the HTTP proxy only (a CONNECT, a request sent to it), as -H ("Name:" removes a field, "Name;" sends it empty, @FILE: one a line)`)
	fs.BoolVar(&o.client.ProxyDigest, "proxy-digest", false, "send the proxy credentials (-U, the -x URL's) by HTTP Digest, answering the proxy's 407 challenge (the first request goes without them)")
	fs.StringVar(&o.client.Bearer, "oauth2-bearer", "", "send the OAuth 2.0 `TOKEN` (\"Authorization: Bearer TOKEN\") instead of -u credentials")
	fs.BoolVar(&o.client.LocationTrusted, "location-trusted", false, "-L, and send credentials and -H Authorization/Cookie lines to the hosts redirected to as well")
	fs.BoolVarP(&o.req.junkSession, "junk-session-cookies", "j", false, "with -b FILE: leave out the file's session cookies (no expiry), as a new session")
	fs.BoolVar(&o.client.PathAsIs, "path-as-is", false, "send the URL path as it is: no removal of its /./ and /../ segments")
	addParallelFlags(fs, &o.par)
	addNextFlag(fs)
	addJSONFlag(fs, &o.req)
	setHTTPTopics(fs)
	cli.AddNegations(fs) // last: every boolean above gets its --no-NAME
	return fs
}

// defaultConfig is the config file read before the command line: the
// first of $XDG_CONFIG_HOME/.urlgetrc and $HOME/.urlgetrc that exists.
func defaultConfig() string {
	for _, dir := range []string{os.Getenv("XDG_CONFIG_HOME"), os.Getenv("HOME")} {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, ".urlgetrc")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// parseFetchArgs parses the command line into o.
func parseFetchArgs(e env, args []string) (*fetchOpts, error) {
	o := &fetchOpts{}
	fs := newFetchFlags(e, o)
	o.fs = fs
	if err := fs.Parse(args); err != nil {
		return nil, cli.Error(err)
	}
	o.urls = withDefaultScheme(append(o.req.urls, fs.Args()...), o.req.protoDefault)
	if o.help || o.version {
		return o, nil
	}
	var err error
	if name, ok := strings.CutPrefix(o.writeOut, "@"); ok {
		b, err := readNamed(name, e.stdin)
		if err != nil {
			return nil, fmt.Errorf("-w/--write-out %s: %v", o.writeOut, fetch.PathCause(err))
		}
		o.writeOut = string(b)
	}
	if o.client.LocationTrusted {
		o.client.FollowRedirects = true
	}
	if fs.Changed("no-clobber") {
		o.dl.Clobber = download.ClobberAlways
		if o.noClobber {
			o.dl.Clobber = download.ClobberNever
		}
	}
	if o.headerName {
		if o.dl.Resume && o.dl.ResumeFrom == download.ResumeAtEnd {
			return nil, errors.New("-J/--remote-header-name and -C - exclude each other: the file's name is not known before the reply")
		}
		for i := range o.outputs {
			o.outputs[i].HeaderName = o.outputs[i].Remote
		}
	}
	if o.client.Digest && o.req.basic {
		o.client.AnyAuth = true // curl: either scheme, the server's choice
	}
	if o.options, err = o.scheme.Options(e.stdin); err != nil {
		return nil, err
	}
	if o.client.Fail && o.client.FailWithBody {
		return nil, errors.New("-f/--fail and --fail-with-body exclude each other")
	}
	if err := checkRequestArgs(o, e.stdin); err != nil {
		return nil, err
	}
	return o, nil
}

// The flags the fetch and mirror commands share, bound to the Client's
// fields: -u USER[:PASSWORD], --netrc-file FILE (which implies --netrc),
// -x PROXY and --limit-rate SPEED.

func userFlag(cl *fetch.Client) pflag.Value {
	return cli.Func("string", func(s string) error {
		if s != "" {
			cl.HasUser = true
			cl.User, cl.Password, cl.HasPassword = strings.Cut(s, ":")
		}
		return nil
	})
}

func netrcFileFlag(cl *fetch.Client) pflag.Value {
	return cli.Func("string", func(s string) error {
		cl.NetrcFile = s
		cl.Netrc = cl.Netrc || s != ""
		return nil
	})
}

// socksFlag is --socks5 and --socks5-hostname: -x with a SOCKS scheme
// put before HOST[:PORT] (a URL given with a scheme of its own keeps it).
func socksFlag(cl *fetch.Client, scheme string) pflag.Value {
	set := proxyFlag(cl)
	return cli.Func("string", func(s string) error {
		if s != "" && !strings.Contains(s, "://") {
			s = scheme + "://" + s
		}
		return set.Set(s)
	})
}

// proxyFlag is -x: "" leaves the proxy as it was (the environment's).
func proxyFlag(cl *fetch.Client) pflag.Value {
	return cli.Func("string", func(s string) error {
		if s == "" {
			return nil
		}
		p, err := fetch.ParseProxy(s)
		if err == nil {
			cl.Proxy = p
		}
		return err
	})
}

// noProxyFlag is --noproxy: given, even empty, it replaces no_proxy.
func noProxyFlag(cl *fetch.Client) pflag.Value {
	return cli.Func("string", func(s string) error {
		cl.NoProxy, cl.HasNoProxy = s, true
		return nil
	})
}

func rateFlag(cl *fetch.Client) pflag.Value {
	var n int64
	speed := cli.Size(&n, true)
	return cli.Func(speed.Type(), func(s string) error {
		if err := speed.Set(s); err != nil {
			return err
		}
		cl.LimitRate = fetch.NewLimiter(n)
		return nil
	})
}

// defaultUserAgent makes urlget's the user agent unless -A gave one.
func defaultUserAgent(cl *fetch.Client) {
	if cl.UserAgent == "" {
		cl.UserAgent = "urlget/" + version
	}
}

// fetchCmd runs one invocation of the fetch command.
type fetchCmd struct {
	e      env
	o      *fetchOpts
	client *fetch.Client
	lent   *fetch.Client       // client with the terminal lent to sessions (interactive.go); nil when stdin is no terminal
	tty    *telnet.Console     // the terminal lent
	dl     download.Downloader // does each URL's transfer (downloader)
	wo     *download.WriteOut  // nil without -w
	meter  *cli.Meter          // the current transfer's meter, if drawn
	jar    *fetch.CookieJar    // -b, -c
	par    *parState           // what the transfers of -Z share (parallel.go); nil without -Z
	// progress is set when a meter may be drawn: the Client reports
	// progress to it.
	progress bool

	// isTerminal reports whether w is a terminal; tests replace it.
	isTerminal func(w io.Writer) bool
	// sleep waits between retries; tests replace it.
	sleep func(ctx context.Context, d time.Duration) error
}

// runFetch is the fetch command: urlget [options] URL...
func runFetch(e env) int { return runFetchWith(e, nil) }

// runFetchWith is runFetch; setup, when not nil, adjusts the command before
// it runs (tests give the Client fake fetchers, or force the meter).
func runFetchWith(e env, setup func(*fetchCmd)) int {
	flags := newFetchFlags(env{stderr: io.Discard}, &fetchOpts{})
	args, err := cli.ExpandConfig(e.args, e.stdin, flags, defaultConfig, func(msg string) {
		if !silentArgs(e.args) {
			warnf(e.stderr, "%s", msg)
		}
	})
	if err != nil {
		return usageFailed(e, err)
	}
	if groups := splitNext(args, flags); groups != nil {
		return runGroups(e, groups, setup) // -:/--next: next.go
	}
	o, err := parseFetchArgs(e, args)
	if err != nil {
		return usageFailed(e, err)
	}
	switch {
	case o.help:
		return runHelp(e, strings.Join(o.urls, " "))
	case o.req.man || o.req.completion != "":
		return runDocs(e, o)
	case o.version:
		fmt.Fprintf(e.stdout, "urlget %s\nSchemes: %s\n", version, strings.Join(knownHelpSchemes(), " "))
		return 0
	case len(o.urls) == 0:
		return fail(e, fetchExitUsage, "no URL given (try 'urlget --help')")
	}
	if o.par.on {
		e.stdout, e.stderr = syncWriter(e.stdout), syncWriter(e.stderr)
	}
	e, endOut, err := o.out.start(e, o.silent, o.urls)
	if err != nil {
		return fail(e, fetchExitCode(err), "%v", err)
	}
	defer endOut()
	if o.par.on && o.dl.Headers != nil {
		o.dl.Headers = syncWriter(o.dl.Headers) // -D: one file for every transfer
	}
	if !o.silent {
		for _, w := range cli.Unused(o.fs, o.urls) {
			warnf(e.stderr, "%s", w)
		}
	}
	if n := len(o.outputs); n > len(o.urls) && !o.silent {
		warnf(e.stderr, "%d -o/-O for %d %s: the extra ones are unused", n, len(o.urls), plural(len(o.urls), "URL", "URLs"))
	}
	c, err := newFetchCmd(e, o)
	if err != nil {
		return usageFailed(e, err)
	}
	c.client.Replies = o.dl.Headers // -D: ftp's replies
	body, err := c.prepareRequest()
	if err != nil {
		return usageFailed(e, err)
	}
	if setup != nil {
		setup(c)
	}
	if !o.silent && !o.noMeter && c.isTerminal(e.stderr) {
		c.progress = true
		c.client.Progress = func(done, total int64) {
			if c.meter != nil {
				c.meter.Update(done)
			}
		}
	}
	// A closed stdout pipe is a write error (23), as in curl, not death by
	// SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c.lendTerminal()
	c.dl = c.downloader(body)
	if c.wo != nil {
		c.dl.Timer = &fetch.Timer{}
		ctx = c.dl.Timer.Context(ctx)
	}
	// Connections kept for the next URL (ftp's logged-in ones) are ended
	// properly (QUIT) at the end.
	defer c.client.CloseIdleConnections()
	return c.finishRequest(c.run(ctx))
}

// usageFailed reports an error in the options: curl's exit code for the
// flags that have one of their own (connExit), else a usage error.
func usageFailed(e env, err error) int {
	if code, ok := connExit(err); ok {
		return fail(e, code, "(%d) %v", code, err)
	}
	return fail(e, fetchExitUsage, "%v (try 'urlget --help')", err)
}

// newFetchCmd builds the Client from the options.
func newFetchCmd(e env, o *fetchOpts) (*fetchCmd, error) {
	cl := &o.client
	cl.MaxDecompressed = cl.MaxFileSize
	cl.Options = o.options
	if o.par.on {
		// Each running transfer's connection is kept for the next.
		cl.IdlePerHost = o.par.limit()
	}
	if err := o.conn.apply(cl); err != nil {
		return nil, err
	}
	switch cl.MaxRedirects = o.maxRedirs; o.maxRedirs { // curl's -1 (no limit) and 0 (none) in the Client's terms
	case -1:
		cl.MaxRedirects = math.MaxInt
	case 0:
		cl.MaxRedirects = fetch.NoRedirects
	}
	defaultUserAgent(cl)
	if o.verbose {
		cl.Verbose = e.stderr
	}
	cl.Warnings = warnWriter{e.stderr}
	if f, ok := cli.Terminal(e.stdin); ok {
		// A person can answer what a fetcher asks (fetch.InputNeededError).
		cl.Options = cl.Options.With(fetch.OptInteractive, "1")
		if cl.HasUser && !cl.HasPassword && anyHTTP(firstURLs(o)) {
			// -u USER for http: the password is asked for before the
			// request, as curl does (ftp asks when the server does).
			if pw, ok := cli.ReadSecret(e.stderr, f, "Enter host password for user '"+fetch.SanitizeLine(cl.User, 64)+"': "); ok {
				cl.Password, cl.HasPassword = pw, true
			}
		}
	}
	c := &fetchCmd{e: e, o: o, client: cl, isTerminal: isTerminal, sleep: fetch.Sleep}
	if o.writeOut != "" {
		c.wo = download.ParseWriteOut(o.writeOut)
		c.wo.Version = "urlget/" + version
		c.wo.Unknown = func(stderr io.Writer, name string) {
			fmt.Fprintf(stderr, "urlget: unknown --write-out variable: '%s'\n", name)
		}
	}
	return c, nil
}

// downloader is what does each URL's transfer: the flags' settings, and
// the terminal's part (questions, meters, warnings, a session's terminal)
// as its functions.
func (c *fetchCmd) downloader(body download.Body) download.Downloader {
	o := c.o
	d := o.dl
	d.Client, d.Retry, d.Stdout, d.Stdin, d.Body = c.client, c.retryPolicy(), c.e.stdout, c.e.stdin, body
	d.Format, d.IsTerminal, d.Ask, d.Readable = c.listFormat(), c.isTerminal, c.ask, c.o.scheme.readable
	if !o.silent {
		d.Warn = func(msg string) { warnf(c.e.stderr, "%s", msg) }
		d.Retrying = func(err error, wait time.Duration, left int) {
			warnf(c.e.stderr, "problem: %s. Will retry in %s. %d %s left.",
				fetch.OneLine(err.Error()), secondsString(wait), left, plural(left, "retry", "retries"))
		}
	}
	if c.progress {
		d.Meter = c.startMeter
		d.Sending = c.countUpload
	}
	if c.lent != nil {
		d.Session = c.session
	}
	return d
}

// anyHTTP reports whether one of the URLs is an http or https URL.
func anyHTTP(urls []string) bool {
	for _, raw := range urls {
		if u, err := parseFetchURL(raw); err == nil && fetch.HasCaps(u.Scheme, fetch.SpeaksHTTP) {
			return true
		}
	}
	return false
}

// run fetches every URL in turn, or with -Z at once (runParallel). Each
// result is told as its transfer ends (report); the exit status is the
// last failure's.
func (c *fetchCmd) run(ctx context.Context) int {
	status := 0
	var globErr error
	var interrupted []*download.Result
	jobs := func(yield func(download.Job) bool) {
		for j, err := range c.jobs() {
			if err != nil {
				globErr = err
				return
			}
			if !yield(j) {
				return
			}
		}
	}
	done := func(r *download.Result) bool {
		if ctx.Err() != nil {
			interrupted = append(interrupted, r)
			return false
		}
		return c.report(r, &status)
	}
	if c.o.par.on {
		c.runParallel(ctx, jobs, done)
	} else {
		for j := range jobs {
			if !done(c.dl.DoJob(ctx, j)) {
				break
			}
		}
	}
	switch {
	case ctx.Err() != nil:
		// Interrupted: clean up done, report nothing more.
		if !c.o.silent || c.o.showError {
			fmt.Fprintf(c.e.stderr, "urlget: interrupted\n")
			for _, r := range interrupted {
				c.reportKept(r)
			}
		}
		return fetchExitInterrupted
	case globErr != nil:
		return c.globFailed(globErr)
	}
	return status
}

// report tells of a transfer that has ended: its error and where its bytes
// are kept, then -w; a failure's exit code goes into status. It returns
// false when no more transfers are to be made.
func (c *fetchCmd) report(r *download.Result, status *int) bool {
	if r.Err != nil {
		*status = r.Code
		if closedPipe(r.Err) {
			// The reader of a pipe went away (| head): a normal end
			// of a pipeline, said with the exit code alone.
			return false
		}
		if !c.o.silent || c.o.showError {
			fmt.Fprintf(c.e.stderr, "urlget: (%d) %s\n", r.Code, cli.InFlags(fetch.OneLine(r.Err.Error())))
			c.reportKept(r)
		}
		if c.o.failEarly {
			if c.wo != nil {
				c.wo.Render(c.e.stdout, c.e.stderr, r)
			}
			return false
		}
	}
	if c.wo != nil {
		c.wo.Render(c.e.stdout, c.e.stderr, r)
	}
	return true
}

// closedPipe reports whether err is a write to a pipe whose reader has
// gone.
func closedPipe(err error) bool {
	return fetch.KindOf(err) == fetch.ErrWrite && errors.Is(err, syscall.EPIPE)
}

// outSpecFor is the output of URL number i (from 0).
func (c *fetchCmd) outSpecFor(i int) download.Target {
	var t download.Target
	switch {
	case i < len(c.o.outputs):
		t = c.o.outputs[i]
	case c.o.remoteNameAll:
		t = download.Target{Remote: true, HeaderName: c.o.headerName}
	default:
		t = download.Stdout
	}
	if i < len(c.o.uploads) {
		t.Upload = c.o.uploads[i]
	}
	return t
}

// reportKept says, in one line, where the bytes of a failed transfer are
// and how to resume it.
func (c *fetchCmd) reportKept(r *download.Result) {
	if r.Kept == "" {
		return
	}
	fmt.Fprintf(c.e.stderr, "urlget: %d bytes kept in %s; resume with: urlget -C - -o %s %s\n",
		r.KeptSize, r.Kept, shellQuote(r.Filename), shellQuote(r.URL))
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// retryPolicy is --retry and its companions, as curl reads them: a 1 s
// delay doubling up to 10 minutes, or --retry-delay every time.
func (c *fetchCmd) retryPolicy() fetch.RetryPolicy {
	p := c.o.dl.Retry
	p.Fixed, p.Sleep = p.Delay > 0, c.sleep
	return p
}

// startMeter is the Downloader's Meter: progress is drawn when stderr is
// a terminal and the output is not (and without -s).
func (c *fetchCmd) startMeter(size int64, toFile bool) func() {
	if c.o.silent || !c.isTerminal(c.e.stderr) || !toFile && c.isTerminal(c.e.stdout) {
		return nil
	}
	c.meter = cli.NewMeter(c.e.stderr, c.o.progressBar, size)
	return func() { c.meter.Finish(); c.meter = nil }
}

// parseFetchURL parses a command-line URL (download.ParseURL: curl's guess
// of a scheme left out, and its leniency).
func parseFetchURL(raw string) (urlparse.URL, error) { return download.ParseURL(raw) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func secondsString(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " " + plural(int(d/time.Second), "second", "seconds")
}
