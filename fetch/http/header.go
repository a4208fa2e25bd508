package http

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/urlget/urlget/fetch"
)

// maxHeaderBytes bounds a response head (the Transport's
// MaxResponseHeaderBytes), maxHeaderLine one line of it, as curl 7.88
// bounds them (300 KiB: ErrRecv, 100 KiB: ErrHeaderLine); maxRecorded
// bounds what a recorder keeps, room for the interim (1xx) heads before it
// and the read-ahead after it.
const (
	maxHeaderBytes = 300 << 10
	maxHeaderLine  = 100 << 10
	maxRecorded    = maxHeaderBytes + 256<<10
)

// recorder is a connection that keeps a copy of the bytes read from it
// until the response head has been taken (head): net/http parses the head
// into a map, which loses the order and the case of the fields.
//
// A pooled connection carries one request after another, and the
// Transport may hand it to the next request as soon as a reply without a
// body has been read, before the first request has taken its head: so each
// request has a recording of its own, begun (start) when the connection is
// handed to it, before the request is written. The bytes of a reply come
// after its request, hence into its request's recording.
type recorder struct {
	net.Conn
	mu  sync.Mutex
	cur *recording // the request's now on the connection
}

// recording is what one request's reply brought, up to its head, and the
// request as written until then.
type recording struct {
	done atomic.Bool // head was taken: recording stopped
	mu   sync.Mutex
	buf  []byte
	over bool // bytes were dropped past maxRecorded
	// line is the length of the head's line being read; afterHead says
	// the final head has ended (the line lengths of a body are not
	// looked at); lineOver that a line went over maxHeaderLine.
	line      int
	headStart int
	afterHead bool
	lineOver  bool
	sent      []byte
	// sentOver: the request was over maxRecorded; sent is dropped
	sentOver bool
	// order: the request head is still to be put in curl's order
	// (curlOrder, with custom); pend holds it until its end has come.
	order  bool
	custom custom
	pend   []byte
	// http10: the request line says HTTP/1.0 (OptVersion "1.0"), the
	// Transport having written HTTP/1.1, which it always does.
	http10 bool
}

// Write records what the Transport writes, before it goes out: so the
// request is in its recording before any reply to it can come back.
func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	rec := r.cur
	r.mu.Unlock()
	if rec != nil && rec.order && len(p) > 0 {
		out := rec.reorder(p)
		if out == nil {
			return len(p), nil // the head goes out once it is whole
		}
		rec.addSent(out)
		if _, err := r.Conn.Write(out); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if rec != nil && len(p) > 0 {
		rec.addSent(p)
	}
	return r.Conn.Write(p)
}

// reorder takes the bytes the Transport writes while the request head is
// not whole yet: nil while it is not, then the head in curl's order and
// what followed it. Bytes that are not an HTTP/1.x request (HTTP/2), or a
// head past maxHeaderBytes, go out as they are.
func (rec *recording) reorder(p []byte) []byte {
	if len(rec.pend) == 0 && !isHTTP1Request(p) {
		rec.order = false
		return p
	}
	rec.pend = append(rec.pend, p...)
	i := bytes.Index(rec.pend, []byte("\r\n\r\n"))
	if i < 0 && len(rec.pend) <= maxHeaderBytes {
		return nil
	}
	out := rec.pend
	rec.order, rec.pend = false, nil
	if i < 0 {
		return out
	}
	head := curlOrder(out[:i+4], rec.custom)
	if rec.http10 {
		if j := bytes.Index(head, []byte(" HTTP/1.1\r\n")); j >= 0 && j < bytes.IndexByte(head, '\n') {
			head = append(append(head[:j:j], " HTTP/1.0\r\n"...), head[j+len(" HTTP/1.1\r\n"):]...)
		}
	}
	return append(head, out[i+4:]...)
}

func (rec *recording) addSent(p []byte) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.done.Load() || rec.sentOver {
		return
	}
	if len(rec.sent)+len(p) > maxRecorded {
		rec.sent, rec.sentOver = nil, true
		return
	}
	rec.sent = append(rec.sent, p...)
}

// request is the request as written up to the reply's head (the body of a
// request the server answered early may be cut short); nil when it was
// over maxRecorded.
func (rec *recording) request() []byte {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.sent
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	if n > 0 {
		r.mu.Lock()
		rec := r.cur // loaded after the read: the request of these bytes
		r.mu.Unlock()
		if rec != nil && rec.add(p[:n]) {
			return 0, &fetch.Error{Kind: fetch.ErrHeaderLine, Msg: fmt.Sprintf("a header line of the reply is over %d KiB", maxHeaderLine>>10)}
		}
	}
	return n, err
}

// start begins the recording of the next request on the connection; its
// head goes out in curl's order, custom naming the -H fields.
func (r *recorder) start(c custom, http10 bool) *recording {
	rec := &recording{order: true, custom: c, http10: http10}
	r.mu.Lock()
	r.cur = rec
	r.mu.Unlock()
	return rec
}

// add records p, and reports whether a line of the head is now over
// maxHeaderLine.
func (rec *recording) add(p []byte) bool {
	if rec.done.Load() {
		return false
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.done.Load() {
		return false
	}
	room := maxRecorded - len(rec.buf)
	if len(p) > room {
		rec.over = true
		p = p[:room]
	}
	start := len(rec.buf)
	rec.buf = append(rec.buf, p...)
	rec.measure(start)
	return rec.lineOver
}

// measure follows the head's lines in buf from start: the length of the
// one being read, and where the final (not 1xx) head ends.
func (rec *recording) measure(start int) {
	if len(rec.buf) >= 5 && !bytes.HasPrefix(rec.buf, []byte("HTTP/")) {
		rec.afterHead = true // HTTP/2 frames: no lines to measure
	}
	for i := start; i < len(rec.buf) && !rec.afterHead && !rec.lineOver; i++ {
		if rec.buf[i] != '\n' {
			rec.line++
			rec.lineOver = rec.line > maxHeaderLine
			continue
		}
		empty := rec.line == 0 || rec.line == 1 && rec.buf[i-1] == '\r'
		rec.line = 0
		if !empty {
			continue
		}
		// A head has ended: an interim one (1xx) has another after it.
		h := rec.buf[rec.headStart:]
		interim := len(h) > 9 && bytes.HasPrefix(h, []byte("HTTP/")) && h[9] == '1'
		rec.headStart = i + 1
		rec.afterHead = !interim
	}
}

// wireHead is a response head as received.
type wireHead struct {
	proto  string // "HTTP/1.1"
	code   int
	reason string
	header fetch.Header
	raw    []byte // the head's bytes as received (HTTP/1.x; nil for HTTP/2)
}

// head stops the recording and returns the final response head among the
// bytes read: the first one that is not an interim (1xx) reply, as the
// Transport reads them. code is the status the Transport found, as a
// check that both read the same head.
func (r *recording) head(code int) (*wireHead, error) {
	r.mu.Lock()
	buf, over := r.buf, r.over
	r.buf = nil
	r.done.Store(true)
	r.mu.Unlock()
	for {
		h, rest, ok := parseHead(buf)
		switch {
		case !ok && over:
			return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("response head over %d bytes", maxHeaderBytes)}
		case !ok:
			return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "malformed response head"}
		case h.code != code && h.code/100 == 1:
			buf = rest
			continue
		case h.code != code:
			return nil, &fetch.Error{Kind: fetch.ErrProtocol,
				Msg: fmt.Sprintf("response head read as status %d, by net/http as %d", h.code, code)}
		case h.proto != "HTTP/1.1" && h.proto != "HTTP/1.0":
			// net/http takes any HTTP/1.x; curl refuses the versions it
			// does not speak (exit 1).
			return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "the reply's HTTP version " + fetch.SanitizeLine(h.proto, 20) + " is not spoken"}
		}
		return h, nil
	}
}

// parseHead parses the response head at the start of b (status line,
// field lines, empty line; LF or CRLF line ends) and returns what follows
// it, keeping the head's bytes (raw). A line starting with a space or a tab continues the previous field's
// value (obsolete folding, RFC 9112 §5.2), joined with one space; the
// value grows in place, so that a field folded over many lines costs no
// more than the lines.
func parseHead(b []byte) (h *wireHead, rest []byte, ok bool) {
	whole := b
	line := func() (string, bool) {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return "", false
		}
		l := b[:i]
		b = b[i+1:]
		return string(bytes.TrimSuffix(l, []byte("\r"))), true
	}
	status, ok := line()
	if !ok {
		return nil, nil, false
	}
	h = &wireHead{}
	var codeText string
	h.proto, codeText, _ = strings.Cut(status, " ")
	codeText, h.reason, _ = strings.Cut(codeText, " ")
	if len(codeText) != 3 || strings.Trim(codeText, "0123456789") != "" || !strings.HasPrefix(h.proto, "HTTP/") {
		return nil, nil, false
	}
	h.code, _ = strconv.Atoi(codeText)
	h.header = fetch.Header{}
	var fold []byte // the last field's value while lines continue it
	endFold := func() {
		if fold != nil {
			h.header[len(h.header)-1].Value = strings.TrimSpace(string(fold))
			fold = nil
		}
	}
	for {
		l, ok := line()
		if !ok {
			return nil, nil, false
		}
		if l == "" {
			endFold()
			h.raw = bytes.Clone(whole[:len(whole)-len(b)])
			return h, b, true
		}
		if l[0] == ' ' || l[0] == '\t' {
			if n := len(h.header); n > 0 {
				if fold == nil {
					fold = []byte(h.header[n-1].Value)
				}
				if more := strings.TrimSpace(l); more != "" {
					fold = append(append(fold, ' '), more...)
				}
			}
			continue
		}
		endFold()
		name, value, found := strings.Cut(l, ":")
		if !found {
			return nil, nil, false
		}
		h.header = append(h.header, fetch.HeaderField{Name: name, Value: strings.Trim(value, " \t")})
	}
}

// writeHead writes a response head to the verbose log, "< " before each
// line, in the order received, sanitized for the terminal.
func writeHead(w io.Writer, h *wireHead) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "< %s %d", fetch.Sanitize(h.proto), h.code)
	if h.reason != "" {
		b.WriteString(" " + fetch.Sanitize(h.reason))
	}
	b.WriteByte('\n')
	for _, f := range h.header {
		fmt.Fprintf(&b, "< %s: %s\n", fetch.Sanitize(f.Name), fetch.Sanitize(f.Value))
	}
	w.Write(b.Bytes())
}
