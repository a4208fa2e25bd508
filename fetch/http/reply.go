package http

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// net/http's Transport reads a reply's framing by RFC 9112 and refuses
// what curl reads: a transfer coding other than chunked (curl decodes gzip
// and deflate ones, and reads a body without chunked until the close),
// Transfer-Encoding in several fields, a Content-Length past 2^63. The
// recorder hands the Transport each final head normalised (normalizeHead)
// into one it reads with the same framing, and result decodes the
// transfer codings (transferCodings) from the head as received.

// replyOptions say how a request's reply is read.
type replyOptions struct {
	http09   bool // OptHTTP09: a reply without a status line is a body
	head     bool // the request is HEAD: no body, so no HTTP/0.9 either
	ignoreCL bool // OptIgnoreLength: the body goes until the close
	proxy    bool // the request went to an HTTP proxy itself (not through a tunnel)
	close    bool // the connection ends with this reply (the Transport is told so)
}

// http09Head is the head the Transport is given before an HTTP/0.9 reply:
// a body without a length, read until the connection closes.
const http09Head = "HTTP/1.0 200 OK\r\n\r\n"

// transferCodes are the transfer codings decoded (RFC 9112 §7), the
// content codings of the same names (RFC 9110 §8.4.1), as curl decodes
// them.
var transferCodes = map[string]bool{"gzip": true, "x-gzip": true, "deflate": true}

// normalizeHead returns the final response head h (status line, fields,
// empty line, as received) as the Transport is to read it, the framing
// curl reads from it: every Transfer-Encoding field goes; when their
// codings end in chunked one "Transfer-Encoding: chunked" takes their
// place, else the body goes until the close ("Connection: close"); a
// Content-Length goes with them, with o.ignoreCL, or when it is a number
// past 2^63-1. From a proxy (o.proxy), a head without a Connection field
// gets the one its Proxy-Connection field means, as curl reads it: an
// HTTP/1.0 reply's "keep-alive" keeps the connection, an HTTP/1.1 reply's
// "close" closes it (net/http reads Connection only); with o.close the
// Transport is told the connection closes. h itself when
// nothing changes; chunked says the head given frames the body chunked.
func normalizeHead(h []byte, o replyOptions) (head []byte, chunked bool) {
	lines := bytes.SplitAfter(h, []byte("\n"))
	if len(lines) > 1 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // the last is the empty line
	}
	if len(lines) < 2 {
		return h, false
	}
	var te, cl, tooLong, conn bool
	var codings []string
	persist := "" // the Connection field a proxy's Proxy-Connection means
	for _, l := range lines[1:] {
		name, value, ok := bytes.Cut(bytes.TrimRight(l, "\r\n"), []byte(":"))
		if !ok {
			continue
		}
		switch {
		case bytes.EqualFold(name, []byte("Connection")):
			conn = true
		case o.proxy && bytes.EqualFold(name, []byte("Proxy-Connection")):
			v := splitList(string(value))
			switch {
			case bytes.HasPrefix(h, []byte("HTTP/1.0 ")) && slices.Contains(v, "keep-alive"):
				persist = "Connection: keep-alive\r\n"
			case bytes.HasPrefix(h, []byte("HTTP/1.1 ")) && slices.Contains(v, "close"):
				persist = "Connection: close\r\n"
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			te = true
			codings = append(codings, splitList(string(value))...)
		case bytes.EqualFold(name, []byte("Content-Length")):
			cl = true
			tooLong = tooLong || lengthOverflows(string(value))
		}
	}
	if conn {
		persist = ""
	}
	if o.close {
		persist = "Connection: close\r\n"
	}
	if !te && !(cl && (o.ignoreCL || tooLong)) && persist == "" {
		return h, false
	}
	chunked = len(codings) > 0 && codings[len(codings)-1] == "chunked"
	out := make([]byte, 0, len(h)+32)
	out = append(out, lines[0]...)
	for _, l := range lines[1 : len(lines)-1] {
		name, _, _ := bytes.Cut(l, []byte(":"))
		if bytes.EqualFold(name, []byte("Transfer-Encoding")) || bytes.EqualFold(name, []byte("Content-Length")) && (te || o.ignoreCL || tooLong) {
			continue
		}
		out = append(out, l...)
	}
	switch {
	case chunked:
		out = append(out, "Transfer-Encoding: chunked\r\n"...)
	case te || o.ignoreCL || tooLong:
		out = append(out, "Connection: close\r\n"...)
		persist = ""
	}
	out = append(out, persist...)
	return append(out, lines[len(lines)-1]...), chunked
}

// hasBody reports whether a reply with head h (its status line first)
// has a body: not to HEAD, not 1xx, 204 or 304 (RFC 9112 §6.3).
func hasBody(h []byte, toHEAD bool) bool {
	if toHEAD || len(h) < 12 {
		return false
	}
	code := string(h[9:12])
	return code[0] != '1' && code != "204" && code != "304"
}

// lengthOverflows reports whether a Content-Length value is a number past
// 2^63-1, which curl reads as no length (with a maximum file size, as one
// over it).
func lengthOverflows(v string) bool {
	v = strings.TrimSpace(v)
	_, err := strconv.ParseInt(v, 10, 64)
	return errors.Is(err, strconv.ErrRange) && strings.Trim(v, "0123456789") == ""
}

// lengthOverMax is ErrTooLarge for a reply head h whose Content-Length is
// past 2^63-1 when there is a maximum file size (max > 0): the Client
// cannot compare a length Meta.Size cannot hold. Its Reply has the head's
// lines before that field as its Interim, for -i and -D to show, as curl
// shows them.
func lengthOverMax(h *wireHead, max int64) error {
	if max <= 0 {
		return nil
	}
	for at := 0; at < len(h.raw); {
		line, _, _ := bytes.Cut(h.raw[at:], []byte("\n"))
		name, v, ok := strings.Cut(string(line), ":")
		if ok && strings.EqualFold(name, "Content-Length") && lengthOverflows(v) {
			return &fetch.Error{Kind: fetch.ErrTooLarge, Reply: &fetch.Meta{Size: -1, Interim: append(bytes.Clone(h.interim), h.raw[:at]...)},
				Msg: fmt.Sprintf("the reply's Content-Length %s is over the maximum file size %d", fetch.SanitizeLine(strings.TrimSpace(v), 40), max)}
		}
		at += len(line) + 1
	}
	return nil
}

// splitList splits a field's comma-separated list, its elements trimmed
// and in lower case, empty ones left out.
func splitList(v string) []string {
	var l []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.ToLower(strings.TrimSpace(e)); e != "" {
			l = append(l, e)
		}
	}
	return l
}

// transferCodings opens the decoders of the Transfer-Encoding fields of
// a reply (hdr as received): the codings before a final chunked (which
// the Transport reads), undone last first. nil when there are none;
// ErrBadEncoding for one not decoded, or past maxCodings.
func transferCodings(hdr fetch.Header) (func(io.Reader) (io.Reader, error), error) {
	var list []string
	for _, f := range hdr {
		if strings.EqualFold(f.Name, "Transfer-Encoding") {
			list = append(list, splitList(f.Value)...)
		}
	}
	if n := len(list); n > 0 && list[n-1] == "chunked" {
		list = list[:n-1]
	}
	for _, c := range list {
		if !transferCodes[c] && c != "identity" {
			return nil, &fetch.Error{Kind: fetch.ErrBadEncoding,
				Msg: fmt.Sprintf("the reply's transfer coding %q is not one urlget decodes (chunked, gzip, deflate)", fetch.SanitizeLine(c, 40))}
		}
	}
	return codings(list, "transfer")
}

// chunkReader passes a chunked body (RFC 9112 §7.1) on to the Transport
// in the framing it reads, as curl reads one: chunk-size lines with any
// extension or none, lines ending in LF or CRLF; the trailer section is
// kept (trailer, each line ending in CRLF, as curl writes them) and not
// passed on. A line it cannot read goes on as it came, from there on, for
// the Transport to refuse.
type chunkReader struct {
	state   int
	line    []byte // the line being read
	left    int64  // of the chunk's data
	trailer []byte
}

const (
	chunkSize = iota
	chunkData
	chunkDataEnd
	chunkTrailer
	chunkDone // the body has ended: the rest goes as it comes
	chunkRaw  // a line was not read: the rest goes as it comes
)

// maxChunkLine bounds a chunk-size line, extensions included.
const maxChunkLine = 4 << 10

// feed returns what of p to pass on: p itself when nothing changes.
func (c *chunkReader) feed(p []byte) []byte {
	if c.state == chunkDone || c.state == chunkRaw || c.state == chunkData && int64(len(p)) <= c.left {
		if c.state == chunkData {
			c.left -= int64(len(p))
			if c.left == 0 {
				c.state = chunkDataEnd
			}
		}
		return p
	}
	out := make([]byte, 0, len(p)+8)
	for len(p) > 0 {
		switch c.state {
		case chunkDone, chunkRaw:
			return append(out, p...)
		case chunkData:
			n := int(min(int64(len(p)), c.left))
			out = append(out, p[:n]...)
			p = p[n:]
			if c.left -= int64(n); c.left == 0 {
				c.state = chunkDataEnd
			}
			continue
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.line = append(c.line, p...)
			p = nil
			if len(c.line) > maxChunkLine || c.state == chunkTrailer && len(c.trailer)+len(c.line) > maxHeaderBytes {
				out = append(out, c.line...)
				c.state, c.line = chunkRaw, nil
			}
			continue
		}
		c.line = append(c.line, p[:i+1]...)
		p = p[i+1:]
		out = c.endLine(out)
	}
	return out
}

// endLine reads the line just ended (c.line, its LF included) and appends
// what goes on for it to out.
func (c *chunkReader) endLine(out []byte) []byte {
	line := c.line
	c.line = nil
	text := bytes.TrimRight(line, "\r\n")
	switch c.state {
	case chunkSize:
		n := 0
		for n < len(text) && n <= 16 && strings.IndexByte("0123456789abcdefABCDEF", text[n]) >= 0 {
			n++
		}
		if n == 0 || n > 16 {
			c.state = chunkRaw
			return append(out, line...)
		}
		size, err := strconv.ParseUint(string(text[:n]), 16, 64)
		if err != nil || size > 1<<62 {
			c.state = chunkRaw
			return append(out, line...)
		}
		c.left = int64(size)
		c.state = chunkData
		if size == 0 {
			c.state = chunkTrailer
		}
		return append(append(out, text[:n]...), "\r\n"...)
	case chunkDataEnd:
		if len(text) != 0 {
			c.state = chunkRaw
			return append(out, line...)
		}
		c.state = chunkSize
		return append(out, "\r\n"...)
	default: // chunkTrailer
		if len(text) == 0 {
			c.state = chunkDone
			return append(out, "\r\n"...)
		}
		c.trailer = append(append(c.trailer, text...), "\r\n"...)
		return out
	}
}

// expects100 reports whether a request head says "Expect: 100-continue".
func expects100(head []byte) bool {
	for _, l := range bytes.Split(head, []byte("\n"))[1:] {
		name, value, ok := bytes.Cut(bytes.TrimRight(l, "\r"), []byte(":"))
		if ok && bytes.EqualFold(bytes.TrimSpace(name), []byte("Expect")) && bytes.EqualFold(bytes.TrimSpace(value), []byte("100-continue")) {
			return true
		}
	}
	return false
}
