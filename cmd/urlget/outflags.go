package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// The output flags of curl: -r/--range, -D/--dump-header,
// --fail-with-body, --stderr, -N/--no-buffer, --xattr, -z/--time-cond,
// --etag-save and --etag-compare. Ranges and conditions are Request fields
// the fetchers honour; this file binds the flags and writes the files.

// outOpts holds those that are no field of the Downloader or the Client as
// given; what they turn into goes into the Downloader, dl.
type outOpts struct {
	dumpHeader  string
	stderr      string
	noBuffer    bool
	timeCond    string
	etagCompare string
	dl          *download.Downloader
}

// addOutFlags defines the output flags: --xattr and --etag-save are d's,
// --fail-with-body cl's.
func addOutFlags(fs *pflag.FlagSet, o *outOpts, d *download.Downloader, cl *fetch.Client) {
	o.dl = d
	fs.VarP(cli.Func("string", func(s string) (err error) {
		d.Range, err = fetch.ParseRange(s)
		return err
	}), "range", "r", "fetch only the bytes in `RANGE`: START-END, START-, -LAST (http: several, comma-separated; http, ftp, file and wais)")
	fs.StringVarP(&o.dumpHeader, "dump-header", "D", "", "write the response headers (of redirects too; ftp: the server's replies) to `FILE` (\"-\": stdout)")
	fs.BoolVar(&cl.FailWithBody, "fail-with-body", false, "like -f, exit 22 on an HTTP status >= 400, but write the body")
	fs.StringVar(&o.stderr, "stderr", "", "write what goes to stderr to `FILE` instead (\"-\": stdout)")
	fs.BoolVarP(&o.noBuffer, "no-buffer", "N", false, "write data out as it arrives (urlget never holds it back: accepted for curl's sake)")
	fs.BoolVar(&d.Xattr, "xattr", false, "record the URL (user.xdg.origin.url, without credentials) and the type (user.mime_type) in the output file's extended attributes")
	fs.StringVarP(&o.timeCond, "time-cond", "z", "", "fetch only if modified after `TIME` (a date, or a file's time; -TIME: only if not modified after)")
	fs.StringVar(&d.ETagSave, "etag-save", "", "write the response's ETag to `FILE`")
	fs.StringVar(&o.etagCompare, "etag-compare", "", "fetch only if the ETag differs from the one in `FILE` (If-None-Match)")
}

// timeCondition is -z (download.TimeCondition): the condition in the
// Downloader, or a warning and none when the argument is neither a date
// nor a file.
func (o *outOpts) timeCondition(e env, quiet bool) {
	if o.timeCond == "" {
		return
	}
	t, unmodified, err := download.TimeCondition(o.timeCond)
	switch {
	case err != nil:
		if !quiet {
			warnf(e.stderr, "-z/--time-cond: %v: no time condition", err)
		}
	case unmodified:
		o.dl.IfUnmodifiedSince = t
	default:
		o.dl.IfModifiedSince = t
	}
}

// redirectStderr is --stderr: e with its stderr replaced, and what closes
// it.
func (o *outOpts) redirectStderr(e env) (env, func(), error) {
	switch o.stderr {
	case "":
		return e, func() {}, nil
	case "-":
		e.stderr = e.stdout
		return e, func() {}, nil
	}
	f, err := os.Create(o.stderr)
	if err != nil {
		return e, nil, fmt.Errorf("--stderr: cannot create %s: %v", o.stderr, fetch.PathCause(err))
	}
	e.stderr = f
	return e, func() { f.Close() }, nil
}

// openHeaders opens -D's file, created (or emptied) before the first
// transfer as curl does.
func (o *outOpts) openHeaders(e env) (func() error, error) {
	switch o.dumpHeader {
	case "":
		return func() error { return nil }, nil
	case "-":
		o.dl.Headers = e.stdout
		return func() error { return nil }, nil
	}
	f, err := os.Create(o.dumpHeader)
	if err != nil {
		return nil, fetch.NewError(fetch.ErrWrite, "-D/--dump-header: cannot create "+o.dumpHeader, fetch.PathCause(err))
	}
	w := bufio.NewWriter(f)
	o.dl.Headers = w
	return func() error {
		err := w.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}

// start readies the flags that act before the first transfer: --stderr
// (e's stderr from then on), -z, --etag-compare's file and -D's file. The
// function returned ends them.
func (o *outOpts) start(e env, quiet bool, urls []string) (env, func(), error) {
	e, closeStderr, err := o.redirectStderr(e)
	if err != nil {
		return e, nil, err
	}
	o.timeCondition(e, quiet)
	if o.dl.Range != nil && !quiet {
		// curl ignores -r for these schemes silently; urlget says so.
		warned := map[string]bool{}
		for _, raw := range urls {
			if u, err := parseFetchURL(raw); err == nil && !fetch.HasCaps(u.Scheme, fetch.Ranges) && !warned[u.Scheme] {
				warned[u.Scheme] = true
				warnf(e.stderr, "-r/--range: %s has no byte ranges; the whole resource is sent (as curl does)", u.Scheme)
			}
		}
	}
	if o.etagCompare != "" {
		o.dl.IfNoneMatch, err = download.ReadETag(o.etagCompare)
		if err != nil && o.dl.ETagSave != "" && errors.Is(err, fs.ErrNotExist) {
			// curl: with --etag-save, a file not saved yet is an empty one.
			o.dl.IfNoneMatch, err = `""`, nil
		}
		if err != nil {
			closeStderr()
			return e, nil, err
		}
	}
	closeHeaders, err := o.openHeaders(e)
	if err != nil {
		closeStderr()
		return e, nil, err
	}
	return e, func() { closeHeaders(); closeStderr() }, nil
}

// fetchExitCode is the exit status of an error met before any transfer:
// a typed one's, else a usage error's.
func fetchExitCode(err error) int {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fetch.ExitCode(err)
	}
	return fetchExitUsage
}
