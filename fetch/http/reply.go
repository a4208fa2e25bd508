package http

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
// past 2^63-1. h itself when nothing changes.
func normalizeHead(h []byte, o replyOptions) []byte {
	lines := bytes.SplitAfter(h, []byte("\n"))
	if len(lines) > 1 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1] // the last is the empty line
	}
	if len(lines) < 2 {
		return h
	}
	var te, cl, tooLong bool
	var codings []string
	for _, l := range lines[1:] {
		name, value, ok := bytes.Cut(bytes.TrimRight(l, "\r\n"), []byte(":"))
		if !ok {
			continue
		}
		switch {
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			te = true
			codings = append(codings, splitList(string(value))...)
		case bytes.EqualFold(name, []byte("Content-Length")):
			cl = true
			v := strings.TrimSpace(string(value))
			if _, err := strconv.ParseInt(v, 10, 64); errors.Is(err, strconv.ErrRange) && strings.Trim(v, "0123456789") == "" {
				tooLong = true
			}
		}
	}
	if !te && !(cl && (o.ignoreCL || tooLong)) {
		return h
	}
	chunked := len(codings) > 0 && codings[len(codings)-1] == "chunked"
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
	}
	return append(out, lines[len(lines)-1]...)
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
	return codings(strings.Join(list, ","), "transfer")
}
