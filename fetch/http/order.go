package http

import (
	"bytes"
	"slices"
	"strings"

	"github.com/urlget/urlget/fetch"
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

// custom is what the -H lines (OptHeader) say of the head: the
// lower-case names, in order, each once (the fields placed as given), and
// the lines that send a field, each to go out as given (curl writes them
// so: a value's trailing spaces, no space after the colon).
type custom struct {
	names []string
	lines []string
	// zeroLength: the request has an empty body, which curl frames with
	// "Content-Length: 0" whatever the method (net/http writes none for
	// a GET).
	zeroLength bool
	// te: the request asks for a transfer coding (OptTransferCoding):
	// its Connection field goes just before TE, as curl writes both.
	te bool
	// userAgent is the User-Agent configured (Config.UserAgent), to go
	// out as given: net/http trims the spaces and tabs at a value's ends,
	// curl sends them (a line break is never written: net/http's value
	// stands then).
	userAgent string
	// emptyHost: the first Host line is "Host;", the field sent empty,
	// as curl sends it (net/http always writes the URL's host).
	emptyHost bool
}

func customFields(lines []string) custom {
	var c custom
	host := false
	for _, line := range lines {
		name, val, send, ok := fetch.HeaderLine(line)
		if !ok {
			continue
		}
		name = strings.ToLower(name)
		if name == "host" {
			if !host {
				host, c.emptyHost = true, send && val == "" // the first Host line decides
			}
			continue
		}
		if !slices.Contains(c.names, name) {
			c.names = append(c.names, name)
		}
		if send && strings.Contains(line, ":") { // "Name;" goes as "Name:"
			c.lines = append(c.lines, line)
		}
	}
	return c
}

// asGiven is the -H line that field l (net/http's "Name: value") came
// from, the first of c.lines not yet used (used) of that name and that
// value once trimmed; l itself when there is none (a field urlget wrote,
// or one masked for the verbose log).
func (c custom) asGiven(l []byte, used []bool) []byte {
	name, val, _ := bytes.Cut(l, []byte(":"))
	for i, line := range c.lines {
		if used[i] {
			continue
		}
		n, v, _, _ := fetch.HeaderLine(line)
		if strings.EqualFold(n, string(name)) && strings.TrimSpace(v) == string(bytes.TrimSpace(val)) {
			used[i] = true
			return []byte(line)
		}
	}
	return l
}

// givenAgent is the User-Agent field l as c.userAgent was given, when l is
// that value trimmed; l itself otherwise.
func (c custom) givenAgent(l []byte) []byte {
	_, val, _ := bytes.Cut(l, []byte(":"))
	ua := c.userAgent
	if ua == "" || strings.ContainsAny(ua, "\r\n\x00") || strings.TrimSpace(ua) != string(bytes.TrimSpace(val)) {
		return l
	}
	return []byte("User-Agent: " + ua)
}

// curlOrder returns the HTTP/1.x request head (request line, fields,
// empty line) with its fields in curl's order, c naming the -H fields
// (customFields), each of which goes out as its -H line was given; a
// field with an empty value is written "Name:", as curl writes "-H
// Name;". A head it cannot read is returned as it is.
func curlOrder(head []byte, c custom) []byte {
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
		f := field{line: l, rank: rankCustom, sub: len(c.names)}
		if j := slices.Index(c.names, name); j >= 0 {
			f.sub = j
		} else if r, ok := curlRank[name]; ok {
			f.rank, f.sub = r, 0
		}
		if name == "host" {
			f.rank, f.sub = 0, 0
			if c.emptyHost {
				f.line = []byte("Host:")
			}
		}
		if name == "connection" && c.te {
			f.rank, f.sub = curlRank["te"], -1
		}
		if len(bytes.TrimSpace(l[i+1:])) == 0 {
			f.line = l[:i+1]
		}
		fields = append(fields, f)
	}
	if c.zeroLength && !slices.ContainsFunc(fields, func(f field) bool {
		name, _, _ := bytes.Cut(f.line, []byte(":"))
		return bytes.EqualFold(name, []byte("Content-Length")) || bytes.EqualFold(name, []byte("Transfer-Encoding"))
	}) {
		fields = append(fields, field{line: []byte("Content-Length: 0"), rank: curlRank["content-length"]})
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
	used := make([]bool, len(c.lines))
	for _, f := range fields {
		if f.rank == rankCustom {
			f.line = c.asGiven(f.line, used)
		} else if f.rank == curlRank["user-agent"] {
			f.line = c.givenAgent(f.line)
		}
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
