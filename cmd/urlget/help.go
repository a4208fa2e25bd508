package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// The help, the manual page and the completion scripts are all built from
// one source: the fetch command's FlagSet (general flags, the CLI's
// request flags annotated with their schemes, and one flag per option the
// fetch packages declare), and the examples the fetch packages declare.

const helpHead = `usage: urlget [options] URL...           fetch each URL (to stdout, or -o/-O files)
       urlget url [options] URL...       parse, resolve, normalize URLs (no network)
       urlget mirror [options] URL DIR   mirror an ftp or gopher archive into DIR
       urlget serve [options]            a web gateway to every scheme (127.0.0.1:7070)
       urlget help [SCHEME|url|mirror|serve]  this help; a scheme's options and examples

Fetch each URL and write it to stdout, or to the files named by -o/-O.
Options have curl's names and meaning (--json DATA posts JSON, as curl's;
--json-lines prints listings as JSON lines). An output file FILE is written
as FILE.part and renamed into place only when the transfer is complete: a
failed transfer never destroys an existing file, and what it received stays
in FILE.part for -C - to continue. Options are read from
~/.urlgetrc first (curl's config syntax; -q as the first option skips it).
`

const helpTail = `
Exit status: 0 on success; otherwise the code of the last failed URL, curl's
number where curl has the same meaning (2 usage, 3 malformed URL, 6 resolve,
7 connect, 8 weird reply, 18 partial, 22 HTTP error with -f, 23 write error,
25 upload refused, 26 read error, 28 timeout or too slow, 36 resume
impossible, 47 too many redirects, 55 send failed, 56 connection broken
before the reply, 63 over --max-filesize, 78 not found, ...); 130 when
interrupted.
`

// writeHelp is urlget --help: every option, grouped.
func writeHelp(w io.Writer, fs *pflag.FlagSet) {
	io.WriteString(w, helpHead)
	for _, s := range cli.Sections(fs) {
		fmt.Fprintf(w, "\n%s:\n", s.Title())
		cli.WriteFlags(w, s.Flags)
	}
	io.WriteString(w, "\nurlget help SCHEME shows one scheme's options with examples.\n")
	io.WriteString(w, helpTail)
}

// knownHelpSchemes are the schemes 'urlget help SCHEME' knows.
func knownHelpSchemes() []string {
	s := fetch.Schemes()
	slices.Sort(s)
	return s
}

// writeSchemeHelp is urlget help SCHEME: the flags that apply to the
// scheme, and its examples. It reports false for an unknown scheme.
func writeSchemeHelp(w io.Writer, fs *pflag.FlagSet, scheme string) bool {
	scheme = strings.ToLower(strings.TrimSuffix(scheme, ":"))
	if !slices.Contains(knownHelpSchemes(), scheme) {
		return false
	}
	var flags []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && slices.Contains(cli.Topics(f), scheme) {
			flags = append(flags, f)
		}
	})
	fmt.Fprintf(w, "urlget: %s URLs\n", scheme)
	if len(flags) > 0 {
		fmt.Fprintf(w, "\nOptions for %s URLs (besides the general ones of 'urlget --help'):\n", scheme)
		cli.WriteFlags(w, flags)
	} else {
		fmt.Fprintf(w, "\nNo options of its own: the general ones of 'urlget --help' apply.\n")
	}
	if ex := fetch.Examples(scheme); len(ex) > 0 {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, e := range ex {
			fmt.Fprintf(w, "  urlget %s\n      %s\n", e.Args, e.Help)
		}
	}
	return true
}

// runHelp is 'urlget help [TOPIC]' and 'urlget --help [TOPIC]'.
func runHelp(e env, topic string) int {
	fs := newFetchFlags(env{stderr: io.Discard}, &fetchOpts{})
	switch topic {
	case "":
		writeHelp(e.stdout, fs)
		return 0
	case "url":
		return runURL(env{args: []string{"--help"}, stdin: e.stdin, stdout: e.stdout, stderr: e.stderr})
	case "mirror":
		return runMirror(env{args: []string{"--help"}, stdin: e.stdin, stdout: e.stdout, stderr: e.stderr})
	case "serve":
		return runServe(env{args: []string{"--help"}, stdin: e.stdin, stdout: e.stdout, stderr: e.stderr})
	}
	if writeSchemeHelp(e.stdout, fs, topic) {
		return 0
	}
	return fail(e, fetchExitUsage, "help: no scheme or command %q (schemes: %s; commands: url, mirror, serve)", topic, strings.Join(knownHelpSchemes(), " "))
}
