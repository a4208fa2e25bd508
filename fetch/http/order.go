package http

import (
	"bytes"
	"slices"
	"strings"
)

// curl 7.88 writes a request's header fields in an order of its own (the
// one its test suite compares byte for byte); net/http writes Host,
// User-Agent, Content-Length and then the rest sorted by name. The
// recorder, which sees the request head on its way out, puts the fields in
// curl's order (curlOrder) before they go: the same fields, the same bytes,
// another order, which HTTP leaves to the client (RFC 9110 §5.3: only
// fields of one name keep their order among themselves, and they do).

// curlRank is the place of a field curl writes itself: Host, the
// credentials, Range, User-Agent, Accept, TE, Accept-Encoding, Referer,
// Proxy-Connection, Transfer-Encoding, Cookie, the time condition; then
// (rankCustom) the -H fields in the order given, and the fields curl has
// no place for; then the body's fields.
var curlRank = map[string]int{
	"host":                0,
	"proxy-authorization": 1,
	"authorization":       2,
	"range":               3,
	"content-range":       3, // a resumed upload's, in Range's place
	"user-agent":          4,
	"accept":              5,
	"te":                  6,
	"accept-encoding":     7,
	"referer":             8,
	"proxy-connection":    9,
	"transfer-encoding":   10,
	"cookie":              11,
	"if-modified-since":   12,
	"if-unmodified-since": 12,
	"content-length":      20,
	"content-type":        21,
	"expect":              22,
}

const rankCustom = 13

// customNames is the lower-case names of -H lines (OptHeader), in order,
// each once: the fields placed as given.
func customNames(lines []string) []string {
	var names []string
	for _, line := range lines {
		i := strings.IndexAny(line, ":;")
		if i <= 0 {
			continue
		}
		name := strings.ToLower(strings.TrimSpace(line[:i]))
		if name != "host" && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// curlOrder returns the HTTP/1.x request head (request line, fields,
// empty line) with its fields in curl's order, custom being customNames'
// list; a field with an empty value is written "Name:", as curl writes
// "-H Name;". A head it cannot read is returned as it is.
func curlOrder(head []byte, custom []string) []byte {
	if !bytes.HasSuffix(head, []byte("\r\n\r\n")) {
		return head
	}
	lines := bytes.Split(head[:len(head)-4], []byte("\r\n"))
	type field struct {
		line      []byte
		rank, sub int
	}
	fields := make([]field, 0, len(lines)-1)
	for _, l := range lines[1:] {
		i := bytes.IndexByte(l, ':')
		if i <= 0 || l[0] == ' ' || l[0] == '\t' {
			return head // folded or not a field: not net/http's
		}
		name := strings.ToLower(string(l[:i]))
		f := field{line: l, rank: rankCustom, sub: len(custom)}
		if j := slices.Index(custom, name); j >= 0 {
			f.sub = j
		} else if r, ok := curlRank[name]; ok {
			f.rank, f.sub = r, 0
		}
		if name == "host" {
			f.rank, f.sub = 0, 0
		}
		if len(bytes.TrimSpace(l[i+1:])) == 0 {
			f.line = l[:i+1]
		}
		fields = append(fields, f)
	}
	slices.SortStableFunc(fields, func(a, b field) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.sub - b.sub
	})
	out := make([]byte, 0, len(head))
	out = append(out, lines[0]...)
	out = append(out, "\r\n"...)
	for _, f := range fields {
		out = append(out, f.line...)
		out = append(out, "\r\n"...)
	}
	return append(out, "\r\n"...)
}

// isHTTP1Request reports whether p starts like an HTTP/1.x request line
// (a method, a space): not HTTP/2's preface or frames.
func isHTTP1Request(p []byte) bool {
	i := bytes.IndexByte(p, ' ')
	if i <= 0 || bytes.HasPrefix(p, []byte("PRI ")) {
		return false
	}
	for _, c := range p[:i] {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}
