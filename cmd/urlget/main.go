// Command urlget fetches any URL that RFC 1738 defines, and more.
//
//	urlget [options] URL...        fetch each URL to stdout (or -o/-O files)
//	urlget url [options] URL...    parse, resolve, normalize URLs (no network)
//	urlget mirror URL DIR          mirror an ftp, http or gopher archive
//	urlget serve [options]         a web gateway to every scheme
//	urlget help [SCHEME]           options, grouped by scheme, and examples
//
// The command holds what only a command has: flags, the config file,
// help, the manual and completions, the terminal and progress, the
// generic part of each in internal/cli (flag values, help layout,
// completion scripts, curl's config syntax, meters). It turns
// flags into a fetch.Client and a download.Downloader, whose Do makes each
// URL's transfer (one fetch.Request; output files and their ".part"
// handling), and renders -w from its download.Result. It knows the
// schemes only through their fetch.Scheme records and imports no scheme
// package but fetch/all, with one exception: fetch/telnet, whose Console
// is the terminal it lends to sessions.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urlget/urlget/internal/cli"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// env is what a subcommand may touch: its arguments and the standard streams.
type env struct {
	args   []string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func main() {
	os.Exit(run(env{args: os.Args[1:], stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

// run dispatches to a subcommand and returns the exit status.
func run(e env) int {
	if len(e.args) > 0 {
		switch e.args[0] {
		case "url":
			e.args = e.args[1:]
			return runURL(e)
		case "mirror":
			e.args = e.args[1:]
			return runMirror(e)
		case "serve":
			e.args = e.args[1:]
			return runServe(e)
		case "help":
			topic := ""
			if len(e.args) > 1 {
				topic = e.args[1]
			}
			return runHelp(e, topic)
		}
	}
	return runFetch(e)
}

// fail prints one line on stderr, prefixed with the program name.
func fail(e env, code int, format string, a ...any) int {
	fmt.Fprintf(e.stderr, "urlget: %s\n", cli.InFlags(fmt.Sprintf(format, a...)))
	return code
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	_, ok := cli.Terminal(w)
	return ok
}
