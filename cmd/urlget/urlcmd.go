package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/urlparse"
)

// Exit statuses of urlget url, curl's numbers where curl has the meaning.
const (
	urlExitUsage     = 2  // unknown flag, no URL
	urlExitMalformed = 3  // curl's "URL malformed"
	urlExitWrite     = 23 // writing stdout failed
	urlExitRead      = 26 // reading stdin failed
)

const urlUsage = `usage: urlget url [options] [--] URL...
       urlget url [options] --extract < TEXT

Parse each URL (any RFC 3986 URI reference: relative references are fine) and
print it back, one per line, recomposed from its components (RFC 3986 §5.3)
with its bytes unchanged. Nothing is fetched.

An IRI (RFC 3987) is taken too and printed as its URI: a non-ASCII host in
its IDNA A-label form, other non-ASCII characters percent-encoded as UTF-8
("http://bücher.de/ä" prints "http://xn--bcher-kva.de/%%C3%%A4"). A message-id
pasted with its angle brackets into a news or nntp URL ("news:<id@host>")
loses them.

The answer is RFC 3986's. An absolute result is then also checked against
its own scheme's syntax (RFC 1738, or the later RFC for https, gophers,
mailto, nntps), a second verdict: a URL that breaks it ("http:g", which has no
host; "http://h:80808/", whose port is over 65535) is still printed, with one
warning line on stderr, unless --strict is given.

Options:
%s
  --                end the options (for a reference that starts with "-")

--json prints one object per line:
  "url"           the URL as printed without --json
  "iri"           the argument as given, when it was an IRI converted to
                  the URI in "url" (before --base and --normalize)
  "start","end"   with --extract: its byte span in the text, wrapper included
  "scheme"        lower case; absent for a relative reference
  "user", "password", "host", "port", "path", "query", "fragment"
                  the generic components, percent-DECODED; each is absent
                  when its delimiter is ("@", ":" in the userinfo, "//", ":"
                  after the host, "?", "#"); "path" is always there; "port" is
                  a number, absent when no digits were given; an IPv6 host
                  has no brackets
  "host_kind"     "reg-name", "ipv4", "ipv6" or "ipvfuture", when there
                  is a host
  "host_lookup"   the form of the host a resolver is asked for (IDNA
                  A-labels), when it differs from "host"
  "raw"           the same keys holding the components as written (still
                  percent-encoded; "port" is a string); always ASCII
  "ftp", "gopher", "mailto", "news", "nntp", "wais", "file", "prospero", ...
                  the scheme's own fields, decoded, under the scheme's name:
                  ftp {cwd, name, type ("", "a", "i" or "d")};
                  http/https {userinfo: true} only when the URL had userinfo;
                  gopher/gophers {type, selector, search, plus} (search and
                  plus only when present); mailto {to, headers [{name,
                  value}]}; news {group} or {message_id} or {all: true};
                  nntp/nntps {group, article, message_id (when present)};
                  wais {database, search (when present), doc_type,
                  doc_path, length, doc_fields [{name: the tag, value}]
                  when doc_path is a Lynx DocID}; file {local, path};
                  prospero {hsoname, fields [{name, value}]}
  "scheme_error"  instead of the scheme's fields, when the URL breaks its
                  scheme's syntax: the warning's text (offset, rule)

Bytes in JSON strings: a decoded value may hold any byte. Valid UTF-8 is
written as it is (with the escapes JSON requires); each byte that is not part
of valid UTF-8 is written as \udcXX, XX being the byte in hex (0x80 to 0xff).
Valid UTF-8 never encodes a surrogate, so this is reversible: it is Python's
"surrogateescape" (json.loads(line)[k].encode("utf-8", "surrogateescape")
gives the bytes back). Parsers that refuse lone surrogates or turn them into
U+FFFD lose those bytes; the "raw" values keep them, percent-encoded.

Exit status: 0 when every URL was good (scheme warnings included); 2 on a
usage error; 3 when some URL was malformed (or, with --strict, broke its
scheme's syntax): each bad one gets one line on stderr naming the problem and
its byte offset, and the good ones are still printed; 23 when writing the
output failed; 26 when reading stdin failed.
`

// urlCmd holds the options of one urlget url run, bound to its flags.
type urlCmd struct {
	baseArg                                string // --base as given
	base                                   *urlparse.Ref
	normalize, json, strict, extract, help bool
}

// newURLFlags is urlget url's flag set (its help and completion read it)
// and the command its flags set.
func newURLFlags(e env) (*pflag.FlagSet, *urlCmd) {
	fs := cli.NewFlagSet("urlget url", e.stderr)
	c := &urlCmd{}
	fs.StringVar(&c.baseArg, "base", "", "resolve each URL against the absolute URL `BASE` (RFC 3986 §5.2)")
	fs.BoolVar(&c.normalize, "normalize", false, "normalize each URL, after --base (RFC 3986 §6.2.2, §6.2.3)")
	fs.BoolVar(&c.strict, "strict", false, "a URL that breaks its scheme's syntax is an error (exit\nstatus 3), not a warning")
	fs.BoolVar(&c.json, "json", false, "print one JSON object per URL (see below)")
	fs.BoolVar(&c.extract, "extract", false, "read text on stdin and take the URLs found in it\n(<URL:...> and <...> wrappers, and bare URLs of the\nschemes urlget knows; only URLs that parse are taken)")
	fs.BoolVarP(&c.help, "help", "h", false, "print this help")
	return fs, c
}

// runURL is urlget url: the command-line face of urlparse.
func runURL(e env) int {
	fs, c := newURLFlags(e)
	if err := fs.Parse(e.args); err != nil {
		return fail(e, urlExitUsage, "url: %v (try 'urlget url --help')", cli.Error(err))
	}
	if c.help {
		fmt.Fprintf(e.stdout, urlUsage, strings.TrimRight(fs.FlagUsages(), "\n"))
		return 0
	}
	args := fs.Args()
	switch {
	case c.extract && len(args) > 0:
		return fail(e, urlExitUsage, "url: --extract reads stdin and takes no URL arguments (try 'urlget url --help')")
	case !c.extract && len(args) == 0:
		return fail(e, urlExitUsage, "url: no URL given (try 'urlget url --help')")
	}
	if fs.Changed("base") {
		b, err := urlparse.ParseIRIRef(c.baseArg)
		if err == nil && !b.IsAbsolute() {
			_, err = urlparse.ParseAbsolute(c.baseArg) // says why it needs a scheme
		}
		if err != nil {
			return fail(e, urlExitMalformed, "url: --base: %v", err)
		}
		c.base = &b
	}

	status := 0
	do := func(arg, where string, found *urlparse.Found) bool {
		line, schemeErr, err := c.line(arg, found)
		if err != nil {
			fail(e, urlExitMalformed, "url: %s%v", where, err)
			status = urlExitMalformed
			return true
		}
		if schemeErr != nil {
			warnf(e.stderr, "url: %s%v", where, schemeErr)
		}
		if _, err := io.WriteString(e.stdout, line+"\n"); err != nil {
			status = fail(e, urlExitWrite, "url: writing output: %v", err)
			return false
		}
		return true
	}
	if c.extract {
		text, err := io.ReadAll(e.stdin)
		if err != nil {
			return fail(e, urlExitRead, "url: reading stdin: %v", err)
		}
		for _, f := range urlparse.Extract(string(text)) {
			if !do(f.URL, "stdin byte "+strconv.Itoa(f.Start)+": ", &f) {
				break
			}
		}
		return status
	}
	for _, a := range args {
		if !do(a, "", nil) {
			break
		}
	}
	return status
}

// line turns one argument into its output line (without the newline). A
// URL that only its scheme's syntax refuses gives a line and schemeErr, or
// with --strict the error.
func (c *urlCmd) line(arg string, found *urlparse.Found) (line string, schemeErr, err error) {
	u, uri, err := c.url(arg)
	if pe := (*urlparse.Error)(nil); errors.As(err, &pe) && pe.Scheme != "" && !c.strict {
		schemeErr, err = err, nil
	}
	if err != nil {
		return "", nil, err
	}
	s := u.String()
	if !c.json {
		return s, schemeErr, nil
	}
	iri := ""
	if uri != arg {
		iri = arg
	}
	return string(u.AppendJSON(nil, urlparse.JSONExtra{IRI: iri, SchemeErr: schemeErr, Found: found})), schemeErr, nil
}

// url parses arg (a URI or IRI reference; uri is its URI form), resolves it
// against --base, normalizes it as asked, and checks an absolute result
// against its scheme's syntax: the error is then the scheme's (Scheme set),
// beside the generic components. The URL returned is the parse of the final
// string, so its components always agree with it.
func (c *urlCmd) url(arg string) (u urlparse.URL, uri string, err error) {
	r, err := urlparse.ParseIRIRef(arg)
	if err != nil {
		return urlparse.URL{}, "", err
	}
	s := r.String()
	uri = s
	if c.base != nil || c.normalize {
		if c.base != nil {
			r = c.base.Resolve(&r)
		}
		if c.normalize {
			r = r.Normalize()
		}
		s = r.String()
		if r, err = urlparse.ParseRef(s); err != nil {
			return urlparse.URL{}, uri, err
		}
	}
	if !r.IsAbsolute() {
		return urlparse.URL{Ref: r}, uri, nil
	}
	u, err = urlparse.Parse(s)
	return u, uri, err
}
