package http_test

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	fhttp "github.com/urlget/urlget/fetch/http"
	"github.com/urlget/urlget/internal/testserver"
)

// TestHTTP2Nginx: --http2 against nginx with HTTP/2 on TLS: the body
// whole (3 MiB, past the flow-control windows), Meta.Proto "HTTP/2", the
// header fields in the order and case nginx sent them, the verbose log
// saying HTTP/2; with prior knowledge over plain TCP (h2c) too; no
// request record (frames are not an HTTP/1.1 request).
func TestHTTP2Nginx(t *testing.T) {
	pki := fetchtest.NewPKI(t)
	p1, p2 := testserver.FreePort(t), testserver.FreePort(t)
	ng, _, body := startNginx(t, fmt.Sprintf(`
        listen 127.0.0.1:%d ssl http2;
        listen 127.0.0.1:%d http2;
        ssl_certificate %s;
        ssl_certificate_key %s;
        add_header X-Mixed-Case yes;
`, p1, p2, pki.ServerCert, pki.ServerKey))
	for _, p := range []int{p1, p2} {
		if err := testserver.WaitPort("127.0.0.1:"+strconv.Itoa(p), 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ url, version string }{
		{"https://127.0.0.1:" + strconv.Itoa(p1) + "/known.bin", "2"},
		{"http://127.0.0.1:" + strconv.Itoa(p2) + "/known.bin", "2-prior"},
		{"https://127.0.0.1:" + strconv.Itoa(p1) + "/known.bin", "2-prior"},
	} {
		var v bytes.Buffer
		c := &fetch.Client{TLS: &tls.Config{RootCAs: pki.Pool}, Verbose: &v, Options: fetch.Options{fhttp.OptVersion: tc.version}}
		res, got, err := get(t, c, &fetch.Request{URL: parse(t, tc.url)})
		if err != nil {
			t.Fatalf("%s: %v\n%s", tc.url, err, v.String())
		}
		var names []string
		for _, f := range res.Header {
			names = append(names, f.Name)
		}
		if !bytes.Equal(got, body) || res.Proto != "HTTP/2" || res.Status != 200 || res.Size != int64(len(body)) || res.Request != nil {
			t.Errorf("%s: %d bytes, Proto %q, status %d, size %d, request record %d bytes", tc.url, len(got), res.Proto, res.Status, res.Size, len(res.Request))
		}
		if want := "server date content-type content-length last-modified etag x-mixed-case accept-ranges"; strings.Join(names, " ") != want {
			t.Errorf("%s: header fields %q, want %q", tc.url, names, want)
		}
		for _, want := range []string{"> GET /known.bin HTTP/2\n", "< HTTP/2 200\n", "< x-mixed-case: yes\n"} {
			if !strings.Contains(v.String(), want) {
				t.Errorf("%s: verbose log lacks %q:\n%s", tc.url, want, v.String())
			}
		}
	}
	// Without asking, and over plain http with --http2: HTTP/1.1.
	for _, tc := range []struct{ url, version string }{
		{"https://127.0.0.1:" + strconv.Itoa(p1) + "/known.bin", ""},
		{"https://127.0.0.1:" + strconv.Itoa(p1) + "/known.bin", "1.1"},
		{ng.URL + "/known.bin", "2"},
	} {
		c := &fetch.Client{TLS: &tls.Config{RootCAs: pki.Pool}, Options: fetch.Options{fhttp.OptVersion: tc.version}}
		res, got, err := get(t, c, &fetch.Request{URL: parse(t, tc.url), Head: true})
		if err != nil || res.Proto != "HTTP/1.1" || len(got) != 0 || res.Header.Get("Server") == "" {
			t.Errorf("%s version %q: Proto %q, %v", tc.url, tc.version, res.Proto, err)
		}
	}
}

// TestConformanceHTTP2 runs every case in HTTP/2 (net/http's server over
// TLS): a stream reset mid-body is a partial body, a stalled stream ends
// with the context.
func TestConformanceHTTP2(t *testing.T) {
	body := fetchtest.Pattern(300 << 10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/known.bin":
			http.ServeContent(w, r, "known.bin", modTime, bytes.NewReader(body))
		case "/stall":
			<-r.Context().Done()
		case "/stall-body":
			w.Header().Set("Content-Length", "100000")
			io.WriteString(w, "the start of it")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/early": // 14 bytes of 1000, then the stream is reset
			w.Header().Set("Content-Length", "1000")
			io.WriteString(w, "only this much")
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		default:
			http.NotFound(w, r)
		}
	}))
	srv.EnableHTTP2 = true
	l, count := fetchtest.CountingListener(srv.Listener)
	srv.Listener = l
	srv.StartTLS()
	defer srv.Close()
	c := &fetch.Client{TLS: srv.Client().Transport.(*http.Transport).TLSClientConfig, Options: fetch.Options{fhttp.OptVersion: "2"}}
	res, _, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/known.bin"), Head: true})
	if err != nil || res.Proto != "HTTP/2" {
		t.Fatalf("Proto %q, %v: not HTTP/2", res.Proto, err)
	}
	fetchtest.Run(t, fetchtest.Suite{
		Client:      c,
		Known:       srv.URL + "/known.bin",
		KnownBody:   body,
		Missing:     srv.URL + "/nope",
		MissingKind: fetch.ErrHTTP,
		Stall:       srv.URL + "/stall",
		StallBody:   srv.URL + "/stall-body",
		Early:       srv.URL + "/early",
		Inject:      "https://evil%0D%0AX-Injected:%201@" + srv.Listener.Addr().String() + "/known.bin",
		Received:    count,
		Cannot:      map[fetchtest.Case]string{fetchtest.CaseDir: "HTTP has no listing format (an index page is a document)"},
	})
}
