package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
	"github.com/urlget/urlget/fetch/wais/waistest"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/urlparse"
)

// servers starts one in-tree server of each scheme the gateway carries and
// returns URLs of their menus, listings and documents.
func servers(t *testing.T) (urls []string, ftpSrv *ftptest.Server) {
	t.Helper()
	site := &gophertest.Site{Items: map[string]*gophertest.Item{
		"":      {Type: '1', Menu: []string{"iWelcome", "0A text\t/text", "9A binary\t/bin", "1Self\t"}},
		"/text": {Type: '0', Data: []byte("line one\r\n.dot line\r\nlast\r\n"), DotStuff: true},
		"/bin":  {Type: '9', Data: bytes.Repeat([]byte{0, 1, 2, '\r', '\n', 0xff}, 5000)},
	}}
	g := gophertest.Start(t, site)
	urls = append(urls, "gopher://"+g.Addr+"/1", "gopher://"+g.Addr+"/0/text", "gopher://"+g.Addr+"/9/bin")

	f := ftptest.New(t)
	mod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	f.AddFile("/pub/readme.txt", []byte("read me\r\nplease\n"), mod)
	f.AddFile("/pub/data.bin", fetchtest.Pattern(100000), mod)
	f.AddDir("/pub/sub")
	urls = append(urls, "ftp://"+f.Addr+"/pub/", "ftp://"+f.Addr+"/pub/readme.txt", "ftp://"+f.Addr+"/pub/data.bin")

	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "page.html", mod, bytes.NewReader(fetchtest.Pattern(50000)))
	}))
	t.Cleanup(web.Close)
	urls = append(urls, web.URL+"/page.html")

	n := (&nntptest.Server{Groups: nntptest.Sample()}).Start(t)
	urls = append(urls, "nntp://"+n.Addr+"/local.test", "nntp://"+n.Addr+"/local.test/1", "nntp://"+n.Addr+"/local.test/4")

	w := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}})
	urls = append(urls, w.URL("test?apple"), w.DocURL("test", waistest.TestDB().Docs[0], true))

	root := prosperotest.DefaultRoot
	ps := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root:              {Dir: true},
		root + "/a.txt":   {Contents: []byte("Prospero file\n")},
		root + "/sub":     {Dir: true},
		root + "/sub/b.c": {Contents: []byte("int main;\n")},
	}}
	addr := ps.Start(t)
	urls = append(urls, "prospero://"+addr+"/"+root+"/a.txt", "prospero://"+addr+"/"+root)
	return urls, f
}

func fetchAll(t *testing.T, c *fetch.Client, url string) ([]byte, *fetch.Resource) {
	t.Helper()
	res, err := c.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return b, res
}

// Through the gateway as a proxy (what urlget -x, lynx's gopher_proxy and
// curl -x send), a client that does not ask for HTML gets the bytes a
// direct fetch writes to a file (fetch.OptAsSent, the Downloader's rule),
// for every scheme with the Gateway capability: a gopher menu as sent, a
// news article's CRLF as LF.
func TestProxyBytesAsSent(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	urls, _ := servers(t)
	_, srv := gateway(t, Options{})
	proxy, err := urlparse.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	direct := &fetch.Client{NoProxy: "*", Options: fetch.Options{fetch.OptAsSent: "1"}}
	via := &fetch.Client{Proxy: &proxy, Options: fetch.Options{fetch.OptAsSent: "1"}}
	for _, u := range urls {
		want, _ := fetchAll(t, direct, u)
		got, res := fetchAll(t, via, u)
		if !res.IsHTTP() || res.Status != 200 {
			t.Errorf("%s through the gateway: not a 200 HTTP reply (%q %d)", u, res.Proto, res.Status)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: through the gateway %d bytes %q…, direct %d bytes %q…", u, len(got), clip(got), len(want), clip(want))
		}
		if len(want) == 0 {
			t.Errorf("%s: nothing fetched", u)
		}
	}
}

func clip(b []byte) []byte { return b[:min(len(b), 80)] }

// Every listing and document of every scheme shows as a page (or the
// document) through the web front, with nothing active in it.
func TestFrontPages(t *testing.T) {
	urls, _ := servers(t)
	_, srv := gateway(t, Options{})
	for _, u := range urls {
		res, body := get(t, srv, mount{}.path(u), "text/html")
		if res.StatusCode != 200 {
			t.Errorf("%s: %d %s", u, res.StatusCode, body)
			continue
		}
		switch csp := res.Header.Get("Content-Security-Policy"); {
		case strings.Contains(csp, "sandbox"):
			// A document, passed through: whatever it holds runs no script.
		case strings.Contains(csp, styleSrc):
			checkPage(t, body, "a")
		default:
			t.Errorf("%s: Content-Security-Policy %q", u, csp)
		}
	}
}

// A news group shows its articles with subject, author and date; an
// article its header fields, with Message-IDs and groups as links into
// the gateway; a control byte in a subject is no control byte.
func TestNewsPages(t *testing.T) {
	n := (&nntptest.Server{Groups: nntptest.Sample()}).Start(t)
	_, srv := gateway(t, Options{})
	_, body := get(t, srv, "/nntp://"+n.Addr+"/local.test", "")
	for _, want := range []string{
		`<a href="/nntp://` + n.Addr + `/local.test/1">Known article one</a></td><td>Fixture Poster &lt;poster@example.net&gt;</td><td>2026-11-21 07:37</td>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("group page lacks %s:\n%s", want, body)
		}
	}
	if strings.ContainsAny(body, "\x1b\x07") {
		t.Errorf("group page holds a control byte")
	}
	_, body = get(t, srv, "/nntp://"+n.Addr+"/", "")
	if want := `<a href="/nntp://` + n.Addr + `/local.test">local.test</a>`; !strings.Contains(body, want) {
		t.Errorf("group list lacks %s:\n%s", want, body)
	}
	res, body := get(t, srv, "/nntp://"+n.Addr+"/local.test/1", "")
	for _, want := range []string{
		`<tr><th>Message-ID</th><td><a href="/nntp://` + n.Addr + `/%3Cknown-1@example.net%3E">&lt;known-1@example.net&gt;</a></td></tr>`,
		`<tr><th>Newsgroups</th><td><a href="/nntp://` + n.Addr + `/local.test">local.test</a></td></tr>`,
		"<pre class=\"body\">Hello, news.\nSecond line.\n</pre>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("article page lacks %s:\n%s", want, body)
		}
	}
	checkPage(t, body, "a")
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Errorf("article Content-Type %q", res.Header.Get("Content-Type"))
	}
	// The Message-ID link leads to the same article.
	_, byID := get(t, srv, "/nntp://"+n.Addr+"/%3Cknown-1@example.net%3E", "")
	if !strings.Contains(byID, "<pre class=\"body\">Hello, news.\nSecond line.\n</pre>") {
		t.Errorf("article by Message-ID:\n%s", byID)
	}
}

// A WAIS database's page is a search form over its help records; its
// results show their scores and link to the documents through the
// gateway.
func TestWAISPages(t *testing.T) {
	w := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}})
	_, srv := gateway(t, Options{})
	_, body := get(t, srv, "/"+w.URL("test"), "")
	if !strings.Contains(body, `<input type="hidden" name="u" value="`+w.URL("test")+`">`) || !strings.Contains(body, ">test.src") {
		t.Errorf("the database page is not a search form over the database's help records:\n%s", body)
	}
	_, body = get(t, srv, "/.search?u="+w.URL("test")+"&q=apple", "")
	doc := w.DocURL("test", waistest.TestDB().Docs[0], true)
	if !regexp.MustCompile(`<tr><td class="n">[1-9][0-9]*</td><td><a href="/` + regexp.QuoteMeta(doc) + `">apple.txt `).MatchString(body) {
		t.Errorf("the results lack a scored link to %s:\n%s", doc, body)
	}
	checkPage(t, body, "a")
}

// Range is carried out as the protocol's resume (ftp REST, http Range):
// 206 with the part asked for; a server that cannot resume gives all of
// it, 200.
func TestRange(t *testing.T) {
	urls, f := servers(t)
	_, srv := gateway(t, Options{})
	data := fetchtest.Pattern(100000)
	for _, c := range []struct {
		url        string
		rng        string
		status     int
		first, end int
	}{
		{urls[5], "bytes=1000-", 206, 1000, 100000},
		{urls[5], "bytes=1000-1999", 206, 1000, 2000},
		{urls[6], "bytes=40000-", 206, 40000, 50000},
		{urls[6], "bytes=40000-40009", 206, 40000, 40010},
		{urls[5], "bytes=-100", 200, 0, 100000},
		{urls[5], "bytes=200000-", 416, 0, 0}, // past the end of an ftp file: 416, as http's (the ftp fetch sees SIZE below the offset: exit 36)
		{urls[6], "bytes=60000-", 416, 0, 0},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/"+c.url, nil)
		req.Header.Set("Range", c.rng)
		res, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != c.status {
			t.Errorf("%s %s: status %d: %s", c.url, c.rng, res.StatusCode, clip(b))
			continue
		}
		if c.status == 416 {
			continue
		}
		total := 100000
		if strings.HasPrefix(c.url, "http") {
			total = 50000
		}
		want := data[c.first:min(c.end, total)]
		if !bytes.Equal(b, want) {
			t.Errorf("%s %s: %d bytes, want %d", c.url, c.rng, len(b), len(want))
		}
		if c.status == 206 {
			if cr := res.Header.Get("Content-Range"); cr != fmt.Sprintf("bytes %d-%d/%d", c.first, min(c.end, total)-1, total) {
				t.Errorf("%s %s: Content-Range %q", c.url, c.rng, cr)
			}
		}
	}
	rest := false
	for _, l := range f.Lines() {
		if strings.HasPrefix(l, "REST 1000") {
			rest = true
		}
	}
	if !rest {
		t.Errorf("the ftp server saw no REST 1000: %q", f.Lines())
	}
}

// HEAD gives the header fields of a GET and no body; documents carry
// their length, date and type.
func TestHead(t *testing.T) {
	urls, _ := servers(t)
	_, srv := gateway(t, Options{})
	res, err := srv.Client().Head(srv.URL + "/" + urls[5])
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.ContentLength != 100000 || res.Header.Get("Last-Modified") != "Tue, 04 Mar 2025 05:06:07 GMT" {
		t.Errorf("HEAD %s: %d, length %d, Last-Modified %q", urls[5], res.StatusCode, res.ContentLength, res.Header.Get("Last-Modified"))
	}
	res, body := get(t, srv, "/"+urls[4], "")
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || body != "read me\r\nplease\n" {
		t.Errorf("%s: Content-Type %q, %q", urls[4], ct, body)
	}
}

// A proxy client that puts text/html first (a browser, lynx) gets the
// menu as HTML, its links absolute so that they come back through the
// proxy; any other the menu as sent.
func TestProxyAccept(t *testing.T) {
	urls, _ := servers(t)
	_, srv := gateway(t, Options{})
	var mu sync.Mutex
	for _, c := range []struct {
		accept string
		html   bool
	}{{"text/html, text/plain, */*;q=0.1", true}, {"*/*", false}, {"text/plain, text/html", false}, {"", false}} {
		mu.Lock()
		conn, err := (&httpDialer{}).get(srv.Listener.Addr().String(), urls[0], c.accept)
		mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		isHTML := strings.Contains(conn, "<!DOCTYPE html>") && strings.Contains(conn, `<a href="gopher://`)
		if isHTML != c.html {
			t.Errorf("Accept %q: HTML %v:\n%s", c.accept, isHTML, conn)
		}
	}
}

// httpDialer sends one absolute-form request, as a proxy client does.
type httpDialer struct{}

func (httpDialer) get(addr, target, accept string) (string, error) {
	req, err := http.NewRequest("GET", "http://"+addr+"/", nil)
	if err != nil {
		return "", err
	}
	req.URL.Opaque = target
	req.RequestURI = ""
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	req.Header.Set("Accept", accept)
	req.Host = "x"
	// A net/http client writes the absolute form for a request whose URL
	// has an Opaque part starting with a scheme.
	c := &http.Client{Transport: tr}
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

// A name service's referral is fetched under the gateway's rules too: a
// Prospero LOCAL method naming a file outside --allow-file is refused.
func TestReferralRules(t *testing.T) {
	dir := t.TempDir()
	secret := dir + "/secret"
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := prosperotest.DefaultRoot
	ps := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/local": {Methods: [][]string{{"LOCAL", "INTERNET-D", "", "ASCII", secret}}},
	}}
	addr := ps.Start(t)
	direct := &fetch.Client{NoProxy: "*"}
	if b, _ := fetchAll(t, direct, "prospero://"+addr+"/"+root+"/local"); string(b) != "secret\n" {
		t.Fatalf("the referral does not reach the file directly: %q", b)
	}
	allowed := t.TempDir()
	_, srv := gateway(t, Options{AllowFile: allowed})
	res, body := get(t, srv, "/prospero://"+addr+"/"+root+"/local", "")
	if res.StatusCode != http.StatusForbidden || strings.Contains(body, "secret\n") {
		t.Errorf("LOCAL referral outside --allow-file: %d %q", res.StatusCode, body)
	}
	_, srv = gateway(t, Options{})
	res, body = get(t, srv, "/prospero://"+addr+"/"+root+"/local", "")
	if res.StatusCode != http.StatusForbidden || strings.Contains(body, "secret\n") {
		t.Errorf("LOCAL referral without --allow-file: %d %q", res.StatusCode, body)
	}
}

// A gopher document of no known length goes from socket to socket: the
// reply ends with the connection (not chunked), every byte arrives, and
// an upstream that breaks off is a reset the client sees as an error, not
// an end.
func TestStraightDocument(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	data := fetchtest.Pattern(3<<20 + 777)
	g := gophertest.Start(t, gophertest.HandlerFunc(func(c *gophertest.Conn, r *gophertest.Request) {
		if r.Selector != "/cut" {
			c.Write(data)
			return
		}
		c.Write(data[:1<<20])
		time.Sleep(50 * time.Millisecond)
		c.Conn.(*net.TCPConn).SetLinger(0) // a reset, not an end
	}))
	_, srv := gateway(t, Options{})
	res, err := http.Get(srv.URL + "/gopher://" + g.Addr + "/9/file")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || !bytes.Equal(b, data) {
		t.Errorf("%d bytes (equal: %v), %v", len(b), bytes.Equal(b, data), err)
	}
	if res.ContentLength != -1 || len(res.TransferEncoding) != 0 || !res.Close {
		t.Errorf("length %d, transfer encoding %q, close %v: want a reply ended by the connection", res.ContentLength, res.TransferEncoding, res.Close)
	}
	res, err = http.Get(srv.URL + "/gopher://" + g.Addr + "/9/cut")
	if err != nil {
		t.Fatal(err)
	}
	b, err = io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil {
		t.Errorf("a document cut upstream after %d of %d bytes ended without an error", len(b), len(data))
	}
}

// vsftpd's listing through the proxy form (curl -x GATEWAY ftp://host/dir/)
// is what curl and urlget give directly: its lines end in LF, not in the
// CRLF vsftpd sends.
func TestProxyFTPListing(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	_, srv := gateway(t, Options{})
	dir := ftp.URL + "/pub/"
	curl := testserver.Require(t, "curl")
	direct, err := exec.Command(curl, "-sS", dir).Output()
	if err != nil {
		t.Fatalf("curl %s: %v", dir, err)
	}
	via, err := exec.Command(curl, "-sS", "--noproxy", "", "-x", srv.URL, dir).Output()
	if err != nil {
		t.Fatalf("curl -x GATEWAY %s: %v", dir, err)
	}
	if !bytes.Contains(direct, []byte("hello.txt\n")) || bytes.Contains(direct, []byte("\r")) {
		t.Fatalf("curl's own listing is not one of LF lines: %q", direct)
	}
	if !bytes.Equal(via, direct) {
		t.Errorf("curl -x GATEWAY %s:\n%q\ncurl directly:\n%q", dir, via, direct)
	}
	proxy, err := urlparse.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := fetchAll(t, &fetch.Client{Proxy: &proxy}, dir)
	want, _ := fetchAll(t, &fetch.Client{NoProxy: "*", Options: fetch.Options{fetch.OptAsSent: "1"}}, dir)
	if !bytes.Equal(got, want) || !bytes.Equal(got, direct) {
		t.Errorf("urlget -x GATEWAY %s:\n%q\nurlget to a file:\n%q", dir, got, want)
	}
}
