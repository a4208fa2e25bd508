package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// dataFlag is the pflag.Value behind the data flags (-d, --data-binary,
// --data-raw, --data-urlencode, --json): all append to one list, in
// command-line order.
func dataFlag(list *[]fetch.DataArg, kind fetch.DataKind, arg string) pflag.Value {
	return cli.Func(arg, func(s string) error {
		*list = append(*list, fetch.DataArg{Kind: kind, Value: s})
		return nil
	})
}

// reqOpts are curl's request-shaping flags that the CLI carries out itself
// (the fetcher options -H, -X, -e are declared by fetch/http).
type reqOpts struct {
	data         []fetch.DataArg
	urlQuery     []fetch.DataArg // --url-query
	form         []fetch.FormArg // -F and --form-string
	cookies      []string        // -b
	cookieJar    string          // -c
	junkSession  bool            // -j
	basic        bool            // --basic
	protoDefault string          // --proto-default
	config       []string        // -K: already read (cli.ExpandConfig); kept for help
	urls         []string        // --url, before the other URLs
	man          bool            // --man
	completion   string          // --completion SHELL
	hsts         string          // --hsts FILE
}

// addRequestFlags defines the request flags on fs; -G, -i are d's. Most
// are for HTTP only (httpFlags).
func addRequestFlags(fs *pflag.FlagSet, r *reqOpts, d *download.Downloader) {
	fs.VarP(dataFlag(&r.data, fetch.DataPlain, "DATA"), "data", "d", "HTTP POST data (@FILE: its contents, CR and LF dropped; several are joined with &); gopher search (type 7) or wais URLs take it as the search words")
	fs.Var(dataFlag(&r.data, fetch.DataBinary, "DATA"), "data-binary", "HTTP POST data, @FILE as it is")
	fs.Var(dataFlag(&r.data, fetch.DataRaw, "DATA"), "data-raw", "HTTP POST data, no @ reading")
	fs.Var(dataFlag(&r.data, fetch.DataURLEncode, "[NAME]=TEXT|[NAME]@FILE"), "data-urlencode", "HTTP POST data, percent-encoded (NAME= kept as it is)")
	fs.Var(dataFlag(&r.urlQuery, fetch.DataURLQuery, "DATA"), "url-query", "add DATA to each URL's query (after \"&\"): NAME=TEXT, =TEXT, TEXT, NAME@FILE or @FILE percent-encoded as --data-urlencode; +DATA as it is")
	fs.BoolVarP(&d.Body.Get, "get", "G", false, "send the -d data in the query string of a GET")
	fs.VarP(formFlag(&r.form, false), "form", "F", "a multipart/form-data field (NAME=@FILE: a file, @FILE,FILE: several, NAME=<FILE: its text; ;type= and ;filename= after it; \"quoted\" words)")
	fs.BoolVar(&d.Body.FormEscape, "form-escape", false, "escape a quote and a backslash in a -F name or file name with a backslash (default: a quote, CR and LF percent-encoded, as browsers)")
	fs.Var(formFlag(&r.form, true), "form-string", "a multipart/form-data text field `NAME=VALUE`, VALUE as it is (a leading @ or < and ;type= mean nothing)")
	fs.BoolVarP(&d.Include, "include", "i", false, "write the response header before the body")
	fs.BoolVar(&d.NoTunnelHeads, "suppress-connect-headers", false, "leave the proxy's replies to CONNECT out of what -i, -I and -D write (-v and -w still see them)")
	fs.VarP(cli.Texts(&r.cookies, "NAME=VALUE|FILE"), "cookie", "b", `send cookies: "NAME=VALUE; ..." as given, or those of a Netscape cookie FILE`)
	fs.VarP(cli.Text(&r.cookieJar, "FILE"), "cookie-jar", "c", "write every cookie to FILE (Netscape format) at the end")
	fs.VarP(cli.Texts(&r.config, "FILE"), "config", "K", "read options from FILE (curl's config syntax; \"-\": stdin); ~/.urlgetrc is read first unless -q")
	fs.BoolP("disable", "q", false, "as the first option: do not read ~/.urlgetrc")
	fs.Var(cli.Texts(&r.urls, "URL"), "url", "fetch URL (as an argument would; for config files: url = URL)")
	fs.Var(cli.Text(&r.hsts, "FILE"), "hsts", "keep HSTS (RFC 6797) in FILE (curl's format): http URLs of the hosts it names are fetched by https, and https replies' Strict-Transport-Security is written back at the end")
	fs.BoolVar(&r.man, "man", false, "print the manual page (roff; man -l - reads it)")
	fs.Var(cli.Text(&r.completion, "SHELL"), "completion", "print the completion script for SHELL: bash, zsh or fish")
	cli.SetValues(fs, "completion", "bash", "zsh", "fish")
}

// httpFlags are the flags for HTTP only: their help section is http's
// and https's. -d is the search schemes' too.
var httpFlags = []string{"data-binary", "data-raw", "data-urlencode", "get", "form", "form-string", "form-escape", "include", "cookie", "cookie-jar",
	"digest", "ntlm", "hsts", "oauth2-bearer", "location-trusted", "junk-session-cookies", "path-as-is", "json"}

// setHTTPTopics gives the HTTP flags their topics.
func setHTTPTopics(fs *pflag.FlagSet) {
	httpOnly := fetch.SchemesWith(fetch.SpeaksHTTP)
	for _, name := range httpFlags {
		cli.SetTopics(fs, name, httpOnly...)
	}
	cli.SetTopics(fs, "data", append(slices.Clip(httpOnly), fetch.SchemesWith(fetch.Search)...)...)
}

// formFlag is -F (literal false) and --form-string: one list, in
// command-line order.
func formFlag(form *[]fetch.FormArg, literal bool) pflag.Value {
	return cli.Func("NAME=VALUE", func(s string) error {
		*form = append(*form, fetch.FormArg{Text: s, String: literal})
		return nil
	})
}

// readNamed reads a file named with "@" whole, "-" for stdin.
func readNamed(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}

// prepareRequest reads the request flags once, before any URL: the body
// (download.Body.Read), the cookie jar.
func (c *fetchCmd) prepareRequest() (download.Body, error) {
	r := &c.o.req
	body := c.o.dl.Body // -G
	if len(c.o.uploads) > 0 {
		body.Upload = c.o.uploads[0] // for Read's checks: each URL gets its own -T (Target.Upload)
	}
	err := body.Read(r.data, r.urlQuery, r.form, func(name string) ([]byte, error) {
		b, err := readNamed(name, c.e.stdin)
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op == "open" {
			// curl: data from a file it cannot open is empty, and a
			// warning says so.
			if !c.o.silent {
				warnf(c.e.stderr, "cannot open data file %s: %v; its data is empty (as curl makes it)", name, pe.Err)
			}
			return nil, nil
		}
		return b, fetch.PathCause(err)
	})
	body.Upload = ""
	if err == nil && body.Form != nil && !c.o.silent {
		for _, w := range body.Form.Warnings {
			warnf(c.e.stderr, "%s", w)
		}
	}
	if err == nil && r.hsts != "" {
		if c.client.HSTS, err = fetch.LoadHSTS(r.hsts); err != nil {
			err = fmt.Errorf("--hsts %s: %v", r.hsts, fetch.PathCause(err))
		}
	}
	if err == nil && (len(r.cookies) > 0 || r.cookieJar != "") {
		c.jar, err = newCookieJar(r.cookies, r.junkSession)
		c.client.Jar = c.jar
	}
	return body, err
}

func joinLines(l []string) string { return strings.Join(l, "\n") }

// expandHeaderFiles replaces each -H @FILE by the file's lines.
func expandHeaderFiles(opts fetch.Options, key string, stdin io.Reader) error {
	if !opts.Has(key) {
		return nil
	}
	out, err := expandLineFiles(opts.Strings(key), "-H/--header", stdin)
	if err != nil {
		return err
	}
	opts[key] = joinLines(out)
	return nil
}

// expandLineFiles is lines with each "@FILE" one replaced by FILE's
// non-empty lines ("@-": stdin's), as curl reads -H and --proxy-header;
// flag names the flag in an error.
func expandLineFiles(lines []string, flag string, stdin io.Reader) ([]string, error) {
	var out []string
	for _, l := range lines {
		name, ok := strings.CutPrefix(l, "@")
		if !ok {
			out = append(out, l)
			continue
		}
		b, err := readNamed(name, stdin)
		if err != nil {
			return nil, fmt.Errorf("%s @%s: %v", flag, name, fetch.PathCause(err))
		}
		for _, fl := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
			if strings.TrimSpace(fl) != "" {
				out = append(out, fl)
			}
		}
	}
	return out, nil
}

// checkRequestArgs refuses request and output flags that contradict each
// other, naming both.
func checkRequestArgs(o *fetchOpts, stdin io.Reader) error {
	if raw, _ := o.options.Bool(fetch.OptRaw); raw && o.scheme.json {
		return fmt.Errorf("--json-lines and --raw: give one or the other (--json-lines prints parsed entries, --raw the bytes as sent)")
	}
	if o.dl.Head && (len(o.req.data) > 0 || len(o.req.form) > 0) && !o.dl.Body.Get {
		return fmt.Errorf("-I/--head and %s: a HEAD request has no body", map[bool]string{true: "-d/--data", false: "-F/--form"}[len(o.req.data) > 0])
	}
	if len(o.client.ProxyHeader) > 0 {
		lines, err := expandLineFiles(o.client.ProxyHeader, "--proxy-header", stdin)
		if err != nil {
			return err
		}
		o.client.ProxyHeader = lines
	}
	if o.fs != nil && o.fs.Changed("user-agent") && o.client.UserAgent == "" {
		// curl: -A "" sends no User-Agent at all; a -H line still may.
		key := o.scheme.Key("header")
		o.options = o.options.With(key, joinLines(append([]string{"User-Agent:"}, o.options.Strings(key)...)))
	}
	if o.options != nil {
		return expandHeaderFiles(o.options, o.scheme.Key("header"), stdin)
	}
	return nil
}

// finishRequest writes the cookie jar (-c) and the HSTS file (--hsts)
// once every URL is done.
func (c *fetchCmd) finishRequest(status int) int {
	if c.client.HSTS != nil {
		if err := c.client.HSTS.Save(c.o.req.hsts); err != nil {
			if !c.o.silent || c.o.showError {
				fmt.Fprintf(c.e.stderr, "urlget: --hsts %s: %v\n", c.o.req.hsts, fetch.PathCause(err))
			}
			if status == 0 {
				status = fetch.ErrWrite.ExitCode()
			}
		}
	}
	if c.jar != nil && c.o.req.cookieJar != "" {
		if err := saveCookies(c.jar, c.o.req.cookieJar, c.e.stdout); err != nil {
			if !c.o.silent || c.o.showError {
				fmt.Fprintf(c.e.stderr, "urlget: -c/--cookie-jar %s: %v\n", c.o.req.cookieJar, fetch.PathCause(err))
			}
			if status == 0 {
				status = fetch.ErrWrite.ExitCode()
			}
		}
	}
	return status
}

// countUpload draws the progress of a body being sent: the Downloader's
// Sending when a meter may be drawn (c.progress: stderr a terminal, no -s).
func (c *fetchCmd) countUpload(r io.Reader, size int64) io.Reader {
	return cli.Sending(c.e.stderr, c.o.progressBar, r, size)
}
