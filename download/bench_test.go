package download

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

// BenchmarkDo: one 64 MiB HTTP download over loopback into a file, as the
// command makes it (NAME.part, renamed): the copy path's cost beside the
// server's. bench/http.sh times the whole command beside curl.
func BenchmarkDo(b *testing.B) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 4<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "big", time.Time{}, bytes.NewReader(data))
	}))
	defer srv.Close()
	out := filepath.Join(b.TempDir(), "big")
	d := &Downloader{Client: &fetch.Client{}}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if r := d.Do(context.Background(), srv.URL+"/big", Target{Name: out}); r.Err != nil || r.Size != int64(len(data)) {
			b.Fatalf("%v, %d bytes", r.Err, r.Size)
		}
	}
}
