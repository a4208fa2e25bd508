package main

import (
	"fmt"
	"iter"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/urlglob"
)

// globLimit bounds the URLs one argument may stand for. The expansion is
// streamed, so the bound is not about memory: it turns a typo such as
// [1-10000000000] into an error at once instead of days of requests. curl
// has no bound but 2^64; a real job of more than this many URLs is a
// mirror's, or a loop's.
const globLimit = 100_000_000

// jobs gives the URLs of the command line in curl's order, each argument
// a glob (unless -g), streamed, its -o template filled for each URL.
func (c *fetchCmd) jobs() iter.Seq2[download.Job, error] {
	return download.Jobs(c.o.urls, c.outSpecFor, c.o.globOff, globLimit)
}

// globFailed reports a malformed glob as curl does, the glob and a caret
// under the position on the lines after the message, and is curl's exit
// status for it (3).
func (c *fetchCmd) globFailed(err error) int {
	const code = 3 // CURLE_URL_MALFORMAT
	if c.o.silent && !c.o.showError {
		return code
	}
	if ge, ok := err.(*urlglob.Error); ok {
		fmt.Fprintf(c.e.stderr, "urlget: (%d) %s:\n%s\n", code, cli.InFlags(ge.Error()), ge.Caret())
	} else {
		fmt.Fprintf(c.e.stderr, "urlget: (%d) %s\n", code, cli.InFlags(err.Error()))
	}
	return code
}

// firstURLs is each URL argument's first URL (the argument itself with
// -g, or when it is no glob): what is looked at before any fetch, such as
// whether -u's password is asked for at once as for http.
func firstURLs(o *fetchOpts) []string {
	if o.globOff {
		return o.urls
	}
	first := make([]string, len(o.urls))
	for i, arg := range o.urls {
		first[i] = arg
		if g, err := urlglob.Parse(arg, 0); err == nil {
			for m := range g.All() {
				first[i] = m.URL
				break
			}
		}
	}
	return first
}
