package serve

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// docCSP is the Content-Security-Policy of a document passed through: an
// HTML page from a server runs no script, submits no form and is an origin
// of its own (sandbox), whatever it holds.
const docCSP = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'; sandbox"

// reply writes a fetched resource: a listing or an article as HTML when
// the client wants HTML, otherwise the bytes with what is known of them.
func (h *Handler) reply(w *logWriter, r *http.Request, q *query, u *urlparse.URL, res *fetch.Resource) {
	hdr := w.Header()
	status := http.StatusOK
	if res.IsHTTP() && res.Status != 0 {
		status = res.Status
	}
	if res.Location != "" && status/100 == 3 {
		loc := res.Location
		if !q.proxy {
			m, _ := h.mountOf(r)
			loc = m.path(loc)
		}
		hdr.Set("Location", loc)
	}
	if q.html {
		switch {
		case isAttributes(u):
			h.attributes(w, r, q, u, res, status)
			return
		case res.Listing != nil:
			h.listing(w, r, q, res, status)
			return
		case strings.HasPrefix(res.ContentType, "message/rfc822"):
			h.article(w, r, q, u, res, status)
			return
		}
	}
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	var head []byte
	var herr error
	ct := contentType(res)
	if !q.head && needsCharset(ct) {
		head, herr = sniff(res.Body, *buf)
		ct = h.withCharset(ct, head, herr != nil, false)
	}
	hdr.Set("Content-Security-Policy", docCSP)
	hdr.Set("Content-Type", ct)
	if !res.ModTime.IsZero() {
		hdr.Set("Last-Modified", res.ModTime.UTC().Format(http.TimeFormat))
	}
	acceptRanges(hdr, res)
	if res.IsHTTP() {
		for _, k := range []string{"ETag", "Cache-Control", "Expires", "Content-Language", "Content-Encoding"} {
			if v := res.Header.Get(k); v != "" {
				hdr.Set(k, v)
			}
		}
	}
	if res.Size >= 0 {
		hdr.Set("Content-Length", strconv.FormatInt(res.Size, 10))
	} else if !q.head && r.ProtoAtLeast(1, 1) && fetch.CanGoStraight(w, res.Body) {
		// No length, but the bytes can go from socket to socket (splice):
		// the reply ends when the connection does rather than in chunks,
		// which the kernel cannot write. A cut reply is then a reset (cut).
		hdr.Set("Transfer-Encoding", "identity")
		w.closeDelimited = true
	}
	w.WriteHeader(status)
	if q.head {
		return
	}
	if _, err := sendBody(w, head, herr, res.Body, *buf); err != nil {
		cut(w)
	}
}

// copyBuffers are the buffers documents are copied through when they
// cannot go straight from socket to socket: one 64 KiB buffer a transfer,
// taken back when it ends (the body's WriteTo would allocate 256 KiB for
// each), so that the memory of many transfers at once stays small.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// sendBody sends a document's body to the client: head, the bytes sniff
// read already (herr its error: io.EOF when they are the whole body),
// then the rest straight from the upstream connection where it can
// (fetch.CopyBody: splice), else through buf.
func sendBody(w io.Writer, head []byte, herr error, body io.Reader, buf []byte) (int64, error) {
	n, err := w.Write(head)
	if err != nil {
		return int64(n), err
	}
	switch herr {
	case nil:
	case io.EOF:
		return int64(n), nil
	default:
		return int64(n), herr
	}
	m, err := fetch.CopyBody(w, body, buf)
	return int64(n) + m, err
}

// sniffLen is how much of a text document is read before its header is
// sent, to tell its charset: its first chunk, never more.
const sniffLen = 1024

// sniff reads the first bytes of a document, up to sniffLen, into buf. Its
// error is io.EOF when they are the whole document, nil when there may be
// more, or the reading's.
func sniff(body io.Reader, buf []byte) ([]byte, error) {
	n, err := io.ReadAtLeast(body, buf[:sniffLen], sniffLen)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return buf[:n], err
}

// needsCharset reports whether a document of the media type ct is text
// without a charset said: text/*, no charset parameter.
func needsCharset(ct string) bool {
	t, params, _ := strings.Cut(ct, ";")
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(t)), "text/") {
		return false
	}
	return !strings.Contains(strings.ToLower(params), "charset=")
}

// withCharset is the media type ct of a text document with the charset
// its first bytes head show: UTF-8 when they are valid UTF-8 (whole says
// they are the whole document: no character cut at their end; mid that
// they start inside it, perhaps inside a character), else Options.Charset.
// An HTML or XML document that is not UTF-8 is left without one: it may
// say its charset itself (<meta charset>, <?xml encoding?>), which a
// charset in the header would override.
func (h *Handler) withCharset(ct string, head []byte, whole, mid bool) string {
	if mid {
		for i := 0; i < 3 && len(head) > 0 && !utf8.RuneStart(head[0]); i++ {
			head = head[1:]
		}
	}
	if !whole {
		// A character cut at the end of the chunk is not an error.
		for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax+1; i-- {
			if utf8.RuneStart(head[i]) {
				if !utf8.FullRune(head[i:]) {
					head = head[:i]
				}
				break
			}
		}
	}
	if utf8.Valid(head) {
		return ct + "; charset=utf-8"
	}
	t, _, _ := strings.Cut(strings.ToLower(ct), ";")
	if t = strings.TrimSpace(t); t == "text/html" || t == "text/xml" || strings.HasSuffix(t, "+xml") {
		return ct
	}
	return ct + "; charset=" + h.opt.Charset
}

// acceptRanges says that the gateway carries out a Range request for res
// (Accept-Ranges: bytes): an http server's own Accept-Ranges; for another
// scheme, when the scheme resumes (fetch.Ranges) and the length is known
// (a 206 needs it).
func acceptRanges(hdr http.Header, res *fetch.Resource) {
	if res.IsHTTP() {
		if v := res.Header.Get("Accept-Ranges"); v != "" {
			hdr.Set("Accept-Ranges", v)
		}
		return
	}
	scheme, _ := schemeOf(res.EffectiveURL)
	if s, ok := fetch.LookupScheme(scheme); ok && s.Caps.Has(fetch.Ranges) && res.Size >= 0 {
		hdr.Set("Accept-Ranges", "bytes")
	}
}

// partial answers a Range request the upstream resumed (206): res starts at
// rng.first, and its length is known.
func (h *Handler) partial(w *logWriter, q *query, res *fetch.Resource, rng byteRange) {
	hdr := w.Header()
	total := res.Offset + res.Size
	if rng.first >= total {
		hdr.Set("Content-Range", "bytes */"+strconv.FormatInt(total, 10))
		w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		return
	}
	end := total - 1
	if rng.last >= 0 && rng.last < end {
		end = rng.last
	}
	n := end - rng.first + 1
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	body := io.LimitReader(res.Body, n)
	var head []byte
	var herr error
	ct := contentType(res)
	if needsCharset(ct) {
		head, herr = sniff(body, *buf)
		ct = h.withCharset(ct, head, herr != nil && rng.first+int64(len(head)) >= total, true)
	}
	hdr.Set("Content-Security-Policy", docCSP)
	hdr.Set("Content-Type", ct)
	if !res.ModTime.IsZero() {
		hdr.Set("Last-Modified", res.ModTime.UTC().Format(http.TimeFormat))
	}
	acceptRanges(hdr, res)
	hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", rng.first, end, total))
	hdr.Set("Content-Length", strconv.FormatInt(n, 10))
	w.WriteHeader(http.StatusPartialContent)
	if m, err := sendBody(w, head, herr, body, *buf); err != nil || m < n {
		cut(w)
	}
}

// cut ends a reply whose body could not be sent whole: the connection is
// closed without the end of the body (a reply that ends with the
// connection is reset), so that the client knows it did not get all of it.
func cut(w *logWriter) {
	if w.closeDelimited {
		if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			c.Close()
		}
	}
	panic(http.ErrAbortHandler)
}

// byteRange is a Range request's single byte range: first, and last (-1:
// to the end).
type byteRange struct{ first, last int64 }

// parseRange reads a Range field of one byte range with a first byte
// ("bytes=N-" or "bytes=N-M"); any other (several ranges, a suffix range)
// is not carried out: the whole resource is sent, as servers may.
func parseRange(v string) (byteRange, bool) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(v), "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return byteRange{}, false
	}
	a, b, ok := strings.Cut(strings.TrimSpace(spec), "-")
	first, err := strconv.ParseInt(a, 10, 64)
	if !ok || err != nil || first < 0 {
		return byteRange{}, false
	}
	last := int64(-1)
	if b != "" {
		if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
			return byteRange{}, false
		}
	}
	return byteRange{first, last}, first > 0 || last >= 0
}

// contentType is a document's media type: the protocol's, else the one its
// file name suggests, else application/octet-stream.
func contentType(res *fetch.Resource) string {
	if res.ContentType != "" {
		return res.ContentType
	}
	if u, err := urlparse.Parse(res.EffectiveURL); err == nil {
		name := u.Path
		if u.FTP.Name != "" { // the file's name, without ;type=
			name = u.FTP.Name
		}
		if t := fetch.TypeByName(name); t != "" {
			return t // withCharset looks at the bytes for a text's charset
		}
	}
	return "application/octet-stream"
}

// failErr answers a fetch error with the status that says it best.
func (h *Handler) failErr(w *logWriter, r *http.Request, q *query, err error) {
	status := http.StatusBadGateway
	switch fetch.KindOf(err) {
	case fetch.ErrMalformed, fetch.ErrOptionSyntax:
		status = http.StatusBadRequest
	case fetch.ErrUnsupported:
		status = http.StatusNotImplemented
	case fetch.ErrAccessDenied, fetch.ErrLoginDenied:
		status = http.StatusForbidden
	case fetch.ErrNotFound, fetch.ErrRetrFailed:
		status = http.StatusNotFound
	case fetch.ErrTimeout:
		status = http.StatusGatewayTimeout
	case fetch.ErrResume:
		status = http.StatusRequestedRangeNotSatisfiable
	}
	h.fail(w, r, q, status, err.Error())
}

// fail answers with an error: a page for a browser, one line of text for
// any other client.
func (h *Handler) fail(w *logWriter, r *http.Request, q *query, status int, msg string) {
	msg = fetch.SanitizeLine(msg, 500)
	if q != nil && !q.html {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Security-Policy", docCSP)
		w.WriteHeader(status)
		io.WriteString(w, "urlget serve: "+msg+"\n")
		return
	}
	p := h.page(w, r, q, http.StatusText(status))
	w.WriteHeader(status)
	p.start()
	p.para("error", msg)
	p.end()
}

// logWriter is the ResponseWriter, counting what is written for the
// access log.
type logWriter struct {
	http.ResponseWriter
	status  int
	bytes   int64
	written bool
	// closeDelimited: the reply has no length and is not chunked: it ends
	// when the connection does.
	closeDelimited bool
}

func (w *logWriter) WriteHeader(status int) {
	if !w.written {
		w.status, w.written = status, true
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.written = true
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// ReadFrom passes a body to the ResponseWriter's ReadFrom, which has the
// kernel move it when it comes from a connection (splice).
func (w *logWriter) ReadFrom(r io.Reader) (int64, error) {
	w.written = true
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
	}
	w.bytes += n
	return n, err
}

// Unwrap is the ResponseWriter underneath (http.ResponseController).
func (w *logWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush sends what is buffered to the client.
func (w *logWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// logAccess writes one line in Common Log Format.
func (h *Handler) logAccess(r *http.Request, w *logWriter, start time.Time) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	line := fmt.Sprintf("%s - - [%s] \"%s %s %s\" %d %d\n", host, start.Format("02/Jan/2006:15:04:05 -0700"),
		logEscape(r.Method), logEscape(h.logTarget(r)), logEscape(r.Proto), w.status, w.bytes)
	h.logMu.Lock()
	defer h.logMu.Unlock()
	io.WriteString(h.opt.AccessLog, line)
}

// logTarget is a request's target for the log: a URL's password (an ftp
// login given in the URL) masked, the answers to a form left out, however
// the Handler is mounted.
func (h *Handler) logTarget(r *http.Request) string {
	uri := r.RequestURI
	prefix, t := "", uri
	if strings.HasPrefix(uri, "/") {
		m, p := h.mountOf(r)
		if p == askPath {
			// The answers to a form may hold a password (AskP).
			return m.base + askPath + "?…"
		}
		prefix, t = m.base+"/", frontTarget(targetPath(r, p))
	}
	if u, err := urlparse.Parse(t); err == nil && u.HasPassword {
		return prefix + u.Redacted()
	}
	return uri
}

// logEscape writes s for a log line: quotes, backslashes and bytes that
// are not printable ASCII as \xHH.
func logEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			fmt.Fprintf(&b, "\\x%02x", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
