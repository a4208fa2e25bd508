package gopher_test

// Integration tests on real servers started by internal/testserver:
// pygopherd (Gopher+, type 7, TLS on the same port) and gophernicus (under
// socat as nobody; socat OPENSSL-LISTEN for gophers). They skip when a
// server is not installed, and fail instead when CI is set.

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/internal/testserver"
)

// renderURL fetches a menu and renders it.
func renderURL(t *testing.T, c *fetch.Client, url string, mode gopher.Mode) string {
	t.Helper()
	res, err := c.Open(ctxT(t, 20*time.Second), url)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	defer res.Body.Close()
	if !res.Dir && mode != gopher.Raw {
		t.Errorf("%s: not a menu", url)
	}
	var b bytes.Buffer
	if err := gopher.Render(&b, res.Body, mode); err != nil {
		t.Fatalf("render %s: %v", url, err)
	}
	return b.String()
}

func entries(t *testing.T, c *fetch.Client, url string) []fetch.Entry {
	t.Helper()
	res, err := c.Open(ctxT(t, 20*time.Second), url)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	defer res.Body.Close()
	var es []fetch.Entry
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	return es
}

// tlsFiles writes the shared test certificate and key into dir.
func tlsFiles(t *testing.T, dir string) (cert, key string) {
	t.Helper()
	c, k, err := gophertest.CertPEM()
	if err != nil {
		t.Fatal(err)
	}
	cert, key = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, c, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, k, 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func TestPygopherd(t *testing.T) {
	s := testserver.Pygopherd(t)
	c := client(nil)
	port := strconv.Itoa(s.Port)
	base := "gopher://" + s.Addr

	t.Run("Menu", func(t *testing.T) {
		got := renderURL(t, c, s.URL("1/menu"), gopher.Readable)
		want := "" +
			"       Welcome to the fixture menu\n" +
			"(TXT)  Hello  <" + base + "/0/hello.txt>\n" +
			"       A short abstract for hello.txt\n" +
			"(DIR)  Docs  <" + base + "/1/docs>\n" +
			"(?)    Search the docs  <" + base + "/7/cgi-bin/search.cgi>\n" +
			"(BIN)  Binary  <" + base + "/9/binary.bin>\n" +
			"(HTML) Example  <http://example.com/>\n"
		if got != want {
			t.Errorf("menu:\n%s\nwant:\n%s", got, want)
		}
		js := renderURL(t, c, s.URL("1/menu"), gopher.JSON)
		if !strings.Contains(js, `{"type":"7","display":"Search the docs","selector":"/cgi-bin/search.cgi","host":"127.0.0.1","port":`+port+`,"plus":"+","url":"`+base+`/7/cgi-bin/search.cgi"}`) {
			t.Errorf("JSON menu:\n%s", js)
		}
		raw := renderURL(t, client(map[string]string{gopher.OptRaw: "1"}), s.URL("1/menu"), gopher.Raw)
		if !strings.HasPrefix(raw, "iWelcome to the fixture menu\t/menu/fake\t(NULL)\t0\r\n0Hello\t/hello.txt\t127.0.0.1\t"+port+"\t+\r\n") {
			t.Errorf("raw menu:\n%q", raw)
		}
		// The root menu, and following an entry's URL back to the server.
		var hello string
		for _, e := range entries(t, c, s.URL("")) {
			if e.Name == "name with spaces" {
				hello = e.URL
			}
		}
		if hello != base+"/0/name%20with%20spaces.txt" {
			t.Fatalf("entry URL %q", hello)
		}
		if _, body := mustGet(t, c, hello); string(body) != testserver.GopherSpaces {
			t.Errorf("name with spaces.txt: %q", body)
		}
	})
	t.Run("Text", func(t *testing.T) {
		res, body := mustGet(t, c, s.URL("0/hello.txt"))
		if string(body) != testserver.GopherHello || res.ItemType != '0' {
			t.Errorf("hello.txt: %q", body)
		}
		// No "." after texts and no dot-stuffing from pygopherd: byte for byte.
		if _, body := mustGet(t, c, s.URL("0/dots.txt")); string(body) != testserver.GopherDots {
			t.Errorf("dots.txt: %q", body)
		}
		if _, body := mustGet(t, c, s.URL("h/about.html")); string(body) != testserver.GopherAbout {
			t.Errorf("about.html: %q", body)
		}
	})
	t.Run("Binary", func(t *testing.T) {
		_, body := mustGet(t, c, s.URL("9/binary.bin"))
		if sha256.Sum256(body) != sha256.Sum256(testserver.GopherBinary()) {
			t.Errorf("binary.bin: %d bytes, sha256 differs", len(body))
		}
	})
	t.Run("Search", func(t *testing.T) {
		es := entries(t, c, s.URL("7/cgi-bin/search.cgi%09two"))
		if len(es) != 2 || es[0].Name != `Search results for "two"` || es[1].Name != "docs/two.txt" || es[1].URL != base+"/0/docs/two.txt" {
			t.Errorf("search entries %+v", es)
		}
		es = entries(t, client(map[string]string{gopher.OptSearch: "doc"}), s.URL("7/cgi-bin/search.cgi"))
		if len(es) != 3 {
			t.Errorf("search with -d: %+v", es)
		}
		_, _, err := get(t, c, s.URL("7/cgi-bin/search.cgi"))
		fetchtest.WantKind(t, err, fetch.ErrMalformed)
	})
	t.Run("Errors", func(t *testing.T) {
		_, _, err := get(t, c, s.URL("0/nope"))
		fetchtest.WantKind(t, err, fetch.ErrNotFound)
		var se *gopher.ServerError
		if !errors.As(err, &se) || se.Message != "'/nope' does not exist (no handler found)" || se.Plus {
			t.Errorf("error item: %+v", se)
		}
		_, _, err = get(t, c, s.URL("0/nope%09%09+"))
		fetchtest.WantKind(t, err, fetch.ErrNotFound)
		if !errors.As(err, &se) || !se.Plus || se.Code != 1 || se.Admin != "Fixture Admin <admin@example.net>" || se.Message != "'/nope' does not exist (no handler found)" {
			t.Errorf("gopher+ error: %+v", se)
		}
	})
	t.Run("GopherPlus", func(t *testing.T) {
		res, body := mustGet(t, c, s.URL("0/hello.txt%09%09+"))
		if string(body) != testserver.GopherHello || res.Size != int64(len(testserver.GopherHello)) {
			t.Errorf("+: %q size %d", body, res.Size)
		}
		_, body = mustGet(t, c, s.URL("0/hello.txt%09%09!"))
		all, err := gopher.ParseAttributes(bytes.NewReader(body))
		if err != nil || len(all) != 1 {
			t.Fatalf("!: %v %q", err, body)
		}
		a := all[0]
		views := a.Views()
		if a.Info.Selector != "/hello.txt" || a.Abstract() != testserver.GopherHelloAbstract ||
			a.Admin()["Admin"] != "Fixture Admin <admin@example.net>" || len(views) != 1 || views[0].Type != "text/plain" {
			t.Errorf("attributes %+v", a)
		}
		// An alternate view, by the name +VIEWS gave.
		res, body = mustGet(t, c, s.URL("0/hello.txt%09%09"+strings.ReplaceAll(views[0].Param(), " ", "%20")))
		if string(body) != testserver.GopherHello || res.ContentType != "text/plain" {
			t.Errorf("view %s: %q %q", views[0].Param(), body, res.ContentType)
		}
		// "!+ABSTRACT": pygopherd knows only a bare "!"; the fetcher asks
		// for all and keeps +INFO and +ABSTRACT.
		_, body = mustGet(t, c, s.URL("0/hello.txt%09%09!+ABSTRACT"))
		if want := "+INFO: 0hello.txt\t/hello.txt\t127.0.0.1\t" + port + "\t+\r\n+ABSTRACT:\r\n " + testserver.GopherHelloAbstract + "\r\n"; string(body) != want {
			t.Errorf("!+ABSTRACT: %q, want %q", body, want)
		}
		// "$": attributes of every item of a directory.
		_, body = mustGet(t, c, s.URL("1/docs%09%09$"))
		all, err = gopher.ParseAttributes(bytes.NewReader(body))
		if err != nil || len(all) != 2 || all[0].Info.Selector != "/docs/one.txt" || all[1].Info.Selector != "/docs/two.txt" {
			t.Errorf("$: %v %+v", err, all)
		}
		// A Gopher+ menu.
		es := entries(t, c, s.URL("1/docs%09%09+"))
		if len(es) != 2 || es[0].Name != "one" || es[0].URL != base+"/0/docs/one.txt" {
			t.Errorf("gopher+ menu %+v", es)
		}
	})
	t.Run("Ask", func(t *testing.T) {
		// pygopherd serves form.txt.ask as the +ASK block: the questions
		// come back in the error when no answers are given.
		_, _, err := get(t, c, s.URL("0/form.txt%09%09?"))
		fetchtest.WantKind(t, err, fetch.ErrMalformed)
		var ae *gopher.AskError
		if !errors.As(err, &ae) || len(ae.Questions) != 2 || ae.Questions[0].Prompt != "Your name?" || ae.Questions[0].Default != "Anonymous" ||
			ae.Questions[1].Kind != "Choose" || strings.Join(ae.Questions[1].Choices, ",") != "red,green,blue" {
			t.Fatalf("AskError %+v", ae)
		}
		// Answered: pygopherd does not read Gopher+ data blocks, and answers
		// "selector TAB + TAB 1" with the plain document.
		_, body := mustGet(t, client(map[string]string{gopher.OptAsk: "Ada\n2"}), s.URL("0/form.txt%09%09?"))
		if string(body) != testserver.GopherForm {
			t.Errorf("answered form: %q", body)
		}
	})
	t.Run("Conformance", func(t *testing.T) {
		fetchtest.Run(t, fetchtest.Suite{
			Client:      c,
			Known:       s.URL("9/binary.bin"),
			KnownBody:   testserver.GopherBinary(),
			Missing:     s.URL("0/nope.txt"),
			MissingKind: fetch.ErrNotFound,
			Dir:         s.URL("1/docs"),
			DirNames:    []string{"one", "two"},
			Inject:      s.URL("0/hello.txt%0D%0A/etc/passwd"),
			Cannot: map[fetchtest.Case]string{
				fetchtest.CaseStall:     "a real server cannot be made to stall: the in-tree server's TestConformance does",
				fetchtest.CaseStallBody: "a real server cannot be made to stall: the in-tree server's TestConformance does",
				fetchtest.CaseEarly:     "a real server cannot be made to cut a body: the in-tree server's TestConformance does",
			},
		})
	})
}

func TestPygopherdTLS(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	cert, key := tlsFiles(t, dir)
	s := testserver.StartPygopherd(t, testserver.GopherConfig{TLS: true, CertFile: cert, KeyFile: key})
	tlsCfg, err := gophertest.TrustedTLS()
	if err != nil {
		t.Fatal(err)
	}
	c := client(nil)
	c.TLS = tlsCfg
	if _, body := mustGet(t, c, "gophers://"+s.Addr+"/0/hello.txt"); string(body) != testserver.GopherHello {
		t.Errorf("gophers hello.txt: %q", body)
	}
	if _, body := mustGet(t, c, "gophers://"+s.Addr+"/9/binary.bin"); !bytes.Equal(body, testserver.GopherBinary()) {
		t.Errorf("gophers binary.bin differs")
	}
	// Items on the same host and port link with gophers.
	var urls []string
	for _, e := range entries(t, c, "gophers://"+s.Addr+"/1/docs") {
		urls = append(urls, e.URL)
	}
	if strings.Join(urls, " ") != "gophers://"+s.Addr+"/0/docs/one.txt gophers://"+s.Addr+"/0/docs/two.txt" {
		t.Errorf("gophers menu URLs %v", urls)
	}
	// Plain gopher still works on the same port; an untrusted certificate
	// does not.
	if _, body := mustGet(t, c, "gopher://"+s.Addr+"/0/hello.txt"); string(body) != testserver.GopherHello {
		t.Errorf("plain hello.txt: %q", body)
	}
	_, _, err = get(t, client(nil), "gophers://"+s.Addr+"/0/hello.txt")
	fetchtest.WantKind(t, err, fetch.ErrCertificate)
}

func TestGophernicus(t *testing.T) {
	s := testserver.Gophernicus(t)
	c := client(nil)
	base := "gopher://" + s.Addr

	t.Run("Menu", func(t *testing.T) {
		got := renderURL(t, c, s.URL("1/menu"), gopher.Readable)
		want := "" +
			"       Welcome to the fixture menu\n" +
			"(TXT)  Hello  <" + base + "/0/hello.txt>\n" +
			"(DIR)  Docs  <" + base + "/1/docs>\n" +
			"(?)    Search the docs  <" + base + "/7/cgi-bin/search.cgi>\n" +
			"(BIN)  Binary  <" + base + "/9/binary.bin>\n" +
			"(HTML) Example  <http://example.com/>\n" +
			"       ___________________________________________________________________\n"
		if !strings.HasPrefix(got, want) || !strings.Contains(got, "Gophered by Gophernicus/") || strings.Count(got, "\n") != 8 {
			t.Errorf("menu:\n%s\nwant it to begin with:\n%s", got, want)
		}
		// gophernicus encodes a space in a selector as "#040": the entry's
		// URL carries it exactly, and fetching it gets the file.
		var spaces string
		for _, e := range entries(t, c, s.URL("")) {
			if strings.HasPrefix(e.Name, "name with spaces.txt ") {
				spaces = e.URL
			}
		}
		if spaces != base+"/0/name%23040with%23040spaces.txt" {
			t.Fatalf("entry URL %q", spaces)
		}
		if _, body := mustGet(t, c, spaces); string(body) != string(testserver.GopherSpaces) {
			t.Errorf("name with spaces.txt: %q", body)
		}
	})
	t.Run("Text", func(t *testing.T) {
		// gophernicus sends texts with CRLF, no "." and no dot-stuffing.
		if _, body := mustGet(t, c, s.URL("0/hello.txt")); string(body) != string(testserver.GopherHello) {
			t.Errorf("hello.txt: %q", body)
		}
		if _, body := mustGet(t, c, s.URL("0/dots.txt")); string(body) != string(testserver.GopherDots) {
			t.Errorf("dots.txt: %q", body)
		}
	})
	t.Run("Binary", func(t *testing.T) {
		_, body := mustGet(t, c, s.URL("9/binary.bin"))
		if sha256.Sum256(body) != sha256.Sum256(testserver.GopherBinary()) {
			t.Errorf("binary.bin: %d bytes, sha256 differs", len(body))
		}
	})
	t.Run("Search", func(t *testing.T) {
		es := entries(t, c, s.URL("7/cgi-bin/search.cgi%09one"))
		if len(es) != 2 || es[0].Name != `Search results for "one"` || es[1].URL != base+"/0/docs/one.txt" {
			t.Errorf("search entries %+v", es)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for _, u := range []string{s.URL("0/nope.txt"), s.URL("1/nope/"), s.URL("9/nope.bin"), s.URL("0/nope.txt%09%09+")} {
			_, _, err := get(t, c, u)
			fetchtest.WantKind(t, err, fetch.ErrNotFound)
			var se *gopher.ServerError
			if !errors.As(err, &se) || !strings.HasPrefix(se.Message, "Error: File or directory not found!") {
				t.Errorf("%s: %+v", u, se)
			}
		}
	})
	t.Run("GopherPlus", func(t *testing.T) {
		// No Gopher+ here: "+" falls back to the plain document, "!" is an
		// error rather than the document passed off as attributes.
		if _, body := mustGet(t, c, s.URL("0/hello.txt%09%09+")); string(body) != string(testserver.GopherHello) {
			t.Errorf("+: %q", body)
		}
		_, _, err := get(t, c, s.URL("0/hello.txt%09%09!"))
		fetchtest.WantKind(t, err, fetch.ErrProtocol)
		// The one Gopher+ reply it has: "$" on the root.
		_, body := mustGet(t, c, s.URL("1%09%09$"))
		all, err := gopher.ParseAttributes(bytes.NewReader(body))
		if err != nil || len(all) != 1 || all[0].Info.Display != "Main menu" || all[0].Info.Port != s.Port ||
			len(all[0].Views()) != 1 || all[0].Views()[0] != (gopher.View{Type: "application/gopher+-menu", Size: "512b"}) {
			t.Errorf("$: %v %+v", err, all)
		}
	})
	t.Run("Conformance", func(t *testing.T) {
		fetchtest.Run(t, fetchtest.Suite{
			Client:      c,
			Known:       s.URL("9/binary.bin"),
			KnownBody:   testserver.GopherBinary(),
			Missing:     s.URL("0/nope.txt"),
			MissingKind: fetch.ErrNotFound,
			// Not /docs: gophernicus heads its generated menus with a
			// blank info line, an entry without a name (EntryOther, Name
			// ""), which the suite does not accept.
			Dir:      s.URL("1/menu"),
			DirNames: []string{"Hello", "Docs", "Search the docs"},
			Inject:   s.URL("0/hello.txt%00x"),
			Cannot: map[fetchtest.Case]string{
				fetchtest.CaseStall:     "a real server cannot be made to stall: the in-tree server's TestConformance does",
				fetchtest.CaseStallBody: "a real server cannot be made to stall: the in-tree server's TestConformance does",
				fetchtest.CaseEarly:     "a real server cannot be made to cut a body: the in-tree server's TestConformance does",
			},
		})
	})
}

func TestGophernicusTLS(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	cert, key := tlsFiles(t, dir)
	s := testserver.StartGophernicus(t, testserver.GopherConfig{TLS: true, CertFile: cert, KeyFile: key})
	tlsCfg, err := gophertest.TrustedTLS()
	if err != nil {
		t.Fatal(err)
	}
	c := client(nil)
	c.TLS = tlsCfg
	if _, body := mustGet(t, c, s.URL("0/hello.txt")); string(body) != string(testserver.GopherHello) {
		t.Errorf("gophers hello.txt: %q", body)
	}
	if _, body := mustGet(t, c, s.URL("9/binary.bin")); !bytes.Equal(body, testserver.GopherBinary()) {
		t.Errorf("gophers binary.bin differs")
	}
	res, body := mustGet(t, c, s.URL("1/menu"))
	if !res.Dir || !strings.Contains(string(body), "0Hello\t/hello.txt\t127.0.0.1\t"+strconv.Itoa(s.Port)+"\r\n") {
		t.Errorf("gophers menu %q", body)
	}
	_, _, err = get(t, client(nil), s.URL("0/hello.txt"))
	fetchtest.WantKind(t, err, fetch.ErrCertificate)
}
