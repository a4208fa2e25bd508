package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
)

// The BenchmarkPGO benchmarks are the workloads default.pgo, the profile
// the Go toolchain uses to build urlget (profile-guided optimization), is
// recorded from: scripts/pgo runs them with -cpuprofile. Each runs the
// whole command, as a user does, against an in-tree server on loopback.

// pgoFetch runs urlget with args and fails the benchmark on a non-zero exit.
func pgoFetch(b *testing.B, args ...string) {
	var stderr bytes.Buffer
	e := env{args: args, stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr}
	if code := runFetchWith(e, nil); code != 0 {
		b.Fatalf("urlget %q: exit %d: %s", args, code, stderr.String())
	}
}

// BenchmarkPGOGopherMenu renders a 200,000-item gopher menu to a file.
func BenchmarkPGOGopherMenu(b *testing.B) {
	menu := gophertest.ArchiveMenu(200000)
	s := gophertest.Start(b, gophertest.Bytes(menu))
	out := filepath.Join(b.TempDir(), "menu.txt")
	b.SetBytes(int64(len(menu)))
	for b.Loop() {
		pgoFetch(b, "-s", "-o", out, "gopher://"+s.Addr+"/1/")
	}
}

const pgoFileSize = 32 << 20

// BenchmarkPGOHTTP downloads a 32 MiB file over HTTP to a file.
func BenchmarkPGOHTTP(b *testing.B) {
	data := bytes.Repeat([]byte("0123456789abcdef"), pgoFileSize/16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "big.bin", time.Unix(0, 0), bytes.NewReader(data))
	}))
	defer srv.Close()
	out := filepath.Join(b.TempDir(), "big.bin")
	b.SetBytes(pgoFileSize)
	for b.Loop() {
		pgoFetch(b, "-s", "-o", out, srv.URL+"/big.bin")
	}
}

// BenchmarkPGOFTP downloads a 32 MiB file over FTP to a file.
func BenchmarkPGOFTP(b *testing.B) {
	s := ftptest.New(b)
	s.AddFile("/pub/big.bin", bytes.Repeat([]byte("0123456789abcdef"), pgoFileSize/16), time.Unix(0, 0))
	out := filepath.Join(b.TempDir(), "big.bin")
	b.SetBytes(pgoFileSize)
	for b.Loop() {
		pgoFetch(b, "-s", "-o", out, "ftp://"+s.Addr+"/pub/big.bin")
	}
}
