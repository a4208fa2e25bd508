package wais_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/wais"
	"github.com/urlget/urlget/fetch/wais/apdu"
	"github.com/urlget/urlget/fetch/wais/waistest"
	"github.com/urlget/urlget/urlparse"
)

// sizesDB holds documents around the chunk boundaries of waissearch and
// of the server's buffer.
var sizesDB = &waistest.DB{Name: "sizes", Description: "documents of awkward sizes", Docs: []*waistest.Doc{
	{Name: "b1.bin", Type: "BINARY", Data: waistest.Bytes(1, 1)},
	{Name: "b10000.bin", Type: "BINARY", Data: waistest.Bytes(10_000, 2)},
	{Name: "b10001.bin", Type: "BINARY", Data: waistest.Bytes(10_001, 3)},
	{Name: "b300k.bin", Type: "BINARY", Data: waistest.Bytes(300_000, 4)},
	{Name: "b5m.bin", Type: "BINARY", Data: waistest.Bytes(5_000_000, 5)},
}}

// rfcForm is h's URL in RFC 1738's form: no LENGTH.
func rfcForm(t *testing.T, h wais.Hit) string {
	t.Helper()
	u, err := urlparse.Parse(h.URL)
	if err != nil {
		t.Fatal(err)
	}
	return urlparse.WAISDocFieldsURL(u.Host, u.Port, u.WAIS.Database, u.WAIS.DocType, "", u.WAIS.DocFields)
}

// TestRealServerDocuments: against a server that, like freeWAIS-sf,
// closes the connection on a request sent ahead, every document arrives
// byte for byte by Lynx's URL and by RFC 1738's, one request at a time.
func TestRealServerDocuments(t *testing.T) {
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{sizesDB}})
	for _, f := range []wais.Fetcher{{}, {ChunkSize: wais.LockstepChunkSize}} {
		c := client(f, nil)
		hits := search(t, c, s.URL("sizes?b"))
		for _, d := range sizesDB.Docs {
			h, ok := find(hits, d.Name)
			if !ok {
				t.Fatalf("no hit for %s", d.Name)
			}
			for _, url := range []string{h.URL, rfcForm(t, h)} {
				_, got, err := fetchAll(t, c, url)
				if err != nil || !bytes.Equal(got, d.Data) {
					t.Errorf("chunk %d: %s: %d bytes of %d, %v", f.ChunkSize, url[:min(len(url), 60)], len(got), len(d.Data), err)
				}
			}
		}
	}
	if n := s.ClosedAhead(); n != 0 {
		t.Errorf("%d connections closed on requests sent ahead", n)
	}
}

// TestRequestsSentAhead: sending ahead is an option, for servers that
// take it; freeWAIS-sf closes the connection, and the error says after
// what.
func TestRequestsSentAhead(t *testing.T) {
	piped := client(wais.Fetcher{ChunkSize: wais.LockstepChunkSize, Window: 4}, nil)
	for _, pipelined := range []bool{true, false} {
		s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{sizesDB}, Pipelined: pipelined})
		h, _ := find(search(t, piped, s.URL("sizes?b")), "b300k.bin")
		_, got, err := fetchAll(t, piped, h.URL)
		if pipelined {
			if err != nil || !bytes.Equal(got, sizesDB.Docs[3].Data) {
				t.Errorf("pipelined server: %d bytes, %v", len(got), err)
			}
			continue
		}
		if fetch.KindOf(err) != fetch.ErrPartial || !strings.Contains(err.Error(), "the server closed the connection after the retrieval request for bytes 0–10000") ||
			s.ClosedAhead() != 1 {
			t.Errorf("freeWAIS-sf-like server: %v (closed ahead %d)", err, s.ClosedAhead())
		}
	}
}

// TestChunkShrinks: a server whose buffer is smaller than the first chunk
// (it refuses the Init, so the client cannot know) answers it with empty
// messages; the chunk is halved until a reply comes, and that size is
// kept for the rest of the document.
func TestChunkShrinks(t *testing.T) {
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{sizesDB}, Mode: waistest.RejectInit, BufSize: 30000})
	c := client(wais.Fetcher{}, nil)
	h, _ := find(search(t, c, s.URL("sizes?b")), "b300k.bin")
	before := len(s.Requests())
	_, got, err := fetchAll(t, c, h.URL)
	if err != nil || !bytes.Equal(got, sizesDB.Docs[3].Data) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
	var widths []int64
	for _, m := range s.Requests()[before:] {
		a := m[apdu.HeaderLen:]
		if apdu.PDUType(a) != apdu.PDUSearch {
			continue
		}
		q, err := apdu.ParseSearch(a)
		if err != nil {
			t.Fatal(err)
		}
		widths = append(widths, q.End-q.Start)
	}
	// Too big twice (buffer 30000), then one size to the end.
	if len(widths) < 4 || widths[0] <= 2*widths[2] || widths[1] != widths[0]/2 || widths[2] != widths[1]/2 || widths[2] > 30000 {
		t.Fatalf("chunk widths %v", widths)
	}
	for i, w := range widths[3 : len(widths)-1] {
		if w != widths[2] {
			t.Errorf("chunk %d asked for %d bytes, not the %d that worked", i+3, w, widths[2])
		}
	}
}

// TestNotFoundDiagnostics: freeWAIS-sf's diagnostics for a document it
// cannot serve, and a missing database (no records, no diagnostic), are
// "not found" (exit 78); a crash before the reply says what was asked.
func TestNotFoundDiagnostics(t *testing.T) {
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{sizesDB}})
	c := client(wais.Fetcher{}, nil)
	h, _ := find(search(t, c, s.URL("sizes?b")), "b1.bin")
	u, _ := urlparse.Parse(h.URL)
	missing := urlparse.WAISDocFieldsURL(u.Host, u.Port, "sizes", "BINARY", "1",
		[]urlparse.WAISField{{Tag: 2, Value: "/srv/wais/db/sizes"}, {Tag: 3, Value: "0 1 /srv/wais/data/gone.bin"}})
	for _, tc := range []struct{ url, text string }{
		{s.URL("sizes/TEXT/5/junk"), waistest.BadDocID},
		{missing, waistest.NotPresent},
		{strings.Replace(h.URL, "/sizes/", "/nosuchdb/", 1), waistest.NotPresent},
	} {
		_, _, err := fetchAll(t, c, tc.url)
		var se *wais.ServerError
		if fetch.KindOf(err) != fetch.ErrNotFound || !errors.As(err, &se) || se.Text != tc.text {
			t.Errorf("%s: %v, want not found: %q", tc.url, err, tc.text)
		}
	}
	_, _, err := fetchAll(t, c, s.URL("nosuchdb"))
	if fetch.KindOf(err) != fetch.ErrNotFound || !strings.Contains(err.Error(), `no such database "nosuchdb"`) {
		t.Errorf("missing database: %v", err)
	}
	if _, _, err := fetchAll(t, c, s.URL("sizes")); err != nil {
		t.Errorf("database without words: %v", err)
	}

	crash := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{sizesDB}, Mode: waistest.Crash})
	_, _, err = fetchAll(t, c, "wais://"+crash.Addr()+u.RawPath)
	if fetch.KindOf(err) != fetch.ErrPartial || !strings.Contains(err.Error(), "the server closed the connection after the retrieval request for bytes 0–1") {
		t.Errorf("crash: %v", err)
	}
	_, _, err = fetchAll(t, c, crash.URL("sizes?b"))
	if !strings.Contains(errText(err), "after the search request") {
		t.Errorf("crash on a search: %v", err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestFileName: -O's name is the file name in the DocID's local id,
// decoded and made safe; "" when there is none.
func TestFileName(t *testing.T) {
	for _, tc := range []struct{ docid, want string }{
		{"2=/db/test;3=0%20124%20/srv/wais/data/apple.txt;7=%00;", "apple.txt"},
		{"3=0%2012%20/data/odd%3Bname%3Dx%2541%2By%26z%23q.txt;", "odd;name=x%41+y&z#q.txt"},
		{"2=test;3=0%200%20/srv/wais/db/test.src;7=%00;", "test.src"},
		{"3=0%201%20/data/.hidden;", "_hidden"},
		{"3=0%201%20/data/a%01b;", "a_b"},
		{"3=0%201%20/data/..;6=0%201%20/data/d.txt;", "_."},
		{"3=junk;6=0%201%20/data/d.txt;", "d.txt"},
		{"2=/db/test;7=%00;", ""},
	} {
		u, err := urlparse.Parse("wais://h/test/TEXT/5/" + tc.docid)
		if err != nil {
			t.Fatal(err)
		}
		if got := (wais.Fetcher{}).FileName(&u); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.docid, got, tc.want)
		}
	}
	if u, _ := urlparse.Parse("wais://h/test?words"); (wais.Fetcher{}).FileName(&u) != "" {
		t.Errorf("a search has a file name")
	}
}
