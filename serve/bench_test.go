package serve

import (
	"bytes"
	"context"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/urlparse"
)

// BenchmarkMenu fetches a 10,000-item gopher menu through the gateway: as
// HTML (the web front, a browser's request) and raw (a proxy client's,
// urlget -x), for the cost of rendering beside the cost of carrying.
func BenchmarkMenu(b *testing.B) {
	menu := gophertest.ArchiveMenu(10000)
	g := gophertest.Start(b, gophertest.Bytes(menu))
	h, err := New(nil, Options{Resolver: newStub(nil), MaxPerHost: 1 << 20, MaxPerClient: 1 << 20, MaxTotal: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	target := "gopher://" + g.Addr + "/1/"
	b.Run("html", func(b *testing.B) {
		b.SetBytes(int64(len(menu)))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				res, err := http.Get(srv.URL + "/" + target)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	})
	b.Run("raw", func(b *testing.B) {
		proxy, err := urlparse.Parse(srv.URL)
		if err != nil {
			b.Fatal(err)
		}
		c := &fetch.Client{Proxy: &proxy}
		b.SetBytes(int64(len(menu)))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				res, err := c.Open(context.Background(), target)
				if err != nil {
					b.Error(err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
		})
	})
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header {
	if d.h == nil {
		d.h = http.Header{}
	}
	return d.h
}
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// BenchmarkRenderMenu is the HTML rendering of a 10,000-item menu alone,
// with no network: the gopher fetcher's Listing and the page, against a
// copy of the same bytes (raw).
func BenchmarkRenderMenu(b *testing.B) {
	menu := gophertest.ArchiveMenu(10000)
	h, err := New(nil, Options{Resolver: newStub(nil)})
	if err != nil {
		b.Fatal(err)
	}
	listing := func(line []byte) fetch.Entry {
		it, _ := gopher.ParseItem(line)
		return it.Entry("gopher")
	}
	r := httptest.NewRequest("GET", "/gopher://h/1/", nil)
	b.Run("html", func(b *testing.B) {
		b.SetBytes(int64(len(menu)))
		b.ReportAllocs()
		for b.Loop() {
			res := &fetch.Resource{Body: io.NopCloser(bytes.NewReader(menu)), Listing: listing}
			h.listing(&logWriter{ResponseWriter: &discardWriter{}}, r, &query{target: "gopher://h/1/", html: true}, res, 200)
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.SetBytes(int64(len(menu)))
		b.ReportAllocs()
		for b.Loop() {
			io.Copy(&discardWriter{}, io.NopCloser(bytes.NewReader(menu)))
		}
	})
}

// BenchmarkDocument fetches a 16 MiB gopher binary and text (whose
// charset the gateway looks for) through the gateway (a proxy client) and
// directly, for the cost of carrying a document.
func BenchmarkDocument(b *testing.B) {
	data := fetchtest.Pattern(16 << 20)
	g := gophertest.Start(b, gophertest.Bytes(data))
	h, err := New(nil, Options{Resolver: newStub(nil), MaxPerHost: 1 << 20, MaxPerClient: 1 << 20, MaxTotal: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	b.Cleanup(srv.Close)
	proxy, err := urlparse.Parse(srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, target string
		cl           *fetch.Client
	}{
		{"binary/gateway", "/9/file", &fetch.Client{Proxy: &proxy}},
		{"binary/direct", "/9/file", &fetch.Client{NoProxy: "*"}},
		{"text/gateway", "/0/file", &fetch.Client{Proxy: &proxy, Options: fetch.Options{fetch.OptRaw: "true"}}},
		{"text/direct", "/0/file", &fetch.Client{NoProxy: "*", Options: fetch.Options{fetch.OptRaw: "true"}}},
	} {
		target := "gopher://" + g.Addr + c.target
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				res, err := c.cl.Open(context.Background(), target)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if err != nil || n != int64(len(data)) {
					b.Fatalf("%d bytes, %v", n, err)
				}
			}
		})
	}
}

// BenchmarkRenderListing renders a 10,000-entry ftp listing: "hand" is the
// gateway's page (fileRow, one escaping path), "template" the same rows
// written through html/template (contextual escaping), a row template
// executed per entry as the page streams, links made as the gateway makes
// them. The figure is in the package documentation: why the pages are not
// written with html/template.
func BenchmarkRenderListing(b *testing.B) {
	const n = 10000
	entries := make([]fetch.Entry, n)
	var lines bytes.Buffer
	mod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for i := range entries {
		name := "file-" + strconv.Itoa(i) + "&co <v2>.tar.gz"
		entries[i] = fetch.Entry{Name: name, Type: fetch.EntryFile, Size: int64(i) * 1234, ModTime: mod,
			URL: "ftp://ftp.example.org/pub/" + url.PathEscape(name)}
		lines.WriteString(strconv.Itoa(i) + "\n")
	}
	listing := func(line []byte) fetch.Entry {
		i, _ := strconv.Atoi(string(bytes.TrimSpace(line)))
		return entries[i]
	}
	h, err := New(nil, Options{Resolver: newStub(nil)})
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/ftp://ftp.example.org/pub/", nil)
	q := &query{target: "ftp://ftp.example.org/pub/", html: true}
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res := &fetch.Resource{Body: io.NopCloser(bytes.NewReader(lines.Bytes())), Listing: listing}
			h.listing(&logWriter{ResponseWriter: &discardWriter{}}, r, q, res, 200)
		}
	})
	row := template.Must(template.New("row").Parse(`<tr><td><a href="{{.Href}}">{{.Name}}</a></td><td class="n">{{.Size}}</td><td>{{.Date}}</td><td>{{.Type}}</td></tr>` + "\n"))
	type rowData struct {
		Href, Name, Size, Date, Type string
	}
	b.Run("template", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res := &fetch.Resource{Body: io.NopCloser(bytes.NewReader(lines.Bytes())), Listing: listing}
			h.stream(&logWriter{ResponseWriter: &discardWriter{}}, r, q, res, 200, "listing", func(p *page, body io.Reader) error {
				p.raw("<table><tr><th>Name</th><th>Size</th><th>Date</th><th>Type</th></tr>\n")
				defer p.raw("</table>\n")
				for e, err := range res.EntriesFrom(body) {
					if err != nil {
						return err
					}
					d := rowData{Name: e.Name, Size: strconv.FormatInt(e.Size, 10), Date: e.ModTime.UTC().Format("2006-01-02 15:04"), Type: e.Type.String()}
					if p.linkTo(e.URL) == throughFront {
						d.Href = p.m.path(e.URL)
					}
					if err := row.Execute(p.w, d); err != nil {
						return err
					}
				}
				return nil
			})
		}
	})
}
