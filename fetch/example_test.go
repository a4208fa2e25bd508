package fetch_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all" // every scheme
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/urlparse"
)

// Open fetches a URL; the body streams and must be closed.
func ExampleClient_Open() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello, world\n")
	}))
	defer srv.Close()

	c := &fetch.Client{Fail: true}
	res, err := c.Open(context.Background(), srv.URL+"/greeting")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	fmt.Println(res.Status, res.ContentType, res.Size)
	io.Copy(os.Stdout, res.Body)
	// Output:
	// 200 text/plain 13
	// hello, world
}

// A resume asks for the resource from an offset; Since (the Last-Modified
// time of the part already held) makes the server send it whole if it
// changed since.
func ExampleClient_Do_resume() {
	modified := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "data.txt", modified, strings.NewReader("0123456789"))
	}))
	defer srv.Close()

	c := &fetch.Client{}
	u, err := urlparse.Parse(srv.URL + "/data.txt")
	if err != nil {
		log.Fatal(err)
	}
	for _, since := range []time.Time{modified, modified.Add(-time.Hour)} {
		res, err := c.Do(context.Background(), &fetch.Request{URL: &u, Offset: 6, Since: since})
		if err != nil {
			log.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fmt.Printf("status %d, body starts at %d: %s\n", res.Status, res.Offset, b)
	}
	// Output:
	// status 206, body starts at 6: 6789
	// status 200, body starts at 0: 0123456789
}

// Redirects are followed only when asked, and only to http, https, ftp and ftps.
func ExampleClient_redirects() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/old":
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		case "/elsewhere":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			io.WriteString(w, "new content\n")
		}
	}))
	defer srv.Close()

	res, _ := (&fetch.Client{}).Open(context.Background(), srv.URL+"/old")
	res.Body.Close()
	loc, _ := url.Parse(res.Location)
	fmt.Println("without FollowRedirects:", res.Status, loc.Path)

	c := &fetch.Client{FollowRedirects: true}
	res, _ = c.Open(context.Background(), srv.URL+"/old")
	io.Copy(os.Stdout, res.Body)
	res.Body.Close()

	_, err := c.Open(context.Background(), srv.URL+"/elsewhere")
	fmt.Println(err, "- exit", fetch.ExitCode(err))
	// Output:
	// without FollowRedirects: 301 /new
	// new content
	// redirect to a file: URL refused: only http, https, ftp and ftps redirects are followed - exit 1
}

// A directory (here a file: URL) is a listing: Entries parses it line by
// line.
func ExampleResource_Entries() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("some notes\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.Symlink("notes.txt", filepath.Join(dir, "latest"))

	res, err := (&fetch.Client{}).Open(context.Background(), "file://"+filepath.ToSlash(dir)+"/")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	kinds := map[fetch.EntryType]string{fetch.EntryFile: "file", fetch.EntryDir: "dir", fetch.EntryLink: "link"}
	for e, err := range res.Entries() {
		if err != nil {
			log.Fatal(err)
		}
		line := fmt.Sprint(kinds[e.Type], " ", e.Name, " ", strings.TrimPrefix(e.URL, "file://"+filepath.ToSlash(dir)))
		if e.Type == fetch.EntryLink {
			line += " -> " + e.Target
		}
		fmt.Println(line)
	}
	// Output:
	// link latest /latest -> notes.txt
	// file notes.txt /notes.txt
	// dir src /src/
}

// Every error is typed; ExitCode gives curl's exit status for it.
func ExampleExitCode() {
	c := &fetch.Client{}
	for _, u := range []string{
		"http://[::1/",                     // malformed
		"gopher://h/0selector%0D%0AQUIT",   // CR LF smuggled in a field
		"file://fileserver/etc/passwd",     // another host's file
		"file:///nonexistent/urlget/file",  // no such file
		"x-unknown://example.com/resource", // no fetcher
	} {
		_, err := c.Open(context.Background(), u)
		fmt.Println(fetch.ExitCode(err), fetch.KindOf(err) == fetch.ErrMalformed)
	}
	// Output:
	// 3 true
	// 3 true
	// 3 true
	// 37 false
	// 1 false
}

func ExampleParseNetrc() {
	n, err := fetch.ParseNetrc(strings.NewReader(`
machine ftp.example.com login anonymous password guest@example.com
default login me password "my secret"
`))
	if err != nil {
		log.Fatal(err)
	}
	m, _ := n.Lookup("FTP.example.com", "")
	fmt.Println(m.Login, m.Password)
	m, _ = n.Lookup("other.example.org", "")
	fmt.Println(m.Login, m.Password)
	// Output:
	// anonymous guest@example.com
	// me my secret
}

func ExampleNoProxyMatch() {
	list := "localhost, .internal.example, 10.0.0.0/8"
	for _, host := range []string{"localhost", "db.internal.example", "10.1.2.3", "example.com"} {
		fmt.Println(host, fetch.NoProxyMatch(list, host))
	}
	// Output:
	// localhost true
	// db.internal.example true
	// 10.1.2.3 true
	// example.com false
}

// A Progress hook sees the body arrive.
func ExampleClient_progress() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(bytes.Repeat([]byte("x"), 100000))
	}))
	defer srv.Close()

	var last, total int64
	c := &fetch.Client{Progress: func(done, tot int64) { last, total = done, tot }}
	res, err := c.Open(context.Background(), srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	fmt.Printf("%d of %d bytes\n", last, total)
	// Output: 100000 of 100000 bytes
}

// Meta.Header keeps an HTTP response's header fields as the server sent
// them, in order and case; Get looks a name up without regard to case.
func ExampleHeader() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`) // net/http's server writes "Etag"
		w.Header()["x-lower-case"] = []string{"kept"}
		io.WriteString(w, "body\n")
	}))
	defer srv.Close()

	u, _ := urlparse.Parse(srv.URL + "/doc")
	res, err := (&fetch.Client{}).Do(context.Background(), &fetch.Request{URL: &u, Head: true})
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	fmt.Println(res.Proto, res.Status, res.Reason)
	for _, f := range res.Header {
		if f.Name != "Date" { // changes every second
			fmt.Printf("%s: %s\n", f.Name, f.Value)
		}
	}
	fmt.Println(res.Header.Get("etag"))
	// Output:
	// HTTP/1.1 200 OK
	// Etag: "v1"
	// x-lower-case: kept
	// Content-Length: 5
	// Content-Type: text/plain; charset=utf-8
	// "v1"
}

// A Limiter paces any reader; set as Client.LimitRate it paces every body
// the Client opens, all of them together.
func ExampleLimiter() {
	l := fetch.NewLimiter(64 << 10) // 64 KiB/s
	start := time.Now()
	n, err := io.Copy(io.Discard, l.Reader(context.Background(), strings.NewReader(strings.Repeat("x", 32<<10))))
	fmt.Println(n, err, time.Since(start) >= 300*time.Millisecond)

	c := &fetch.Client{LimitRate: l, LowSpeedLimit: 1024, LowSpeedTime: 30 * time.Second}
	_ = c
	// Output: 32768 <nil> true
}

// A net/http program reaches the other schemes through a RoundTripper
// registered on its Transport: here a gopher server on this machine.
func ExampleRegisterProtocols() {
	srv, err := gophertest.Listen(&gophertest.Site{Items: map[string]*gophertest.Item{
		"/hello": {Type: '0', Data: []byte("hello, gopher\n")},
	}}, false)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	t := &http.Transport{}
	fetch.RegisterProtocols(t, &fetch.Client{NoProxy: "*"})
	hc := &http.Client{Transport: t}

	resp, err := hc.Get(srv.URL("0/hello"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	io.Copy(os.Stdout, resp.Body)
	resp.Body.Close()

	resp, err = hc.Get(srv.URL("0/missing"))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	// Output:
	// 200 OK text/plain
	// hello, gopher
	// 404 Not Found
}
