package fetch_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/urlparse"
)

// bridge is an http.Client whose transport reaches the gopher scheme
// through a RoundTripper over a Client whose gopher fetcher is f.
func bridge(t *testing.T, f fetch.Fetcher) *http.Client {
	t.Helper()
	tr := &http.Transport{}
	fetch.RegisterProtocols(tr, &fetch.Client{NoProxy: "*", Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"gopher": f})})
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingReader) Close() error { return nil }

// item serves data from req.Offset on, with its size and type known, the
// way a fetcher that can resume does.
func item(data string, mod time.Time) fetch.FetcherFunc {
	return func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		if req.Offset > int64(len(data)) {
			return nil, &fetch.Error{Kind: fetch.ErrResume, Msg: "offset past the end"}
		}
		rest := data[req.Offset:]
		if req.Head {
			rest = ""
		}
		return &fetch.Resource{
			Meta: fetch.Meta{Size: int64(len(data)) - req.Offset, Offset: req.Offset, ModTime: mod, ContentType: "text/plain"},
			Body: io.NopCloser(strings.NewReader(rest)),
		}, nil
	}
}

func bridgeGet(t *testing.T, c *http.Client, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestRoundTripperMeta(t *testing.T) {
	mod := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	c := bridge(t, item("0123456789", mod))
	resp, body := bridgeGet(t, c, "gopher://127.0.0.1/0/x")
	if resp.StatusCode != 200 || resp.Status != "200 OK" || body != "0123456789" || resp.ContentLength != 10 {
		t.Fatalf("got %q %q (length %d)", resp.Status, body, resp.ContentLength)
	}
	for name, want := range map[string]string{
		"Content-Type":   "text/plain",
		"Content-Length": "10",
		"Last-Modified":  "Tue, 02 Jan 2024 03:04:05 GMT",
	} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}

	resp, err := c.Head("gopher://127.0.0.1/0/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != 10 || resp.Body != http.NoBody {
		t.Errorf("HEAD: %q, length %d, body %T", resp.Status, resp.ContentLength, resp.Body)
	}
}

func TestRoundTripperUnknownSize(t *testing.T) {
	c := bridge(t, fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: -1}, Body: io.NopCloser(strings.NewReader("menu"))}, nil
	}))
	resp, body := bridgeGet(t, c, "gopher://127.0.0.1/1/")
	if resp.StatusCode != 200 || body != "menu" || resp.ContentLength != -1 {
		t.Fatalf("got %q %q (length %d)", resp.Status, body, resp.ContentLength)
	}
	for _, name := range []string{"Content-Length", "Content-Type", "Last-Modified"} {
		if v, ok := resp.Header[name]; ok {
			t.Errorf("%s: %q, for a result that does not tell it", name, v)
		}
	}
}

func TestRoundTripperRange(t *testing.T) {
	c := bridge(t, item("0123456789", time.Time{}))
	for _, tc := range []struct {
		rng, status, body, contentRange string
	}{
		{"bytes=6-", "206 Partial Content", "6789", "bytes 6-9/10"},
		{"bytes=2-4", "206 Partial Content", "234", "bytes 2-4/10"},
		{"bytes=2-40", "206 Partial Content", "23456789", "bytes 2-9/10"},
		{"bytes=0-", "200 OK", "0123456789", ""},      // nothing to skip
		{"bytes=-3", "200 OK", "0123456789", ""},      // a suffix range is ignored
		{"bytes=1-2,5-6", "200 OK", "0123456789", ""}, // so are several ranges
		{"bytes=10-", "416 Requested Range Not Satisfiable", "", ""},
		{"bytes=11-", "416 Requested Range Not Satisfiable", "", ""},
	} {
		resp, body := bridgeGet(t, c, "gopher://127.0.0.1/0/x", "Range", tc.rng)
		if resp.Status != tc.status || resp.Header.Get("Content-Range") != tc.contentRange {
			t.Errorf("%s: %q, Content-Range %q; want %q, %q", tc.rng, resp.Status, resp.Header.Get("Content-Range"), tc.status, tc.contentRange)
		}
		if resp.StatusCode < 400 && (body != tc.body || resp.ContentLength != int64(len(tc.body))) {
			t.Errorf("%s: body %q (length %d), want %q", tc.rng, body, resp.ContentLength, tc.body)
		}
	}
}

func TestRoundTripperRangeNotResumed(t *testing.T) {
	var offsets []int64
	c := bridge(t, fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		offsets = append(offsets, req.Offset)
		size := int64(-1)
		if req.URL.Path == "/0/whole" {
			// A fetcher that cannot resume sends it all, from 0.
			return &fetch.Resource{Meta: fetch.Meta{Size: 10}, Body: io.NopCloser(strings.NewReader("0123456789"))}, nil
		}
		// Resumed, but of unknown size: no 206 can say where it ends.
		return &fetch.Resource{Meta: fetch.Meta{Size: size, Offset: req.Offset},
			Body: io.NopCloser(strings.NewReader("0123456789"[req.Offset:]))}, nil
	}))
	resp, body := bridgeGet(t, c, "gopher://127.0.0.1/0/whole", "Range", "bytes=4-")
	if resp.StatusCode != 200 || body != "0123456789" || !slices.Equal(offsets, []int64{4}) {
		t.Errorf("not resumed: %q %q, offsets asked %v", resp.Status, body, offsets)
	}
	offsets = nil
	resp, body = bridgeGet(t, c, "gopher://127.0.0.1/0/unsized", "Range", "bytes=4-")
	if resp.StatusCode != 200 || body != "0123456789" || !slices.Equal(offsets, []int64{4, 0}) {
		t.Errorf("resumed, size unknown: %q %q, offsets asked %v", resp.Status, body, offsets)
	}
}

func TestRoundTripperErrors(t *testing.T) {
	for _, tc := range []struct {
		kind   fetch.Kind
		status int // 0: a Go error
	}{
		{fetch.ErrNotFound, 404},
		{fetch.ErrAccessDenied, 403},
		{fetch.ErrLoginDenied, 403},
		{fetch.ErrResume, 416},
		{fetch.ErrConnect, 0},
		{fetch.ErrTimeout, 0},
		{fetch.ErrProtocol, 0},
		{fetch.ErrRetrFailed, 0},
	} {
		c := bridge(t, fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
			return nil, &fetch.Error{Kind: tc.kind, Msg: "the server said so"}
		}))
		resp, err := c.Get("gopher://127.0.0.1/0/x")
		if tc.status == 0 {
			if err == nil {
				resp.Body.Close()
				t.Errorf("%v: %q, want an error", tc.kind, resp.Status)
			} else if fetch.KindOf(err) != tc.kind {
				t.Errorf("%v: error %v of kind %v", tc.kind, err, fetch.KindOf(err))
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v, want status %d", tc.kind, err, tc.status)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.Contains(string(b), "the server said so") ||
			resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%v: %q %q %q", tc.kind, resp.Status, resp.Header.Get("Content-Type"), b)
		}
	}
}

// closeCounter is a request body that counts its Close calls.
type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func TestRoundTripperRefuses(t *testing.T) {
	opened := 0
	rt := &fetch.RoundTripper{Client: &fetch.Client{NoProxy: "*", Fetchers: fetchtest.Given(map[string]fetch.Fetcher{
		"gopher": fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
			opened++
			return &fetch.Resource{Meta: fetch.Meta{Size: 0}}, nil
		}),
	})}}
	for _, tc := range []struct{ method, url string }{
		{"POST", "gopher://127.0.0.1/0/x"},
		{"PUT", "gopher://127.0.0.1/0/x"},
		{"GET", "telnet://127.0.0.1/"},
		{"GET", "mailto:someone@example.test"},
		{"GET", "http://127.0.0.1/"},
		{"GET", "x-unknown://127.0.0.1/"},
	} {
		body := &closeCounter{Reader: strings.NewReader("data")}
		req, err := http.NewRequest(tc.method, tc.url, body)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := rt.RoundTrip(req)
		if resp != nil || fetch.KindOf(err) != fetch.ErrUnsupported {
			t.Errorf("%s %s: %v, %v; want an ErrUnsupported error", tc.method, tc.url, resp, err)
		}
		if body.closed != 1 {
			t.Errorf("%s %s: request body closed %d times", tc.method, tc.url, body.closed)
		}
	}
	if opened != 0 {
		t.Errorf("the fetcher was called %d times for refused requests", opened)
	}

	// A request it serves keeps its body closed, and unchanged.
	body := &closeCounter{Reader: strings.NewReader("data")}
	req, _ := http.NewRequest("GET", "gopher://127.0.0.1/0/x", body)
	req.Header.Set("Range", "bytes=0-")
	before := req.Clone(context.Background())
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if body.closed != 1 || opened != 1 {
		t.Errorf("request body closed %d times, fetcher called %d times", body.closed, opened)
	}
	if req.URL.String() != before.URL.String() || req.Method != before.Method || len(req.Header) != 1 ||
		req.Header.Get("Range") != "bytes=0-" || req.Body != body {
		t.Errorf("the request was modified: %+v", req)
	}
}

func TestRegisterProtocols(t *testing.T) {
	names := fetch.RegisterProtocols(&http.Transport{}, &fetch.Client{})
	for _, want := range []string{"gopher", "ftp", "news", "nntp", "wais", "prospero", "file"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not registered: %v", want, names)
		}
	}
	for _, not := range []string{"http", "https", "telnet", "mailto"} {
		if slices.Contains(names, not) {
			t.Errorf("%s registered: %v", not, names)
		}
	}
}

// The body streams from the fetcher's: RoundTrip returns before any of it
// is read, and a read takes only what it asks for.
func TestRoundTripperStreams(t *testing.T) {
	const size = 8 << 20
	src := &countingReader{r: io.LimitReader(zeros{}, size)}
	c := bridge(t, fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: size}, Body: src}, nil
	}))
	resp, err := c.Get("gopher://127.0.0.1/9/big")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if n := src.n.Load(); n != 0 {
		t.Fatalf("%d bytes read before the body was", n)
	}
	buf := make([]byte, 1000)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	if n := src.n.Load(); n >= size/2 {
		t.Fatalf("%d bytes read from the fetcher for 1000 read from the reply", n)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n+1000 != size {
		t.Fatalf("copied %d more bytes, %v", n, err)
	}
}

// A body that ends before its size fails, rather than ending as if whole.
func TestRoundTripperShortBody(t *testing.T) {
	c := bridge(t, fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: 10}, Body: io.NopCloser(bytes.NewReader([]byte("01234")))}, nil
	}))
	resp, err := c.Get("gopher://127.0.0.1/0/x")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); fetch.KindOf(err) != fetch.ErrPartial {
		t.Fatalf("read a short body: %v, want ErrPartial", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Against the gopher fetcher and its test server: a Gopher+ item tells its
// length, so a range of it is a 206.
func TestRoundTripperGopher(t *testing.T) {
	srv := gophertest.Start(t, &gophertest.Site{Items: map[string]*gophertest.Item{
		"/x": {Type: '0', Data: []byte("0123456789"), Plus: true},
	}})
	tr := &http.Transport{}
	fetch.RegisterProtocols(tr, &fetch.Client{NoProxy: "*"})
	c := &http.Client{Transport: tr}
	resp, body := bridgeGet(t, c, srv.URL("0/x%09%09+"), "Range", "bytes=3-5")
	if resp.StatusCode != 206 || body != "345" || resp.Header.Get("Content-Range") != "bytes 3-5/10" {
		t.Errorf("got %q %q, Content-Range %q", resp.Status, body, resp.Header.Get("Content-Range"))
	}
	resp, body = bridgeGet(t, c, srv.URL("0/nothing"))
	if resp.StatusCode != 404 || !strings.Contains(body, "does not exist") {
		t.Errorf("missing item: %q %q", resp.Status, body)
	}
}

// A file URL has no host, which net/http's own transport refuses: the
// registered RoundTripper answers it, and the file seeks for a range.
func TestRoundTripperFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "data.txt")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	mod := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mod, mod); err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	fetch.RegisterProtocols(tr, &fetch.Client{})
	c := &http.Client{Transport: tr}
	resp, body := bridgeGet(t, c, urlparse.FileURL(p), "Range", "bytes=7-")
	if resp.StatusCode != 206 || body != "789" || resp.Header.Get("Content-Range") != "bytes 7-9/10" ||
		resp.Header.Get("Last-Modified") != "Wed, 01 May 2024 12:00:00 GMT" {
		t.Errorf("got %q %q, header %v", resp.Status, body, resp.Header)
	}
	resp, body = bridgeGet(t, c, urlparse.FileURL(p), "If-Modified-Since", "Wed, 01 May 2024 12:00:00 GMT")
	if resp.StatusCode != 304 || body != "" {
		t.Errorf("If-Modified-Since its time: %q %q", resp.Status, body)
	}
	resp, body = bridgeGet(t, c, urlparse.FileURL(p), "If-Modified-Since", "Wed, 01 May 2024 11:59:59 GMT")
	if resp.StatusCode != 200 || body != "0123456789" {
		t.Errorf("If-Modified-Since a second before: %q %q", resp.Status, body)
	}
	resp, _ = bridgeGet(t, c, urlparse.FileURL(p+".absent"))
	if resp.StatusCode != 404 {
		t.Errorf("a missing file: %q", resp.Status)
	}
}
