package serve

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/internal/testserver"
)

// utf8Text is longer than the part the gateway looks at, with a character
// of three bytes cut by its end (at byte sniffLen).
var utf8Text = func() []byte {
	b := bytes.Repeat([]byte("x"), sniffLen-1)
	b = append(b, "€ Grüße, 世界\n"...)
	return append(b, bytes.Repeat([]byte("more text\n"), 500)...)
}()

// Text documents from gophernicus, which says nothing of charsets, are
// served with one, to a browser and to a proxy client alike, the bytes
// those of a direct fetch: UTF-8 ones as UTF-8 (gophernicus turns a
// Latin-1 file into UTF-8 too). Gopher has no ranges: no Accept-Ranges.
func TestCharsetGophernicus(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		os.Chmod(d, 0o755) // gophernicus runs as nobody
	}
	for name, data := range map[string][]byte{"utf8.txt": utf8Text, "latin1.txt": []byte("Gr\xfc\xdfe aus K\xf6ln\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gs := testserver.StartGophernicus(t, testserver.GopherConfig{Root: dir})
	_, srv := gateway(t, Options{})
	for _, file := range []string{"utf8.txt", "latin1.txt"} {
		u := gs.URL("0/" + file)
		for _, proxy := range []bool{false, true} {
			direct := &fetch.Client{NoProxy: "*"}
			req, _ := http.NewRequest("GET", srv.URL+"/", nil)
			req.URL.Opaque = "/" + u
			if proxy {
				direct.Options = fetch.Options{fetch.OptRaw: "true"}
				req.URL.Opaque = u // the absolute form
				req.Header.Set("Accept", "*/*")
			}
			want, _ := fetchAll(t, direct, u)
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body bytes.Buffer
			body.ReadFrom(res.Body)
			res.Body.Close()
			if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != "text/plain; charset=utf-8" {
				t.Errorf("%s (proxy %v): %d Content-Type %q", file, proxy, res.StatusCode, ct)
			}
			if !bytes.Equal(body.Bytes(), want) {
				t.Errorf("%s (proxy %v): %d bytes %q…, want %d", file, proxy, body.Len(), clip(body.Bytes()), len(want))
			}
			if ar := res.Header.Get("Accept-Ranges"); ar != "" {
				t.Errorf("%s: Accept-Ranges %q from gopher", file, ar)
			}
		}
	}
}

// A text document that is not UTF-8 is said to be in the 8-bit charset
// set, ISO-8859-1 by default.
func TestCharset8Bit(t *testing.T) {
	latin1 := []byte("Gr\xfc\xdfe aus K\xf6ln\n")
	g := gophertest.Start(t, &gophertest.Site{Items: map[string]*gophertest.Item{"/l": {Type: '0', Data: latin1}}})
	for set, want := range map[string]string{"": "text/plain; charset=ISO-8859-1", "windows-1252": "text/plain; charset=windows-1252"} {
		_, srv := gateway(t, Options{Charset: set})
		res, body := get(t, srv, "/gopher://"+g.Addr+"/0/l", "")
		if ct := res.Header.Get("Content-Type"); ct != want || body != string(latin1) {
			t.Errorf("Charset %q: Content-Type %q, want %q; %q", set, ct, want, body)
		}
	}
}

// A Latin-1 text file from vsftpd (which says nothing of charsets, and
// sends the bytes as stored) is said to be in the 8-bit charset set,
// ISO-8859-1 by default, its bytes unchanged.
func TestCharset8BitVsftpd(t *testing.T) {
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	latin1 := []byte("Gr\xfc\xdfe aus K\xf6ln\r\n")
	if err := os.WriteFile(filepath.Join(ftp.Anon, "pub", "latin1.txt"), latin1, 0o644); err != nil {
		t.Fatal(err)
	}
	for set, want := range map[string]string{"": "text/plain; charset=ISO-8859-1", "windows-1252": "text/plain; charset=windows-1252"} {
		_, srv := gateway(t, Options{Charset: set})
		res, body := get(t, srv, "/"+ftp.URL+"/pub/latin1.txt", "")
		if ct := res.Header.Get("Content-Type"); res.StatusCode != 200 || ct != want || body != string(latin1) {
			t.Errorf("Charset %q: %d Content-Type %q, want %q; %q", set, res.StatusCode, ct, want, body)
		}
	}
}

// A text file from vsftpd gets its charset from its bytes, not from its
// name (Go's table says utf-8 for any .txt), and Accept-Ranges: bytes, which
// a Range request then gets: 206, the charset found from a first chunk
// starting inside a character.
func TestCharsetVsftpd(t *testing.T) {
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	_, srv := gateway(t, Options{})
	res, body := get(t, srv, "/"+ftp.URL+"/pub/hello.txt", "")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" || res.Header.Get("Accept-Ranges") != "bytes" || body != string(testserver.FTPHello) {
		t.Errorf("hello.txt: %d Content-Type %q Accept-Ranges %q %q", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Accept-Ranges"), body)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/"+ftp.URL+"/pub/1mb.txt", nil)
	req.Header.Set("Range", "bytes=100-199")
	pr, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pr.Body.Close()
	if pr.StatusCode != http.StatusPartialContent || pr.Header.Get("Accept-Ranges") != "bytes" || pr.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Errorf("a range: %d Accept-Ranges %q Content-Type %q", pr.StatusCode, pr.Header.Get("Accept-Ranges"), pr.Header.Get("Content-Type"))
	}
}

// Text files from nginx, which names them text/plain and no charset (no
// charset directive): UTF-8 is said to be UTF-8, Latin-1 the 8-bit
// default; nginx's Accept-Ranges: bytes is passed on, and a Range request
// through the gateway gets its 206.
func TestCharsetNginx(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"utf8.txt": "K\u00f6ln \u2013 Gr\u00fc\u00dfe\n", "latin1.txt": "K\xf6ln \x96 Gr\xfc\xdfe\n"}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	web := testserver.StartNginx(t, testserver.NginxConfig{Root: root})
	_, srv := gateway(t, Options{})
	for name, want := range map[string]string{"utf8.txt": "text/plain; charset=utf-8", "latin1.txt": "text/plain; charset=ISO-8859-1"} {
		res, body := get(t, srv, "/"+web.URL+"/"+name, "")
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != want || res.Header.Get("Accept-Ranges") != "bytes" || body != files[name] {
			t.Errorf("%s: %d Content-Type %q (want %q) Accept-Ranges %q %q", name, res.StatusCode, res.Header.Get("Content-Type"), want, res.Header.Get("Accept-Ranges"), body)
		}
	}
	req, _ := http.NewRequest("GET", srv.URL+"/"+web.URL+"/utf8.txt", nil)
	req.Header.Set("Range", "bytes=0-3")
	pr, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(pr.Body)
	pr.Body.Close()
	if pr.StatusCode != http.StatusPartialContent || string(b) != files["utf8.txt"][:4] {
		t.Errorf("a range: %d %q", pr.StatusCode, b)
	}
}

// A charset the protocol declares is kept; an HTML page that is not UTF-8
// gets none (it may declare its own, which one in the header would
// override); an http server's Accept-Ranges is passed on; a binary gets no
// charset.
func TestCharsetDeclared(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/sjis.txt":
			w.Header().Set("Content-Type", "text/plain; charset=Shift_JIS")
			w.Write([]byte("\x82\xa0\n"))
		case "/page.html":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Accept-Ranges", "bytes")
			w.Write([]byte("<meta charset=koi8-r><p>\xf0\xd2\xc9\xd7\xc5\xd4</p>"))
		case "/bin":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write([]byte{0xff, 0xfe})
		}
	}))
	defer web.Close()
	_, srv := gateway(t, Options{})
	for path, want := range map[string]string{"/sjis.txt": "text/plain; charset=Shift_JIS", "/page.html": "text/html", "/bin": "application/octet-stream"} {
		res, _ := get(t, srv, "/"+web.URL+path, "")
		if ct := res.Header.Get("Content-Type"); ct != want {
			t.Errorf("%s: Content-Type %q, want %q", path, ct, want)
		}
		if ar := res.Header.Get("Accept-Ranges"); (path == "/page.html") != (ar == "bytes") {
			t.Errorf("%s: Accept-Ranges %q", path, ar)
		}
	}
}

func TestWithCharset(t *testing.T) {
	h, err := New(&fetch.Client{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	euro := []byte("€")
	for _, c := range []struct {
		head       []byte
		whole, mid bool
		want       string
	}{
		{[]byte("plain ASCII"), true, false, "text/plain; charset=utf-8"},
		{append([]byte("cut "), euro[:2]...), false, false, "text/plain; charset=utf-8"},
		{append([]byte("cut at the end "), euro[:2]...), true, false, "text/plain; charset=ISO-8859-1"},
		{append(euro[1:], " started inside"...), false, true, "text/plain; charset=utf-8"},
		{append(euro[1:], " at the start"...), false, false, "text/plain; charset=ISO-8859-1"},
		{[]byte("K\xf6ln"), false, false, "text/plain; charset=ISO-8859-1"},
	} {
		if got := h.withCharset("text/plain", c.head, c.whole, c.mid); got != c.want {
			t.Errorf("%q (whole %v, mid %v): %q, want %q", c.head, c.whole, c.mid, got, c.want)
		}
	}
	if got := h.withCharset("text/html", []byte("K\xf6ln"), true, false); got != "text/html" {
		t.Errorf("HTML not UTF-8: %q", got)
	}
	for _, bad := range []string{"utf-8; x=y", "a b", "x\r\ny"} {
		if _, err := New(nil, Options{Charset: bad}); err == nil || !strings.Contains(err.Error(), "charset") {
			t.Errorf("Charset %q: %v", bad, err)
		}
	}
}
