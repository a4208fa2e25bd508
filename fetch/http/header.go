package http

import (
	"bytes"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
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
	// pend is what Read has still to pass on, rerr the read error to
	// return after it.
	pend []byte
	rerr error
	// wrote is closed by the first Write, closed by Close. An HTTP server
	// speaks only when spoken to, so nothing is read before the request
	// goes out: bytes a server sends at once (an ftp or smtp greeting on
	// the port) are then read as the reply to the request, HTTP/0.9
	// refused, as curl reads them, not as the Transport's "unsolicited
	// response" on a connection no request holds yet, whose answer would
	// depend on which came first.
	wrote, closed         chan struct{}
	wroteOnce, closedOnce sync.Once
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
	// http10: the request line says HTTP/1.0 (OptVersion "1.0", or the
	// connection's previous reply was HTTP/1.0: see start), the
	// Transport having written HTTP/1.1, which it always does.
	http10 bool
	// refuse, when set, is what Write returns instead of writing the
	// request (a body an HTTP/1.0 request cannot frame: downgrade).
	refuse error
	// replied10: the final head's status line says HTTP/1.0.
	replied10 bool
	// awaiting: the head went with "Expect: 100-continue" and no byte of
	// the body has gone yet (a final reply now closes: see add).
	awaiting atomic.Bool
	// The reply as the Transport is given it (see recorder.Read): the
	// final head is held back until it is whole and normalised
	// (normalizeHead) before it is passed on. h1 says the request was
	// HTTP/1.x (nothing is held for HTTP/2); given is how many bytes of
	// buf were passed on; released that the final head was (the rest
	// goes as it comes); final the final head's bounds in buf.
	reply    replyOptions
	h1       atomic.Bool
	given    int
	released bool
	final    [2]int
	// chunk reads the chunked body after the final head (nil: none);
	// trailer is its trailer section once it has ended.
	chunk   *chunkReader
	trailer []byte
	// http09: the reply had no status line and was passed on as an
	// HTTP/0.9 body (reply.http09); head09: that reply answered a HEAD.
	http09, head09 bool
}

// Write records what the Transport writes, before it goes out: so the
// request is in its recording before any reply to it can come back.
func (r *recorder) Write(p []byte) (int, error) {
	r.wroteOnce.Do(func() { close(r.wrote) })
	r.mu.Lock()
	rec := r.cur
	r.mu.Unlock()
	if rec != nil && rec.refuse != nil {
		return 0, rec.refuse
	}
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
		rec.awaiting.Store(false) // the body is going
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
	rec.h1.Store(true)
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
	rec.awaiting.Store(len(out) == i+4 && expects100(head))
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

// Read reads the reply for the Transport: as it comes, except an
// HTTP/1.x reply's final head, held back until it is whole and then passed
// on normalised (recording.add). The Transport is its only reader.
func (r *recorder) Read(p []byte) (int, error) {
	for {
		if len(r.pend) > 0 {
			n := copy(p, r.pend)
			r.pend = r.pend[n:]
			return n, nil
		}
		if r.rerr != nil {
			err := r.rerr
			r.rerr = nil
			return 0, err
		}
		select {
		case <-r.wrote:
		case <-r.closed:
			return 0, net.ErrClosed
		}
		n, err := r.Conn.Read(p)
		r.mu.Lock()
		rec := r.cur // loaded after the read: the request of these bytes
		r.mu.Unlock()
		if rec == nil {
			return n, err
		}
		var out []byte
		held := false
		if n > 0 {
			var lineOver bool
			out, held, lineOver = rec.add(p[:n])
			if lineOver {
				return 0, errLineOver()
			}
		}
		if err != nil {
			if rest := rec.flush(); len(rest) > 0 {
				out, held = append(bytes.Clone(out), rest...), true
			}
		}
		if !held {
			return n, err
		}
		if len(out) == 0 && err == nil {
			continue // the head is not whole yet
		}
		r.pend, r.rerr = out, err
	}
}

// Close closes the connection, and ends a Read still waiting for the
// first request.
func (r *recorder) Close() error {
	r.closedOnce.Do(func() { close(r.closed) })
	return r.Conn.Close()
}

// start begins the recording of the next request on the connection; its
// head goes out in curl's order, custom naming the -H fields, and its
// reply is read as o says. Its request line says HTTP/1.0 with http10, or
// when the connection's previous reply was an HTTP/1.0 one, as curl
// speaks to a server that answered so on the connection (its
// conn->httpversion): rec.http10 says which line goes out.
func (r *recorder) start(c custom, http10 bool, o replyOptions) *recording {
	rec := &recording{order: true, custom: c, http10: http10, reply: o, final: [2]int{-1, -1}}
	r.mu.Lock()
	prev := r.cur
	r.cur = rec
	r.mu.Unlock()
	if prev != nil {
		prev.mu.Lock()
		rec.http10 = rec.http10 || prev.replied10
		prev.mu.Unlock()
	}
	return rec
}

// add records p, and returns the bytes to pass on to the Transport in its
// place: p itself (held false) once the final head has been passed on,
// else what of the reply is ready (interim heads as they end, the final
// head normalised when it has), maybe nothing yet. lineOver reports that
// a line of the head is now over maxHeaderLine.
func (rec *recording) add(p []byte) (out []byte, held, lineOver bool) {
	if c := rec.chunk; c != nil {
		// The body after the head: only the reader goroutine (this
		// one) touches the chunkReader.
		out = rec.feedChunks(p)
		if len(out) == len(p) && (len(p) == 0 || &out[0] == &p[0]) {
			return p, false, false
		}
		return out, true, false
	}
	if rec.done.Load() {
		return p, false, false
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.done.Load() {
		return p, false, false
	}
	whole := p
	room := maxRecorded - len(rec.buf)
	if len(p) > room {
		rec.over = true
		p = p[:room]
	}
	start := len(rec.buf)
	rec.buf = append(rec.buf, p...)
	rec.measure(start)
	if rec.lineOver {
		return nil, true, true
	}
	if rec.released || !rec.h1.Load() {
		rec.released = true
		return whole, false, false
	}
	switch {
	case rec.over:
		// Past what is recorded: passed on as it is, for the Transport
		// to refuse.
		out = append(bytes.Clone(rec.buf[rec.given:]), whole[len(p):]...)
		rec.released = true
	case rec.afterHead && rec.final[0] < 0:
		// No status line: HTTP/0.9, or bytes the Transport refuses.
		out = rec.noStatusLine()
		rec.released = true
	case rec.afterHead:
		// A final reply to a request still awaiting its 100 Continue: the
		// body is not sent and the connection closes (the Transport would
		// send the body to keep it), as curl stops sending.
		o := rec.reply
		o.close = rec.awaiting.Load()
		head, chunked := normalizeHead(rec.buf[rec.final[0]:rec.final[1]], o)
		out = append(bytes.Clone(rec.buf[rec.given:rec.final[0]]), head...)
		rest := rec.buf[rec.final[1]:]
		if chunked && hasBody(head, rec.reply.head) {
			rec.chunk = &chunkReader{}
			rest = rec.feedChunksLocked(bytes.Clone(rest))
		}
		out = append(out, rest...)
		rec.released = true
	default:
		// Interim heads go on as they end (a 100 Continue is awaited).
		out = bytes.Clone(rec.buf[rec.given:rec.headStart])
		rec.given = rec.headStart
	}
	return out, true, false
}

// answeredHEAD09 reports that a reply to HEAD had no status line, with
// HTTP/0.9 allowed.
func (rec *recording) answeredHEAD09() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.head09
}

// feedChunks passes p through the chunkReader, and keeps the trailer
// section once the body has ended; feedChunksLocked with rec.mu held.
func (rec *recording) feedChunks(p []byte) []byte {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.feedChunksLocked(p)
}

func (rec *recording) feedChunksLocked(p []byte) []byte {
	out := rec.chunk.feed(p)
	if rec.chunk.state == chunkDone && rec.chunk.trailer != nil {
		rec.trailer, rec.chunk.trailer = rec.chunk.trailer, nil
	}
	return out
}

// trailerSection is the chunked body's trailer section as received (each
// line ending in CRLF), once the body has been read to its end; nil when
// there is none.
func (rec *recording) trailerSection() []byte {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.trailer
}

// flush returns what is held back and not yet passed on, as it is: the
// connection ended or failed before the head did.
func (rec *recording) flush() []byte {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.released || rec.done.Load() || !rec.h1.Load() {
		return nil
	}
	rec.released = true
	if rec.given == 0 && len(rec.buf) > 0 && !bytes.HasPrefix([]byte("HTTP/"), rec.buf[:min(len(rec.buf), 5)]) {
		return rec.noStatusLine() // a reply too short to be measured
	}
	return bytes.Clone(rec.buf[rec.given:])
}

// noStatusLine returns what to pass on for a reply whose first bytes
// (rec.buf) are no status line: them, after http09Head when reply.http09
// takes them as an HTTP/0.9 body; as they are otherwise, for the
// Transport to refuse.
func (rec *recording) noStatusLine() []byte {
	out := bytes.Clone(rec.buf[rec.given:])
	if rec.given == 0 && rec.reply.http09 {
		if rec.reply.head {
			rec.head09 = true
		} else {
			rec.http09 = true
			out = append([]byte(http09Head), out...)
		}
	}
	return out
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
		if !interim {
			rec.final = [2]int{rec.headStart, i + 1}
			rec.replied10 = bytes.HasPrefix(h, []byte("HTTP/1.0 "))
		}
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
	// interim is the interim (1xx) heads before it, as received
	interim []byte
}

// head stops the recording and returns the final response head among the
// bytes read: the first one that is not an interim (1xx) reply, as the
// Transport reads them, with the interim heads before it. code is the status the Transport found, as a
// check that both read the same head.
func (r *recording) head(code int) (*wireHead, error) {
	r.mu.Lock()
	buf, over := r.buf, r.over
	r.buf = nil
	r.done.Store(true)
	http09 := r.http09
	r.mu.Unlock()
	if http09 {
		return &wireHead{proto: "HTTP/0.9", code: nethttp.StatusOK, header: fetch.Header{}, raw: []byte{}}, nil // no head to show
	}
	var interim []byte
	for {
		h, rest, ok := parseHead(buf)
		if ok {
			line, _, _ := bytes.Cut(h.raw, []byte("\n"))
			if err := statusLine(line); err != nil {
				return nil, err
			}
		}
		switch {
		case !ok && over:
			return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("response head over %d bytes", maxHeaderBytes)}
		case !ok:
			return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "malformed response head"}
		case h.code != code && h.code/100 == 1:
			interim = append(interim, h.raw...)
			buf = rest
			continue
		case h.code != code:
			return nil, &fetch.Error{Kind: fetch.ErrProtocol,
				Msg: fmt.Sprintf("response head read as status %d, by net/http as %d", h.code, code)}
		}
		h.interim = interim
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

// statusLine checks a status line (RFC 9112 §4) as curl 7.88 reads one:
// "HTTP/" a digit "." a digit, a space, three digits from 100 on, then a
// space or the end. A line that does not start with "HTTP/" is HTTP/0.9,
// which curl does not speak; one that does but is malformed, or of a
// version other than 1.0 and 1.1, is refused too: ErrUnsupported (curl's
// 1) for all of them.
func statusLine(line []byte) error {
	line = bytes.TrimSuffix(line, []byte("\r"))
	shown := fetch.SanitizeLine(string(line), 60)
	if !bytes.HasPrefix(line, []byte("HTTP/")) {
		return &fetch.Error{Kind: fetch.ErrUnsupported, Msg: fmt.Sprintf("the reply is not HTTP (no status line; HTTP/0.9 is not spoken): %q", shown)}
	}
	v := line[len("HTTP/"):]
	digit := func(i int) bool { return i < len(v) && v[i] >= '0' && v[i] <= '9' }
	switch {
	case !digit(0) || len(v) < 2 || v[1] != '.' || !digit(2) || len(v) < 4 || v[3] != ' ':
		return &fetch.Error{Kind: fetch.ErrUnsupported, Msg: fmt.Sprintf("malformed HTTP version in the status line %q", shown)}
	case !digit(4) || !digit(5) || !digit(6) || len(v) > 7 && v[7] != ' ' || v[4] == '0':
		return &fetch.Error{Kind: fetch.ErrUnsupported, Msg: fmt.Sprintf("malformed status code in the status line %q", shown)}
	case string(v[:3]) != "1.1" && string(v[:3]) != "1.0":
		return &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "the reply's HTTP version HTTP/" + string(v[:3]) + " is not spoken"}
	}
	return nil
}

// replyError says, from the bytes recorded (buf), why the Transport could
// not read a reply, in curl's terms: a status line curl refuses (exit 1),
// a connection closed after interim (1xx) replies only (closed, when the
// Transport met the end: curl's empty reply, 52), a malformed
// Content-Length (8). nil when the bytes show none of these.
//
// The Error's Reply has the heads read before it failed as its Interim,
// for -i and -D to show, as curl shows them: the interim replies, and the
// lines of the final head before a bad Content-Length.
func replyError(buf []byte, closed bool) error {
	all := buf
	for {
		if len(buf) == 0 {
			if len(all) > 0 && closed {
				return &fetch.Error{Kind: fetch.ErrGotNothing, Reply: &fetch.Meta{Size: -1, Interim: bytes.Clone(all)},
					Msg: "the server closed the connection after an interim (1xx) reply, without its reply"}
			}
			return nil
		}
		line := buf
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			line = buf[:i]
		} else if len(buf) < len("HTTP/1.1 200") && bytes.HasPrefix([]byte("HTTP/1.1 200"), buf[:min(len(buf), 5)]) {
			return nil // a status line cut short: it could have been one
		}
		if err := statusLine(line); err != nil {
			return err
		}
		h, rest, ok := parseHead(buf)
		if !ok && len(buf) >= maxHeaderBytes {
			return errHeadOver()
		}
		if !ok {
			return nil
		}
		if h.code/100 == 1 {
			buf = rest
			continue
		}
		for at := 0; at < len(h.raw); {
			line, _, _ := bytes.Cut(h.raw[at:], []byte("\n"))
			name, v, found := strings.Cut(string(bytes.TrimSuffix(line, []byte("\r"))), ":")
			v = strings.Trim(v, " \t")
			if found && strings.EqualFold(name, "Content-Length") && (v == "" || strings.Trim(v, "0123456789") != "") {
				head := all[:len(all)-len(buf)+at]
				return &fetch.Error{Kind: fetch.ErrProtocol, Reply: &fetch.Meta{Size: -1, Interim: bytes.Clone(head)},
					Msg: fmt.Sprintf("the reply's Content-Length %q is not a length", fetch.SanitizeLine(v, 40))}
			}
			at += len(line) + 1
		}
		return nil
	}
}

// bytes is what the recording holds so far, and whether a line of the
// head went over maxHeaderLine.
func (r *recording) bytes() ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.buf), r.lineOver
}

// errHeadOver is the error of a reply whose head is over maxHeaderBytes:
// curl's 56 past its own bound, which is this one.
func errHeadOver() error {
	return &fetch.Error{Kind: fetch.ErrRecv, Msg: fmt.Sprintf("the reply's head is over %d KiB", maxHeaderBytes>>10)}
}

// errLineOver is the error of a reply whose head has a line over
// maxHeaderLine.
func errLineOver() error {
	return &fetch.Error{Kind: fetch.ErrHeaderLine, Msg: fmt.Sprintf("a header line of the reply is over %d KiB", maxHeaderLine>>10)}
}
