package wais

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/wais/apdu"
	"github.com/urlget/urlget/fetch/wais/internal/capture"
	"github.com/urlget/urlget/internal/fuzzcheck"
	"github.com/urlget/urlget/urlparse"
)

// FuzzSearchResult: a search response of any bytes, as the client renders
// it: each document header makes one result line of seven fields that
// ParseHit reads back (the server's text sanitized), whose entry has a
// size of 0 or more and a URL, and whose text and JSON renderings are
// sanitized (the JSON one valid JSON); each diagnostic makes a sanitized
// error; and the work is bounded by the response.
func FuzzSearchResult(f *testing.F) {
	msgs, err := capture.Load()
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range msgs {
		if !m.ToServer && len(m.Bytes) > apdu.HeaderLen {
			f.Add(m.Bytes[apdu.HeaderLen:])
		}
	}
	hostile := apdu.AppendResponse(nil, apdu.Header{}, &apdu.Response{
		Headers: []apdu.DocHeader{
			{DocID: []byte("0 1 /srv/wais/data/apple.txt"), Score: 1000, Length: 124, Lines: 3, Types: []string{"TEXT"}, Date: "0", Headline: "apple.txt   /srv/wais/data/"},
			{DocID: []byte{0, 0xff, '\t', '\n'}, Types: []string{"a,b", "\x1b[31m", ""}, Date: "\x9b2J", Headline: "tab\there\nnewline"},
			{Types: []string{""}},
		},
		Diags: []apdu.Diag{{Code: "S1", Text: "\x1b]0;title\x07Database not available"}},
	})
	f.Add(hostile[apdu.HeaderLen:])
	u, err := urlparse.Parse("wais://127.0.0.1:2100/test?apple")
	if err != nil {
		f.Fatal(err)
	}
	p, err := makePlan(&fetch.Request{URL: &u})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a []byte) {
		var body []byte
		var r *apdu.Response
		fuzzcheck.Bounded(t, len(a), func() {
			if r, err = apdu.ParseResponse(a, 100); err != nil {
				return
			}
			for i := range r.Headers {
				body = appendHit(body, hitOf(p, &r.Headers[i]))
			}
		})
		if err != nil {
			return
		}
		for _, d := range r.Diags {
			fuzzcheck.Printable(t, "a diagnostic", diagError(p.url, d).Error())
		}
		lines := bytes.SplitAfter(body, []byte{'\n'})
		if len(body) > 0 && len(lines) != len(r.Headers)+1 {
			t.Fatalf("%d headers made %d lines: %q", len(r.Headers), len(lines)-1, body)
		}
		for i, line := range lines[:len(lines)-1] {
			checkHit(t, line, hitOf(p, &r.Headers[i]))
		}
	})
}

// checkHit checks a result line against the hit it was made of.
func checkHit(t *testing.T, line []byte, want Hit) {
	t.Helper()
	h, ok := ParseHit(line)
	if !ok {
		t.Fatalf("result line %q does not parse", line)
	}
	var types []string
	for _, ty := range want.Types {
		types = append(types, strings.ReplaceAll(field(ty), ",", "?"))
	}
	if len(types) == 1 && types[0] == "" {
		types = nil
	}
	if h.Score != want.Score || h.Length != want.Length || h.Lines != want.Lines || !slices.Equal(h.Types, types) ||
		h.Date != field(want.Date) || h.Headline != field(want.Headline) || h.URL != want.URL {
		t.Fatalf("result line %q reads as %+v, made of %+v", line, h, want)
	}
	// Not checked: the name. A header without a headline makes an entry
	// without a name (fetch/wais, left to its owner).
	if e := Listing(line); e.Unparsed || e.Size < 0 || e.URL == "" {
		t.Fatalf("result line %q lists as %+v", line, e)
	}
	fuzzcheck.Printable(t, "the text rendering", string(renderLine(nil, line, fetch.FormatText)))
	js := renderLine(nil, line, fetch.FormatJSON)
	fuzzcheck.Printable(t, "the JSON rendering", string(js))
	if !json.Valid(js) {
		t.Fatalf("JSON rendering %q", js)
	}
}
