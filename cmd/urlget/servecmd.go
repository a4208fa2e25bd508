package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/serve"
)

// Exit statuses of the serve command.
const (
	serveExitListen = 1 // the address cannot be listened on
	serveExitUsage  = 2
)

const serveUsage = `usage: urlget serve [options]

Serve every scheme urlget fetches to web browsers and HTTP clients, on one
listener (default 127.0.0.1:%d):
  - a web front: http://127.0.0.1:%d/ is a page with an address field, and
    /URL (e.g. /gopher://host/1/sel, the URL percent-encoded where it must
    be) shows gopher menus, ftp listings, news groups and articles, WAIS
    results and Prospero directories as HTML whose links stay in the
    gateway; documents stream through, with HEAD and Range;
  - an RFC 1630 proxy gateway: "GET gopher://host/1/ HTTP/1.1" as lynx's
    gopher_proxy=, curl -x (ftp) and urlget -x send it. A client whose
    Accept puts text/html first gets the HTML, any other the bytes
    'urlget URL > FILE' writes (a gopher menu as sent, an ftp listing's
    lines ending in LF, as curl's). CONNECT is refused (405).

Safe by default: only this machine is served unless --listen names another
address and --allow-from says which clients may come; for a client that is
not on this machine, targets that resolve to loopback, private, link-local,
multicast or unspecified addresses are refused (checked on the address
dialled) unless --allow-private; file: URLs only below --allow-file DIR;
mailto, telnet, rlogin and tn3270 are shown as links, never carried out;
pages run no script (Content-Security-Policy); the web front answers only
to IP addresses, localhost and --allow-host names (no DNS rebinding of the
gateway itself), and refuses what another site's page asks for; ftp, news and
http logins (the answer to a 401 the gateway sends for a server that wants a
password, a proxy client's Authorization or Proxy-Authorization) reach only
the server they were given for, and
only for this machine's clients unless --allow-credentials. One line per
request in Common Log Format goes to standard output (--access-log).

Options:
%s

Examples:
  urlget serve                      then open http://127.0.0.1:%d/
  lynx -dump gopher://gopher.floodgap.com/1/   with gopher_proxy=http://127.0.0.1:%d/
  urlget -x http://127.0.0.1:%d gopher://gopher.floodgap.com/1/
  urlget serve --listen 0.0.0.0:8070 --allow-from 192.168.1.0/24

SIGINT or SIGTERM stops it: requests in flight are given --grace seconds to
finish, then cut. Exit status: 0 after such a stop; 2 for a usage error; 1
when the address cannot be listened on.
`

// serveOpts holds the serve command line.
type serveOpts struct {
	listen    string
	opt       serve.Options // the fields the flags set
	client    fetch.Client  // likewise
	grace     time.Duration
	accessLog string
	help      bool
}

func newServeFlags(e env, o *serveOpts) *pflag.FlagSet {
	fs := cli.NewFlagSet("urlget serve", e.stderr)
	fs.StringVar(&o.listen, "listen", "127.0.0.1:"+strconv.Itoa(serve.DefaultPort), "listen on `ADDR` (host:port; another host than loopback needs --allow-from)")
	fs.Var(cli.Func("string", func(list string) error {
		for _, s := range strings.Split(list, ",") {
			s = strings.TrimSpace(s)
			p, err := netip.ParsePrefix(s)
			if a, aerr := netip.ParseAddr(s); aerr == nil {
				p, err = netip.PrefixFrom(a, a.BitLen()), nil
			}
			if err != nil {
				return fmt.Errorf("want an address or CIDR block (192.168.1.0/24), not %q", s)
			}
			o.opt.AllowFrom = append(o.opt.AllowFrom, p.Masked())
		}
		return nil
	}), "allow-from", "serve clients in `CIDR` besides this machine (repeatable, or comma-separated)")
	fs.BoolVar(&o.opt.AllowPrivate, "allow-private", false, "let clients from other machines reach loopback, private and link-local addresses")
	fs.BoolVar(&o.opt.AllowCredentials, "allow-credentials", false, "carry clients' ftp, news and http logins (a 401 challenge's answer, Authorization) to servers although clients of other machines are served (--allow-from)")
	fs.StringVar(&o.opt.AllowFile, "allow-file", "", "show file: URLs below `DIR` (default: none)")
	fs.StringVar(&o.opt.Charset, "charset", serve.DefaultCharset, "say text documents that declare no charset and are not UTF-8 are in `CHARSET`")
	fs.StringArrayVar(&o.opt.AllowHosts, "allow-host", nil, "answer web-front requests to the host `NAME` too (default: IP addresses and localhost only; repeatable)")
	atLeast1 := func(n int) bool { return n >= 1 }
	o.opt.MaxPerClient, o.opt.MaxPerHost, o.opt.MaxTotal = serve.DefaultMaxPerClient, serve.DefaultMaxPerHost, serve.DefaultMaxTotal
	fs.Var(cli.Int(&o.opt.MaxPerClient, "at least 1", atLeast1), "max-per-client", "at most `N` requests at once from one client address")
	fs.Var(cli.Int(&o.opt.MaxPerHost, "at least 1", atLeast1), "max-per-host", "at most `N` requests at once to one upstream host and port")
	fs.Var(cli.Int(&o.opt.MaxTotal, "at least 1", atLeast1), "max-total", "at most `N` requests at once in all")
	fs.Var(cli.Int(&o.opt.NewsPage, "at least 1", atLeast1), "news-page", "show `N` articles on a news group's page (default "+strconv.Itoa(serve.DefaultNewsPage)+"), with older and newer links")
	fs.Var(cli.Seconds(&o.opt.Timeout), "timeout", "give each request at most `SECONDS`, transfer included (default "+strconv.Itoa(int(serve.DefaultTimeout/time.Second))+")")
	fs.Var(cli.Seconds(&o.client.ConnectTimeout), "connect-timeout", "give each upstream connection attempt at most `SECONDS` (default 30)")
	fs.Var(cli.Seconds(&o.grace), "grace", "on SIGINT or SIGTERM, let requests finish for `SECONDS` before cutting them (default 10)")
	fs.StringVar(&o.accessLog, "access-log", "-", "write the access log (Common Log Format) to `FILE` (appended; -: standard output; empty: none)")
	cli.Switch(fs, "verbose", "v", "show every upstream protocol exchange on standard error (passwords masked)", func() { o.client.Verbose = &fetch.SyncWriter{W: e.stderr} })
	fs.BoolVarP(&o.client.Insecure, "insecure", "k", false, "https, gophers, nntps: do not verify upstream TLS certificates")
	fs.StringVarP(&o.client.UserAgent, "user-agent", "A", "", "send `NAME` upstream as the user agent")
	fs.BoolVarP(&o.help, "help", "h", false, "print this help")
	return fs
}

func runServe(e env) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runServeWith(ctx, e, nil)
}

// runServeWith is runServe with a context (done: shut down) and a function
// told the address listened on (tests).
func runServeWith(ctx context.Context, e env, listening func(addr string)) int {
	o := &serveOpts{}
	fs := newServeFlags(e, o)
	if err := fs.Parse(e.args); err != nil {
		return fail(e, serveExitUsage, "serve: %v (try 'urlget serve --help')", cli.Error(err))
	}
	if o.help {
		p := serve.DefaultPort
		fmt.Fprintf(e.stdout, serveUsage, p, p, strings.TrimRight(newServeFlags(e, &serveOpts{}).FlagUsages(), "\n"), p, p, p)
		return 0
	}
	if fs.NArg() > 0 {
		return fail(e, serveExitUsage, "serve: takes no arguments, got %q (try 'urlget serve --help')", fs.Arg(0))
	}
	opt, cleanup, err := o.options(e)
	if err != nil {
		return fail(e, serveExitUsage, "serve: %v (try 'urlget serve --help')", err)
	}
	defer cleanup()
	cl := &o.client
	if !fs.Changed("connect-timeout") {
		cl.ConnectTimeout = 30 * time.Second
	}
	if !fs.Changed("grace") {
		o.grace = serve.DefaultGrace
	}
	defaultUserAgent(cl)
	h, err := serve.New(cl, opt)
	if err != nil {
		return fail(e, serveExitUsage, "%v", err)
	}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return fail(e, serveExitListen, "serve: cannot listen on %s: %v", o.listen, fetch.NetCause(err))
	}
	fmt.Fprintf(e.stderr, "urlget serve: listening on http://%s/\n", ln.Addr())
	if listening != nil {
		listening(ln.Addr().String())
	}
	switch err := h.Serve(ctx, ln, o.grace); {
	case errors.Is(err, serve.ErrCut):
		fmt.Fprintf(e.stderr, "urlget serve: %v\n", err)
	case err != nil:
		return fail(e, serveExitListen, "serve: %v", fetch.NetCause(err))
	}
	return 0
}

// options turns the command line into serve.Options and a function that
// closes the access log.
func (o *serveOpts) options(e env) (serve.Options, func(), error) {
	none := func() {}
	opt := o.opt
	host, _, err := net.SplitHostPort(o.listen)
	if err != nil {
		return opt, none, fmt.Errorf("--listen: want host:port, not %q", o.listen)
	}
	if ip, err := netip.ParseAddr(host); (err != nil || !ip.IsLoopback()) && !strings.EqualFold(host, "localhost") && len(opt.AllowFrom) == 0 {
		return opt, none, fmt.Errorf("--listen %s may serve other machines: say which clients may come with --allow-from CIDR", o.listen)
	}
	switch o.accessLog {
	case "":
	case "-":
		opt.AccessLog = e.stdout
	default:
		f, err := os.OpenFile(o.accessLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return opt, none, fmt.Errorf("--access-log: cannot open %s: %v", o.accessLog, fetch.NetCause(err))
		}
		opt.AccessLog = f
		return opt, func() { f.Close() }, nil
	}
	return opt, none, nil
}
