package download

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch"
)

// Do takes the URLs curl takes that RFC 3986 refuses: "http:/host" and
// "http:///host" for "http://host", and a "#" inside the fragment (curl's
// tests 1143 and 1111); what the server is asked for is the same.
func TestDoTakesCurlsSlips(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	hp := strings.TrimPrefix(srv.URL, "http://")
	for _, raw := range []string{"http:/" + hp + "/a", "http:///" + hp + "/a", "HTTP:/" + hp + "/a", "http://" + hp + "/a?q=1#f#g"} {
		var out bytes.Buffer
		d := &Downloader{Client: &fetch.Client{}, Stdout: &out}
		if r := d.Do(context.Background(), raw, Target{Name: "-"}); r.Err != nil || out.String() != "ok" {
			t.Errorf("%s: %v, out %q", raw, r.Err, out.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "[/a /a /a /a?q=1]"; strings.Join(got, " ") != strings.Trim(want, "[]") {
		t.Errorf("server saw %q, want %s", got, want)
	}
	// Other slips stay refused: a file URL keeps its slashes as written.
	for _, raw := range []string{"http:" + hp + "/a", "http:////" + hp + "/a"} {
		if _, err := ParseURL(raw); err == nil {
			t.Errorf("ParseURL(%q) took it", raw)
		}
	}
	if u, err := ParseURL("file:/tmp/x"); err != nil || u.Path != "/tmp/x" {
		t.Errorf("file:/tmp/x: %v %q", err, u.Path)
	}
}

// An upload to a URL ending in "/" is named after the file, encoded as
// curl 7.88 encodes it: lower-case hex digits (curl's test 58).
func TestDoUploadNameEncodedAsCurl(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("te[]st é.txt", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.RequestURI
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	var out bytes.Buffer
	d := &Downloader{Client: &fetch.Client{}, Stdout: &out, Body: Body{Upload: "te[]st é.txt"}}
	if r := d.Do(context.Background(), srv.URL+"/dir/", Target{Name: "-"}); r.Err != nil {
		t.Fatal(r.Err)
	}
	if want := "/dir/te%5b%5dst%20%c3%a9.txt"; got != want {
		t.Errorf("request target %q, want %q", got, want)
	}
}
