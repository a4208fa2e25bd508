package http_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/urlget/urlget/fetch"
)

// compress is plain in a content coding.
func compress(t *testing.T, coding string, plain []byte) []byte {
	var b bytes.Buffer
	switch coding {
	case "gzip":
		w := gzip.NewWriter(&b)
		w.Write(plain)
		w.Close()
	case "br":
		w := brotli.NewWriter(&b)
		w.Write(plain)
		w.Close()
	case "zstd":
		w, err := zstd.NewWriter(&b)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(plain)
		w.Close()
	}
	return b.Bytes()
}

// --compressed offers gzip, br and zstd and decodes each, over 64 KiB
// too (curl's tests 314-316, 396, 397); a body that is not in its coding
// is exit 61, as curl's; the decompressed size cap holds for each.
func TestContentCodings(t *testing.T) {
	plain := bytes.Repeat([]byte("urlget decodes this line\n"), 10000)
	for _, coding := range []string{"gzip", "br", "zstd"} {
		t.Run(coding, func(t *testing.T) {
			body := compress(t, coding, plain)
			var offered string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				offered = r.Header.Get("Accept-Encoding")
				w.Header().Set("Content-Encoding", coding)
				if r.URL.Path == "/bad" {
					w.Write([]byte("\x00\x01 this is in no coding at all, not even close"))
					return
				}
				w.Write(body)
			}))
			defer srv.Close()
			res, got, err := get(t, &fetch.Client{Compressed: true}, &fetch.Request{URL: parse(t, srv.URL+"/")})
			if err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("%d bytes, %v", len(got), err)
			}
			if !strings.Contains(offered, coding) {
				t.Errorf("Accept-Encoding %q does not offer %s", offered, coding)
			}
			if n := res.WireBytes(); n != int64(len(body)) {
				t.Errorf("wire bytes %d, want %d", n, len(body))
			}
			_, _, err = get(t, &fetch.Client{Compressed: true}, &fetch.Request{URL: parse(t, srv.URL+"/bad")})
			if fetch.ExitCode(err) != 61 {
				t.Errorf("corrupt %s: %v (exit %d), want exit 61", coding, err, fetch.ExitCode(err))
			}
			_, got, err = get(t, &fetch.Client{Compressed: true, MaxDecompressed: 1000}, &fetch.Request{URL: parse(t, srv.URL+"/")})
			if fetch.ExitCode(err) != 63 || len(got) != 1000 {
				t.Errorf("capped: %d bytes, %v", len(got), err)
			}
		})
	}
}

// deflate is decoded in zlib's format and as raw deflate data, which some
// servers send for it, as curl takes both (its tests 222 and 232); a
// Content-Encoding listing several codings is undone last first, identity
// being none (230); more than five is exit 61, curl's bound.
func TestDeflateAndCodingLists(t *testing.T) {
	plain := bytes.Repeat([]byte("urlget inflates this line\n"), 3000)
	var zl, raw bytes.Buffer
	zw := zlib.NewWriter(&zl)
	zw.Write(plain)
	zw.Close()
	fw, _ := flate.NewWriter(&raw, flate.BestCompression)
	fw.Write(plain)
	fw.Close()
	listed := compress(t, "gzip", zl.Bytes()) // deflate, then gzip
	cases := []struct {
		name, coding string
		body         []byte
		exit         int
	}{
		{"zlib", "deflate", zl.Bytes(), 0},
		{"raw", "Deflate", raw.Bytes(), 0},
		{"list", "deflate, identity, gzip", listed, 0},
		{"two fields", "deflate", listed, 0}, // a second field, gzip, added below
		{"six", "identity, identity, identity, identity, identity, deflate", zl.Bytes(), 61},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", c.coding)
				if c.name == "two fields" {
					w.Header().Add("Content-Encoding", "gzip")
				}
				w.Write(c.body)
			}))
			defer srv.Close()
			_, got, err := get(t, &fetch.Client{Compressed: true}, &fetch.Request{URL: parse(t, srv.URL+"/")})
			if c.exit != 0 {
				if fetch.ExitCode(err) != c.exit {
					t.Fatalf("%v (exit %d), want exit %d", err, fetch.ExitCode(err), c.exit)
				}
				return
			}
			if err != nil || !bytes.Equal(got, plain) {
				t.Fatalf("%d bytes (%.20q), %v", len(got), got, err)
			}
		})
	}
}
