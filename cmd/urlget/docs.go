package main

import (
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// The manual page (--man, docs/urlget.1; docs/urlget.md is the same page
// in Markdown) and the completion scripts (--completion SHELL,
// docs/completion/) are generated from the fetch
// command's flags and the fetch packages' examples, like --help; a test
// keeps the copies under docs/ in step.

// runDocs is --man and --completion SHELL.
func runDocs(e env, o *fetchOpts) int {
	fs := newFetchFlags(env{stderr: io.Discard}, &fetchOpts{})
	if o.req.man {
		writeMan(e.stdout, fs)
		return 0
	}
	switch c := completion(fs); o.req.completion {
	case "bash":
		c.WriteBash(e.stdout)
	case "zsh":
		c.WriteZsh(e.stdout)
	case "fish":
		c.WriteFish(e.stdout)
	default:
		return fail(e, fetchExitUsage, "--completion %q: want bash, zsh or fish", o.req.completion)
	}
	return 0
}

// writeMan writes the manual page.
func writeMan(w io.Writer, fs *pflag.FlagSet) { manual(fs).Write(w) }

// manual is the manual page of the fetch command with flags fs: --man
// writes it in roff, docs/urlget.md is it in Markdown.
func manual(fs *pflag.FlagSet) *cli.Manual {
	_, description, _ := strings.Cut(helpHead, "\n\n")
	m := &cli.Manual{
		Program: "urlget", Summary: "fetch any URL that RFC 1738 defines, and more",
		Synopsis: [][2]string{
			{"urlget", `[\fIoptions\fR] \fIURL\fR...`},
			{"urlget url", `[\fIoptions\fR] \fIURL\fR...`},
			{"urlget mirror", `[\fIoptions\fR] \fIURL\fR \fIDIR\fR`},
			{"urlget serve", `[\fIoptions\fR]`},
			{"urlget help", `[\fISCHEME\fR|url|mirror|serve]`},
		},
		Description: []string{strings.TrimSpace(description), "urlget url parses, resolves and normalizes URLs without touching the network; urlget mirror copies an ftp or gopher archive into a directory and keeps it in step (see urlget mirror --help); urlget serve shows every scheme to web browsers and HTTP proxy clients (see urlget serve --help)."},
		Main:        fs,
		Commands: []cli.ManCommand{
			{Title: "MIRROR OPTIONS", Intro: "urlget mirror [options] URL DIR copies an ftp or gopher archive into DIR and keeps it in step. Its options:", Flags: newMirrorFlags(env{stderr: io.Discard}, &mirrorOpts{})},
			{Title: "SERVE OPTIONS", Intro: "urlget serve [options] is a web gateway to every scheme urlget fetches: a page with an address field for browsers, and an RFC 1630 proxy for HTTP clients (see urlget serve --help). Its options:", Flags: newServeFlags(env{stderr: io.Discard}, &serveOpts{})},
		},
		Trailer: []cli.ManSection{
			{Title: "CONFIG FILE", Text: `Options are read from $XDG_CONFIG_HOME/.urlgetrc, else ~/.urlgetrc, before the command line (not when -q is the first option), and from every -K FILE at its place on the command line. The syntax is curl's: one option a line, its long name with or without the dashes, its value after spaces, "=" or ":", in double quotes when it holds spaces (\\, \", \t, \n, \r, \v escaped there); "url = URL" names a URL; lines starting with # are comments.`},
			{Title: "ENVIRONMENT", Items: manEnvironment},
			{Title: "EXIT STATUS", Text: strings.TrimSpace(helpTail)},
			{Title: "SEE ALSO", Raw: `\fBcurl\fR(1), \fBlftp\fR(1), \fBlynx\fR(1)`},
		},
	}
	for _, sc := range knownHelpSchemes() {
		ex := cli.ManExamples{Topic: sc}
		for _, e := range fetch.Examples(sc) {
			ex.Items = append(ex.Items, [2]string{e.Args, e.Help})
		}
		if ex.Items != nil {
			m.Examples = append(m.Examples, ex)
		}
	}
	return m
}

// manEnvironment is the manual page's ENVIRONMENT section: each variable
// urlget reads, and what for.
var manEnvironment = [][2]string{
	{"http_proxy, https_proxy, ftp_proxy, gopher_proxy, news_proxy, nntp_proxy, wais_proxy", "the proxy for URLs of that scheme (http://, https:// or socks5[h]:// URL); -x overrides them"},
	{"all_proxy", "the proxy for every scheme without a variable of its own"},
	{"no_proxy", "hosts, domains, addresses and CIDR blocks reached without a proxy (\"*\": all); --noproxy overrides it"},
	{"NNTPSERVER", "the news server of news: and mid: URLs when --nntp-server is not given"},
	{"SMTP_SERVER, MAILHOST", "the mail server of mailto: URLs when --smtp-server is not given (else a local sendmail)"},
	{"SSL_CERT_FILE, SSL_CERT_DIR", "the CA certificates to trust instead of the system's (--cacert and --capath override them)"},
	{"HOME", "~/.netrc (credentials with -n/--netrc) and ~/.urlgetrc (options) are read from it"},
	{"XDG_CONFIG_HOME", "$XDG_CONFIG_HOME/.urlgetrc is read before ~/.urlgetrc"},
	{"TERM", "the terminal type a telnet or rlogin session announces"},
}

// completion is what the completion scripts are made of: the commands'
// flags, the help topics, and the starts of URLs, one per scheme: "http://",
// "news:" (the Opaque schemes, without an authority, take no "//").
func completion(fs *pflag.FlagSet) *cli.Completion {
	urlFS, _ := newURLFlags(env{stderr: io.Discard})
	var starts []string
	for _, s := range knownHelpSchemes() {
		if fetch.HasCaps(s, fetch.Opaque) {
			starts = append(starts, s+":")
		} else {
			starts = append(starts, s+"://")
		}
	}
	return &cli.Completion{
		Program: "urlget", Main: fs, MainName: "fetch",
		Commands: []cli.Command{
			{Name: "url", Flags: urlFS},
			{Name: "mirror", Flags: newMirrorFlags(env{stderr: io.Discard}, &mirrorOpts{})},
			{Name: "serve", Flags: newServeFlags(env{stderr: io.Discard}, &serveOpts{})},
		},
		HelpTopics: append([]string{"url", "mirror", "serve"}, knownHelpSchemes()...),
		Starts:     starts, ArgName: "URL",
	}
}
