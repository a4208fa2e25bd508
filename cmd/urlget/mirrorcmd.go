package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/mirror"
)

// Exit statuses of the mirror command that do not come from a fetch error.
const (
	mirrorExitLocal      = 1   // the local directory cannot be used
	mirrorExitUsage      = 2   // bad flag or flag value, wrong number of arguments
	mirrorExitIncomplete = 4   // the run went through, but not everything was mirrored
	mirrorExitInterrupt  = 130 // SIGINT or SIGTERM
)

const mirrorUsage = `usage: urlget mirror [options] URL DIR
       urlget mirror -R [options] DIR ftp://HOST/PATH/

Mirror an FTP tree (ftp://), an HTTP directory index (http://, https://)
or a gopher hole (gopher://, gophers://) into DIR: new and changed files
only, over several connections, resumable.
DIR/.urlget-mirror.jsonl is the manifest (one JSON line per URL) that makes
the next run incremental; delete it to start afresh.

FTP: the tree below URL, listed with MLSD, LIST or NLST; files get the
server's modification times; symbolic links inside the tree are made as
links, those pointing outside it recorded, not made.
HTTP: the directory's index page (nginx autoindex, Apache, lighttpd) and
its subdirectories' are walked, never above URL; files get their
Last-Modified, and the next run asks for each with If-None-Match and
If-Modified-Since (unchanged: 304, no data); a file cut short goes on with
Range.
Gopher: menus crawled from URL on its host and port; every menu saved byte
for byte as DIR/<selector>/.gopher-menu, every document as DIR/<selector>;
search, telnet and h URL: items recorded, not followed; robots.txt obeyed.

-R (lftp's mirror -R) uploads DIR below an ftp URL instead: new files and
files whose size or modification time differ from the server's, each to a
temporary name renamed into place once whole (a cut upload is continued by
the next run with APPE), missing directories made; --delete removes what
the server has and DIR has not; nothing is written into DIR.

Names from the server never leave DIR: bytes that cannot be in a local
name ("/", "\", control bytes, a leading ".", invalid UTF-8, "%%") are
percent-encoded, and the manifest maps each local path to its URL.

Options:
%s

--include/--exclude take shell globs (* ? [...]): without "/" they match
base names, with "/" the path below URL. Excluded directories are not
walked; include patterns apply to files only.

Exit status: 0 when everything was mirrored; 4 when the run went through
but some items failed, a --max-* limit stopped it, or --max-delete refused
the deletions (the summary says which); 23 when a local copy may not be
written (left as it is, as -o leaves a file) or the disk is full; 2 for a
usage error; 130 when
interrupted; 1 when DIR cannot be used (not writable, locked by another
run, a mirror of another URL); otherwise, when URL itself cannot be read,
the fetch command's code for the error (6 resolve, 7 connect, 9 denied, 67
login refused, 78 not found, ...).
`

// mirrorOpts holds the mirror command line: the flags that are
// mirror.Options fields are bound to opt (--retry and --max-delete count
// as curl and wget do: see parseMirrorArgs), the Client's to client.
type mirrorOpts struct {
	opt            mirror.Options
	jsonOut        bool
	quiet, verbose bool
	help           bool
	client         fetch.Client
}

func newMirrorFlags(e env, o *mirrorOpts) *pflag.FlagSet {
	fs := cli.NewFlagSet("urlget mirror", e.stderr)
	atLeast1 := func(n int) bool { return n >= 1 }
	o.opt.Parallel, o.opt.MaxDepth, o.opt.MaxFiles, o.opt.Retries, o.opt.DeleteLimit = mirror.DefaultParallel, mirror.DefaultMaxDepth, mirror.DefaultMaxFiles, mirror.DefaultRetries, -1
	fs.VarP(cli.Int(&o.opt.Parallel, "at least 1", atLeast1), "parallel", "P", "use `N` connections")
	fs.Var(cli.Int(&o.opt.PerHost, "at least 1", func(n int) bool { return n >= 0 }), "per-host", "at most `N` connections to one host (default: --parallel)")
	fs.BoolVarP(&o.opt.Reverse, "reverse", "R", false, "upload: urlget mirror -R DIR ftp://HOST/PATH/ (lftp's mirror -R)")
	fs.BoolVar(&o.opt.Delete, "delete", false, "delete local files that are gone from the server (only files the manifest records)")
	fs.Var(cli.Int(&o.opt.DeleteLimit, "a count >= 0", func(n int) bool { return n >= -1 }), "max-delete", "with --delete, delete nothing when more than `N` files are gone (0: never delete; -1: no limit)")
	fs.BoolVar(&o.opt.DryRun, "dry-run", false, "read listings and menus, print what would be fetched and deleted, write nothing")
	fs.StringArrayVar(&o.opt.Include, "include", nil, "mirror only files matching `GLOB` (repeatable)")
	fs.StringArrayVar(&o.opt.Exclude, "exclude", nil, "skip files and directories matching `GLOB` (repeatable)")
	fs.Var(cli.Int(&o.opt.MaxDepth, "at least 1, or -1 for no limit", func(n int) bool { return n != 0 }), "max-depth", "go at most `N` directory or menu levels below URL (-1: no limit)")
	fs.Var(cli.Int(&o.opt.MaxFiles, "at least 1, or -1 for no limit", func(n int) bool { return n != 0 }), "max-files", "stop after `N` files (-1: no limit)")
	fs.Var(cli.Size(&o.opt.MaxBytes, false), "max-bytes", "stop after downloading `SIZE` bytes (suffix k, M, G; default: no limit)")
	fs.Var(cli.Int(&o.opt.Retries, "a count >= 0", func(n int) bool { return n >= 0 }), "retry", "retry a transient failure up to `N` times, with backoff")
	fs.Var(cli.Seconds(&o.opt.RetryWait), "retry-delay", "wait `SECONDS` before the first retry, doubling after (default 1)")
	fs.Var(cli.Seconds(&o.opt.Timeout), "timeout", "give up on a request when the server is silent for `SECONDS` (default 60)")
	fs.Var(cli.Seconds(&o.client.ConnectTimeout), "connect-timeout", "give each connection attempt at most `SECONDS`")
	fs.Var(rateFlag(&o.client), "limit-rate", "read at most `SPEED` bytes a second in all, every connection together (suffix k, M, G)")
	fs.BoolVar(&o.opt.SpanHosts, "span-hosts", false, "gopher: follow items to other hosts and ports (saved under DIR/@host:port/)")
	fs.BoolVar(&o.opt.Parents, "parents", false, "gopher: also follow items above the start selector (\"..\", links elsewhere on the host): the whole host, saved by full selector")
	fs.BoolVar(&o.opt.RewriteMenus, "rewrite-menus", false, "gopher: write a gophermap beside each menu, pointing at the local files")
	fs.BoolVar(&o.opt.IgnoreRobots, "no-robots", false, "gopher: do not fetch or obey robots.txt")
	fs.BoolVar(&o.opt.Refetch, "refetch", false, "fetch every file again (files whose content did not change are left alone)")
	fs.BoolVar(&o.opt.Verify, "verify", false, "hash every local copy that looks current and fetch it again when it is not what was fetched (bit rot, a hand edit); gopher: also fetch again and compare every copy whose length no server stated")
	fs.BoolVar(&o.opt.Checksum, "checksum", false, "compare files that look unchanged by SHA-256: ftp the server's (HASH, XSHA256), else by fetching them; http by fetching them")
	fs.StringVar(&o.opt.WARC, "warc", "", "also write every response fetched to `FILE` as WARC 1.1 records (gzip per record unless FILE ends in .warc; appended to)")
	fs.BoolVar(&o.jsonOut, "json", false, "print the summary as JSON on stdout")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no progress display and no summary line (failures are still reported)")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "print one line per file fetched, deleted, failed or skipped")
	cli.Switch(fs, "trace", "", "show the protocol exchange on stderr (passwords masked)", func() { o.client.Verbose = &fetch.SyncWriter{W: e.stderr} })
	fs.VarP(userFlag(&o.client), "user", "u", "FTP or HTTP credentials `USER[:PASSWORD]`, overriding the URL's")
	fs.BoolVarP(&o.client.Netrc, "netrc", "n", false, "take FTP or HTTP credentials from ~/.netrc")
	fs.Var(netrcFileFlag(&o.client), "netrc-file", "take FTP or HTTP credentials from `FILE` (implies --netrc)")
	fs.Var(cli.Func("string", func(s string) error {
		if s != "" {
			o.client.Options = fetch.Options{"ftp-email": s}
		}
		return nil
	}), "ftp-email", "send `ADDR` as the anonymous FTP password (default ftp@example.com)")
	fs.BoolVarP(&o.client.Insecure, "insecure", "k", false, "https, gophers: do not verify TLS certificates")
	fs.VarP(proxyFlag(&o.client), "proxy", "x", "use the proxy `URL` (FTP: socks5:// or socks5h:// only)")
	fs.Var(noProxyFlag(&o.client), "noproxy", "comma-separated `HOSTS` to reach without a proxy (\"\": none, whatever no_proxy says)")
	fs.StringVarP(&o.client.UserAgent, "user-agent", "A", "", "send `NAME` as the user agent")
	fs.BoolVarP(&o.help, "help", "h", false, "print this help")
	return fs
}

func parseMirrorArgs(e env, args []string) (*mirrorOpts, error) {
	o := &mirrorOpts{}
	fs := newMirrorFlags(e, o)
	if err := fs.Parse(args); err != nil {
		return nil, cli.Error(err)
	}
	if o.help {
		return o, nil
	}
	if fs.NArg() != 2 {
		return nil, fmt.Errorf("want a URL and a directory, got %d %s", fs.NArg(), plural(fs.NArg(), "argument", "arguments"))
	}
	o.opt.URL, o.opt.Dir = fs.Arg(0), fs.Arg(1)
	if o.opt.Reverse {
		o.opt.Dir, o.opt.URL = fs.Arg(0), fs.Arg(1) // lftp's order: from, to
		for _, f := range []string{"warc", "checksum", "verify", "span-hosts", "parents", "rewrite-menus", "no-robots"} {
			if fs.Changed(f) {
				return nil, fmt.Errorf("--%s is for downloads: not with -R", f)
			}
		}
	}
	// --retry 0 is no retry, --max-delete 0 no deletion and -1 no limit,
	// where the fields' zero is the mirror's default and no limit.
	if o.opt.Retries == 0 {
		o.opt.Retries = -1
	}
	switch o.opt.DeleteLimit {
	case 0:
		o.opt.DeleteLimit = -1
	case -1:
		o.opt.DeleteLimit = 0
	}
	return o, nil
}

// options is the command line's mirror.Options.
func (o *mirrorOpts) options() mirror.Options {
	defaultUserAgent(&o.client)
	opt := o.opt
	opt.Client = &o.client
	return opt
}

// mirrorCmd is one run of the mirror command.
type mirrorCmd struct {
	e          env
	o          *mirrorOpts
	isTerminal func(io.Writer) bool
	out        *cli.StatusLine // stderr, with the progress line
}

// runMirror is the mirror command: urlget mirror [options] URL DIR.
func runMirror(e env) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runMirrorWith(ctx, e, nil)
}

// runMirrorWith is runMirror with a context; setup adjusts the command and
// its options before the run (tests).
func runMirrorWith(ctx context.Context, e env, setup func(*mirrorCmd, *mirror.Options)) int {
	o, err := parseMirrorArgs(e, e.args)
	if err != nil {
		return fail(e, mirrorExitUsage, "mirror: %v (try 'urlget mirror --help')", err)
	}
	if o.help {
		fmt.Fprintf(e.stdout, mirrorUsage, strings.TrimRight(newMirrorFlags(e, &mirrorOpts{}).FlagUsages(), "\n"))
		return 0
	}
	opt := o.options()
	c := &mirrorCmd{e: e, o: o, isTerminal: isTerminal,
		out: &cli.StatusLine{W: e.stderr, Width: func() int { return cli.TerminalWidth(e.stderr) }}}
	if setup != nil {
		setup(c, &opt)
	}
	if !o.quiet && o.client.Verbose == nil && c.isTerminal(e.stderr) {
		opt.Progress = c.progress
	}
	opt.Event = c.event
	opt.Ask = func(err error) fetch.Options {
		c.out.Clear()
		return cli.Ask(e.stdin, e.stderr, err)
	}
	sum, err := mirror.Run(ctx, opt)
	c.out.Clear()
	return c.finish(ctx, sum, err)
}

// event prints one line per item with -v (and --dry-run), failures always.
func (c *mirrorCmd) event(ev mirror.Event) {
	if line := ev.Line(c.o.verbose); line != "" {
		c.out.Print("urlget: " + cli.InFlags(fetch.Sanitize(line)) + "\n")
	}
}

// progress draws the run's progress line on the terminal.
func (c *mirrorCmd) progress(p mirror.Progress) { c.out.Draw(fetch.Sanitize(p.Line())) }

// finish prints the summary (only for a run that went through: not for one
// refused, failed or interrupted, which get one line saying so) and
// chooses the exit status.
func (c *mirrorCmd) finish(ctx context.Context, sum mirror.Summary, err error) int {
	completed := ctx.Err() == nil && (err == nil || errors.Is(err, mirror.ErrIncomplete))
	if c.o.jsonOut && completed {
		b, _ := json.MarshalIndent(sum, "", "  ")
		fmt.Fprintf(c.e.stdout, "%s\n", b)
	}
	if !c.o.quiet && sum.URL != "" && completed {
		c.out.Print("urlget: " + fetch.Sanitize(sum.String()) + "\n")
	}
	var fe *fetch.Error
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil:
		c.out.Print("urlget: mirror interrupted: run it again to resume\n")
		return mirrorExitInterrupt
	case errors.Is(err, mirror.ErrIncomplete) && errors.As(err, &fe):
		// Some local copy may not be written (left as it is): 23, as -o.
		code := fe.Kind.ExitCode()
		c.out.Print(fmt.Sprintf("urlget: (%d) %s\n", code, cli.InFlags(fetch.Sanitize(err.Error()))))
		return code
	case errors.Is(err, mirror.ErrIncomplete):
		c.out.Print("urlget: " + cli.InFlags(fetch.Sanitize(err.Error())) + "\n")
		return mirrorExitIncomplete
	case errors.As(err, &fe):
		code := fe.Kind.ExitCode()
		c.out.Print(fmt.Sprintf("urlget: (%d) %s\n", code, cli.InFlags(fetch.OneLine(err.Error()))))
		return code
	}
	c.out.Print("urlget: " + cli.InFlags(fetch.OneLine(err.Error())) + "\n")
	return mirrorExitLocal
}
