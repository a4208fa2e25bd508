package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all" // every scheme
	"github.com/urlget/urlget/fetch/telnet"
	"github.com/urlget/urlget/urlparse"
)

// Exit statuses of the fetch command that do not come from a fetch error.
const (
	fetchExitUsage       = 2   // bad flag or flag value, no URL (curl's CURLE_FAILED_INIT)
	fetchExitInterrupted = 130 // SIGINT or SIGTERM: 128+SIGINT, as a shell reports it
)

// copyBufSize is the buffer a network body is copied through (see copyBody).
const copyBufSize = 1 << 20

// outSpec is where one URL's data goes, from -o/-O in command-line order.
type outSpec struct {
	remote bool   // -O: name it after the URL
	name   string // -o FILE; "-" is stdout
	// implicit: stdout because no -o/-O was given (not -o -), so binary
	// data is refused on a terminal.
	implicit bool
}

// outFlag is the pflag.Value behind -o and -O: both append to one list so
// that the Nth -o or -O belongs to the Nth URL, as in curl.
type outFlag struct {
	specs  *[]outSpec
	remote bool
}

func (v *outFlag) String() string { return "" }
func (v *outFlag) Type() string {
	if v.remote {
		return "bool"
	}
	return "string"
}
func (v *outFlag) Set(s string) error {
	if v.remote {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return err
		}
		if b {
			*v.specs = append(*v.specs, outSpec{remote: true})
		}
		return nil
	}
	*v.specs = append(*v.specs, outSpec{name: s})
	return nil
}

// fetchOpts holds the parsed command line.
type fetchOpts struct {
	outputs        []outSpec
	remoteNameAll  bool
	outputDir      string
	createDirs     bool
	globOff        bool // -g: URLs are not globs
	silent         bool
	showError      bool
	verbose        bool
	fail           bool
	location       bool
	maxRedirs      int
	post30x        [3]bool // --post301, --post302, --post303
	head           bool
	continueAt     string // "", "-" or a byte offset
	resumeFrom     int64  // continueAt as a number; -1 for "-"
	retry          int
	retryDelay     time.Duration // 0: curl's backoff (1 s, doubling, at most 10 min)
	retryMaxTime   time.Duration // 0: no limit
	retryAll       bool          // --retry-all-errors
	retryRefused   bool          // --retry-connrefused
	speedLimit     int64         // -Y: bytes/s; 0 unset
	speedTime      time.Duration // -y; 0 unset
	limitRate      int64         // --limit-rate: bytes/s; 0 none
	maxTime        time.Duration
	connectTimeout time.Duration
	user           string
	netrc          bool
	netrcFile      string
	proxy          string
	noproxy        string
	progressBar    bool
	noMeter        bool // --no-progress-meter
	writeOut       string
	userAgent      string
	maxFilesize    int64
	insecure       bool
	cacert, capath string // --cacert FILE, --capath DIR
	compressed     bool
	remoteTime     bool
	help           bool
	version        bool
	urls           []string
	uploadFile     string        // -T: upload this file instead of fetching
	scheme         schemeOpts    // the scheme flags (schemeflags.go)
	req            reqOpts       // the request flags (request.go)
	conn           connOpts      // the connection and TLS flags (connflags.go)
	out            outOpts       // the output flags (outflags.go)
	par            parOpts       // -Z and its companions (parallel.go)
	auth           authOpts      // the HTTP authentication flags (authflags.go)
	options        fetch.Options // Request.Options they ask for
}

// newFetchFlags defines every flag of the fetch command on a new FlagSet.
func newFetchFlags(e env, o *fetchOpts) *pflag.FlagSet {
	fs := pflag.NewFlagSet("urlget", pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {}
	fs.SortFlags = false

	fs.VarP(&outFlag{specs: &o.outputs}, "output", "o", "write the next URL to `FILE` instead of stdout (\"-\": stdout); once per URL, in order; #1, #2, ...: a glob's values")
	fs.VarPF(&outFlag{specs: &o.outputs, remote: true}, "remote-name", "O", "write the next URL to a file named after its last path segment").NoOptDefVal = "true"
	fs.BoolVar(&o.remoteNameAll, "remote-name-all", false, "-O for every URL that has no -o/-O of its own")
	fs.StringVar(&o.outputDir, "output-dir", "", "put -o and -O files (relative names) in `DIR`")
	fs.BoolVar(&o.createDirs, "create-dirs", false, "create the directories an output file needs")
	fs.BoolVarP(&o.globOff, "globoff", "g", false, "take URLs as they are: no {a,b} and [1-9] globs (#N in -o then stays)")
	fs.StringP("continue-at", "C", "", "resume at byte `OFFSET`, or \"-\": at the size of the -o/-O file")
	fs.BoolVarP(&o.remoteTime, "remote-time", "R", false, "give output files the remote modification time")
	fs.BoolVarP(&o.head, "head", "I", false, "fetch metadata only: HTTP response headers, or Content-Length/Last-Modified/Content-Type lines")
	fs.BoolVarP(&o.fail, "fail", "f", false, "fail with exit 22 on an HTTP status >= 400, writing no body")
	fs.BoolVarP(&o.location, "location", "L", false, "follow redirects (to http, https and ftp only)")
	fs.IntVar(&o.maxRedirs, "max-redirs", 50, "follow at most `N` redirects and referrals (-1: no limit; referrals stop at 50)")
	for i, status := range []string{"301", "302", "303"} {
		fs.BoolVar(&o.post30x[i], "post"+status, false, "with -L, send the body again with its method after a "+status+" (default: a GET without the body; a 307 or 308 always sends it again)")
	}
	fs.IntVar(&o.retry, "retry", 0, "retry a transient failure (timeout, connection failure but a refused one, partial, HTTP 408/429/5xx) up to `N` times")
	fs.String("retry-delay", "", "wait `SECONDS` between retries (default: 1 s, doubling; a server's Retry-After wins)")
	fs.String("retry-max-time", "", "start no retry once `SECONDS` have passed since the first attempt")
	fs.BoolVar(&o.retryAll, "retry-all-errors", false, "with --retry, retry on any error (not an interrupt)")
	fs.BoolVar(&o.retryRefused, "retry-connrefused", false, "with --retry, retry a refused connection too")
	fs.StringP("speed-limit", "Y", "", "fail with exit 28 when under `BYTES` a second for --speed-time (default 1 when only -y is given)")
	fs.StringP("speed-time", "y", "", "fail with exit 28 after `SECONDS` under --speed-limit (default 30 when only -Y is given)")
	fs.String("limit-rate", "", "move at most `SPEED` bytes a second, uploads too (suffix k, M, G)")
	fs.String("max-time", "", "give each transfer at most `SECONDS` (exit 28)")
	fs.String("connect-timeout", "", "give each connection attempt at most `SECONDS`")
	fs.StringVarP(&o.user, "user", "u", "", "credentials `USER[:PASSWORD]`, overriding the URL's")
	fs.BoolVarP(&o.netrc, "netrc", "n", false, "take credentials from ~/.netrc")
	fs.StringVar(&o.netrcFile, "netrc-file", "", "take credentials from `FILE` (implies --netrc)")
	fs.StringVarP(&o.proxy, "proxy", "x", "", "use the proxy `URL` ([scheme://]host[:port]) for every scheme")
	fs.StringVar(&o.noproxy, "noproxy", "", "comma-separated `HOSTS` to reach without a proxy (\"*\": all)")
	fs.StringVarP(&o.userAgent, "user-agent", "A", "", "send `NAME` as the user agent")
	fs.String("max-filesize", "", "refuse or stop a body over `BYTES` (suffix k, M, G allowed; exit 63)")
	fs.BoolVarP(&o.insecure, "insecure", "k", false, "do not verify TLS certificates")
	fs.StringVar(&o.cacert, "cacert", "", "trust the CA certificates in `FILE` (PEM) instead of the system's")
	fs.StringVar(&o.capath, "capath", "", "trust the CA certificates in the PEM files in `DIR` instead of the system's")
	fs.BoolVar(&o.compressed, "compressed", false, "ask for a compressed body and decode it")
	fs.BoolVarP(&o.silent, "silent", "s", false, "no progress meter, no error messages")
	fs.BoolVarP(&o.showError, "show-error", "S", false, "with -s, still print error messages")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "show the protocol exchange on stderr (passwords masked)")
	fs.BoolVarP(&o.progressBar, "progress-bar", "#", false, "show a progress bar instead of the meter (only when stderr is a terminal)")
	fs.BoolVar(&o.noMeter, "no-progress-meter", false, "no progress meter or bar; error messages and warnings stay (curl's; -s silences both)")
	fs.StringVarP(&o.writeOut, "write-out", "w", "", "print `FORMAT` after each transfer (%{http_code}, %{json}, ...; @FILE reads it from FILE, @- from stdin)")
	fs.BoolVarP(&o.help, "help", "h", false, "print this help; --help SCHEME: one scheme's options and examples")
	fs.BoolVarP(&o.version, "version", "V", false, "print the version and the supported schemes")
	fs.StringVarP(&o.uploadFile, "upload-file", "T", "", "upload `FILE` (\"-\": stdin) to each URL instead of fetching (http: PUT, ftp: STOR; a URL ending in \"/\" gets FILE's name)")
	addSchemeFlags(fs, &o.scheme)
	addRequestFlags(fs, &o.req)
	addConnFlags(fs, &o.conn)
	addOutFlags(fs, &o.out)
	addAuthFlags(fs, &o.auth)
	addParallelFlags(fs, &o.par)
	addNextFlag(fs)
	addJSONFlag(fs, &o.req)
	return fs
}

// parseFetchArgs parses the command line into o.
func parseFetchArgs(e env, args []string) (*fetchOpts, error) {
	o := &fetchOpts{resumeFrom: 0}
	fs := newFetchFlags(e, o)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.urls = append(o.req.urls, fs.Args()...)
	if o.help || o.version {
		return o, nil
	}
	var err error
	if fs.Changed("continue-at") {
		o.continueAt, _ = fs.GetString("continue-at")
		if o.continueAt == "-" {
			o.resumeFrom = -1
		} else if o.resumeFrom, err = strconv.ParseInt(o.continueAt, 10, 64); err != nil || o.resumeFrom < 0 {
			return nil, fmt.Errorf("-C/--continue-at: want \"-\" or a byte offset, not %q", o.continueAt)
		}
	}
	secs := func(name string) (time.Duration, error) {
		s, _ := fs.GetString(name)
		if s == "" {
			return 0, nil
		}
		d, err := parseSeconds(s)
		if err != nil {
			return 0, fmt.Errorf("--%s: %v", name, err)
		}
		return d, nil
	}
	if o.retryDelay, err = secs("retry-delay"); err != nil {
		return nil, err
	}
	if o.maxTime, err = secs("max-time"); err != nil {
		return nil, err
	}
	if o.connectTimeout, err = secs("connect-timeout"); err != nil {
		return nil, err
	}
	if o.retryMaxTime, err = secs("retry-max-time"); err != nil {
		return nil, err
	}
	if o.speedTime, err = secs("speed-time"); err != nil {
		return nil, err
	}
	if s, _ := fs.GetString("speed-limit"); s != "" {
		if o.speedLimit, err = parseSize(s); err != nil {
			return nil, fmt.Errorf("-Y/--speed-limit: %v", err)
		}
	}
	if s, _ := fs.GetString("limit-rate"); s != "" {
		if o.limitRate, err = parseRate(s); err != nil {
			return nil, err
		}
	}
	if s, _ := fs.GetString("max-filesize"); s != "" {
		if o.maxFilesize, err = parseSize(s); err != nil {
			return nil, fmt.Errorf("--max-filesize: %v", err)
		}
	}
	if o.retry < 0 {
		return nil, fmt.Errorf("--retry: want a count >= 0, not %d", o.retry)
	}
	if o.maxRedirs < -1 {
		return nil, fmt.Errorf("--max-redirs: want a count >= 0 or -1, not %d", o.maxRedirs)
	}
	if strings.HasPrefix(o.writeOut, "@") {
		var b []byte
		if name := o.writeOut[1:]; name == "-" {
			b, err = io.ReadAll(e.stdin)
		} else {
			b, err = os.ReadFile(name)
		}
		if err != nil {
			return nil, fmt.Errorf("-w/--write-out: %v", err)
		}
		o.writeOut = string(b)
	}
	if o.netrcFile != "" {
		o.netrc = true
	}
	if o.options, err = o.scheme.options(e.stdin); err != nil {
		return nil, err
	}
	if err := o.out.parse(o.fail); err != nil {
		return nil, err
	}
	if err := checkJSONArgs(o.req.data); err != nil {
		return nil, err
	}
	if err := checkRequestArgs(o, e.stdin); err != nil {
		return nil, err
	}
	if o.remoteTime || o.continueAt != "" {
		// ftp asks MDTM only when the modification time is wanted.
		if o.options == nil {
			o.options = fetch.Options{}
		}
		o.options[fetch.OptModTime] = "1"
	}
	return o, nil
}

// parseSeconds reads a non-negative, possibly fractional, number of seconds.
func parseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != f || f > 1e9 {
		return 0, fmt.Errorf("want a number of seconds, not %q", s)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// parseRate reads --limit-rate: a speed > 0 in bytes a second.
func parseRate(s string) (int64, error) {
	n, err := parseSize(s)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("--limit-rate: want a speed > 0 in bytes a second (suffix k, M or G allowed), not %q", s)
	}
	return n, nil
}

// setClientFlags puts on cl what the flags both commands share say: -u
// USER[:PASSWORD], -x PROXY, --limit-rate (0: none), and the user agent
// urlget's unless -A gave one.
func setClientFlags(cl *fetch.Client, user, proxy string, rate int64) error {
	if cl.UserAgent == "" {
		cl.UserAgent = "urlget/" + version
	}
	if user != "" {
		cl.HasUser = true
		cl.User, cl.Password, cl.HasPassword = strings.Cut(user, ":")
	}
	if proxy != "" {
		p, err := fetch.ParseProxy(proxy)
		if err != nil {
			return fmt.Errorf("-x/--proxy: %v", err)
		}
		cl.Proxy = p
	}
	if rate > 0 {
		cl.LimitRate = fetch.NewLimiter(rate)
	}
	return nil
}

// parseSize reads a byte count with an optional k, M or G suffix (powers of
// 1024, as curl).
func parseSize(s string) (int64, error) {
	mul := int64(1)
	num := s
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mul, num = 1<<10, s[:n-1]
		case 'm', 'M':
			mul, num = 1<<20, s[:n-1]
		case 'g', 'G':
			mul, num = 1<<30, s[:n-1]
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 || v > (1<<62)/mul {
		return 0, fmt.Errorf("want a byte count (suffix k, M or G allowed), not %q", s)
	}
	return v * mul, nil
}

// fetchCmd runs one invocation of the fetch command.
type fetchCmd struct {
	e      env
	o      *fetchOpts
	client *fetch.Client
	lent   *fetch.Client     // client with the terminal lent to sessions (interactive.go); nil when stdin is no terminal
	tty    *telnet.Console   // the terminal lent
	asked  map[string]string // options answered on the terminal for the current URL
	wo     *writeOut         // nil without -w
	meter  *meter            // the current transfer's meter, if drawn
	body   requestBody       // -d, -F (request.go)
	jar    *fetch.CookieJar  // -b, -c
	buf    []byte            // the copy buffer (copyBufSize), shared by every transfer
	par    *parState         // what the transfers of -Z share (parallel.go); nil without -Z
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
	args, err := expandConfig(e.args, e.stdin, flags)
	if err != nil {
		return fail(e, fetchExitUsage, "%v (try 'urlget --help')", err)
	}
	if groups := splitNext(args, flags); groups != nil {
		return runGroups(e, groups, setup) // -:/--next: next.go
	}
	o, err := parseFetchArgs(e, args)
	if err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return runHelp(e, "")
		}
		return fail(e, fetchExitUsage, "%v (try 'urlget --help')", err)
	}
	switch {
	case o.help:
		return runHelp(e, strings.Join(o.urls, " "))
	case o.req.man || o.req.completion != "":
		return runDocs(e, o)
	case o.version:
		schemes := fetch.Schemes()
		slices.Sort(schemes)
		fmt.Fprintf(e.stdout, "urlget %s\nSchemes: %s\n", version, strings.Join(schemes, " "))
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
	if o.par.on && o.out.headers != nil {
		o.out.headers = syncWriter(o.out.headers) // -D: one file for every transfer
	}
	if !o.silent {
		schemes := make([]string, 0, len(o.urls))
		for _, raw := range o.urls {
			if i := strings.IndexByte(raw, ':'); i > 0 {
				schemes = append(schemes, strings.ToLower(raw[:i]))
			}
		}
		for _, w := range o.scheme.unused(schemes) {
			warnf(e.stderr, "%s", w)
		}
	}
	if n := len(o.outputs); n > len(o.urls) && !o.silent {
		warnf(e.stderr, "%d -o/-O for %d %s: the extra ones are unused", n, len(o.urls), plural(len(o.urls), "URL", "URLs"))
	}
	c, err := newFetchCmd(e, o)
	if code, ok := connExit(err); ok {
		return fail(e, code, "(%d) %v", code, err)
	}
	if err != nil {
		return fail(e, fetchExitUsage, "%v (try 'urlget --help')", err)
	}
	c.client.Replies = o.out.headers // -D: ftp's replies
	if err := c.prepareRequest(); err != nil {
		return fail(e, fetchExitUsage, "%v (try 'urlget --help')", err)
	}
	if setup != nil {
		setup(c)
	}
	if !o.silent && !o.noMeter && c.isTerminal(e.stderr) {
		c.progress = true
		c.client.Progress = func(done, total int64) {
			if c.meter != nil {
				c.meter.update(done)
			}
		}
	}
	// A closed stdout pipe is a write error (23), as in curl, not death by
	// SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if c.wo != nil {
		ctx = c.wo.timer.Context(ctx)
	}
	c.lendTerminal()
	// Connections kept for the next URL (ftp's logged-in ones) are ended
	// properly (QUIT) at the end.
	defer c.client.CloseIdleConnections()
	return c.finishRequest(c.run(ctx))
}

// newFetchCmd builds the Client from the options.
func newFetchCmd(e env, o *fetchOpts) (*fetchCmd, error) {
	cl := &fetch.Client{
		ConnectTimeout:  o.connectTimeout,
		NoProxy:         o.noproxy,
		Netrc:           o.netrc,
		NetrcFile:       o.netrcFile,
		FollowRedirects: o.location,
		MaxRedirects:    maxRedirects(o.maxRedirs),
		KeepPost:        keepPost(o.post30x),
		MaxFileSize:     o.maxFilesize,
		Compressed:      o.compressed,
		MaxDecompressed: o.maxFilesize,
		Insecure:        o.insecure,
		UserAgent:       o.userAgent,
		Options:         o.options,
		LowSpeedLimit:   o.speedLimit,
		LowSpeedTime:    o.speedTime,
		MaxTime:         o.maxTime,
		Fail:            o.fail,
		FailWithBody:    o.out.failWithBody,
	}
	if o.par.on {
		// Each running transfer's connection is kept for the next.
		cl.IdlePerHost = o.par.limit()
	}
	if o.cacert != "" || o.capath != "" {
		pool, err := fetch.RootCAs(o.cacert, o.capath)
		if err != nil {
			return nil, err
		}
		cl.TLS = &tls.Config{RootCAs: pool}
	}
	if err := o.conn.apply(cl); err != nil {
		return nil, err
	}
	o.auth.apply(cl)
	if err := setClientFlags(cl, o.user, o.proxy, o.limitRate); err != nil {
		return nil, err
	}
	if o.verbose {
		cl.Verbose = e.stderr
	}
	cl.Warnings = warnWriter{e.stderr}
	if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		// A person can answer what a fetcher asks (fetch.InputNeededError).
		if cl.Options == nil {
			cl.Options = fetch.Options{}
		}
		cl.Options[fetch.OptInteractive] = "1"
		if cl.HasUser && !cl.HasPassword && anyHTTP(firstURLs(o)) {
			// -u USER for http: the password is asked for before the
			// request, as curl does (ftp asks when the server does).
			if pw, ok := readSecret(e, f, "Enter host password for user '"+fetch.SanitizeLine(cl.User, 64)+"': "); ok {
				cl.Password, cl.HasPassword = pw, true
			}
		}
	}
	c := &fetchCmd{e: e, o: o, client: cl, isTerminal: isTerminal, sleep: fetch.Sleep}
	if o.writeOut != "" {
		c.wo = parseWriteOut(o.writeOut)
	}
	return c, nil
}

// anyHTTP reports whether one of the URLs is an http or https URL.
func anyHTTP(urls []string) bool {
	for _, raw := range urls {
		if u, err := parseFetchURL(raw); err == nil && isHTTPURL(u.Scheme) {
			return true
		}
	}
	return false
}

// keepPost is Client.KeepPost for --post301, --post302 and --post303.
func keepPost(post [3]bool) []int {
	var keep []int
	for i, on := range post {
		if on {
			keep = append(keep, 301+i)
		}
	}
	return keep
}

// maxRedirects is Client.MaxRedirects for --max-redirs N: curl's -1 (no
// limit) and 0 (none) in the Client's terms.
func maxRedirects(n int) int {
	switch n {
	case -1:
		return math.MaxInt
	case 0:
		return fetch.NoRedirects
	}
	return n
}

// run fetches every URL in turn (with -Z at once: runParallel); the exit
// status is the last failure's.
func (c *fetchCmd) run(ctx context.Context) int {
	if c.o.par.on {
		return c.runParallel(ctx)
	}
	status := 0
	for j := range c.jobs() {
		if j.err != nil {
			return c.globFailed(j.err)
		}
		r := c.one(ctx, j.num, j.url, j.spec)
		if ctx.Err() != nil {
			// Interrupted: clean up done, report nothing more.
			if !c.o.silent || c.o.showError {
				fmt.Fprintf(c.e.stderr, "urlget: interrupted\n")
				c.reportKept(r)
			}
			return fetchExitInterrupted
		}
		if !c.report(r, &status) {
			return status
		}
	}
	return status
}

// report tells of a transfer that has ended: its error and where its bytes
// are kept, then -w; a failure's exit code goes into status. It returns
// false when no more transfers are to be made.
func (c *fetchCmd) report(r *xferResult, status *int) bool {
	if r.err != nil {
		*status = r.code
		if closedPipe(r.err) {
			// The reader of a pipe went away (| head): a normal end
			// of a pipeline, said with the exit code alone.
			return false
		}
		if !c.o.silent || c.o.showError {
			fmt.Fprintf(c.e.stderr, "urlget: (%d) %s\n", r.code, fetch.OneLine(r.err.Error()))
			c.reportKept(r)
		}
	}
	if c.wo != nil {
		c.wo.render(c.e.stdout, c.e.stderr, r)
	}
	return true
}

// closedPipe reports whether err is a write to a pipe whose reader has
// gone.
func closedPipe(err error) bool {
	return fetch.KindOf(err) == fetch.ErrWrite && errors.Is(err, syscall.EPIPE)
}

// outSpecFor is the output of URL number i (from 0).
func (c *fetchCmd) outSpecFor(i int) outSpec {
	if i < len(c.o.outputs) {
		return c.o.outputs[i]
	}
	if c.o.remoteNameAll {
		return outSpec{remote: true}
	}
	return outSpec{name: "-", implicit: true}
}

// xferResult is what is known about one URL's transfer, for -w and the exit
// status.
type xferResult struct {
	num         int    // index of the URL on the command line, from 0
	url         string // as given
	effective   string // after redirects
	scheme      string
	status      int   // protocol status, 0 when none
	size        int64 // body bytes received (in the last attempt)
	contentType string
	filename    string // output file; "" for stdout
	err         error
	code        int // exit code of err
	elapsed     time.Duration
	kept        string // the .part file holding what a failed transfer received
	keptSize    int64
	meta        fetch.Meta   // the reply (-w)
	times       fetch.Timing // the trace (-w): writeout.go
	method      string       // the request's method (-w)
}

// one handles a URL of argument num into spec: a fetch, or with -T an upload.
func (c *fetchCmd) one(ctx context.Context, num int, raw string, spec outSpec) *xferResult {
	start := time.Now()
	r := &xferResult{num: num, url: raw, effective: raw}
	c.wo.start(r, "")
	if u, err := parseFetchURL(raw); err != nil {
		r.err = fetch.NewError(fetch.ErrMalformed, "", err) // err says "malformed URL …"
	} else {
		r.scheme = u.Scheme
		if nu, err := c.prepareURL(&u, r); err != nil {
			r.err = err
		} else {
			u = *nu
			c.transfer(ctx, &u, r, spec)
		}
	}
	r.elapsed = time.Since(start)
	r.code = fetch.ExitCode(r.err)
	if r.status == 0 {
		r.status = fetch.StatusOf(r.err) // an FTP 550, an NNTP 411: -w %{response_code}
	}
	return r
}

// transfer fetches u into its output, retrying transient failures; the
// outcome goes into r.
func (c *fetchCmd) transfer(ctx context.Context, u *urlparse.URL, r *xferResult, spec outSpec) {
	out, err := c.newOutput(u, spec)
	if err != nil {
		r.err = err
		return
	}
	r.filename = out.path
	defer c.holdOutput(out.path)()
	c.asked = nil
	defer func() { c.asked = nil }()
	pol := c.retryPolicy()
	first := time.Now()
	r.err = pol.Do(ctx, func(attempt int) error {
		// A status that says "try again" is retried only when a retry
		// may still follow; otherwise it is the answer.
		retryStatus := func(err error) bool {
			_, ok := pol.Wait(attempt+1, err, time.Since(first))
			return attempt < pol.Retries && ok
		}
		for {
			err := c.attempt(ctx, u, out, r, retryStatus)
			if err == nil || c.asked != nil {
				return err
			}
			// A gopher search or +ASK form: ask on the terminal, then
			// try again with the answers (once; not a retry).
			if c.asked = c.ask(err); c.asked == nil {
				return err
			}
		}
	}, func(attempt int, err error, wait time.Duration) bool {
		if c.o.uploadFile == "-" {
			return false // what was read of stdin cannot be sent again
		}
		if !c.o.silent {
			left := pol.Retries - attempt
			warnf(c.e.stderr, "problem: %s. Will retry in %s. %d %s left.",
				fetch.OneLine(err.Error()), secondsString(wait), left, plural(left, "retry", "retries"))
		}
		return true
	})
	if kept := (bodyThenFail{}); r.err == nil || errors.As(r.err, &kept) {
		if err := out.commit(r); err != nil {
			r.err = err
		}
		c.o.out.setXattr(c.e, out, r)
	} else {
		r.kept, r.keptSize = out.abort()
	}
}

// reportKept says, in one line, where the bytes of a failed transfer are
// and how to resume it.
func (c *fetchCmd) reportKept(r *xferResult) {
	if r.kept == "" {
		return
	}
	fmt.Fprintf(c.e.stderr, "urlget: %d bytes kept in %s; resume with: urlget -C - -o %s %s\n",
		r.keptSize, r.kept, shellQuote(r.filename), shellQuote(r.url))
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
	return fetch.RetryPolicy{Retries: c.o.retry, Delay: c.o.retryDelay, Fixed: c.o.retryDelay > 0,
		MaxTime: c.o.retryMaxTime, AllErrors: c.o.retryAll, Refused: c.o.retryRefused, Sleep: c.sleep}
}

// attempt makes one try at a URL, appending to (or restarting) out.
func (c *fetchCmd) attempt(ctx context.Context, u *urlparse.URL, out *output, r *xferResult, retryStatus func(error) bool) (err error) {
	// -w reports the last attempt.
	r.status, r.contentType, r.size = 0, "", 0
	defer func() {
		if err != nil {
			err = c.classify(ctx, err)
		}
	}()

	off, since, err := out.want()
	if err != nil {
		return err
	}
	if c.o.head {
		off, since = 0, time.Time{}
	}
	req := &fetch.Request{URL: u, Head: c.o.head, Offset: off, Since: since, Options: c.asked}
	if err := c.shapeRequest(req); err != nil {
		return err
	}
	c.o.out.shape(req)
	off = req.Offset
	if req.Body != nil && c.o.continueAt != "" && fetch.HasCaps(u.Scheme, fetch.ResumesUpload) {
		// -C with -T: the upload resumes (-C -: fetch.UploadAtEnd); the
		// reply is not the resource.
		req.Offset, off = c.o.resumeFrom, 0 // "-" is -1: fetch.UploadAtEnd
	}
	actx, cl, endSession, err := c.session(ctx, u, req, out) // telnet, rlogin, tn3270: interactive.go
	if err != nil {
		return err
	}
	defer func() { err = endSession(err) }()
	if fetch.HasCaps(u.Scheme, fetch.Mail) && out.path != "" {
		// -o FILE (or -O) writes the composed message instead of sending
		// it, as --dry-run does; on a terminal the fetcher asks before
		// sending (fetch.OptInteractive, answered by askUser) unless --yes.
		req.Options = maps.Clone(req.Options)
		if req.Options == nil {
			req.Options = fetch.Options{}
		}
		req.Options[optionKey("dry-run")] = "1"
	}
	if c.o.verbose && off > 0 {
		fmt.Fprintf(c.e.stderr, "* Resuming transfer from byte position %d\n", off)
	}
	c.wo.start(r, cl.Method(req)) // the http fetcher's rule
	res, err := cl.Do(actx, req)
	if fe := (*fetch.Error)(nil); errors.As(err, &fe) && fe.Reply != nil {
		// -f: the reply failed, yet -w, -D and --etag-save tell of it.
		return c.reply(fe.Reply, out, r, err)
	}
	if err != nil {
		return err
	}
	defer res.Body.Close()
	// -I and -w %{content_type} say what is written, which for a listing
	// is what Present makes of it.
	format := c.listFormat()
	res.ContentType = res.PresentedType(format)
	if err := c.reply(&res.Meta, out, r, nil); err != nil {
		return err
	}
	// HTTP rules follow what the reply is (an ftp:// URL through an HTTP
	// proxy gateway gets an HTTP reply), not the URL's scheme.
	if res.IsHTTP() {
		// A status that says "try again" (fetch.TransientStatus) while
		// retries remain is Fail's error: its body is never written.
		if err := fetch.FailError(res, off); err != nil && fetch.TransientStatus(res.Status) && retryStatus(err) {
			return err
		}
		if off > 0 && out.path != "" && !c.o.head && res.Status >= 400 && res.Status != 416 {
			// Resuming into a file: an error page must not replace (or be
			// appended to) the part already held.
			return fetch.NewError(fetch.ErrHTTP, fmt.Sprintf("cannot resume: the server answered %d; %s left as it was", res.Status, out.path), nil)
		}
	}
	if c.o.head {
		if _, err := out.start(0, 0); err != nil {
			return err
		}
		if _, err := out.Write(headText(&res.Meta)); err != nil {
			return writeError(err)
		}
		return nil
	}
	if res.NotModified {
		out.untouched = true // curl leaves the output as it is
		if res.IsHTTP() {
			r.status = http.StatusNotModified // a 200 found not newer too: curl's "simulated 304"
		}
		return nil
	}
	got, asked := res.Offset, off
	if req.Range != nil {
		// A part, not a resume: a retry asks for the range again and
		// skips what an earlier attempt wrote.
		got, asked = 0, out.written
	}
	skip, err := out.start(got, asked)
	if err != nil {
		return err
	}
	if err := c.include(u, out, res, skip); err != nil {
		return err
	}
	if c.progress && c.showMeter(out) {
		c.meter = newMeter(c.e.stderr, c.o.progressBar, res.Size)
		defer func() { c.meter.finish(); c.meter = nil }()
	}
	body := res.Present(format)
	defer body.Close()
	n, err := c.copyBody(body, out, skip, fetch.HasCaps(u.Scheme, fetch.Local) && body == res.Body)
	r.size = n
	if res.WireBytes != nil {
		r.size = res.WireBytes() // size_download: the bytes on the wire, as curl counts them
	}
	r.status = res.Status // an ftp transfer's final reply (226) once the body is read
	if fetch.KindOf(err) == fetch.ErrHTTP && c.client.FailWithBody {
		return bodyThenFail{err} // the body is written: keep it
	}
	return err
}

// reply notes what a reply says, for -w, -D, --etag-save and -R, and
// returns failed (the request's error, nil when it did not fail) unless
// writing fails.
func (c *fetchCmd) reply(m *fetch.Meta, out *output, r *xferResult, failed error) error {
	r.meta = *m
	r.status, r.contentType = m.Status, m.ContentType
	out.modTime = m.ModTime
	if m.EffectiveURL != "" {
		r.effective = m.EffectiveURL
	}
	if err := c.o.out.dump(m); err != nil {
		return err
	}
	if err := c.o.out.saveETag(m); err != nil {
		return err
	}
	return failed
}

// classify turns any error of an attempt into a typed one: an interrupt
// is an abort (42). (--max-time is the Client's MaxTime.)
func (c *fetchCmd) classify(ctx context.Context, err error) error {
	var fe *fetch.Error
	switch {
	case ctx.Err() != nil:
		return fetch.NewError(fetch.ErrAborted, "interrupted", nil)
	case errors.As(err, &fe):
		return err
	}
	return fetch.NewError(fetch.KindOf(err), "", err)
}

// errWrite marks an error of the output side.
func writeError(err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return fetch.NewError(fetch.ErrWrite, "failure writing output to destination", err)
}

// copyBody streams body into out, discarding the first skip bytes (already
// written by an earlier attempt). Memory stays flat whatever the size.
//
// A network body goes through one 1 MiB buffer (allocated once): a read
// and a write system call per (up to) 1 MiB. On loopback HTTP to a file this
// measured about twice as fast as io.Copy's 32 KiB chunks (and as curl). A file: body goes through io.Copy, so that the Client's
// Body (an io.WriterTo) reaches the output file's ReadFrom and the kernel
// copies (copy_file_range). Read errors are typed by the Client's Body,
// write errors (ErrWrite) by typedWriter, or on the io.Copy path by the
// Body too.
func (c *fetchCmd) copyBody(body io.Reader, out *output, skip int64, kernelCopy bool) (n int64, err error) {
	if skip > 0 {
		k, err := io.CopyN(io.Discard, body, skip)
		n += k
		if err == io.EOF {
			return n, fetch.NewError(fetch.ErrPartial, "transfer closed before the part already written", nil)
		}
		if err != nil {
			return n, readError(err)
		}
	}
	var k int64
	if kernelCopy {
		k, err = io.Copy(out.writer(), body)
	} else {
		if c.buf == nil {
			c.buf = make([]byte, copyBufSize)
		}
		// Hide WriterTo and ReadFrom (they would pick io.Copy's 32 KiB);
		// typedWriter types write errors.
		k, err = io.CopyBuffer(typedWriter{out.writer()}, struct{ io.Reader }{body}, c.buf)
	}
	n += k
	out.written += k
	if err != nil {
		return n, readError(err)
	}
	return n, nil
}

// showMeter tells whether to draw progress: stderr must be a terminal, the
// output must not be, and -s must not be given.
func (c *fetchCmd) showMeter(out *output) bool {
	if c.o.silent || !c.isTerminal(c.e.stderr) {
		return false
	}
	return out.path != "" || !c.isTerminal(c.e.stdout)
}

// parseFetchURL parses a command-line URL (fetch.GuessURL: curl's guess
// of a scheme left out).
func parseFetchURL(raw string) (urlparse.URL, error) { return fetch.GuessURL(raw) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func secondsString(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " " + plural(int(d/time.Second), "second", "seconds")
}

// readError types an error met while copying a body; the Client's Body
// types its own, so this only catches the unexpected: a failure of the
// connection means the transfer stopped short (18).
func readError(err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	switch k := fetch.KindOf(err); k {
	case fetch.ErrOther:
		return fetch.NewError(fetch.ErrPartial, "transfer closed early", err)
	default:
		return fetch.NewError(k, "", err)
	}
}
