package gopher

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// errNoPlusHeader marks a Gopher+ request answered without a Gopher+ header.
var errNoPlusHeader = errors.New("gopher: no Gopher+ header in the reply")

// reply reads the reply's head and builds the Resource.
func reply(c *conn, req *fetch.Request, p *plan) (*fetch.Resource, error) {
	m := p.meta()
	res := &fetch.Resource{Meta: m}
	if p.raw {
		res.Body = &body{r: c.br, c: c}
		res.Dir = false
		return res, nil
	}
	if p.hasPlus {
		h, ok, err := peekHeader(c)
		if err != nil {
			return nil, err
		}
		switch {
		case ok:
			return plusReply(c, p, res, h)
		case p.plus == "+":
			fetch.Logf(c.verbose, "* no Gopher+ header in the reply: reading it as plain gopher")
		default:
			return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "gopher: the server answered the Gopher+ request " +
				strconv.Quote(p.plus) + " without a Gopher+ header: it does not support Gopher+", Err: errNoPlusHeader}
		}
	}
	if err := detectError(c, p); err != nil {
		return nil, err
	}
	var r io.Reader = c.br
	switch {
	case isMenuType(p.typ) && p.asSent:
		res.Dir = true // its bytes to the end, "." line included
		res.Listing = listing(p)
	case isMenuType(p.typ):
		r = newDotReader(c.br, dotEnd, false, "menu")
		res.Dir = true
		res.Listing = listing(p)
	case p.typ == TypeText && p.asSent:
		// As sent: CRLF and the "." line kept.
	case p.typ == TypeText:
		// RFC 1436 text lines end in CRLF: LF here, as for a person or
		// a pipe (fetch.TextReader).
		r = fetch.TextReader(newDotReader(c.br, p.text, p.text == dotStrict, "text"), req.Options)
	default:
		// Any other item is read until the server closes the connection,
		// as its bytes come: not through fetch.ReadToEnd. Gopher servers
		// write an item in small pieces (gophernicus and pygopherd 4 KiB
		// a write), and on the same machine the server is the slow
		// stage; with ReadToEnd's raised mark the kernel acks those
		// pieces on the server's CPU (loopback runs the receiver's TCP
		// work on the sender's), where a reader that reads as they come
		// acks them, and sends the server's next ones, from its own. A
		// 256 MiB item from gophernicus took some 7% more of the
		// server's CPU with the mark, and 5 to 10% longer than curl.
	}
	res.Body = &body{r: r, c: c}
	return res, nil
}

// listing returns the Resource.Listing of a menu fetched with p: items on
// the same host and port as a gophers menu get gophers URLs.
func listing(p *plan) func([]byte) fetch.Entry {
	return func(line []byte) fetch.Entry {
		it, _ := ParseItem(line)
		scheme := "gopher"
		if p.secure && strings.EqualFold(it.Host, p.host) && it.Port == p.port {
			scheme = "gophers"
		}
		return it.Entry(scheme)
	}
}

// peekUntil peeks at the start of the reply, waiting for more bytes only
// while decide says it cannot tell yet (decide gets the bytes so far and
// whether they are all there will be), and at most limit bytes. It
// consumes nothing.
func peekUntil(br *bufio.Reader, limit int, decide func(data []byte, eof bool) bool) (data []byte, eof bool, err error) {
	n := 1
	for {
		if b := br.Buffered(); b > n {
			n = b
		}
		if n > limit {
			n = limit
		}
		data, err = br.Peek(n)
		if err == bufio.ErrBufferFull {
			err = nil
		}
		if err != nil && err != io.EOF {
			return data, true, err
		}
		eof = err == io.EOF
		if decide(data, eof) || eof || len(data) >= limit {
			return data, eof, nil
		}
		n = len(data) + 1
	}
}

// peekHeader looks for a Gopher+ header line at the start of the reply and
// consumes it when there is one.
func peekHeader(c *conn) (Header, bool, error) {
	data, _, err := peekUntil(c.br, maxHeader, func(d []byte, eof bool) bool {
		return (len(d) > 0 && d[0] != '+' && d[0] != '-') || bytes.IndexByte(d, '\n') >= 0
	})
	if err != nil {
		return Header{}, false, err
	}
	i := bytes.IndexByte(data, '\n')
	if i < 0 {
		return Header{}, false, nil
	}
	h, ok := ParseHeader(data[:i+1])
	if !ok {
		return Header{}, false, nil
	}
	fetch.Logf(c.verbose, "< %s", trimEOL(data[:i+1]))
	c.br.Discard(i + 1)
	return h, true, nil
}

// framed returns the reader of a Gopher+ reply's data, per its header.
func framed(c *conn, h Header, what string) (r io.Reader, dotEnded bool) {
	switch {
	case h.Length >= 0:
		return &exactReader{r: c.br, left: h.Length, total: h.Length}, false
	case h.Length == LengthDot:
		return newDotReader(c.br, dotEnd, true, what), true
	}
	return c.br, false
}

func plusReply(c *conn, p *plan, res *fetch.Resource, h Header) (*fetch.Resource, error) {
	if !h.OK {
		var data []byte
		if h.Text == "" {
			r, _ := framed(c, h, "error reply")
			data, _ = io.ReadAll(io.LimitReader(r, maxErrorReply))
		}
		e := parsePlusError(h, data)
		fetch.Logf(c.verbose, "< %s", fetch.SanitizeLine(e.Message, 200))
		return nil, serverError(p, e)
	}
	r, dotEnded := framed(c, h, "Gopher+ reply")
	if h.Length >= 0 {
		res.Size = h.Length
	}
	switch {
	case p.plus[0] == '!' || p.plus[0] == '$':
		res.ContentType = ""
		res.Dir = false
	case isMenuType(p.typ) && isMenuView(p.plus):
		if !dotEnded {
			r = newDotReader(bufio.NewReaderSize(r, 4096), dotEnd, false, "menu")
		}
		res.Dir = true
		res.Listing = listing(p)
	default:
		res.Dir = false
		if v := strings.TrimPrefix(p.plus, "+"); v != "" {
			mt, _, _ := strings.Cut(v, " ")
			res.ContentType = mt
		}
	}
	res.Body = &body{r: r, c: c}
	return res, nil
}

// isMenuView reports whether a "+…" string asks for a menu view (the
// default view, or a gopher menu type).
func isMenuView(plus string) bool {
	v := strings.TrimPrefix(plus, "+")
	if v == "" || strings.HasPrefix(plus, "?") {
		return true
	}
	mt, _, _ := strings.Cut(v, " ")
	mt = strings.ToLower(mt)
	return mt == "application/gopher-menu" || mt == "application/gopher+-menu"
}

// serverError wraps e in a fetch.Error of the right Kind.
func serverError(p *plan, e *ServerError) error {
	k := fetch.ErrOther
	switch {
	case e.NotFound() || e.Code == 3:
		k = fetch.ErrNotFound
	case e.Denied():
		k = fetch.ErrAccessDenied
	}
	return &fetch.Error{Kind: k, URL: p.url, Err: e}
}

// detectError looks at the start of a plain reply for an error item (or
// gophernicus's error page) standing in for the resource. It reads ahead
// only while the reply still looks like one (and at most a few KiB), so a
// resource is never held back.
func detectError(c *conn, p *plan) error {
	first, err := c.br.Peek(1)
	if err != nil {
		if err == io.EOF {
			return nil // an empty reply
		}
		return err
	}
	switch first[0] {
	case TypeError:
		var e *ServerError
		_, _, err := peekUntil(c.br, errorPeek, func(d []byte, eof bool) bool {
			var decided bool
			e, decided = errorMenu(d, eof)
			return decided
		})
		if err != nil {
			return err
		}
		if e != nil {
			fetch.Logf(c.verbose, "< %s", fetch.SanitizeLine(e.Item.Raw, 200))
			return serverError(p, e)
		}
	case 'E':
		// gophernicus answers a missing document with a text page:
		// "Error: File or directory not found! …", then its footer, and
		// closes.
		const prefix = "Error: "
		data, eof, err := peekUntil(c.br, 4096, func(d []byte, eof bool) bool {
			k := min(len(d), len(prefix))
			return string(d[:k]) != prefix[:k]
		})
		if err != nil {
			return err
		}
		if !eof || !bytes.HasPrefix(data, []byte(prefix)) {
			return nil
		}
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i]
		}
		e := &ServerError{Message: string(trimEOL(line))}
		if e.NotFound() || e.Denied() {
			fetch.Logf(c.verbose, "< %s", fetch.SanitizeLine(e.Message, 200))
			return serverError(p, e)
		}
	}
	return nil
}

// errorMenu tells from the start of a reply whether it is one error item,
// possibly followed by info lines and the "." line: the error a server
// sends instead of the resource. The error item must have all four fields,
// so that a text beginning with "3" is not taken for one. It reports the
// error (nil if none) and whether data was enough to decide (eof: data is
// the whole reply).
func errorMenu(data []byte, eof bool) (*ServerError, bool) {
	var e *ServerError
	for i := 0; len(data) > 0; i++ {
		var l []byte
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			l, data = data[:j+1], data[j+1:]
		} else if eof {
			l, data = data, nil
		} else {
			return nil, false // an incomplete line: wait for more
		}
		if i == 0 {
			it, err := ParseItem(l)
			if err != nil || it.Type != TypeError || it.Fields < 4 {
				return nil, true
			}
			e = &ServerError{Message: it.Display, Item: &it}
			continue
		}
		if isTerminator(l) {
			return e, true
		}
		if it, err := ParseItem(l); err != nil || it.Type != TypeInfo {
			return nil, true
		}
	}
	if eof {
		return e, true
	}
	return nil, false
}
