package wais

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/wais/apdu"
)

// ServerError is a diagnostic record the server sent instead of, or
// beside, what was asked for. Text is as the server sent it; Error gives
// it sanitized.
type ServerError struct {
	Code string // two characters: "S1", "SF", …
	Text string
}

func (e *ServerError) Error() string {
	return "the server says: " + fetch.SanitizeLine(e.Text, 300) + " (diagnostic " + fetch.Sanitize(e.Code) + ")"
}

// NotFound reports whether the diagnostic says the database or document
// does not exist.
func (e *ServerError) NotFound() bool {
	t := strings.ToLower(e.Text)
	for _, s := range []string{"not available", "not found", "not present", "no such", "can't parse", "cannot parse",
		"does not exist", "missing docid", "bad docid"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// outOfRange reports whether d is freeWAIS-sf's answer to a retrieval past
// the end of the document.
func outOfRange(d apdu.Diag) bool { return strings.Contains(strings.ToLower(d.Text), "out of range") }

func diagError(url string, d apdu.Diag) error {
	e := &ServerError{Code: d.Code, Text: d.Text}
	k := fetch.ErrOther
	if e.NotFound() {
		k = fetch.ErrNotFound
	}
	return &fetch.Error{Kind: k, URL: url, Msg: "wais", Err: e}
}

// maxShrinks bounds how often a chunk is halved after zero-length
// replies before the server is given up on (100000 bytes down to 512).
const maxShrinks = 8

// minChunk is the smallest chunk asked for.
const minChunk = 512

func (f Fetcher) openDoc(ctx context.Context, req *fetch.Request, p *plan) (*fetch.Resource, error) {
	typ := p.docType
	if typ == "" {
		typ = "TEXT" // freeWAIS-sf needs a type
	}
	res := &fetch.Resource{Meta: fetch.Meta{Size: -1, ContentType: contentType(typ), EffectiveURL: p.url, Offset: req.Offset}}
	end := p.length
	if req.Range != nil {
		// WAIS asks for byte spans anyway: a range is the spans from its
		// start to its end.
		start, n, err := req.Range.Span(p.length)
		if err != nil {
			return nil, err
		}
		res.Offset = start
		if n >= 0 {
			end = start + n
		}
		if p.length >= 0 {
			res.Size = n // else n is only an upper bound
		}
	} else if p.length >= 0 {
		if req.Offset > p.length {
			return nil, &fetch.Error{Kind: fetch.ErrResume, URL: p.url,
				Msg: fmt.Sprintf("wais: resume offset %d is past the end of the document (%d bytes)", req.Offset, p.length)}
		}
		res.Size = p.length - req.Offset
	}
	if req.Head || res.Size == 0 {
		// WAIS has no request for metadata alone: what the URL says is all.
		res.Body = emptyBody()
		return res, nil
	}
	chunk, window, err := f.sizes(req)
	if err != nil {
		return nil, err
	}
	c, err := dial(ctx, &f.Config, p)
	if err != nil {
		return nil, err
	}
	if err := c.initialize(); err != nil {
		c.close()
		return nil, err
	}
	// The reply holds the DocID twice over and some 60 bytes of framing:
	// keep it inside the server's buffer.
	if room := c.maxRecord - 2*len(p.docID) - 256; chunk == 0 || chunk > room {
		chunk = max(room, minChunk)
	}
	fetch.Logf(c.verbose, "* asking for %d bytes at a time, %d %s in flight", chunk, window, plural(window, "request", "requests"))
	b := &docBody{c: c, p: p, typ: typ, next: res.Offset, end: end, rangeEnd: req.Range != nil && p.length < 0, chunk: int64(chunk), window: window}
	// Read the first reply now, so that a missing document is an error
	// from Open rather than from the first Read.
	for len(b.pending) == 0 && !b.eof && b.err == nil {
		b.err = b.step()
	}
	if b.err != nil && len(b.pending) == 0 {
		c.close()
		return nil, b.err
	}
	res.Body = b
	return res, nil
}

// sizes is the chunk (0: the server's buffer) and the window a document
// is fetched with: the options', else the Fetcher's.
func (f Fetcher) sizes(req *fetch.Request) (chunk, window int, err error) {
	n, err := req.Options.Int(OptChunkSize, int64(max(f.ChunkSize, 0)))
	if err != nil {
		return 0, 0, err
	}
	if n < 0 || n > serverBuffer {
		return 0, 0, malformed(fmt.Sprintf("wais: %s must be 0 to %d, not %d", OptChunkSize, serverBuffer, n), nil)
	}
	w, err := req.Options.Int(OptPipeline, int64(max(f.Window, 1)))
	if err != nil {
		return 0, 0, err
	}
	if w < 1 || w > maxWindow {
		return 0, 0, malformed(fmt.Sprintf("wais: %s must be 1 to %d, not %d", OptPipeline, maxWindow, w), nil)
	}
	return int(n), int(w), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// span is a requested byte range [start, end).
type span struct{ start, end int64 }

// docBody streams a document: one chunk request at a time (up to window
// when requests are sent ahead) on the one connection, and each reply's
// text is handed out before the next is read, so memory holds one message
// whatever the document's size. The chunk size that worked stays for the
// rest of the connection.
type docBody struct {
	c    *conn
	p    *plan
	typ  string
	next int64 // where the next request starts
	end  int64 // the document's length when known, else -1
	// rangeEnd: end is a Range's end, the length unknown; the document
	// may end before it.
	rangeEnd bool
	chunk    int64
	window   int

	inflight []span
	wbuf     []byte
	pending  []byte
	eof      bool  // the end is reached once pending is out
	tail     error // returned instead of io.EOF at the end
	err      error
	shrinks  int
	once     sync.Once
}

func (b *docBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		if b.eof {
			if b.tail != nil {
				b.err = b.tail
				return 0, b.err
			}
			return 0, io.EOF
		}
		b.err = b.step()
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

func (b *docBody) Close() error {
	b.once.Do(b.c.close)
	return nil
}

// fill sends chunk requests until window are in flight (or the known end
// is reached). It waits until half the window has been answered, so that
// requests go out several to a write.
func (b *docBody) fill() error {
	if len(b.inflight) > b.window/2 {
		return nil
	}
	b.wbuf = b.wbuf[:0]
	for len(b.inflight) < b.window && (b.end < 0 || b.next < b.end) {
		sp := span{b.next, b.next + b.chunk}
		if b.end >= 0 && sp.end > b.end {
			sp.end = b.end
		}
		b.wbuf = apdu.AppendRetrieval(b.wbuf, b.p.db, b.p.docID, b.typ, sp.start, sp.end)
		b.inflight = append(b.inflight, sp)
		b.next = sp.end
		if b.c.verbose != nil {
			fetch.Logf(b.c.verbose, "> retrieve bytes %d-%d", sp.start, sp.end)
		}
	}
	if len(b.wbuf) == 0 {
		return nil
	}
	return b.c.write(b.wbuf)
}

// step reads one reply and sets pending, eof, tail as it says.
func (b *docBody) step() error {
	if err := b.fill(); err != nil {
		return err
	}
	if len(b.inflight) == 0 {
		b.eof = true
		return nil
	}
	sp := b.inflight[0]
	b.inflight = b.inflight[1:]
	b.c.asked = fmt.Sprintf("the retrieval request for bytes %d–%d", sp.start, sp.end)
	a, err := b.c.read()
	if err != nil {
		return err
	}
	if len(a) == 0 {
		return b.shrink(sp)
	}
	r, err := apdu.ParseResponse(a, 0)
	if err != nil {
		return b.c.protocol("reading the reply for bytes %d-%d: %v", sp.start, sp.end, err)
	}
	want := sp.end - sp.start
	got := int64(len(r.Text))
	if got > want {
		return b.c.protocol("the server sent %d bytes for a request of %d (bytes %d-%d)", got, want, sp.start, sp.end)
	}
	ended := got < want
	for _, d := range r.Diags {
		if outOfRange(d) {
			ended = true
			continue
		}
		if got == 0 {
			return diagError(b.p.url, d)
		}
		fetch.Logf(b.c.verbose, "< diagnostic %s: %s", d.Code, d.Text)
	}
	if !r.HasText && len(r.Diags) == 0 {
		ended = true // an empty answer: the end of a document of unknown length
	}
	fetch.Logf(b.c.verbose, "< %d bytes", got)
	b.pending = r.Text
	if ended {
		b.eof = true
		if b.end >= 0 && sp.start+got < b.end && !b.rangeEnd {
			b.tail = &fetch.Error{Kind: fetch.ErrPartial, URL: b.p.url,
				Msg: fmt.Sprintf("wais: the document ends at byte %d, but the URL gives its length as %d", sp.start+got, b.end)}
		}
	} else if b.end >= 0 && sp.end >= b.end {
		b.eof = true
	}
	return nil
}

// shrink handles a zero-length reply to the chunk sp: the reply did not
// fit the server's buffer. The requests after it (of the same size) are
// read and dropped, and the chunk is asked for again, halved.
func (b *docBody) shrink(sp span) error {
	for range b.inflight {
		if _, err := b.c.read(); err != nil {
			return err
		}
	}
	b.inflight = b.inflight[:0]
	b.shrinks++
	if b.shrinks > maxShrinks || b.chunk <= minChunk {
		return b.c.protocol("the server answers every retrieval of bytes from %d with an empty message", sp.start)
	}
	b.chunk = max(b.chunk/2, minChunk)
	fetch.Logf(b.c.verbose, "< (empty reply: asking for %d-byte chunks)", b.chunk)
	b.next = sp.start
	return nil
}
