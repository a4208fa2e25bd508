package nntp

import (
	"bytes"
	"errors"
	"io"
	"net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// openArticle sends ARTICLE (HEAD, BODY) for spec, a <message-id> or an
// article number in the selected group, and streams the reply's data.
//
// Request.Head sends HEAD and gives metadata only, as the fetch contract
// asks of every scheme: the body is empty, ModTime is the article's Date.
// Options["nntp-head"] sends HEAD and gives the header block as the body.
func openArticle(c *conn, req *fetch.Request, t *target, spec string) (*fetch.Resource, error) {
	cmd, want, ctype := "ARTICLE", 220, "message/rfc822"
	switch {
	case req.Head || t.head:
		cmd, want, ctype = "HEAD", 221, "text/plain"
	case t.body:
		cmd, want, ctype = "BODY", 222, "text/plain"
	}
	r, err := c.do(cmd + " " + spec)
	if err != nil {
		return nil, err
	}
	if r.code != want {
		return nil, replyError(cmd, r)
	}
	if req.Head {
		h, err := readHeaders(c)
		if err != nil {
			return nil, err
		}
		c.quit()
		meta := fetch.Meta{Size: -1, ContentType: "message/rfc822", Status: r.code}
		if d, err := parseDate(h.date); err == nil {
			meta.ModTime = d
		}
		return &fetch.Resource{Meta: meta, Body: io.NopCloser(bytes.NewReader(nil))}, nil
	}
	dr := newDotReader(c)
	b := &body{r: fetch.SkipReader(fetch.TextReader(dr, req.Options), req.Offset, "nntp: cannot resume: the article is shorter than the part already held"),
		c: c, complete: dr.Ended}
	return &fetch.Resource{
		Meta: fetch.Meta{Size: -1, ContentType: ctype, Status: r.code, Offset: req.Offset},
		Body: b,
	}, nil
}

// groupInfo is a GROUP reply (RFC 3977 §6.1.1).
type groupInfo struct {
	count, low, high int64
}

// selectGroup sends GROUP and parses its 211 reply.
func selectGroup(c *conn, group string) (groupInfo, error) {
	r, err := c.do("GROUP " + group)
	if err != nil {
		return groupInfo{}, err
	}
	if r.code != 211 {
		return groupInfo{}, replyError("GROUP", r)
	}
	f := strings.Fields(r.text())
	var g groupInfo
	var errs [3]error
	if len(f) >= 3 {
		g.count, errs[0] = strconv.ParseInt(f[0], 10, 64)
		g.low, errs[1] = strconv.ParseInt(f[1], 10, 64)
		g.high, errs[2] = strconv.ParseInt(f[2], 10, 64)
	}
	if len(f) < 3 || errs[0] != nil || errs[1] != nil || errs[2] != nil || g.count < 0 || g.low < 0 || g.high < 0 {
		return groupInfo{}, protoError("GROUP", r)
	}
	return g, nil
}

// lineReader makes a Reader of a function producing one line at a time.
type lineReader struct {
	next func() ([]byte, error)
	buf  []byte
	err  error
}

func (l *lineReader) Read(p []byte) (int, error) {
	for len(l.buf) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		l.buf, l.err = l.next()
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

func listingResource(c *conn, status int, next func() ([]byte, error), done func() bool, parse func([]byte) fetch.Entry) *fetch.Resource {
	return &fetch.Resource{
		Meta:    fetch.Meta{Size: -1, ContentType: "text/plain; charset=utf-8", Status: status, Dir: true},
		Body:    &body{r: &lineReader{next: next}, c: c, complete: done},
		Listing: parse,
		Render:  render,
	}
}

// render presents a listing: as received for a person, JSON lines for a
// script (WriteJSON).
func render(w io.Writer, body io.Reader, f fetch.Format) error {
	if f == fetch.FormatJSON {
		return fetch.Buffered(w, body, WriteJSON)
	}
	if _, err := io.Copy(w, body); err != nil {
		return err
	}
	return nil
}

// dataListing is a listing made of the data lines of the reply just read
// (status), each formatted by format as a listing line; a line format
// gives nil for is one the server got wrong, and is left out.
func dataListing(c *conn, status int, format func(line []byte) []byte) *fetch.Resource {
	done := false
	next := func() ([]byte, error) {
		for {
			line, err := c.readDataLine()
			if err == io.EOF {
				done = true
			}
			if err != nil {
				return nil, err
			}
			if out := format(line); out != nil {
				return out, nil
			}
		}
	}
	return listingResource(c, status, next, func() bool { return done }, entryOf)
}

func emptyListing(c *conn, status int) *fetch.Resource {
	return listingResource(c, status, func() ([]byte, error) { return nil, io.EOF }, func() bool { return true }, entryOf)
}

// openGroup lists the newest articles of a group: GROUP, then OVER (XOVER,
// HEAD per article) on the range.
func openGroup(c *conn, req *fetch.Request, t *target) (*fetch.Resource, error) {
	g, err := selectGroup(c, t.group)
	if err != nil {
		return nil, err
	}
	res, err := openRange(c, req, t, g)
	if res != nil {
		res.Header = g.header()
	}
	return res, err
}

// header is a GROUP reply as a listing's Meta.Header.
func (g groupInfo) header() fetch.Header {
	return fetch.Header{{Name: "Count", Value: strconv.FormatInt(g.count, 10)},
		{Name: "Low", Value: strconv.FormatInt(g.low, 10)}, {Name: "High", Value: strconv.FormatInt(g.high, 10)}}
}

// GroupNumbers reads the GROUP reply's numbers from a group listing's
// Meta (see the package documentation); ok is false for any other result.
func GroupNumbers(m *fetch.Meta) (count, low, high int64, ok bool) {
	var errs [3]error
	count, errs[0] = strconv.ParseInt(m.Header.Get("Count"), 10, 64)
	low, errs[1] = strconv.ParseInt(m.Header.Get("Low"), 10, 64)
	high, errs[2] = strconv.ParseInt(m.Header.Get("High"), 10, 64)
	return count, low, high, errs[0] == nil && errs[1] == nil && errs[2] == nil
}

// openRange lists the articles of the selected group g that the request
// asks for: the newest t.maxArts up to t.last (the group's highest when
// 0).
func openRange(c *conn, req *fetch.Request, t *target, g groupInfo) (*fetch.Resource, error) {
	high := g.high
	if t.last > 0 {
		high = min(high, t.last)
	}
	if req.Head || g.count == 0 || g.high < g.low || high == 0 || high < g.low {
		return emptyListing(c, 211), nil
	}
	first := g.low
	if t.maxArts > 0 && high-t.maxArts+1 > first {
		first = high - t.maxArts + 1
	}
	rng := strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(high, 10)
	base := t.scheme + "://" + t.hostPort() + "/" + escapeSegment(t.group) + "/"

	// OVER (RFC 3977), then XOVER (RFC 2980) for older servers.
	cmds := []string{"OVER", "XOVER"}
	if c.caps != nil && !c.hasCap("OVER") {
		cmds = []string{"XOVER"}
	}
	for _, cmd := range cmds {
		r, err := c.do(cmd + " " + rng)
		if err != nil {
			return nil, err
		}
		switch r.code {
		case 224:
			return dataListing(c, r.code, func(line []byte) []byte { return overviewLine(line, base) }), nil
		case 420, 423:
			return emptyListing(c, r.code), nil
		case 500, 501, 503:
			continue // not supported here: try the next way
		default:
			return nil, replyError(cmd, r)
		}
	}
	// No overview: HEAD each article of the range.
	cur, done := first, false
	next := func() ([]byte, error) {
		for cur <= high {
			n := cur
			cur++
			out, err := headLine(c, n, base)
			if err != nil {
				return nil, err
			}
			if out != nil {
				return out, nil
			}
		}
		done = true
		return nil, io.EOF
	}
	return listingResource(c, 211, next, func() bool { return done }, entryOf), nil
}

// overviewLine formats one OVER line (number, subject, from, date, …) as a
// listing line; nil for a line that does not parse.
func overviewLine(line []byte, base string) []byte {
	f := bytes.SplitN(line, []byte{'\t'}, 5)
	if len(f) < 4 {
		return nil
	}
	n, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil || n < 0 {
		return nil
	}
	return formatArticle(n, string(f[3]), string(f[2]), string(f[1]), base)
}

// formatArticle is one article listing line.
func formatArticle(n int64, date, from, subject, base string) []byte {
	num := strconv.FormatInt(n, 10)
	var b bytes.Buffer
	b.WriteString(num)
	b.WriteByte('\t')
	b.WriteString(listDate(date))
	b.WriteByte('\t')
	b.WriteString(field(from))
	b.WriteByte('\t')
	b.WriteString(field(subject))
	b.WriteByte('\t')
	b.WriteString(base)
	b.WriteString(num)
	b.WriteByte('\n')
	return b.Bytes()
}

// field makes server text safe for one listing field.
func field(s string) string { return fetch.Sanitize(strings.TrimSpace(s)) }

// listDate is RFC 3339 UTC when the Date header parses, the text otherwise.
func listDate(s string) string {
	if t, err := parseDate(s); err == nil {
		return t.UTC().Format(time.RFC3339)
	}
	return field(s)
}

// maxDateLen bounds the Date text parseDate tries: the longest RFC 5322
// date with a zone comment is well under it, and a failed time.Parse
// copies its input into the error, once for each of mail.ParseDate's
// dozens of layouts — 48 copies of whatever a hostile server sends.
const maxDateLen = 128

// errNoDate is parseDate's answer to a text too long to be a date.
var errNoDate = errors.New("nntp: not a date")

// parseDate parses an RFC 5322 date, the usual forms first: mail.ParseDate
// alone is slow on a million overview lines.
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if len(s) > maxDateLen {
		return time.Time{}, errNoDate
	}
	for _, layout := range []string{"Mon, 2 Jan 2006 15:04:05 -0700", "2 Jan 2006 15:04:05 -0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return mail.ParseDate(s)
}

// maxHeaderField bounds the value kept of a header read from a HEAD reply.
const maxHeaderField = 4096

// headers are the fields the client reads from a HEAD reply.
type headers struct{ subject, from, date string }

// readHeaders reads the data of a HEAD reply, keeping Subject, From and
// Date (unfolded, each at most maxHeaderField bytes). A value grows in
// place, so that a server folding one header over many lines costs no
// more than the lines it sends.
func readHeaders(c *conn) (headers, error) {
	var vals [3][]byte
	var seen [3]bool
	add := func(i int, b []byte) {
		vals[i] = append(vals[i], b[:min(len(b), maxHeaderField-len(vals[i]))]...)
	}
	cur := -1
	for {
		line, err := c.readDataLine()
		if err == io.EOF {
			return headers{subject: string(vals[0]), from: string(vals[1]), date: string(vals[2])}, nil
		}
		if err != nil {
			return headers{}, err
		}
		if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			if cur >= 0 {
				add(cur, []byte{' '})
				add(cur, bytes.TrimSpace(line))
			}
			continue
		}
		cur = -1
		name, value, ok := bytes.Cut(line, []byte{':'})
		if !ok {
			continue
		}
		var i int
		switch strings.ToLower(string(name)) {
		case "subject":
			i = 0
		case "from":
			i = 1
		case "date":
			i = 2
		default:
			continue
		}
		if !seen[i] {
			seen[i] = true
			add(i, bytes.TrimSpace(value))
			cur = i
		}
	}
}

// headLine HEADs article n and formats its listing line; nil when the
// article is gone.
func headLine(c *conn, n int64, base string) ([]byte, error) {
	r, err := c.do("HEAD " + strconv.FormatInt(n, 10))
	if err != nil {
		return nil, err
	}
	switch r.code {
	case 221:
	case 420, 423, 430:
		return nil, nil
	default:
		return nil, replyError("HEAD", r)
	}
	h, err := readHeaders(c)
	if err != nil {
		return nil, err
	}
	return formatArticle(n, h.date, h.from, h.subject, base), nil
}

// openGroups lists groups: LIST ACTIVE [wildmat], with descriptions from
// LIST NEWSGROUPS when asked.
func openGroups(c *conn, req *fetch.Request, t *target) (*fetch.Resource, error) {
	if req.Head {
		return emptyListing(c, 0), nil
	}
	arg := ""
	if t.wildmat != "" {
		arg = " " + t.wildmat
	}
	var desc map[string]string
	if t.describe {
		var err error
		if desc, err = descriptions(c, arg); err != nil {
			return nil, err
		}
	}
	r, err := c.do("LIST ACTIVE" + arg)
	if err != nil {
		return nil, err
	}
	if (r.code == 500 || r.code == 501) && arg == "" {
		// RFC 977 servers: plain LIST is the active file.
		if r, err = c.do("LIST"); err != nil {
			return nil, err
		}
	}
	if r.code != 215 {
		return nil, replyError("LIST ACTIVE", r)
	}
	base := t.scheme + "://" + t.hostPort() + "/"
	return dataListing(c, r.code, func(line []byte) []byte {
		f := strings.Fields(string(line))
		if len(f) < 4 {
			return nil
		}
		name := f[0]
		high, e1 := strconv.ParseInt(f[1], 10, 64)
		low, e2 := strconv.ParseInt(f[2], 10, 64)
		if e1 != nil || e2 != nil || strings.ContainsAny(name, "\t") {
			return nil
		}
		var b bytes.Buffer
		b.WriteString(field(name))
		b.WriteByte('\t')
		b.WriteString(strconv.FormatInt(high, 10))
		b.WriteByte('\t')
		b.WriteString(strconv.FormatInt(low, 10))
		b.WriteByte('\t')
		b.WriteString(field(f[3]))
		b.WriteByte('\t')
		b.WriteString(field(desc[name]))
		b.WriteByte('\t')
		b.WriteString(base)
		b.WriteString(escapeSegment(name))
		b.WriteByte('\n')
		return b.Bytes()
	}), nil
}

// MaxDescriptions bounds the bytes of group descriptions held while a
// described group listing is built.
const MaxDescriptions = 16 << 20

// descriptions reads LIST NEWSGROUPS [wildmat] into a map; a server that
// cannot gives no descriptions.
func descriptions(c *conn, arg string) (map[string]string, error) {
	r, err := c.do("LIST NEWSGROUPS" + arg)
	if err != nil {
		return nil, err
	}
	if r.code != 215 {
		if r.code == 480 || r.code == 481 || r.code == 502 {
			return nil, replyError("LIST NEWSGROUPS", r)
		}
		return nil, nil
	}
	m := map[string]string{}
	total := 0
	for {
		line, err := c.readDataLine()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, err
		}
		i := bytes.IndexAny(line, " \t")
		if i <= 0 {
			continue
		}
		name, d := string(line[:i]), strings.TrimSpace(string(line[i:]))
		total += len(name) + len(d) + 64
		if total > MaxDescriptions {
			return nil, &fetch.Error{Kind: fetch.ErrTooLarge, Msg: "nntp: LIST NEWSGROUPS: group descriptions over " + strconv.Itoa(MaxDescriptions>>20) + " MiB"}
		}
		m[name] = d
	}
}
