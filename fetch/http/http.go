// Package http fetches http and https URLs (RFC 1738 §3.3, RFC 9110, RFC
// 9112; RFC 9113 on request) with net/http underneath, and carries any other scheme through an
// HTTP proxy acting as a gateway (RFC 1630). Importing it registers the
// "http" and "https" schemes with package fetch.
//
// The fetcher is transport only. It never follows redirects: a 3xx reply is
// returned as it is, with Meta.Status and Meta.Location, and the fetch.Client
// decides. Connections go through the Request's Dialer (connect timeout,
// SOCKS proxy, cancellation) and TLS config; HTTP/1.1 is spoken, HTTP/2
// when OptVersion asks (a connection of its own for the request), HTTP/1.0
// when it asks, or on a connection whose previous reply was HTTP/1.0, as
// curl's (recorder.start, downgrade). A Fetcher
// built by New keeps its direct connections (no HTTP proxy), and those of
// the requests of other schemes it sends an http:// proxy (a gateway's),
// alive between requests, a few idle per host for a minute at most, and
// reuses them, as net/http's Transport does; CloseIdleConnections (through
// fetch.Client.CloseIdleConnections) closes them. A proxy's HTTP/1.0 reply
// keeps its connection with "Proxy-Connection: keep-alive", as curl reads
// it (normalizeHead). Any other request through an HTTP proxy, or one from a
// Fetcher built without New, has a connection of its own,
// closed with the Body (the request does not ask the server to close; curl
// does not either). An HTTP/1.1 body of known length over plain TCP is read
// with the kernel gathering up to fetch.BulkReadSize bytes before it wakes
// the reader (fetch.LowWater; never more than the bytes still due, and
// back to one byte before the connection carries anything else).
//
// Request headers: User-Agent, "Accept: */*", Authorization when the
// Request carries credentials (Basic; "Bearer TOKEN" with Request.Bearer;
// with Request.Digest none at first, then the answer to the server's
// Digest challenge, RFC 7616; with Request.NTLM the NEGOTIATE message,
// then the AUTHENTICATE message answering the 401's challenge on the same
// connection, internal/ntlm; with Request.AnyAuth what the 401 offers: see
// openAuth), and for a resume (Request.Offset > 0)
// "Range: bytes=N-" with "If-Range: <HTTP-date>" when Request.Since is set;
// for a Request.Range "Range: bytes=SPEC", as given (HEAD too, as curl; a
// 206 of one part has Meta.Offset from its Content-Range, several parts
// come as the server sends them, multipart/byteranges);
// If-Modified-Since and If-None-Match from the Request's fields of those
// names, a 304 reply then being Meta.NotModified with an empty body.
// With Config.Compressed, "Accept-Encoding: deflate, gzip, br, zstd" is
// sent (not on a resume) and a body in those codings is decoded (several
// listed, as "deflate, gzip", undone last first; five at most), up to
// Config.MaxDecompressed bytes (ErrTooLarge past that; one that cannot be
// decoded is ErrBadEncoding); otherwise nothing is decoded.
//
// Request shaping, with curl's meaning (options declared in init): the
// method is OptMethod (-X), else HEAD for Request.Head, POST when
// Request.Body is set (the Fetcher is a fetch.BodySender; BodySize -1 sends
// it chunked), else GET; OptReferer (-e) is the Referer; Config.Jar's
// cookies are sent as one Cookie field (fetch.CookieJar's CookieHeader:
// curl's order) and the reply's Set-Cookie fields stored back, both for
// the host an OptHeader Host line names, if any, as curl does; the OptHeader lines (-H) come last and may add, replace or
// remove any field above. An upload with a Request.Offset resumes
// (fetch.ResumesUpload, resumeUpload): the rest of the Body with
// "Content-Range: bytes N-LAST/TOTAL", no Range. The head goes out with
// its fields in curl's order (curlOrder), whatever order net/http writes.
//
// Meta: Status is the HTTP status, Proto and Reason the rest of the status
// line, Header the header fields in the order and case received (the
// bytes read are kept until the head is complete, under net/http's
// parser, which keeps only a map); Size the Content-Length (-1 when absent,
// or when the body is decoded); ModTime from Last-Modified; ContentType from
// Content-Type. A resume answered 206 has Meta.Offset N (Content-Range must
// start at N, or the result is ErrResume); answered 200 it is the whole
// resource, Meta.Offset 0; answered 416 with the local part already
// complete (Content-Range "bytes */N", or no Content-Range) it is done, as
// curl treats it: an empty body at Meta.Offset N.
//
// Through an HTTP proxy (Request.Proxy, http:// or https://), http URLs go
// as absolute-form requests and https URLs through a CONNECT tunnel; any
// other scheme is sent to the proxy as "GET <URL> HTTP/1.1", the URL's
// credentials in its userinfo, and the proxy's reply is the result. The
// proxy URL's userinfo becomes Proxy-Authorization (Basic; by NTLM with
// Request.ProxyNTLM, by Digest with ProxyDigest, or as the 407 asks with ProxyAnyAuth, on a
// connection of the exchange's own: openAuth). A request sent to the
// proxy itself (not through a tunnel) carries "Proxy-Connection:
// Keep-Alive", as curl's does.
//
// A request with "Expect: 100-continue" answered finally before its 100
// does not send its body, and its connection closes (the recorder tells
// the Transport so), as curl stops sending; a 417 to urlget's own Expect,
// the body unsent, has the request sent again without it, as curl's.
//
// A reply is read with curl's leniency, the Transport being given each
// final head normalised as it is read (normalizeHead, the recorder):
// gzip and deflate transfer codings decoded (fetch.OptRaw keeps them), a
// body with a transfer coding but not chunked read until the close,
// several Transfer-Encoding fields taken as one list, a Content-Length
// past 2^63 (or any with OptIgnoreLength) read until the close, a chunked
// body's lines ending in LF or CRLF with any extension, its trailer
// section kept for Resource.Trailer (chunkReader); a reply without a
// status line is HTTP/0.9, taken with OptHTTP09 only.
//
// With Config.Verbose set, the request and response headers are written
// prefixed "> " and "< " (the response's as received), with Authorization
// and Proxy-Authorization masked, and connection events prefixed "* ".
package http

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	nethttp "net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Fetcher is the http and https fetch.Fetcher, and the HTTP proxy gateway
// for other schemes. The zero value is ready to use, without keep-alive;
// New builds one that keeps connections.
type Fetcher struct {
	// Config gives the dialer, TLS, the User-Agent, the cookie jar,
	// compression and the verbose log.
	Config fetch.Config

	pool *pool // New's: the Transport of the direct requests; nil: none
}

// New is the Fetcher for cfg (fetch.Scheme.New), keeping idle connections
// for reuse (see the package documentation). Its kept connections are
// dialled with cfg's Dialer and TLS, whatever the copy's Config says later.
func New(cfg fetch.Config) fetch.Fetcher {
	f := Fetcher{Config: cfg}
	f.pool = newPool(&f.Config)
	return f
}

// Open sends one request (GET, HEAD, POST with a Body, or OptMethod); see
// the package documentation. With Request.Digest, NTLM, AnyAuth,
// ProxyNTLM, ProxyAnyAuth or ProxyDigest it may send several (openAuth).
func (f Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	direct := req.URL.Scheme == "http" || req.URL.Scheme == "https" // not a gateway's
	if req.Body != nil && req.Offset != 0 && direct {
		r, err := resumeUpload(req)
		if err != nil {
			return nil, err
		}
		req = r
	}
	srvAuth := (req.Digest || req.AnyAuth || req.NTLM) && direct && (req.User != "" || req.HasPassword) && req.Bearer == ""
	prxAuth := (req.ProxyNTLM || req.ProxyAnyAuth || req.ProxyDigest) && req.Proxy != nil && req.Proxy.HasUserinfo &&
		(req.Proxy.Scheme == "http" || req.Proxy.Scheme == "https") && req.URL.Scheme != "https"
	if srvAuth || prxAuth {
		return f.openAuth(ctx, req, srvAuth, prxAuth)
	}
	if req.Body == nil || !expects(req) || slices.ContainsFunc(requestLines(req), func(l string) bool { return lineNames(l, "Expect") }) {
		return f.open(ctx, req, sendAuth{})
	}
	// A 417 (Expectation Failed) to urlget's "Expect: 100-continue",
	// before any byte of the body went, has the request sent again
	// without it, once, as curl does.
	g := &untouched{r: req.Body}
	first := *req
	first.Body = g
	res, err := f.open(ctx, &first, sendAuth{})
	if err != nil || res.Status != nethttp.StatusExpectationFailed || !expects100(res.Request) || !g.take() {
		return res, err
	}
	fetch.DrainClose(res.Body)
	again := *req
	again.Options = noExpect(req.Options)
	asked := []fetch.Meta{res.Meta} // shown before the result (-i), as curl shows the 417
	res, err = f.open(ctx, &again, sendAuth{})
	if err != nil {
		return nil, withAuthReplies(err, asked)
	}
	res.AuthReplies = append(asked, res.AuthReplies...)
	return res, nil
}

// untouched is a request body that can be taken back (take) as long as
// nothing has read it, so that it can go again; once taken back, it reads
// as empty (a Transport still holding it sends nothing of it).
type untouched struct {
	r     io.Reader
	state atomic.Int32 // 0: unread, 1: read, 2: taken back
}

func (u *untouched) Read(p []byte) (int, error) {
	u.state.CompareAndSwap(0, 1)
	if u.state.Load() == 2 {
		return 0, io.EOF
	}
	return u.r.Read(p)
}

// take reports whether u was never read, and if so makes it unreadable.
func (u *untouched) take() bool { return u.state.CompareAndSwap(0, 2) }

// open sends one request, with a's authentication fields and pinned
// connection when set.
func (f Fetcher) open(ctx context.Context, req *fetch.Request, a sendAuth) (*fetch.Resource, error) {
	u := req.URL
	if err := fetch.CheckURL(u); err != nil {
		return nil, err
	}
	proxy := req.Proxy
	if proxy != nil && proxy.Scheme != "http" && proxy.Scheme != "https" {
		proxy = nil // SOCKS: already in the Dialer
	}
	direct := u.Scheme == "http" || u.Scheme == "https"
	if !direct && proxy == nil {
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported,
			Msg: "the http fetcher carries " + u.Scheme + " URLs only through an HTTP proxy"}
	}
	if u.HostKind == urlparse.HostIPvFuture {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "IPvFuture host literal: cannot connect"}
	}

	// The pool carries the direct requests; one through an HTTP proxy has
	// a Transport of its own (its tunnel or proxy is the request's).
	// A request for HTTP/2 has a connection of its own too (h2Transport).
	h2 := wantsHTTP2(req, direct, proxy != nil)
	haproxy, _ := req.Options.Bool(OptHAProxy)
	// So does a gateway's request to an http:// proxy: it is a request
	// to the proxy as to any server (hreq.URL names the proxy), its
	// connection kept for the next as curl keeps it.
	gateway := !direct && proxy != nil && proxy.Scheme == "http"
	pooled := f.pool != nil && (proxy == nil || gateway) && !h2 && !haproxy && a.pin == nil
	var (
		reused bool // the exchange's Transport, its proxy already set
		v      io.Writer
		d      *dialer
		tr     *nethttp.Transport
		ht     *h2Transport
		rt     interface {
			nethttp.RoundTripper
			CloseIdleConnections()
		}
	)
	switch {
	case pooled:
		v, tr = f.pool.v, f.pool.tr
		rt = tr
	case a.pin != nil && a.pin.tr != nil:
		v, d, tr = a.pin.v, a.pin.d, a.pin.tr
		rt = tr
		reused = true
	default:
		if f.Config.Verbose != nil {
			// Transport goroutines report the written request and the
			// dialer's events; the response is written here. One lock
			// orders them.
			v = &fetch.SyncWriter{W: f.Config.Verbose}
		}
		if h2 {
			ht = newH2Transport(ctx, &f.Config, v)
			rt = ht
		} else {
			d = &dialer{ctx: ctx, cfg: &f.Config, v: v, haproxy: haproxy, pin: a.pin}
			tr = newTransport(d)
			rt = tr
			if a.pin != nil {
				tr.MaxConnsPerHost = 1
				a.pin.tr, a.pin.d, a.pin.v = tr, d, v
			}
		}
	}
	// The proxy's credentials go as Basic unless an exchange chose them.
	proxyBasic := proxy != nil && proxy.HasUserinfo && !req.ProxyNTLM && !req.ProxyAnyAuth && !req.ProxyDigest
	method := req.Method()
	hreq, err := nethttp.NewRequestWithContext(ctx, method, "http://invalid/", nil)
	if err != nil {
		return nil, err
	}
	h := hreq.Header
	var verboseTarget string
	if direct {
		hreq.URL = &url.URL{Scheme: u.Scheme, Host: authority(u), Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery, ForceQuery: u.HasQuery && u.RawQuery == ""}
		if u.Path == "" {
			hreq.URL.Path, hreq.URL.RawPath = "/", ""
		}
		hreq.Host = hreq.URL.Host
		if t := req.Options.String(OptRequestTarget); t != "" {
			switch {
			case strings.ContainsAny(t, " \t\r\n\x00"):
				return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "request target refused: it holds a space, a tab, CR, LF or NUL"}
			case strings.HasPrefix(t, "//"):
				// net/http would send "http://…" for it.
				return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "request target refused: one starting with \"//\" cannot be sent"}
			}
			hreq.URL.Opaque, hreq.URL.RawQuery, hreq.URL.ForceQuery = t, "", false
		}
		verboseTarget = hreq.URL.RequestURI()
		if proxy != nil && u.Scheme == "http" {
			verboseTarget = u.Scheme + "://" + hreq.URL.Host + verboseTarget
			h.Set("Proxy-Connection", "Keep-Alive") // curl's, to a proxy it sends the URL to
		}
		switch {
		case proxy == nil || reused:
		case u.Scheme == "http":
			pu := netURL(proxy, proxyBasic)
			tr.Proxy = func(*nethttp.Request) (*url.URL, error) { return pu, nil }
			d.toProxy = proxy.Scheme == "https"
		default:
			d.tunnel = proxy
			d.tunnelOpts = fetch.TunnelOptions{NTLM: req.ProxyNTLM, AnyAuth: req.ProxyAnyAuth, Digest: req.ProxyDigest, Header: req.ProxyHeader, HTTP10: req.ProxyHTTP10}
		}
		switch {
		case a.authz != "":
			h.Set("Authorization", a.authz)
		case req.Bearer != "":
			if strings.ContainsAny(req.Bearer, "\r\n\x00") {
				return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "Bearer token refused: it holds a CR, LF or NUL"}
			}
			h.Set("Authorization", "Bearer "+req.Bearer)
		case (req.User != "" || req.HasPassword) && !req.Digest && !req.AnyAuth && !req.NTLM:
			hreq.SetBasicAuth(req.User, req.Password)
		}
	} else {
		abs := absolute(u, req, false)
		hreq.URL = &url.URL{Scheme: proxy.Scheme, Host: fetch.ProxyAddr(proxy), Opaque: abs}
		if d != nil {
			d.toProxy = proxy.Scheme == "https"
		}
		hreq.Host = authority(u)
		if p := u.PortOrDefault(); u.RawPort == "" && p > 0 && u.Host != "" {
			hreq.Host += ":" + strconv.Itoa(p) // curl names the port of a scheme that is not HTTP's
		}
		if hreq.Host == "" {
			hreq.Host = hreq.URL.Host
		}
		if proxyBasic {
			h.Set("Proxy-Authorization", fetch.BasicAuth(proxy.User, proxy.Password))
		}
		if req.User != "" || req.HasPassword {
			// The URL names them, and curl sends them by Basic too.
			hreq.SetBasicAuth(req.User, req.Password)
		}
		h.Set("Proxy-Connection", "Keep-Alive")
		verboseTarget = absolute(u, req, true)
	}
	if a.proxyAuthz != "" && proxy != nil && u.Scheme != "https" {
		h.Set("Proxy-Authorization", a.proxyAuthz)
	}
	h.Set("User-Agent", f.Config.UserAgent)
	h.Set("Accept", "*/*")
	if req.Range != nil {
		if strings.ContainsAny(req.Range.Spec, "\r\n\x00") {
			return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "Range refused: it holds a CR, LF or NUL"}
		}
		h.Set("Range", "bytes="+req.Range.Spec) // as curl: HEAD too, several ranges as given
	} else if cr := req.Options.String(optContentRange); cr != "" && req.Body != nil {
		h.Set("Content-Range", cr)
	} else if req.Offset > 0 && !req.Head {
		h.Set("Range", "bytes="+strconv.FormatInt(req.Offset, 10)+"-")
		if !req.Since.IsZero() {
			h.Set("If-Range", req.Since.UTC().Format(nethttp.TimeFormat))
		}
	}
	if !req.IfModifiedSince.IsZero() {
		h.Set("If-Modified-Since", req.IfModifiedSince.UTC().Format(nethttp.TimeFormat))
	}
	if !req.IfUnmodifiedSince.IsZero() {
		h.Set("If-Unmodified-Since", req.IfUnmodifiedSince.UTC().Format(nethttp.TimeFormat))
	}
	if req.IfNoneMatch != "" {
		if strings.ContainsAny(req.IfNoneMatch, "\r\n\x00") {
			return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "If-None-Match refused: it holds a CR, LF or NUL"}
		}
		h.Set("If-None-Match", req.IfNoneMatch)
	}
	decode := f.Config.Compressed && req.Offset == 0
	if decode {
		h.Set("Accept-Encoding", acceptEncoding)
	}
	var jarURL *url.URL
	if direct {
		jarURL = hreq.URL
	}
	if err := shape(hreq, req, f.Config.Jar, jarURL); err != nil {
		return nil, err
	}
	trEncoding, _ := req.Options.Bool(OptTransferCoding)
	trEncoding = trEncoding && !h2
	if trEncoding {
		// curl's TE: its own Connection field names it, after any -H
		// Connection value.
		if c := h.Get("Connection"); c != "" {
			h.Set("Connection", c+", TE")
		} else {
			h.Set("Connection", "TE")
		}
		h["TE"] = []string{"gzip"} // as curl spells it
	}
	if direct && proxy != nil && u.Scheme == "http" && hreq.Host != hreq.URL.Host && hreq.URL.Opaque == "" {
		// A -H Host goes in the Host field only: the request line names
		// the URL's host, as curl's does (net/http would put Host there);
		// a --request-target (Opaque) stays as given.
		hreq.URL.Opaque = "//" + hreq.URL.Host + hreq.URL.EscapedPath()
	}
	// The connection the request goes out on: its recording starts
	// before the request is written, and puts its head in curl's order.
	hdrs := customFields(requestLines(req))
	hdrs.zeroLength = req.Body != nil && hreq.ContentLength == 0 && len(hreq.TransferEncoding) == 0
	hdrs.te = trEncoding
	hdrs.userAgent = f.Config.UserAgent
	http10 := req.Options.String(OptVersion) == version10
	var ro replyOptions
	ro.http09, _ = req.Options.Bool(OptHTTP09)
	ro.ignoreCL, _ = req.Options.Bool(OptIgnoreLength)
	ro.head = method == nethttp.MethodHead
	ro.proxy = proxy != nil && (!direct || u.Scheme == "http") // not through a tunnel
	var (
		c      *recorder
		rec    *recording
		tunnel *fetch.Meta // the CONNECT reply of the tunnel just opened
	)
	trace := &httptrace.ClientTrace{GotConn: func(gi httptrace.GotConnInfo) {
		nc := gi.Conn
		if r, ok := gi.Conn.(*recorder); ok {
			c, rec = r, r.start(hdrs, http10, ro)
			nc = r.Conn
			if rec.http10 && !http10 {
				// The connection's last reply was HTTP/1.0.
				http10 = true
				downgrade(hreq, rec, requestLines(req))
			}
		}
		if !gi.Reused {
			tunnel = fetch.TunnelReply(nc)
		}
		// A kept connection, or one net/http dialled for another
		// request, reports this request's exchanges to its Trace.
		fetch.Retrace(ctx, nc)
		if gi.Reused && v != nil {
			fmt.Fprintf(v, "* Re-using the connection to %s\n", gi.Conn.RemoteAddr())
		}
	}}
	if v != nil {
		trace.WroteHeaders = func() {
			// The head as written: downgrade may have dropped Expect.
			head := requestHead(method, verboseTarget, hreq, direct && proxy != nil && u.Scheme == "http" && proxyBasic, hdrs)
			if http10 { // known once the connection is (GotConn)
				head = bytes.Replace(head, []byte(" HTTP/1.1\n"), []byte(" HTTP/1.0\n"), 1)
			}
			if ht != nil && ht.speaksHTTP2() {
				head = bytes.Replace(head, []byte(" HTTP/1.1\n"), []byte(" "+protoHTTP2+"\n"), 1)
			}
			v.Write(head)
		}
	}
	hreq = hreq.WithContext(httptrace.WithClientTrace(ctx, trace))

	resp, err := rt.RoundTrip(hreq)
	if err != nil {
		if !pooled && a.pin == nil {
			// A connection dialled but not yet handed over sits idle.
			if c != nil {
				c.Close()
			}
			rt.CloseIdleConnections()
		}
		if rec != nil && ctx.Err() == nil && rec.answeredHEAD09() {
			return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "the reply to HEAD has no status line (HTTP/0.9 has no head to send)"}
		}
		if rec != nil && ctx.Err() == nil {
			// What the Transport read says more than its error does.
			buf, lineOver := rec.bytes()
			if lineOver {
				return nil, errLineOver()
			}
			if e := replyError(buf, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)); e != nil {
				return nil, e
			}
		}
		return nil, roundTripError(ctx, err, direct && proxy != nil)
	}
	if c == nil { // cannot happen: every connection is a recorder
		resp.Body.Close()
		return nil, &fetch.Error{Kind: fetch.ErrOther, Msg: "a reply on a connection the fetcher did not open"}
	}
	storeCookies(f.Config.Jar, cookieURL(hreq, jarURL), resp)
	speaks2 := ht != nil && ht.speaksHTTP2()
	if !speaks2 && !req.Head {
		resp.Body = newBulkBody(resp.Body, resp.ContentLength, c.Conn)
		if slices.Contains(resp.TransferEncoding, "chunked") {
			resp.Body = chunkedBody{resp.Body}
		}
	}
	if !pooled && a.pin == nil { // a pinned connection closes with the exchange
		resp.Body = &closeBody{ReadCloser: resp.Body, conn: c}
	}
	var head *wireHead
	if speaks2 {
		head, err = rec.head2(resp.StatusCode)
	} else {
		head, err = rec.head(resp.StatusCode)
	}
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	if v != nil {
		writeHead(v, head)
	}
	if err := lengthOverMax(head, f.Config.MaxFileSize); err != nil && !req.Head {
		resp.Body.Close()
		return nil, err
	}
	res, err := result(req, resp, head, decode, f.Config.MaxDecompressed)
	if res != nil {
		res.Tunnel = tunnel
	}
	if res != nil && !speaks2 { // HTTP/2 frames are no request record
		res.Request = rec.request()
		res.Trailer = rec.trailerSection
	}
	return res, err
}

// result turns a response into a Resource.
func result(req *fetch.Request, resp *nethttp.Response, head *wireHead, decode bool, maxDecoded int64) (*fetch.Resource, error) {
	m := fetch.Meta{Size: -1, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"),
		Proto: head.proto, Reason: head.reason, Header: head.header, Head: head.raw, Interim: head.interim}
	if t, err := nethttp.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		m.ModTime = t
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		m.Location = resp.Header.Get("Location")
	}
	var body io.ReadCloser = resp.Body
	size := resp.ContentLength
	m.NotModified = resp.StatusCode == nethttp.StatusNotModified
	switch {
	case req.Head:
		resp.Body.Close()
		body = nethttp.NoBody
		size = -1
		if n, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && n >= 0 {
			size = n
		}
	case resp.StatusCode == nethttp.StatusPartialContent && req.Offset > 0:
		start, _, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || start != req.Offset {
			resp.Body.Close()
			return nil, &fetch.Error{Kind: fetch.ErrResume,
				Msg: fmt.Sprintf("asked to resume at byte %d, the server sent Content-Range %q", req.Offset, resp.Header.Get("Content-Range"))}
		}
		m.Offset = req.Offset
	case resp.StatusCode == nethttp.StatusPartialContent && req.Range != nil:
		// One part: it starts where Content-Range says; several come as
		// multipart/byteranges, from the body's start.
		if start, _, ok := contentRange(resp.Header.Get("Content-Range")); ok && start > 0 {
			m.Offset = start
		}
	case resp.StatusCode == nethttp.StatusRequestedRangeNotSatisfiable && req.Offset > 0:
		resp.Body.Close()
		if cr := resp.Header.Get("Content-Range"); cr != "" {
			if _, total, ok := contentRange(cr); ok && total >= 0 && total != req.Offset {
				return nil, &fetch.Error{Kind: fetch.ErrResume, Status: resp.StatusCode, // -w %{http_code}
					Msg: fmt.Sprintf("cannot resume at byte %d: the resource has %d bytes", req.Offset, total)}
			}
		}
		body, size, m.Offset = nethttp.NoBody, 0, req.Offset
	case resp.StatusCode == nethttp.StatusNotModified:
		// Conditions sent (Request.IfModifiedSince, IfNoneMatch, or an
		// OptHeader line) were met: no body.
		resp.Body.Close()
		body, size = nethttp.NoBody, 0
	case resp.StatusCode == nethttp.StatusNoContent:
		size = 0
	case resp.StatusCode == nethttp.StatusOK && req.Range == nil && req.IfNoneMatch == "" && req.Unchanged(m.ModTime):
		// The server ignored the time condition (nginx's default
		// if_modified_since is "exact"): its Last-Modified says the
		// condition is not met, and curl then drops the body as a 304.
		// (With If-None-Match the server's 200 stands: RFC 9110
		// §13.2.2 has it decide.)
		resp.Body.Close()
		body, size, m.NotModified = nethttp.NoBody, 0, true
	}
	var wire func() int64 // the bytes received, when the body is decoded
	if raw, _ := req.Options.Bool(fetch.OptRaw); !raw && !req.Head && size != 0 {
		// Transfer codings are the message's: decoded, as curl decodes
		// them, unless the bytes are asked for as they came.
		open, err := transferCodings(head.header)
		if err != nil {
			body.Close()
			return nil, err
		}
		if open != nil {
			g := newDecoder(body, open, maxDecoded)
			body, size, wire = g, -1, func() int64 { return g.src.N }
		}
	}
	if decode && !req.Head && size != 0 {
		open, err := codings(splitList(strings.Join(resp.Header.Values("Content-Encoding"), ",")), "content")
		if err != nil {
			body.Close()
			return nil, err
		}
		if open != nil {
			g := newDecoder(body, open, maxDecoded)
			m.Size = -1
			if wire == nil {
				wire = func() int64 { return g.src.N }
			}
			return &fetch.Resource{Meta: m, Body: g, WireBytes: wire}, nil
		}
	}
	m.Size = size
	return &fetch.Resource{Meta: m, Body: body, WireBytes: wire}, nil
}

// contentRange parses "bytes START-END/TOTAL" or "bytes */TOTAL"; start is
// -1 in the second form, total -1 when "*".
func contentRange(s string) (start, total int64, ok bool) {
	unit, rest, found := strings.Cut(strings.TrimSpace(s), " ")
	if !found || !strings.EqualFold(unit, "bytes") {
		return 0, 0, false
	}
	rng, tot, found := strings.Cut(strings.TrimSpace(rest), "/")
	if !found {
		return 0, 0, false
	}
	total = -1
	if tot != "*" {
		n, err := strconv.ParseInt(tot, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, false
		}
		total = n
	}
	if rng == "*" {
		return -1, total, true
	}
	a, _, found := strings.Cut(rng, "-")
	n, err := strconv.ParseInt(a, 10, 64)
	if !found || err != nil || n < 0 {
		return 0, 0, false
	}
	return n, total, true
}

// authority is host[:port] for the Host header and the transport: the
// decoded host (IPv6 in brackets) and the port as written.
func authority(u *urlparse.URL) string {
	host := u.Host
	if u.HostKind == urlparse.HostIPv6 {
		host = "[" + host + "]"
	}
	if u.RawPort != "" {
		host += ":" + strconv.Itoa(u.Port)
	}
	return host
}

// netURL is the proxy URL net/http's Transport is given; with basic its
// userinfo, which the Transport sends as Basic credentials.
func netURL(p *urlparse.URL, basic bool) *url.URL {
	pu := &url.URL{Scheme: p.Scheme, Host: fetch.ProxyAddr(p)}
	if p.HasUserinfo && basic {
		if p.HasPassword {
			pu.User = url.UserPassword(p.User, p.Password)
		} else {
			pu.User = url.User(p.User)
		}
	}
	return pu
}

// absolute is the URL a gateway request names: the URL without its
// fragment, its scheme in lower case, and the Request's credentials as
// userinfo (password masked when mask is set).
func absolute(u *urlparse.URL, req *fetch.Request, mask bool) string {
	r := u.Ref
	r.RawScheme = u.Scheme
	r.HasFragment, r.RawFragment = false, ""
	r.HasUserinfo, r.RawUserinfo = false, ""
	if r.HasAuth && (req.User != "" || req.HasPassword) {
		r.HasUserinfo = true
		r.RawUserinfo = urlparse.UserinfoEscape(req.User)
		if req.HasPassword {
			if mask {
				r.RawUserinfo += ":****"
			} else {
				r.RawUserinfo += ":" + urlparse.UserinfoEscape(req.Password)
			}
		}
	}
	return r.String()
}

// requestHead formats the request head for the verbose log, credentials
// masked, its fields in the order they go out (curlOrder, custom naming
// the -H fields).
func requestHead(method, target string, r *nethttp.Request, proxyAuth bool, c custom) []byte {
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, target, r.Host)
	for _, k := range slices.Sorted(maps.Keys(r.Header)) {
		for _, val := range r.Header[k] {
			fmt.Fprintf(&head, "%s: %s\r\n", k, maskHeader(k, val))
		}
	}
	if proxyAuth {
		head.WriteString("Proxy-Authorization: Basic ****\r\n")
	}
	head.WriteString("\r\n")
	var b bytes.Buffer
	for _, l := range bytes.Split(bytes.TrimSuffix(curlOrder(head.Bytes(), c), []byte("\r\n\r\n")), []byte("\r\n")) {
		fmt.Fprintf(&b, "> %s\n", l)
	}
	return b.Bytes()
}

func maskHeader(name, val string) string {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization":
		scheme, _, _ := strings.Cut(val, " ")
		return scheme + " ****"
	}
	return val
}

// roundTripError types an error from the transport.
func roundTripError(ctx context.Context, err error, viaProxy bool) error {
	if ctx.Err() != nil {
		return err // the Client reports the context's error
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return fe
	}
	var (
		verr *tls.CertificateVerificationError
		rerr tls.RecordHeaderError
		aerr tls.AlertError
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
		cerr x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &verr), errors.As(err, &rerr), errors.As(err, &aerr),
		errors.As(err, &uerr), errors.As(err, &herr), errors.As(err, &cerr):
		return fetch.TLSError(err, "https")
	}
	if k := fetch.KindOf(err); k != fetch.ErrOther {
		return &fetch.Error{Kind: k, Err: err}
	}
	var op *net.OpError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "the server closed the connection in the middle of its reply's head", Err: err}
	case errors.Is(err, io.EOF):
		return &fetch.Error{Kind: fetch.ErrGotNothing, Msg: "the server closed the connection without a reply", Err: err}
	case strings.Contains(err.Error(), "malformed HTTP"):
		return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "malformed reply", Err: transportError{err}}
	case strings.Contains(err.Error(), "server response headers exceeded"):
		return errHeadOver()
	case viaProxy && !errors.As(err, &op):
		return &fetch.Error{Kind: fetch.ErrConnect, Msg: "through the proxy", Err: err}
	case errors.As(err, &op) && op.Op == "write", errors.Is(err, syscall.EPIPE):
		return &fetch.Error{Kind: fetch.ErrSendFailed, Msg: "the connection broke while sending the request", Err: err}
	case errors.As(err, &op), errors.Is(err, syscall.ECONNRESET):
		return &fetch.Error{Kind: fetch.ErrRecv, Msg: "the connection broke before the reply was complete", Err: err}
	}
	// What is left comes from reading the reply: headers over
	// MaxResponseHeaderBytes (an endless header), a malformed status or
	// header line, a bad chunk or transfer coding. A weird reply, as curl
	// calls it (8).
	return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "weird server reply", Err: transportError{err}}
}

// chunkedBody is a chunked body (RFC 9112 §7.1) whose framing net/http
// reads; a chunk it refuses (a malformed or too large chunk length) is
// ErrRecv, curl's 56 for a malformed chunked encoding, in our words.
type chunkedBody struct{ io.ReadCloser }

func (b chunkedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
		if t := err.Error(); strings.Contains(t, "chunk") || strings.Contains(t, "line too long") {
			err = &fetch.Error{Kind: fetch.ErrRecv, Msg: "malformed chunked body", Err: transportError{err}}
		}
	}
	return n, err
}

// transportError is an error of net/http's Transport, said without the
// names of its internals ("net/http: HTTP/1.x transport connection
// broken: ").
type transportError struct{ error }

func (e transportError) Error() string {
	s := e.error.Error()
	for _, p := range []string{"net/http: ", "HTTP/1.x transport connection broken: ", "readLoopPeekFailLocked: "} {
		s = strings.TrimPrefix(s, p)
	}
	if s == "" || strings.Contains(s, "%!") {
		return "the connection ended"
	}
	return s
}

func (e transportError) Unwrap() error { return e.error }

// optContentRange carries, from Open to open, the Content-Range of a
// resumed upload (resumeUpload).
const optContentRange = "http-upload-content-range"

// resumeUpload is the request of an upload resumed at req.Offset (curl's
// -T with -C N): the Body's first Offset bytes are skipped and the rest
// is sent with "Content-Range: bytes N-LAST/TOTAL" (a Body of unknown size
// without it); with UploadAtEnd (-C -: HTTP has no way to ask where the
// remote copy ends) the whole Body goes, with "Content-Range: bytes
// 0-LAST/TOTAL". curl sends them so (its tests 33, 1041); a Range field,
// which asks for part of a reply, is no part of an upload.
func resumeUpload(req *fetch.Request) (*fetch.Request, error) {
	r := *req
	r.Options = maps.Clone(req.Options)
	if r.Options == nil {
		r.Options = fetch.Options{}
	}
	off := req.Offset
	if off == fetch.UploadAtEnd {
		off = 0
	} else if n, err := fetch.SkipBody(req.Body, off); err != nil {
		if err == io.EOF {
			return nil, &fetch.Error{Kind: fetch.ErrResume, Msg: fmt.Sprintf("cannot resume the upload at byte %d: the data to send have %d", off, n)}
		}
		return nil, &fetch.Error{Kind: fetch.ErrRead, Msg: "skipping the part of the upload already sent", Err: err}
	}
	r.Offset = 0
	if req.BodySize >= 0 {
		if req.BodySize < off {
			return nil, &fetch.Error{Kind: fetch.ErrResume, Msg: fmt.Sprintf("cannot resume the upload at byte %d: the data to send have %d", off, req.BodySize)}
		}
		r.BodySize = req.BodySize - off
		if req.BodySize > off {
			r.Options[optContentRange] = fmt.Sprintf("bytes %d-%d/%d", off, req.BodySize-1, req.BodySize)
		}
	}
	return &r, nil
}
