package waistest_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/wais/apdu"
	"github.com/urlget/urlget/fetch/wais/internal/capture"
	"github.com/urlget/urlget/fetch/wais/waistest"
	"github.com/urlget/urlget/urlparse"
)

// exchange sends the captured requests on one connection and returns the
// replies.
func exchange(t *testing.T, s *waistest.Server, reqs ...[]byte) [][]byte {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	var out [][]byte
	for _, r := range reqs {
		if _, err := c.Write(r); err != nil {
			t.Fatal(err)
		}
		h := make([]byte, apdu.HeaderLen)
		if _, err := io.ReadFull(br, h); err != nil {
			t.Fatal(err)
		}
		hd, err := apdu.ParseHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, hd.Length)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatal(err)
		}
		out = append(out, append(h, b...))
	}
	return out
}

// TestRepliesMatchCaptures: served like the captured freeWAIS-sf, the
// server answers the captured requests with the captured replies, byte
// for byte (where the capture holds the whole reply; the first bytes of a
// 10000-byte chunk otherwise).
func TestRepliesMatchCaptures(t *testing.T) {
	msgs, err := capture.Load()
	if err != nil {
		t.Fatal(err)
	}
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.CaptureDB()}, Name: "vm:22100", DBDir: "/tmp/wais-build/db/"})
	ws := capture.Find(msgs, 1, true)
	wr := capture.Find(msgs, 1, false)
	got := exchange(t, s, ws[2].Bytes, ws[3].Bytes)
	if !bytes.Equal(got[0], wr[2].Bytes) {
		t.Errorf("retrieval of apple.txt:\n got %x\nwant %x", got[0], wr[2].Bytes)
	}
	h, _ := apdu.ParseHeader(wr[3].Bytes)
	if len(got[1]) != apdu.HeaderLen+int(h.Length) || !bytes.HasPrefix(got[1], wr[3].Bytes) {
		t.Errorf("first chunk of big.txt: %d bytes (want %d), differs from the captured %d at %d",
			len(got[1]), apdu.HeaderLen+h.Length, len(wr[3].Bytes), diffAt(got[1], wr[3].Bytes))
	}
	bad := exchange(t, s, capture.Find(msgs, 4, true)[0].Bytes)
	if want := capture.Find(msgs, 4, false)[0].Bytes; !bytes.Equal(bad[0], want) {
		t.Errorf("search on nosuchdb:\n got %x\nwant %x", bad[0], want)
	}
	// The search: the same two documents, with the captured DocIDs.
	res := exchange(t, s, ws[1].Bytes)
	r, err := apdu.ParseResponse(res[0][apdu.HeaderLen:], 100)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := apdu.ParseResponse(wr[1].Bytes[apdu.HeaderLen:], 100)
	if len(r.Headers) != 2 {
		t.Fatalf("%d headers", len(r.Headers))
	}
	for i := range r.Headers {
		g, w := r.Headers[i], want.Headers[i]
		if !bytes.Equal(g.DocID, w.DocID) || g.Length != w.Length || g.Headline != w.Headline || g.Source != w.Source {
			t.Errorf("header %d: %+v, want %+v", i, g, w)
		}
	}
}

func diffAt(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestZeroLengthReply: a chunk larger than the buffer gets an empty
// message, and the connection goes on.
func TestZeroLengthReply(t *testing.T) {
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}, BufSize: 20000})
	sr := exchange(t, s, apdu.AppendSearch(nil, "test", "fox", 40))
	res, err := apdu.ParseResponse(sr[0][apdu.HeaderLen:], 10)
	if err != nil || len(res.Headers) == 0 || res.Headers[0].Length != 63237 {
		t.Fatalf("search: %+v, %v", res, err)
	}
	doc := res.Headers[0].DocID
	got := exchange(t, s,
		apdu.AppendRetrieval(nil, "test", doc, "TEXT", 0, 30000),
		apdu.AppendRetrieval(nil, "test", doc, "TEXT", 0, 10000),
		apdu.AppendRetrieval(nil, "test", doc, "TEXT", 63000, 64000),
		apdu.AppendRetrieval(nil, "test", doc, "TEXT", 70000, 80000))
	if len(got[0]) != apdu.HeaderLen {
		t.Errorf("over-size chunk: %d bytes, want an empty message", len(got[0]))
	}
	r1, err := apdu.ParseResponse(got[1][apdu.HeaderLen:], 0)
	if err != nil || len(r1.Text) != 10000 || len(r1.Diags) != 0 {
		t.Errorf("chunk after the empty message: %d bytes, %+v, %v", len(r1.Text), r1.Diags, err)
	}
	r2, _ := apdu.ParseResponse(got[2][apdu.HeaderLen:], 0)
	if len(r2.Text) != 237 || len(r2.Diags) != 1 || r2.Diags[0].Text != "Request out of range" {
		t.Errorf("chunk over the end: %d bytes, %+v", len(r2.Text), r2.Diags)
	}
	r3, _ := apdu.ParseResponse(got[3][apdu.HeaderLen:], 0)
	if r3.HasText || len(r3.Diags) != 1 || r3.Diags[0].Code != "SF" {
		t.Errorf("chunk past the end: %+v", r3)
	}
}

// TestRequestSentAhead: two requests written at once make the server close
// the connection without a reply, as freeWAIS-sf does; with Pipelined it
// answers both, in order.
func TestRequestSentAhead(t *testing.T) {
	for _, pipelined := range []bool{false, true} {
		s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}, Pipelined: pipelined})
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		two := apdu.AppendSearch(nil, "test", "fox", 40)
		two = apdu.AppendSearch(two, "test", "apple", 40)
		if _, err := c.Write(two); err != nil {
			t.Fatal(err)
		}
		c.(*net.TCPConn).CloseWrite() // the server's read ends after the two
		got, err := io.ReadAll(c)
		c.Close()
		switch {
		case err != nil:
			t.Errorf("pipelined %v: %v", pipelined, err)
		case !pipelined && (len(got) != 0 || s.ClosedAhead() != 1):
			t.Errorf("closed ahead %d, %d bytes of reply: want the connection closed without one", s.ClosedAhead(), len(got))
		case pipelined && s.ClosedAhead() != 0:
			t.Errorf("pipelined: closed ahead %d", s.ClosedAhead())
		}
		if pipelined && bytes.Count(got, []byte("z2wais")) != 2 {
			t.Errorf("pipelined: %d bytes, want two replies", len(got))
		}
	}
}

// TestDatabaseAndDocumentDiagnostics: freeWAIS-sf's answers to a missing
// database (no words: nothing at all; words: S1) and to retrievals it
// cannot serve (its own texts).
func TestDatabaseAndDocumentDiagnostics(t *testing.T) {
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}})
	got := exchange(t, s, apdu.AppendSearch(nil, "nosuchdb", "", 40), apdu.AppendSearch(nil, "nosuchdb", "apple", 40),
		apdu.AppendRetrieval(nil, "test", nil, "TEXT", 0, 10),
		apdu.AppendRetrieval(nil, "test", []byte("garbage"), "TEXT", 0, 10),
		apdu.AppendRetrieval(nil, "test", apdu.AppendDocID(nil, []urlparse.WAISField{{Tag: 3, Value: "0 5 /nowhere.txt"}}), "TEXT", 0, 10))
	want := []struct {
		records int
		diag    string
	}{{0, ""}, {1, "The following database is not available: /srv/wais/db/nosuchdb"},
		{1, waistest.MissingDocID}, {1, waistest.BadDocID}, {1, waistest.NotPresent}}
	for i, w := range want {
		r, err := apdu.ParseResponse(got[i][apdu.HeaderLen:], 10)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		diag := ""
		if len(r.Diags) > 0 {
			diag = r.Diags[0].Text
		}
		if r.Returned != w.records || len(r.Headers) != 0 || diag != w.diag {
			t.Errorf("reply %d: %d records, %d headers, diagnostic %q; want %d, %q", i, r.Returned, len(r.Headers), diag, w.records, w.diag)
		}
	}
}
