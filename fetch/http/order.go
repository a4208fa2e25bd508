package http

import (
	"bytes"
	"slices"
	"strings"
)

// Request fields go out in the order curl 7.88 writes them, which servers
// and tests written against curl see: Host, the credentials, Range,
// User-Agent, Accept, Accept-Encoding, Referer, Proxy-Connection,
// Transfer-Encoding, Cookie, the time conditions, then the -H fields in
// the order given, then the body's fields (Content-Length, Content-Type,
// Expect). net/http writes Host and User-Agent first and the rest sorted
// by name; its framing is kept, and the head it writes is put in this
// order on its way to the connection (recorder.Write), so that nothing
// but the order changes.

// fixedRank is the place of a field curl writes itself; a -H field takes
// its place among the -H fields (customRank) instead, but Host, which curl
// writes first whoever gives it.
var fixedRank = map[string]int{
	"host":                0,
	"proxy-authorization": 1,
	"authorization":       2,
	"range":               3,
	"if-range":            3,
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
	"content-length":      bodyRank,
	"content-type":        bodyRank + 1,
	"expect":              bodyRank + 2,
}

const (
	customRank = 100   // the first -H field; the others follow in order
	otherRank  = 10000 // a field neither curl's nor a -H one (If-None-Match): after the -H fields
	bodyRank   = 20000
)

// fieldOrder is the order of one request's fields: curl's, with the -H
// fields (by lower-case name) at the places they were given.
type fieldOrder struct {
	custom map[string]int
}

// newFieldOrder is the order for a request with these -H lines
// ("Name: value", "Name;", "Name:").
func newFieldOrder(lines []string) *fieldOrder {
	o := &fieldOrder{custom: map[string]int{}}
	for _, l := range lines {
		i := strings.IndexAny(l, ":;")
		if i <= 0 {
			continue
		}
		name := strings.ToLower(strings.TrimSpace(l[:i]))
		if _, ok := o.custom[name]; !ok && name != "host" {
			o.custom[name] = len(o.custom)
		}
	}
	return o
}

func (o *fieldOrder) rank(name string) int {
	name = strings.ToLower(name)
	if i, ok := o.custom[name]; ok {
		return customRank + i
	}
	if r, ok := fixedRank[name]; ok {
		return r
	}
	return otherRank
}

// sortLines puts header lines ("Name: value", in net/http's order) in o's
// order; lines of one name keep theirs.
func (o *fieldOrder) sortLines(lines [][]byte) {
	slices.SortStableFunc(lines, func(a, b []byte) int {
		return o.rank(fieldName(a)) - o.rank(fieldName(b))
	})
}

func fieldName(line []byte) string {
	name, _, _ := bytes.Cut(line, []byte(":"))
	return string(bytes.TrimSpace(name))
}

// reorderHead is head, a request head as net/http wrote it (the request
// line, the fields, an empty line, each ended by CRLF), with its fields in
// o's order.
func (o *fieldOrder) reorderHead(head []byte) []byte {
	lines := bytes.Split(bytes.TrimSuffix(head, []byte("\r\n\r\n")), []byte("\r\n"))
	if len(lines) < 3 {
		return head
	}
	fields := lines[1:]
	o.sortLines(fields)
	out := make([]byte, 0, len(head))
	for _, l := range lines {
		out = append(append(out, l...), '\r', '\n')
	}
	return append(out, '\r', '\n')
}
