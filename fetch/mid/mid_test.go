package mid

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/urlparse"
)

// mimeArticle is a multipart/mixed article with a nested
// multipart/alternative, a base64 part and a quoted-printable part.
var mimeArticle = &nntptest.Article{
	MessageID: "<mime-1@example.net>",
	Head: []string{
		"From: a@example.net", "Newsgroups: local.test", "Subject: parts",
		"Message-ID: <mime-1@example.net>", "MIME-Version: 1.0",
		`Content-Type: multipart/mixed; boundary="outer"`,
	},
	Body: []string{
		"preamble",
		"--outer",
		`Content-Type: multipart/alternative; boundary="inner"`,
		"",
		"--inner",
		"Content-Type: text/plain; charset=UTF-8",
		"Content-ID: <text.1@example.net>",
		"Content-Transfer-Encoding: quoted-printable",
		"",
		"caf=C3=A9 =",
		"and more",
		"--inner--",
		"--outer",
		"Content-Type: application/octet-stream",
		"Content-ID: <bin.1@example.net>",
		"Content-Transfer-Encoding: base64",
		"",
		"AAECAwQF",
		"BgcICQ==",
		"--outer",
		"Content-Type: text/plain",
		"Content-Id: <dots@example.net>",
		"",
		".leading dot",
		"..two",
		"--outer--",
	},
}

// get opens raw with the fetcher alone, with opts, and reads it whole.
func get(t *testing.T, raw string, opts fetch.Options) (*fetch.Resource, string, error) {
	t.Helper()
	u, err := urlparse.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, b, err := fetchtest.Read(Fetcher{}.Open(ctx, &fetch.Request{URL: &u, Options: opts}))
	return res, string(b), err
}

func TestMIDParts(t *testing.T) {
	srv := (&nntptest.Server{Loose: []*nntptest.Article{mimeArticle}}).Start(t)
	opts := fetch.Options{"nntp-server": srv.Addr}
	res, whole, err := get(t, "mid:mime-1@example.net", opts)
	if err != nil || whole != strings.ReplaceAll(string(mimeArticle.Bytes()), "\r\n", "\n") || res.ContentType != "message/rfc822" {
		t.Fatalf("whole article: %v %q", err, whole)
	}
	cases := []struct{ url, want, ctype string }{
		{"mid:mime-1@example.net/text.1@example.net", "café and more", "text/plain; charset=UTF-8"},
		{"mid:%3Cmime-1@example.net%3E/%3Cbin.1@example.net%3E", "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09", "application/octet-stream"},
		{"mid:mime-1@example.net/dots@example.net", ".leading dot\n..two", "text/plain"},
	}
	for _, c := range cases {
		res, got, err := get(t, c.url, opts)
		if err != nil || got != c.want || res.ContentType != c.ctype {
			t.Errorf("%s: %q %v (%v), want %q", c.url, got, err, res, c.want)
		}
	}
	if _, _, err := get(t, "mid:mime-1@example.net/nope@example.net", opts); fetch.KindOf(err) != fetch.ErrNotFound {
		t.Errorf("missing part: %v", err)
	}
	if _, _, err := get(t, "mid:gone@example.net", opts); fetch.KindOf(err) != fetch.ErrNotFound {
		t.Errorf("missing article: %v", err)
	}
	// cid: inside a mid: base
	_, got, err := get(t, "cid:bin.1@example.net", fetch.Options{"nntp-server": srv.Addr, OptBase: "mid:mime-1@example.net"})
	if err != nil || got != "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09" {
		t.Errorf("cid in mid base: %q %v", got, err)
	}
}

func TestCIDFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "msg.eml")
	os.WriteFile(path, mimeArticle.Bytes(), 0o644)
	_, got, err := get(t, "cid:text.1@example.net", fetch.Options{OptBase: path})
	if err != nil || got != "café and more" {
		t.Errorf("cid in a file: %q %v", got, err)
	}
	cases := []struct {
		url  string
		opts fetch.Options
		kind fetch.Kind
	}{
		{"cid:text.1@example.net", nil, fetch.ErrMalformed},
		{"cid:text.1@example.net", fetch.Options{OptBase: path + ".missing"}, fetch.ErrNotFound},
		{"cid:text.1@example.net", fetch.Options{OptBase: "mid:x@y/part@z"}, fetch.ErrMalformed},
		{"mid:no-at-sign", fetch.Options{"nntp-server": "127.0.0.1:1"}, fetch.ErrMalformed},
		{"mid:", nil, fetch.ErrMalformed},
	}
	for _, c := range cases {
		if _, _, err := get(t, c.url, c.opts); fetch.KindOf(err) != c.kind {
			t.Errorf("%s %v: %v, want kind %v", c.url, c.opts, err, c.kind)
		}
	}
	// a header block without end: refused at 1 MiB, not read whole
	big := filepath.Join(t.TempDir(), "big.eml")
	os.WriteFile(big, []byte("X-Long: "+strings.Repeat("a", 2<<20)+"\r\n\r\n"), 0o644)
	if _, _, err := get(t, "cid:x@y", fetch.Options{OptBase: big}); fetch.KindOf(err) != fetch.ErrProtocol {
		t.Errorf("huge header: %v", err)
	}
	// multiparts nested too deep
	deep := filepath.Join(t.TempDir(), "deep.eml")
	os.WriteFile(deep, []byte(deepMessage(20)), 0o644)
	if _, _, err := get(t, "cid:x@y", fetch.Options{OptBase: deep}); fetch.KindOf(err) != fetch.ErrProtocol || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("deep nesting: %v", err)
	}
}

// deepMessage is a message of n multiparts, each inside the one before.
func deepMessage(n int) string {
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=b0\r\n\r\n")
	for i := 1; i <= n; i++ {
		b.WriteString("--b" + strconv.Itoa(i-1) + "\r\nContent-Type: multipart/mixed; boundary=b" + strconv.Itoa(i) + "\r\n\r\n")
	}
	return b.String()
}

// TestINN fetches fixture articles of the real INN server by Message-ID.
func TestINN(t *testing.T) {
	s := testserver.INN(t)
	opts := fetch.Options{"nntp-server": s.Addr}
	for _, a := range s.Articles {
		if a.MessageID != testserver.INNKnownID && a.MessageID != testserver.INNOddID {
			continue
		}
		raw := "mid:" + urlparse.SegmentEscape(strings.Trim(a.MessageID, "<>"))
		_, got, err := get(t, raw, opts)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		want := strings.Join(a.Body, "\n") + "\n"
		if !strings.HasSuffix(got, "\n\n"+want) || !strings.Contains(got, "Message-ID: "+a.MessageID+"\n") {
			t.Errorf("%s: got %q", raw, got)
		}
	}
	// not a MIME message: its parts are not there
	if _, _, err := get(t, "mid:urlget-known-1@example.net/part@x", opts); fetch.KindOf(err) != fetch.ErrNotFound {
		t.Errorf("part of a plain article: %v", err)
	}
	if _, _, err := get(t, "mid:no-such-article@example.net", opts); fetch.KindOf(err) != fetch.ErrNotFound {
		t.Errorf("missing article: %v", err)
	}
}

// The shared conformance suite, on a part of an article of nntptest. A
// mid: URL names no server, so the stall cases (a server given by URL)
// do not apply: the connection is nntp's, whose suite has them.
func TestConformance(t *testing.T) {
	srv := (&nntptest.Server{Loose: []*nntptest.Article{mimeArticle}}).Start(t)
	c := &fetch.Client{Options: fetch.Options{"nntp-server": srv.Addr}}
	fetchtest.Run(t, fetchtest.Suite{
		Client:      c,
		Known:       "mid:mime-1@example.net/text.1@example.net",
		KnownBody:   []byte("café and more"),
		Missing:     "mid:mime-1@example.net/nope@example.net",
		MissingKind: fetch.ErrNotFound,
		Inject:      "mid:a%0D%0AQUIT@example.net",
		Received:    srv.Conns,
		Cannot: map[fetchtest.Case]string{
			fetchtest.CaseDir:       "a mid: URL names one message or one part of it, never a listing",
			fetchtest.CaseStall:     "a mid: URL names no server: the connection is nntp's, whose suite stalls it",
			fetchtest.CaseStallBody: "a mid: URL names no server: the connection is nntp's, whose suite stalls it",
			fetchtest.CaseEarly:     "a mid: URL names no server: the connection is nntp's, whose suite closes it early",
		},
	})
}
