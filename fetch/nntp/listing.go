package nntp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// ArticleEntry is one line of a group's article listing.
type ArticleEntry struct {
	Number  int64  `json:"number"`
	Date    string `json:"date"` // RFC 3339 UTC, or the server's text when it did not parse
	Author  string `json:"author"`
	Subject string `json:"subject"`
	URL     string `json:"url"` // nntp://host:port/group/number
}

// GroupEntry is one line of a group listing (news:*, news:comp.*).
type GroupEntry struct {
	Name        string `json:"group"`
	High        int64  `json:"high"`
	Low         int64  `json:"low"`
	Status      string `json:"status"` // y, n, m, x, j or =other.group
	Description string `json:"description,omitempty"`
	URL         string `json:"url"` // nntp://host:port/group
}

// ErrNotListing is returned for a line that is neither an article nor a
// group listing line.
var ErrNotListing = errors.New("nntp: not a listing line")

func splitLine(line []byte) []string {
	s := strings.TrimRight(string(line), "\r\n")
	return strings.Split(s, "\t")
}

// ParseArticleLine parses one line of an article listing.
func ParseArticleLine(line []byte) (ArticleEntry, error) {
	f := splitLine(line)
	if len(f) != 5 {
		return ArticleEntry{}, ErrNotListing
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return ArticleEntry{}, ErrNotListing
	}
	return ArticleEntry{Number: n, Date: f[1], Author: f[2], Subject: f[3], URL: f[4]}, nil
}

// ParseGroupLine parses one line of a group listing.
func ParseGroupLine(line []byte) (GroupEntry, error) {
	f := splitLine(line)
	if len(f) != 6 || f[0] == "" {
		return GroupEntry{}, ErrNotListing
	}
	high, e1 := strconv.ParseInt(f[1], 10, 64)
	low, e2 := strconv.ParseInt(f[2], 10, 64)
	if e1 != nil || e2 != nil {
		return GroupEntry{}, ErrNotListing
	}
	return GroupEntry{Name: f[0], High: high, Low: low, Status: f[3], Description: f[4], URL: f[5]}, nil
}

// entryOf is Resource.Listing for both kinds of listing: an article is a
// file named by its number, a group a directory named by the group.
func entryOf(line []byte) fetch.Entry {
	raw := strings.TrimRight(string(line), "\r\n")
	if a, err := ParseArticleLine(line); err == nil {
		e := fetch.Entry{Name: strconv.FormatInt(a.Number, 10), Type: fetch.EntryFile, Size: -1, URL: a.URL, Raw: raw,
			Title: a.Subject, Author: a.Author}
		if t, err := time.Parse(time.RFC3339, a.Date); err == nil {
			e.ModTime = t
		}
		return e
	}
	if g, err := ParseGroupLine(line); err == nil {
		return fetch.Entry{Name: g.Name, Type: fetch.EntryDir, Size: -1, URL: g.URL, Raw: raw, Title: g.Description}
	}
	return fetch.Entry{Raw: raw, Unparsed: true, Size: -1}
}

// WriteJSON reads a listing (the Body of a news:group, news:* or nntp://
// group result) and writes one JSON object per line (JSON Lines): an
// ArticleEntry or a GroupEntry. A line that is neither fails with
// ErrNotListing.
func WriteJSON(w io.Writer, listing io.Reader) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	br := bufio.NewReaderSize(listing, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// Listing lines are at most a few server lines long; a longer
			// one is not a listing.
			return ErrNotListing
		}
		if len(bytes.TrimRight(line, "\r\n")) > 0 {
			if a, e := ParseArticleLine(line); e == nil {
				if e := enc.Encode(a); e != nil {
					return e
				}
			} else if g, e := ParseGroupLine(line); e == nil {
				if e := enc.Encode(g); e != nil {
					return e
				}
			} else {
				return ErrNotListing
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// escapeSegment percent-encodes s for one URL path segment: everything but
// RFC 3986 pchar.
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isPchar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func isPchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@", c) >= 0
}
