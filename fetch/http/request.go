package http

import (
	"io"
	"mime"
	nethttp "net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Option keys read from fetch.Request.Options (declared in init, with
// curl's flag names).
const (
	// OptHeader holds extra request header lines, one a line, as curl's
	// -H: "Name: value" adds the field, as given, or replaces the one
	// urlget would send (Host, User-Agent, Accept, ...); "Name:" removes
	// that one; "Name;" sends the field with an empty value; two lines of
	// one name both go (fetch.HeaderLine), but of several Host lines the
	// first is the Host, as curl's. Authorization, Cookie and Host lines
	// are left out of a request to another origin (Request.OtherOrigin):
	// a Host given for the first server is not another's, as curl.
	OptHeader = "http-header"
	// OptMethod is the request method (-X): fetch.OptMethod, read by
	// Request.Method.
	OptMethod = fetch.OptMethod
	// OptReferer is the Referer header (-e).
	OptReferer = "http-referer"
	// OptRequestTarget replaces the request line's target — the URL's
	// path and query — by its value, as curl's --request-target ("*" for
	// "OPTIONS * HTTP/1.1").
	OptRequestTarget = "http-request-target"
	// OptHAProxy, "1", starts each connection with a PROXY protocol v1
	// line (HAProxy's: the connection's own addresses and ports), as
	// curl's --haproxy-protocol; such a request has a connection of its
	// own.
	OptHAProxy = "http-haproxy-protocol"
	// OptBodyHeader (fetch.OptBodyHeader) holds header lines that
	// describe Request.Body (Content-Type, Expect), in OptHeader's form;
	// they are sent only with a body, so not after a redirect turned the
	// request into a GET, and OptHeader lines replace them. No flag sets
	// it: the CLI does, for -d, -F and -T.
	OptBodyHeader = fetch.OptBodyHeader
	// OptVersion is the HTTP version to speak, set by curl's flags:
	// "1.1" (--http1.1, the default); "2" (--http2): HTTP/2 with an https
	// server that chooses it by ALPN, else HTTP/1.1 (an http URL stays
	// HTTP/1.1: there is no h2c upgrade); "2-prior"
	// (--http2-prior-knowledge): HTTP/2 at once on an http URL (h2c), as
	// "2" on https. A request through an HTTP proxy speaks HTTP/1.1.
	OptVersion = "http-version"
	// OptHTTP09, "1", takes a reply without a status line (HTTP/0.9:
	// the body alone, until the connection closes) as a 200 with no
	// header fields, as curl's --http0.9; without it such a reply is
	// refused (ErrUnsupported), as curl 7.88 refuses it by default. A
	// reply to HEAD has no body to be: it is ErrProtocol either way.
	OptHTTP09 = "http-0.9"
	// OptTransferCoding, "1", asks for a compressed transfer coding
	// ("TE: gzip", with TE named in the Connection field), as curl's
	// --tr-encoding. A reply in gzip or deflate transfer codings is
	// decoded with or without it, as curl decodes one.
	OptTransferCoding = "http-tr-encoding"
	// OptIgnoreLength (fetch.OptIgnoreLength), "1", reads the body until
	// the connection closes whatever the reply's Content-Length says, as
	// curl's --ignore-content-length (ftp reads it too).
	OptIgnoreLength = fetch.OptIgnoreLength
)

var httpSchemes = []string{"http", "https"}

func init() {
	caps := fetch.RedirectTarget | fetch.ReferralTarget | fetch.SpeaksHTTP | fetch.SendsBody | fetch.Ranges | fetch.DirPaths | fetch.ResumesUpload
	fetch.Register(fetch.Scheme{Name: "http", New: New, Caps: caps,
		Options: []fetch.Option{
			{Key: OptHeader, Flag: "header", Short: "H", Kind: fetch.Strings, Arg: "LINE",
				Help: `add "Name: value" to the request ("Name:" removes it, "Name;" sends it empty, @FILE: one a line)`, Schemes: httpSchemes},
			{Key: OptMethod, Flag: "request", Short: "X", Kind: fetch.String, Arg: "METHOD",
				Help: "send METHOD instead of GET (POST with a body, PUT with -T)", Schemes: httpSchemes},
			{Key: OptReferer, Flag: "referer", Short: "e", Kind: fetch.String, Arg: "URL",
				Help: "send URL as the Referer", Schemes: httpSchemes},
			{Key: OptHAProxy, Flag: "haproxy-protocol", Kind: fetch.Bool, Schemes: httpSchemes,
				Help: "start the connection with a PROXY protocol v1 line (HAProxy's), naming its own addresses and ports"},
			{Key: OptRequestTarget, Flag: "request-target", Kind: fetch.String, Arg: "TARGET",
				Help: `send TARGET in the request line instead of the URL's path and query ("*": OPTIONS *)`, Schemes: httpSchemes},
			{Key: OptVersion, Flag: "http1.0", Short: "0", Kind: fetch.Bool, Set: version10, Schemes: httpSchemes,
				Help: "send HTTP/1.0 requests (the reply read as any, one request a connection)"},
			{Key: OptHTTP09, Flag: "http0.9", Kind: fetch.Bool, Schemes: httpSchemes,
				Help: "take a reply without a status line (HTTP/0.9) as its body; refused by default"},
			{Key: OptHTTP09, Flag: "no-http0.9", Kind: fetch.Bool, Set: "0", Schemes: httpSchemes,
				Help: "refuse a reply without a status line (HTTP/0.9), the default (undoes --http0.9)"},
			{Key: OptTransferCoding, Flag: "tr-encoding", Kind: fetch.Bool, Schemes: httpSchemes,
				Help: "ask for a compressed transfer coding (TE: gzip); gzip and deflate ones are decoded in any case"},
			{Key: OptIgnoreLength, Flag: "ignore-content-length", Kind: fetch.Bool, Schemes: []string{"http", "https", "ftp", "ftps"},
				Help: "read the body until the connection closes, whatever its Content-Length says (ftp: its announced size)"},
			{Key: OptVersion, Flag: "http1.1", Kind: fetch.Bool, Set: version11, Schemes: httpSchemes,
				Help: "speak HTTP/1.1 (the default)"},
			{Key: OptVersion, Flag: "http2", Kind: fetch.Bool, Set: version2, Schemes: httpSchemes,
				Help: "speak HTTP/2 with an https server that offers it (ALPN), else HTTP/1.1"},
			{Key: OptVersion, Flag: "http2-prior-knowledge", Kind: fetch.Bool, Set: version2Prior, Schemes: httpSchemes,
				Help: "speak HTTP/2 at once, without asking (http://: h2c)"},
		},
		Examples: []fetch.Example{
			{Args: "-o page.html https://example.org/", Help: "save a page"},
			{Args: "-L -O https://example.org/file.tar.gz", Help: "follow redirects, save under the remote name"},
			{Args: "-d name=value -d x=1 https://example.org/form", Help: "POST form data (name=value&x=1)"},
			{Args: "-G --data-urlencode 'q=a b' https://example.org/search", Help: "the same data in the query string: ?q=a+b"},
			{Args: "-F file=@photo.jpg -F note=hi https://example.org/upload", Help: "a multipart/form-data POST"},
			{Args: "-H 'Accept: application/json' -X DELETE https://example.org/item/1", Help: "another method, an extra header"},
			{Args: "-T notes.txt https://example.org/dav/", Help: "PUT a file (to dav/notes.txt)"},
			{Args: "-b cookies.txt -c cookies.txt https://example.org/", Help: "send and keep cookies (Netscape cookie file)"},
			{Args: "-i https://example.org/", Help: "the response header, then the body"},
		}})
	fetch.Register(fetch.Scheme{Name: "https", New: New, Caps: caps})
}

// SendsBody reports that a Request.Body is sent to http and https URLs
// (fetch.BodySender): as a POST, or the method of OptMethod.
func (Fetcher) SendsBody(u *urlparse.URL) bool { return u.Scheme == "http" || u.Scheme == "https" }

// shape puts the request's own parts on hreq, after the fields urlget
// sends itself: the body, the Referer, the jar's cookies and the OptHeader
// lines (which may replace or remove any of those fields). OptBodyHeader's
// lines go with the body.
// jarURL is the URL the cookies belong to (nil for a gateway request).
func shape(hreq *nethttp.Request, req *fetch.Request, jar nethttp.CookieJar, jarURL *url.URL) error {
	if req.Body != nil {
		hreq.Body = io.NopCloser(req.Body)
		hreq.ContentLength = req.BodySize // -1: chunked
		if req.BodySize == 0 {
			hreq.Body = nethttp.NoBody
		}
		given := map[string]bool{}
		for _, line := range req.Options.Strings(OptBodyHeader) {
			if lineNames(line, "Expect") && !expects(req) {
				continue
			}
			if err := addHeader(hreq, line, given); err != nil {
				return err
			}
		}
	}
	h := hreq.Header
	if r := req.Options.String(OptReferer); r != "" {
		h.Set("Referer", r)
	}
	given := map[string]bool{}
	for _, line := range requestLines(req) {
		if req.OtherOrigin && (credentialLine(line) || lineNames(line, "Host")) {
			continue
		}
		if err := addHeader(hreq, line, given); err != nil {
			return err
		}
	}
	if req.Body != nil {
		if given["content-type"] {
			keepBoundary(h, req.Options.Strings(OptBodyHeader))
		}
		if err := bodyFraming(hreq, req, given); err != nil {
			return err
		}
	}
	if jar != nil && jarURL != nil && !given["cookie"] {
		var v string
		u := cookieURL(hreq, jarURL)
		if ch, ok := jar.(interface{ CookieHeader(*url.URL) string }); ok {
			v = ch.CookieHeader(u) // fetch.CookieJar's, in curl's order
		} else {
			var pairs []string
			for _, c := range jar.Cookies(u) {
				pairs = append(pairs, c.Name+"="+c.Value)
			}
			v = strings.Join(pairs, "; ")
		}
		if v != "" {
			h.Set("Cookie", v)
		}
	}
	return nil
}

// keepBoundary gives an -H Content-Type that replaces a multipart body's
// own (-F: bodyLines) the body's boundary when it names none, as curl
// does: without it the body could not be split into its parts.
func keepBoundary(h nethttp.Header, bodyLines []string) {
	boundary := ""
	for _, line := range bodyLines {
		if name, val, _, ok := fetch.HeaderLine(line); ok && strings.EqualFold(name, "Content-Type") {
			if _, params, err := mime.ParseMediaType(val); err == nil {
				boundary = params["boundary"]
			}
		}
	}
	if boundary == "" {
		return
	}
	for k, v := range h {
		if strings.EqualFold(k, "Content-Type") && len(v) == 1 {
			if _, params, err := mime.ParseMediaType(v[0]); err == nil && params["boundary"] == "" {
				h[k] = []string{v[0] + "; boundary=" + boundary}
			}
		}
	}
}

// optProbe marks the request openAuth sends first without its body:
// curl sends "Content-Length: 0" then, whatever an -H line says.
const optProbe = "http-auth-probe"

// bodyFraming applies the -H lines (given: their names) that say how the
// body is framed, as curl's: "Transfer-Encoding: chunked" sends it
// chunked, an empty body too; otherwise "Content-Length: N" sends N as
// its length (the body must have N bytes: with "Transfer-Encoding:" an
// upload of unknown size so goes unchunked). net/http writes both fields
// itself, from the framing.
func bodyFraming(hreq *nethttp.Request, req *fetch.Request, given map[string]bool) error {
	h := hreq.Header
	field := func(name string) string {
		for k, v := range h {
			if strings.EqualFold(k, name) {
				delete(h, k)
				return strings.Join(v, ", ")
			}
		}
		return ""
	}
	te, cl := field("Transfer-Encoding"), field("Content-Length")
	switch {
	case given["transfer-encoding"] && strings.Contains(strings.ToLower(te), "chunked"):
		if hreq.Body == nethttp.NoBody {
			hreq.Body = io.NopCloser(strings.NewReader(""))
		}
		hreq.ContentLength = -1
		hreq.TransferEncoding = []string{"chunked"}
	case given["content-length"] && cl != "" && req.Options.String(optProbe) == "":
		n, err := strconv.ParseInt(strings.TrimSpace(cl), 10, 64)
		if err != nil || n < 0 {
			return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "Content-Length " + fetch.SanitizeLine(cl, 40) + " refused: not a length"}
		}
		hreq.ContentLength = n
		if n == 0 {
			hreq.Body = nethttp.NoBody
		}
	}
	if hreq.ContentLength < 0 && req.Options.String(OptVersion) == version10 {
		return errUnknownLength10()
	}
	return nil
}

// errUnknownLength10 refuses a body of unknown length in an HTTP/1.0
// request: HTTP/1.0 has no chunked coding, so such a body has no end a
// server could find. Refused before it is sent, as curl's "upload failed".
func errUnknownLength10() error {
	return &fetch.Error{Kind: fetch.ErrUpload, Msg: "an HTTP/1.0 request cannot carry a body of unknown length (no chunked coding in HTTP/1.0): give its size (Content-Length) or use HTTP/1.1"}
}

// downgrade makes hreq, about to go out as HTTP/1.1 on a connection rec
// found answering in HTTP/1.0 (recorder.start), an HTTP/1.0 request: no
// "Expect: 100-continue" unless an -H line (lines) gives it (HTTP/1.0 has
// no 100 Continue; expects), and a body of unknown length refused
// (errUnknownLength10) when the Transport would write it. It runs as
// the Transport hands over the connection, before it reads the head to
// write it, which it can only do once it has the connection.
func downgrade(hreq *nethttp.Request, rec *recording, lines []string) {
	if !slices.ContainsFunc(lines, func(l string) bool { return lineNames(l, "Expect") }) {
		hreq.Header.Del("Expect")
	}
	if hreq.Body != nil && hreq.Body != nethttp.NoBody && hreq.ContentLength < 0 {
		rec.refuse = errUnknownLength10()
	}
}

// cookieURL is the URL whose cookies a request sends and stores: jarURL,
// with the host of a Host field an OptHeader line gave, as curl matches
// cookies against the name the request gives the server.
func cookieURL(hreq *nethttp.Request, jarURL *url.URL) *url.URL {
	if jarURL == nil || hreq.Host == "" || hreq.Host == jarURL.Host {
		return jarURL
	}
	u := *jarURL
	u.Host = hreq.Host
	return &u
}

// requestLines is the header lines of req: headerLines, then, for a
// request sent to an HTTP proxy itself (an http URL's, a gateway's: not
// one through a tunnel), Request.ProxyHeader, as curl adds
// --proxy-header's.
func requestLines(req *fetch.Request) []string {
	lines := headerLines(req.Options)
	if req.Proxy == nil || len(req.ProxyHeader) == 0 || req.URL.Scheme == "https" {
		return lines
	}
	return append(slices.Clip(lines), req.ProxyHeader...)
}

// headerLines is the OptHeader lines, then those of fetch.OptLastHeader
// whose names they do not give.
func headerLines(opts fetch.Options) []string {
	lines := opts.Strings(OptHeader)
	last := opts.Strings(fetch.OptLastHeader)
	if len(last) == 0 {
		return lines
	}
	names := map[string]bool{}
	for _, l := range lines {
		if n, _, _, ok := fetch.HeaderLine(l); ok {
			names[strings.ToLower(n)] = true
		}
	}
	all := slices.Clone(lines)
	for _, l := range last {
		if n, _, _, ok := fetch.HeaderLine(l); ok && !names[strings.ToLower(n)] {
			all = append(all, l)
		}
	}
	return all
}

// credentialLine reports whether an OptHeader line sets Authorization or
// Cookie, which curl sends only to the first URL's origin.
func credentialLine(line string) bool { return lineNames(line, "Authorization", "Cookie") }

// lineNames reports whether an OptHeader line is a field of one of names
// (compared without regard to case).
func lineNames(line string, names ...string) bool {
	name, _, _, _ := fetch.HeaderLine(line)
	return slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(name, n) })
}

// expects reports whether a request may say "Expect: 100-continue", as
// curl's may: HTTP/1.1 (HTTP/1.0 has no 100 Continue, RFC 9110 §10.1.1),
// and a body that is not empty.
func expects(req *fetch.Request) bool {
	return req.BodySize != 0 && req.Options.String(OptVersion) != version10
}

// expectTimeout is how long a request with "Expect: 100-continue" waits
// for the server's 100 before it sends the body anyway (curl's second).
const expectTimeout = time.Second

// addHeader applies one -H line (fetch.HeaderLine). The name keeps the case it
// was given in. given holds the lower-case names of the lines applied
// before in the same list: the first line of a name replaces the field
// urlget would send (one set before the list), a later one adds to it, as
// curl sends every -H line.
func addHeader(hreq *nethttp.Request, line string, given map[string]bool) error {
	h := hreq.Header
	name, val, send, ok := fetch.HeaderLine(line)
	if !ok {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "Options[http-header] " + fetch.SanitizeLine(line, 80) + `: want "Name: value"`}
	}
	if strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(val, "\r\n\x00") {
		return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "Options[http-header] " + fetch.SanitizeLine(line, 80) + ": not one header field"}
	}
	lower := strings.ToLower(name)
	first := !given[lower]
	given[lower] = true
	if first {
		for k := range h {
			if strings.EqualFold(k, name) {
				delete(h, k)
			}
		}
	}
	switch {
	case lower == "host":
		if send && val != "" && first {
			hreq.Host = strings.TrimSpace(val)
		}
		return nil
	case !send:
		if lower == "user-agent" && first {
			h["User-Agent"] = []string{""} // net/http: present and empty means none
		}
		return nil
	}
	if lower == "user-agent" && len(h[name]) == 1 && h[name][0] == "" {
		delete(h, name)
	}
	h[name] = append(h[name], strings.TrimSpace(val))
	return nil
}

// storeCookies keeps the cookies a reply sets, when there is a jar.
func storeCookies(jar nethttp.CookieJar, u *url.URL, resp *nethttp.Response) {
	if jar != nil && u != nil {
		if cs := resp.Cookies(); len(cs) > 0 {
			jar.SetCookies(u, cs)
		}
	}
}
