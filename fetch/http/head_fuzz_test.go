package http

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzParseHead: a response head that parses has an HTTP/ protocol, a
// three-digit status, fields whose names hold no ":" and whose values are
// trimmed, the rest is what follows it and raw the bytes before; written again it parses to the
// same head; its verbose log is sanitized; and the work is bounded by the
// input, however the server folds its lines.
func FuzzParseHead(f *testing.F) {
	fuzzcheck.Seeds(f,
		"HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\nHTTP/1.1 200 Fine Thanks\r\nzeta: last letter first\r\nETag: \"abc\"\r\n"+
			"Content-Length: 5\r\nX-Folded: one\r\n\t two\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nConnection: keep-alive\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Thu, 26 Nov 2026 23:00:00 GMT\r\nContent-Type: text/html\r\nContent-Length: 615\r\n"+
			"Last-Modified: Mon, 23 Jan 2023 10:00:00 GMT\r\nConnection: keep-alive\r\nETag: \"63ce5b00-267\"\r\nAccept-Ranges: bytes\r\n\r\n",
		"HTTP/1.0 302\nLocation: /x\n\n", "HTTP/1.1 +12 odd\r\n\r\n", "HTTP/1.1 -12 odd\r\n\r\n", "HTTP/1.1 2000 long\r\n\r\n",
		"ICY 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "HTTP/1.1 200 OK\r\n folded first\r\nX: \x1b[31m\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: "+strings.Repeat("v", 1000)+"\r\n"+strings.Repeat(" \r\n", 2000)+"\r\n",
		"HTTP/1.1 200 OK\r\nX: a\r\n"+strings.Repeat("\tb\r\n", 3000)+"\r\n",
	)
	f.Fuzz(func(t *testing.T, b []byte) {
		var h *wireHead
		var rest []byte
		var ok bool
		fuzzcheck.Bounded(t, len(b), func() { h, rest, ok = parseHead(b) })
		if !ok {
			return
		}
		if !strings.HasPrefix(h.proto, "HTTP/") || strings.ContainsAny(h.proto, " \n") || h.code < 0 || h.code > 999 ||
			strings.Contains(h.reason, "\n") || !bytes.HasSuffix(b, rest) || string(h.raw)+string(rest) != string(b) {
			t.Fatalf("%q: head %+v, rest %q", b, h, rest)
		}
		for _, fl := range h.header {
			if strings.ContainsAny(fl.Name, ":\n") || fl.Name != "" && (fl.Name[0] == ' ' || fl.Name[0] == '\t') ||
				strings.Contains(fl.Value, "\n") || fl.Value != strings.Trim(fl.Value, " \t") {
				t.Fatalf("%q: field %q: %q", b, fl.Name, fl.Value)
			}
		}
		written := appendHead(nil, h)
		again, _, ok := parseHead(written)
		if ok && !bytes.Equal(again.raw, written) {
			t.Fatalf("%q: raw %q, want the whole head", written, again.raw)
		}
		if ok {
			again.raw = h.raw
		}
		if !ok || !reflect.DeepEqual(again, h) {
			t.Fatalf("%q: head %+v written again parses as %+v (%v)", b, h, again, ok)
		}
		var v bytes.Buffer
		writeHead(&v, h)
		fuzzcheck.Printable(t, "the verbose log", v.String())
	})
}

// appendHead writes h as a server would.
func appendHead(b []byte, h *wireHead) []byte {
	b = append(b, fmt.Sprintf("%s %03d %s\r\n", h.proto, h.code, h.reason)...)
	for _, f := range h.header {
		b = append(b, f.Name+": "+f.Value+"\r\n"...)
	}
	return append(b, "\r\n"...)
}
