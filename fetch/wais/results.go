package wais

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/wais/apdu"
	"github.com/urlget/urlget/urlparse"
)

// Hit is one document in a search result.
type Hit struct {
	Score    int64
	Length   int64 // bytes; -1 when the server did not say
	Lines    int64 // -1 when the server did not say
	Types    []string
	Date     string
	Headline string
	// URL is the document's wais:// URL in the form Lynx writes
	// (/database/TYPE/LENGTH/DOCID), which urlget and old WAIS clients
	// fetch.
	URL string
}

// The body of a search result is one line per hit, fields separated by
// TAB (server text has its control characters, TAB included, made "?"):
//
//	score TAB length TAB lines TAB types (comma-separated) TAB date TAB headline TAB url
const resultFields = 7

// ContentType is the Meta.ContentType of a search result's body.
const ContentType = "text/tab-separated-values"

func openSearch(ctx context.Context, cfg *fetch.Config, req *fetch.Request, p *plan) (*fetch.Resource, error) {
	res := &fetch.Resource{
		Meta:    fetch.Meta{Size: -1, ContentType: ContentType, EffectiveURL: p.url, Dir: true},
		Listing: Listing,
		Render:  Render,
	}
	if req.Head {
		res.Body = emptyBody()
		return res, nil
	}
	if req.Offset > 0 {
		// A result list is made anew: it is sent whole.
		res.Offset = 0
	}
	c, err := dial(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	defer c.close()
	if err := c.initialize(); err != nil {
		return nil, err
	}
	if p.words == "" {
		fetch.Logf(c.verbose, "> search %s with no words (the database's help records), at most %d", p.db, p.maxDocs)
	} else {
		fetch.Logf(c.verbose, "> search %s for %q, at most %d", p.db, p.words, p.maxDocs)
	}
	c.asked = "the search request"
	if err := c.write(apdu.AppendSearch(nil, p.db, p.words, uint32(p.maxDocs))); err != nil {
		return nil, err
	}
	a, err := c.read()
	if err != nil {
		return nil, err
	}
	if len(a) == 0 {
		return nil, c.protocol("the server sent an empty reply to the search (it could not answer it)")
	}
	r, err := apdu.ParseResponse(a, p.maxDocs)
	if err != nil {
		return nil, c.protocol("reading the search results: %v", err)
	}
	for _, d := range r.Diags {
		fetch.Logf(c.verbose, "< diagnostic %s: %s", d.Code, d.Text)
	}
	if len(r.Headers) == 0 && len(r.Diags) > 0 {
		return nil, diagError(p.url, r.Diags[0])
	}
	if len(r.Headers) == 0 && p.words == "" {
		// A database always has its help records: none means there is
		// no database of that name (freeWAIS-sf says nothing else).
		return nil, &fetch.Error{Kind: fetch.ErrNotFound, URL: p.url,
			Msg: fmt.Sprintf("wais: no such database %q on %s (the server returned no records, not even its help records)",
				fetch.SanitizeLine(p.db, 200), p.addr)}
	}
	fetch.Logf(c.verbose, "< %d documents", len(r.Headers))
	if r.More > 0 {
		fetch.Logf(c.verbose, "* %d more documents than asked for were dropped", r.More)
	}
	var body []byte
	for i := range r.Headers {
		body = appendHit(body, hitOf(p, &r.Headers[i]))
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, nil
}

// hitOf makes a Hit of a document header found through p.
func hitOf(p *plan, h *apdu.DocHeader) Hit {
	typ := "TEXT"
	if len(h.Types) > 0 && h.Types[0] != "" {
		typ = h.Types[0]
	}
	length := strconv.FormatUint(uint64(h.Length), 10)
	var u string
	// The fields form, when it gives back the very bytes (a length with
	// leading 0x80 bytes would come back shorter); else the bytes as they are.
	if fields, ok := apdu.DocIDFields(h.DocID); ok && bytes.Equal(apdu.AppendDocID(nil, fields), h.DocID) {
		u = urlparse.WAISDocFieldsURL(p.u.Host, p.u.Port, p.db, typ, length, fields)
	} else {
		u = urlparse.WAISDocURL(p.u.Host, p.u.Port, p.db, typ, length, string(h.DocID))
	}
	return Hit{Score: int64(h.Score), Length: int64(h.Length), Lines: int64(h.Lines), Types: h.Types,
		Date: h.Date, Headline: h.Headline, URL: u}
}

// field makes server text safe for one TAB-separated field.
func field(s string) string { return fetch.Sanitize(s) }

func appendHit(b []byte, h Hit) []byte {
	b = strconv.AppendInt(b, h.Score, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, h.Length, 10)
	b = append(b, '\t')
	b = strconv.AppendInt(b, h.Lines, 10)
	b = append(b, '\t')
	for i, t := range h.Types {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, strings.ReplaceAll(field(t), ",", "?")...)
	}
	b = append(b, '\t')
	b = append(b, field(h.Date)...)
	b = append(b, '\t')
	b = append(b, field(h.Headline)...)
	b = append(b, '\t')
	b = append(b, h.URL...)
	return append(b, '\n')
}

// ParseHit reads one line of a search result's body.
func ParseHit(line []byte) (Hit, bool) {
	f := strings.Split(strings.TrimRight(string(line), "\r\n"), "\t")
	if len(f) != resultFields {
		return Hit{}, false
	}
	var h Hit
	var err1, err2, err3 error
	h.Score, err1 = strconv.ParseInt(f[0], 10, 64)
	h.Length, err2 = strconv.ParseInt(f[1], 10, 64)
	h.Lines, err3 = strconv.ParseInt(f[2], 10, 64)
	if err := errors.Join(err1, err2, err3); err != nil || !strings.HasPrefix(f[6], "wais://") {
		return Hit{}, false
	}
	if f[3] != "" {
		h.Types = strings.Split(f[3], ",")
	}
	h.Date, h.Headline, h.URL = f[4], f[5], f[6]
	return h, true
}

// Listing parses one line of a search result into an Entry: the headline
// as its name, the document's length and URL.
func Listing(line []byte) fetch.Entry {
	h, ok := ParseHit(line)
	if !ok {
		return fetch.Entry{Raw: string(line), Unparsed: true, Size: -1}
	}
	t := fetch.EntryFile
	if len(h.Types) > 0 && h.Types[0] == "WSRC" {
		t = fetch.EntryOther
	}
	name := h.Headline
	if strings.TrimSpace(name) == "" {
		// A server may send a hit without a headline: the entry is named
		// as -O would name the document.
		name = hitName(h.URL)
		if name == "" {
			return fetch.Entry{Raw: string(line), Unparsed: true, Size: -1}
		}
	}
	return fetch.Entry{Name: name, Type: t, Size: h.Length, URL: h.URL, Raw: string(line), Score: h.Score}
}

// hitName is the file name of a hit's document URL (Fetcher.FileName),
// else the URL's last path segment as written; "" when it has neither.
func hitName(raw string) string {
	u, err := urlparse.Parse(raw)
	if err != nil {
		return ""
	}
	if name := (Fetcher{}).FileName(&u); name != "" {
		return name
	}
	p := strings.TrimRight(u.RawPath, "/")
	return p[strings.LastIndexByte(p, '/')+1:]
}

// hitJSON is a hit as FormatJSON writes it.
type hitJSON struct {
	Score    int64    `json:"score"`
	Headline string   `json:"headline"`
	Length   int64    `json:"length"`
	Lines    int64    `json:"lines"`
	Types    []string `json:"types"`
	Date     string   `json:"date"`
	URL      string   `json:"url"`
}

// Render writes a search result read from body: for FormatText two lines
// a hit,
//
//	[1000] apple.txt   /srv/wais/data/   (TEXT, 124 bytes, 3 lines)
//	       wais://127.0.0.1:2100/test/TEXT/124/1=vm%3A22100;…
//
// (a date other than freeWAIS's "0" is added in the parentheses); for
// FormatJSON one object a line:
//
//	{"score":1000,"headline":"apple.txt   /srv/wais/data/","length":124,"lines":3,"types":["TEXT"],"date":"0","url":"wais://…"}
//
// A line that is not a hit is written as it is. Write errors are
// *fetch.Error of Kind ErrWrite.
func Render(w io.Writer, body io.Reader, f fetch.Format) error {
	return fetch.Buffered(w, body, func(w io.Writer, body io.Reader) error {
		br := bufio.NewReaderSize(body, fetch.MaxLineLength)
		var out []byte
		for {
			line, err := br.ReadSlice('\n')
			if len(line) > 0 && (err == nil || err == io.EOF || err == bufio.ErrBufferFull) {
				out = renderLine(out[:0], line, f)
				if _, werr := w.Write(out); werr != nil {
					return werr
				}
			}
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n') // the rest of an over-long line
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
}

func renderLine(b, line []byte, f fetch.Format) []byte {
	h, ok := ParseHit(line)
	if !ok {
		b = append(b, fetch.Sanitize(strings.TrimRight(string(line), "\r\n"))...)
		return append(b, '\n')
	}
	if f == fetch.FormatJSON {
		types := h.Types
		if types == nil {
			types = []string{}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(hitJSON{Score: h.Score, Headline: h.Headline, Length: h.Length, Lines: h.Lines, Types: types, Date: h.Date, URL: h.URL})
		return append(b, buf.Bytes()...)
	}
	b = append(b, '[')
	b = strconv.AppendInt(b, h.Score, 10)
	b = append(b, "] "...)
	b = append(b, fetch.Sanitize(h.Headline)...)
	b = append(b, "   ("...)
	if len(h.Types) == 0 {
		b = append(b, "no type"...)
	}
	b = append(b, fetch.Sanitize(strings.Join(h.Types, ", "))...)
	b = append(b, ", "...)
	b = strconv.AppendInt(b, h.Length, 10)
	b = append(b, " bytes"...)
	if h.Lines > 0 {
		b = append(b, ", "...)
		b = strconv.AppendInt(b, h.Lines, 10)
		b = append(b, " lines"...)
	}
	if h.Date != "" && h.Date != "0" {
		b = append(b, ", "...)
		b = append(b, fetch.Sanitize(h.Date)...)
	}
	b = append(b, ")\n       "...)
	b = append(b, fetch.Sanitize(h.URL)...)
	return append(b, '\n')
}
