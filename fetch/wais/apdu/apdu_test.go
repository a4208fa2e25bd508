package apdu_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/wais/apdu"
	"github.com/urlget/urlget/fetch/wais/internal/capture"
	"github.com/urlget/urlget/urlparse"
)

func load(t *testing.T) []capture.Message {
	t.Helper()
	msgs, err := capture.Load()
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

func body(t *testing.T, m capture.Message) []byte {
	t.Helper()
	if !m.Complete() {
		t.Fatalf("capture of %d bytes holds %d", m.Size, len(m.Bytes))
	}
	h, err := apdu.ParseHeader(m.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if int(h.Length) != len(m.Bytes)-apdu.HeaderLen {
		t.Fatalf("header says %d, capture holds %d", h.Length, len(m.Bytes)-apdu.HeaderLen)
	}
	return m.Bytes[apdu.HeaderLen:]
}

func TestCInt(t *testing.T) {
	for v, want := range map[int]string{0: "00", 99: "63", 127: "7f", 128: "8100", 131: "8103", 150: "8116",
		153: "8119", 251: "817b", 485: "8365", 10000: "ce10", 10162: "cf32", 16384: "818000", apdu.MaxCInt: "ffffff7f"} {
		b := apdu.AppendCInt(nil, v)
		if got := strings.ToLower(string(hexOf(b))); got != want {
			t.Errorf("AppendCInt(%d) = %s, want %s", v, got, want)
		}
		got, n, err := apdu.CInt(append(b, 0x55))
		if err != nil || got != v || n != len(b) {
			t.Errorf("CInt(%x) = %d, %d, %v", b, got, n, err)
		}
	}
	for _, bad := range [][]byte{nil, {0x81}, {0xff, 0xff, 0xff, 0xff, 0x01}} {
		if _, _, err := apdu.CInt(bad); !errors.Is(err, apdu.ErrFormat) {
			t.Errorf("CInt(%x): %v", bad, err)
		}
	}
}

func hexOf(b []byte) []byte {
	const x = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, x[c>>4], x[c&15])
	}
	return out
}

func TestNum(t *testing.T) {
	for v, want := range map[uint32]string{0: "720100", 40: "720128", 200: "7201c8", 276: "72020114", 100000: "72030186a0", 1 << 24: "720401000000"} {
		if got := string(hexOf(apdu.AppendNum(nil, 114, v))); got != want {
			t.Errorf("AppendNum(%d) = %s, want %s", v, got, want)
		}
	}
}

// TestRequestsMatchCaptures: the requests built here are byte for byte
// those of waissearch and Lynx in the captures.
func TestRequestsMatchCaptures(t *testing.T) {
	msgs := load(t)
	ws := capture.Find(msgs, 1, true)
	wr := capture.Find(msgs, 1, false)
	lynx := capture.Find(msgs, 2, true)
	bad := capture.Find(msgs, 4, true)

	same := func(what string, got, want []byte) {
		t.Helper()
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %x\nwant %x", what, got, want)
		}
	}
	same("search apple (waissearch, 40 docs)", apdu.AppendSearch(nil, "test", "apple", 40), ws[1].Bytes)
	same("search apple orchard (Lynx, 200 docs)", apdu.AppendSearch(nil, "test", "apple orchard", 200), lynx[0].Bytes)
	same("search on nosuchdb", apdu.AppendSearch(nil, "nosuchdb", "apple", 40), bad[0].Bytes)

	r, err := apdu.ParseResponse(body(t, wr[1]), 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Headers) != 2 {
		t.Fatalf("%d headers", len(r.Headers))
	}
	same("retrieval of apple.txt", apdu.AppendRetrieval(nil, "test", r.Headers[0].DocID, "TEXT", 0, 124), ws[2].Bytes)
	same("first chunk of big.txt", apdu.AppendRetrieval(nil, "test", r.Headers[1].DocID, "TEXT", 0, 10000), ws[3].Bytes)
	same("Lynx retrieval", apdu.AppendRetrieval(nil, "test", r.Headers[0].DocID, "TEXT", 0, 124), capture.Find(msgs, 3, true)[0].Bytes)

	in, err := apdu.ParseInit(body(t, ws[0]))
	if err != nil || in.MaxRecord != 100000 || in.Options != 0x80 || in.WillPresentOrDelete() {
		t.Errorf("ParseInit(waissearch's Init) = %+v, %v", in, err)
	}
	ir, err := apdu.ParseInitResponse(body(t, wr[0]))
	if err != nil || !ir.Accepted || ir.MaxRecord != 100000 {
		t.Errorf("ParseInitResponse = %+v, %v", ir, err)
	}
	// Our Init parses as the server parses waissearch's.
	mine := apdu.AppendInit(nil, 100000, "urlget")
	in2, err := apdu.ParseInit(mine[apdu.HeaderLen:])
	if err != nil || in2 != in {
		t.Errorf("ParseInit(AppendInit) = %+v, %v; want %+v", in2, err, in)
	}
	if string(mine[10:25]) != "z2wais        0" {
		t.Errorf("Init header %q", mine[:25])
	}
	if !bytes.HasPrefix(mine[apdu.HeaderLen+2:], ws[0].Bytes[apdu.HeaderLen+2:apdu.HeaderLen+2+17]) {
		t.Errorf("Init fixed part %x differs from waissearch's %x", mine[27:46], ws[0].Bytes[27:46])
	}
}

func TestParseCapturedResponses(t *testing.T) {
	msgs := load(t)
	wr := capture.Find(msgs, 1, false)
	r, err := apdu.ParseResponse(body(t, wr[1]), 100)
	if err != nil {
		t.Fatal(err)
	}
	h0, h1 := r.Headers[0], r.Headers[1]
	if h0.Score != 276 || h0.Length != 124 || h0.Lines != 3 || len(h0.Types) != 1 || h0.Types[0] != "TEXT" ||
		h0.Source != "/tmp/wais-build/db/test" || h0.Date != "0" || h0.Headline != "apple.txt   /tmp/wais-build/data/" || len(h0.DocID) != 149 {
		t.Errorf("first header %+v", h0)
	}
	if h1.Score != 42 || h1.Length != 63237 || h1.Lines != 0x0321 || h1.Headline != "big.txt   /tmp/wais-build/data/" {
		t.Errorf("second header %+v", h1)
	}
	if r.Status != 1 || r.Returned != 2 || len(r.Diags) != 0 {
		t.Errorf("response %+v", r)
	}
	// Fewer headers kept than sent.
	if r1, err := apdu.ParseResponse(body(t, wr[1]), 1); err != nil || len(r1.Headers) != 1 || r1.More != 1 {
		t.Errorf("ParseResponse(max 1): %d headers, %d more, %v", len(r1.Headers), r1.More, err)
	}

	fields, ok := apdu.DocIDFields(h0.DocID)
	if !ok || len(fields) != 7 || fields[2].Value != "0 124 /tmp/wais-build/data/apple.txt" || fields[6].Value != "\x00" {
		t.Fatalf("DocIDFields = %+v, %v", fields, ok)
	}
	if back := apdu.AppendDocID(nil, fields); !bytes.Equal(back, h0.DocID) {
		t.Errorf("AppendDocID(DocIDFields(id)) = %x, want %x", back, h0.DocID)
	}
	const lynx = "wais://127.0.0.1:22100/test/TEXT/124/1=vm%3A22100;2=/tmp/wais-build/db/test;3=0%20124%20/tmp/wais-build/data/apple.txt;4=vm%3A22100;5=/tmp/wais-build/db/test;6=0%20124%20/tmp/wais-build/data/apple.txt;7=%00;"
	if got := urlparse.WAISDocFieldsURL("127.0.0.1", 22100, "test", "TEXT", "124", fields); got != lynx {
		t.Errorf("document URL\n got %s\nwant %s", got, lynx)
	}

	text, err := apdu.ParseResponse(body(t, wr[2]), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !text.HasText || len(text.Text) != 124 || !strings.HasPrefix(string(text.Text), "Apples and orchards\n") ||
		!bytes.Equal(text.TextID, h0.DocID) || string(text.ReferenceID) != "3" {
		t.Errorf("retrieval response: %q id %x ref %q", text.Text, text.TextID, text.ReferenceID)
	}

	diag, err := apdu.ParseResponse(body(t, capture.Find(msgs, 4, false)[0]), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(diag.Diags) != 1 || diag.Diags[0].Code != "S1" ||
		diag.Diags[0].Text != "The following database is not available: /tmp/wais-build/db/nosuchdb" || len(diag.Headers) != 0 {
		t.Errorf("diagnostics %+v", diag.Diags)
	}
}

// TestResponseRoundTrip: what AppendResponse writes, ParseResponse reads,
// with DocIDs and texts long enough to need multi-byte lengths.
func TestResponseRoundTrip(t *testing.T) {
	long := strings.Repeat("/very/long/path", 20)
	id := apdu.AppendDocID(nil, []urlparse.WAISField{{Tag: 3, Value: "0 9 " + long}, {Tag: 7, Value: "\x00"}})
	in := &apdu.Response{Status: 1, Returned: 2, SeedWordsUsed: "apple", Headers: []apdu.DocHeader{
		{DocID: id, Score: 1000, Length: 70000, Lines: 3, Types: []string{"TEXT", "HTML"}, Source: "s", Date: "930101", Headline: "h"},
		{DocID: []byte{1, 1, 'x'}, Types: []string{"WSRC"}},
	}, Diags: []apdu.Diag{{Code: "SF", Text: "Request out of range"}}}
	b := apdu.AppendResponse(nil, apdu.ClientHeader, in)
	h, err := apdu.ParseHeader(b)
	if err != nil || int(h.Length) != len(b)-apdu.HeaderLen {
		t.Fatalf("header %+v %v", h, err)
	}
	out, err := apdu.ParseResponse(b[apdu.HeaderLen:], 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Headers) != 2 || out.Headers[0].Length != 70000 || !bytes.Equal(out.Headers[0].DocID, id) ||
		out.Headers[0].Types[1] != "HTML" || out.SeedWordsUsed != "apple" || len(out.Diags) != 1 || out.Diags[0].Text != "Request out of range" {
		t.Errorf("round trip: %+v", out)
	}
	text := bytes.Repeat([]byte{0, 1, 0x1d, 0xff}, 5000)
	b = apdu.AppendResponse(nil, apdu.ClientHeader, &apdu.Response{Returned: 1, HasText: true, Text: text, TextID: id, ReferenceID: []byte("3")})
	out, err = apdu.ParseResponse(b[apdu.HeaderLen:], 0)
	if err != nil || !bytes.Equal(out.Text, text) || !bytes.Equal(out.TextID, id) {
		t.Errorf("text round trip: %d bytes, %v", len(out.Text), err)
	}
}

// TestTruncated: every prefix of a valid response is refused (or, cut at
// an item boundary, read as fewer items), never read past its end.
func TestTruncated(t *testing.T) {
	msgs := load(t)
	full := body(t, capture.Find(msgs, 1, false)[1])
	for n := 0; n < len(full); n++ {
		a := full[:n]
		r, err := apdu.ParseResponse(a, 100)
		if err == nil && len(r.Headers) == 2 {
			t.Errorf("a %d-byte prefix of a %d-byte response parsed whole", n, len(full))
		}
	}
	// An HLI larger than the APDU.
	bad := append([]byte(nil), full...)
	bad[0], bad[1] = 0x10, 0
	if _, err := apdu.ParseResponse(bad, 100); !errors.Is(err, apdu.ErrFormat) {
		t.Errorf("HLI past the end: %v", err)
	}
}

func TestParseSearch(t *testing.T) {
	msgs := load(t)
	s, err := apdu.ParseSearch(body(t, capture.Find(msgs, 2, true)[0]))
	if err != nil || s.QueryType != "3" || s.Database != "test" || s.Seed != "apple orchard" || s.MaxDocs != 200 {
		t.Errorf("ParseSearch(Lynx search) = %+v, %v", s, err)
	}
	s, err = apdu.ParseSearch(body(t, capture.Find(msgs, 1, true)[3]))
	if err != nil || s.QueryType != "1" || s.DocType != "TEXT" || s.Start != 0 || s.End != 10000 || len(s.DocID) != 149 || string(s.ReferenceID) != "3" {
		t.Errorf("ParseSearch(retrieval) = type %q range %d-%d id %d bytes, %v", s.QueryType, s.Start, s.End, len(s.DocID), err)
	}
}
