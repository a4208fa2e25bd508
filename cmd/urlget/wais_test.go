package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/wais/waistest"
)

// TestWAISCLI: through a server that behaves like freeWAIS-sf (one request
// at a time), documents of every awkward size arrive byte for byte by both
// URL forms; -C - resumes; -O names the file after the document's file
// name; -I on a search says what is written; the exit codes of a missing
// document (78), a missing database (78), a server that dies and a
// document shorter than its URL's LENGTH (18).
func TestWAISCLI(t *testing.T) {
	inDir(t)
	const odd = "odd;name=x%41+y&z#q.txt"
	docs := []*waistest.Doc{
		{Name: "b1.bin", Type: "BINARY", Data: waistest.Bytes(1, 1)},
		{Name: "b10000.bin", Type: "BINARY", Data: waistest.Bytes(10_000, 2)},
		{Name: "b10001.bin", Type: "BINARY", Data: waistest.Bytes(10_001, 3)},
		{Name: "b300k.bin", Type: "BINARY", Data: waistest.Bytes(300_000, 4)},
		{Name: "b5m.bin", Type: "BINARY", Data: waistest.Bytes(5_000_000, 5)},
		{Name: odd, Data: []byte("an odd name\n")},
	}
	db := &waistest.DB{Name: "sizes", Description: "awkward sizes", Docs: docs}
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{db}})
	for _, d := range docs[:5] {
		for _, length := range []bool{true, false} {
			url := s.DocURL("sizes", d, length)
			r := runCLI(t, nil, "-sS", "-o", "out", url)
			if got, _ := os.ReadFile("out"); r.code != 0 || !bytes.Equal(got, d.Data) {
				t.Errorf("%s (length in the URL %v): exit %d, %d bytes of %d, %s", d.Name, length, r.code, len(got), len(d.Data), r.stderr)
			}
			if d.Name != "b300k.bin" {
				continue
			}
			os.WriteFile("out", d.Data[:123_457], 0o644)
			r = runCLI(t, nil, "-sS", "-C", "-", "-o", "out", url)
			if got, _ := os.ReadFile("out"); r.code != 0 || !bytes.Equal(got, d.Data) {
				t.Errorf("%s resumed (length in the URL %v): exit %d, %d bytes, %s", d.Name, length, r.code, len(got), r.stderr)
			}
		}
	}
	if n := s.ClosedAhead(); n != 0 {
		t.Errorf("%d requests sent ahead", n)
	}

	// -O: the document's file name, decoded.
	url := s.DocURL("sizes", docs[5], true)
	if r := runCLI(t, nil, "-sS", "-O", url); r.code != 0 || readFile(t, odd) != "an odd name\n" {
		t.Errorf("-O: exit %d, %s", r.code, r.stderr)
	}

	// -I on a search: the readable listing is text.
	if r := runCLI(t, nil, "-sS", "-I", s.URL("sizes?odd")); r.code != 0 || !strings.Contains(r.stdout, "Content-Type: text/plain\r\n") {
		t.Errorf("-I on a search: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, nil, "-sS", "-I", "--raw", s.URL("sizes?odd")); !strings.Contains(r.stdout, "Content-Type: text/tab-separated-values\r\n") {
		t.Errorf("-I --raw on a search: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}

	for _, tc := range []struct {
		url  string
		code int
		msg  string
	}{
		{s.DocURL("sizes", &waistest.Doc{Name: "gone.txt", Data: []byte("0123456789")}, true), 78, waistest.NotPresent},
		{s.URL("sizes/TEXT/5/junk"), 78, waistest.BadDocID},
		{s.URL("nosuchdb"), 78, `no such database "nosuchdb"`},
	} {
		if r := runCLI(t, nil, "-sS", tc.url); r.code != tc.code || !strings.Contains(r.stderr, tc.msg) {
			t.Errorf("%s: exit %d, %q; want %d, %q", tc.url, r.code, r.stderr, tc.code, tc.msg)
		}
	}
	crash := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{db}, Mode: waistest.Crash})
	url = crash.DocURL("sizes", docs[3], true)
	if r := runCLI(t, nil, "-sS", url); r.code != 18 || !strings.Contains(r.stderr, "the server closed the connection after the retrieval request for bytes 0–") {
		t.Errorf("crash: exit %d, %q", r.code, r.stderr)
	}

	// A document that ends (the server says the rest is out of range)
	// before the LENGTH its URL gives, as a search listed it: 18.
	url = s.DocURL("sizes", docs[2], true)
	short := strings.Replace(url, "/10001/", "/10050/", 1)
	if short == url {
		t.Fatalf("no LENGTH 10001 in %s", url)
	}
	if r := runCLI(t, nil, "-sS", "-o", "short", short); r.code != 18 || !strings.Contains(r.stderr, "the document ends at byte 10001, but the URL gives its length as 10050") {
		t.Errorf("shorter than its LENGTH: exit %d, %q", r.code, r.stderr)
	}
}
