package main

import (
	"fmt"
	"iter"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/urlglob"
)

// globLimit bounds the URLs one argument may stand for. The expansion is
// streamed, so the bound is not about memory: it turns a typo such as
// [1-10000000000] into an error at once instead of days of requests. curl
// has no bound but 2^64; a real job of more than this many URLs is a
// mirror's, or a loop's.
const globLimit = 100_000_000

// fetchJob is one URL to fetch: num is its argument's index on the command
// line (curl's urlnum, shared by every URL of a glob), spec its output, its
// -o name's #N filled in. err, when set, is the argument's malformed glob:
// nothing more is fetched (curl stops there too).
type fetchJob struct {
	download.Job
	err error
}

// jobs gives the URLs of the command line in curl's order: each argument
// as a glob (unless -g), streamed, its -o template filled for each URL.
// The Nth -o/-O belongs to the Nth argument, glob or not, as in curl.
func (c *fetchCmd) jobs() iter.Seq[fetchJob] {
	return func(yield func(fetchJob) bool) {
		for i, arg := range c.o.urls {
			spec := c.outSpecFor(i)
			if c.o.globOff {
				if !yield(fetchJob{Job: download.Job{Num: i, URL: arg, Target: spec}}) {
					return
				}
				continue
			}
			g, err := urlglob.Parse(arg, globLimit)
			if err != nil {
				yield(fetchJob{Job: download.Job{Num: i, URL: arg}, err: err})
				return
			}
			for m := range g.All() {
				s := spec
				if !s.Remote && !s.Implicit && s.Name != "-" {
					s.Name = m.Expand(s.Name)
				}
				if !yield(fetchJob{Job: download.Job{Num: i, URL: m.URL, Target: s}}) {
					return
				}
			}
		}
	}
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
		fmt.Fprintf(c.e.stderr, "urlget: (%d) %s:\n%s\n", code, ge.Error(), ge.Caret())
	} else {
		fmt.Fprintf(c.e.stderr, "urlget: (%d) %s\n", code, err)
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
