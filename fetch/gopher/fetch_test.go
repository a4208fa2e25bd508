package gopher_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/urlparse"
)

func client(opts map[string]string) *fetch.Client {
	return &fetch.Client{NoProxy: "*", Options: opts}
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// get fetches url and reads the whole body.
func get(t *testing.T, c *fetch.Client, url string) (*fetch.Resource, []byte, error) {
	t.Helper()
	return fetchtest.Read(c.Open(ctxT(t, 20*time.Second), url))
}

func mustGet(t *testing.T, c *fetch.Client, url string) (*fetch.Resource, []byte) {
	t.Helper()
	res, b, err := get(t, c, url)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return res, b
}

var binData = func() []byte {
	b := make([]byte, 300<<10)
	rand.Read(b)
	// Things a text or Gopher+ reader would eat: a leading error-looking
	// line, lone dots, stuffed dots.
	copy(b, "3not an error\t\terror.host\t1\r\n")
	copy(b[1000:], "\r\n.\r\n..x\r\n")
	copy(b[len(b)-3:], ".\r\n")
	return b
}()

func testSite() *gophertest.Site {
	return &gophertest.Site{Items: map[string]*gophertest.Item{
		"": {Type: '1', Display: "root", Menu: []string{
			"iWelcome to the test site",
			"0Hello\t/hello.txt",
			"1Docs\t/docs",
			"7Search\t/search",
			"9Binary\t/binary.bin",
			"0Dots\t/dots.txt",
			"hExample\tURL:http://example.com/",
			"0Form\t/form",
		}},
		"/hello.txt": {Type: '0', Display: "hello.txt", Data: []byte("Hello, gopher world!\nSecond line.\n"), Plus: true,
			Abstract: "A short abstract for hello.txt", Views: map[string][]byte{"application/postscript En_US": []byte("%!PS hello\n")}},
		"/docs":         {Type: '1', Display: "docs", Plus: true, Menu: []string{"0one.txt\t/docs/one.txt", "0two.txt\t/docs/two.txt"}},
		"/docs/one.txt": {Type: '0', Display: "one.txt", Data: []byte("one\n"), Plus: true},
		"/docs/two.txt": {Type: '0', Display: "two.txt", Data: []byte("two\n"), Plus: true, Abstract: "Second document"},
		"/search": {Type: '7', Display: "Search", Search: func(q string) []string {
			return []string{"iSearch results for \"" + q + "\"", "0one.txt\t/docs/one.txt"}
		}},
		"/binary.bin": {Type: '9', Display: "binary.bin", Data: binData},
		"/dots.txt":   {Type: '0', Display: "dots", Data: []byte("first\n.\n..two dots\n.leading\nlast\n")},
		"/stuffed.txt": {Type: '0', Display: "stuffed", Data: []byte("first\n.\n..two dots\n.leading\nlast\n"),
			DotStuff: true},
		"/minus1.txt": {Type: '0', Display: "m1", Data: []byte("dot framed\r\n"), PlusLength: -1},
		"/minus2.txt": {Type: '0', Display: "m2", Data: []byte("close framed\r\n"), PlusLength: -2},
		"/busy":       {Type: '0', ErrorCode: 2, Data: []byte("load too high, try again later")},
		"/form": {Type: '0', Display: "Form", Ask: []string{
			"Note: Please answer",
			"Ask: Your name?\tAnonymous",
			"AskP: Password?",
			"Choose: Colour?\tred\tgreen\tblue",
		}, Answer: func(a []string) []byte {
			return []byte("answers: " + strings.Join(a, "|") + "\n")
		}},
	}}
}

func TestFetchText(t *testing.T) {
	s := gophertest.Start(t, testSite())
	res, body := mustGet(t, client(nil), s.URL("0/hello.txt"))
	if string(body) != "Hello, gopher world!\nSecond line.\n" {
		t.Errorf("body %q", body)
	}
	if res.ItemType != '0' || res.ContentType != "text/plain" || res.Dir || res.Size != -1 || res.Listing != nil {
		t.Errorf("meta %+v", res.Meta)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Line != "/hello.txt" {
		t.Fatalf("requests %+v", reqs)
	}
	if n := s.BytesIn(); n != int64(len("/hello.txt\r\n")) {
		t.Errorf("server received %d bytes, want exactly the request line and CRLF", n)
	}
}

func TestRequestLines(t *testing.T) {
	s := gophertest.Start(t, gophertest.HandlerFunc(func(c *gophertest.Conn, r *gophertest.Request) {
		if r.HasPlus {
			c.WriteString("+-2\r\n")
		}
		c.WriteString("ok\r\n")
	}))
	cases := []struct {
		url  string
		opts map[string]string
		line string
	}{
		{s.URL(""), nil, ""},
		{"gopher://" + s.Addr, nil, ""},
		{s.URL("1/"), nil, "/"},
		{s.URL("0/hello.txt"), nil, "/hello.txt"},
		{s.URL("0/name%20with%20spaces.txt"), nil, "/name with spaces.txt"},
		{s.URL("0/cgi?x=1"), nil, "/cgi?x=1"},
		{s.URL("0/a%25b"), nil, "/a%b"},
		{s.URL("7/search%09two%20words"), nil, "/search\ttwo words"},
		{s.URL("7/search%09"), nil, "/search\t"},
		{s.URL("7/search"), map[string]string{gopher.OptSearch: "from -d"}, "/search\tfrom -d"},
		{s.URL("7/search%09url%20wins"), map[string]string{gopher.OptSearch: "ignored"}, "/search\turl wins"},
		{s.URL("0/hello.txt%09%09+"), nil, "/hello.txt\t+"},
		{s.URL("0/hello.txt%09%09!+ABSTRACT"), nil, "/hello.txt\t!+ABSTRACT"},
		{s.URL("0/hello.txt%09q%09+"), nil, "/hello.txt\tq\t+"},
		{s.URL("7/search%09words%09+"), nil, "/search\twords\t+"},
		{s.URL("7/search%09%09!"), nil, "/search\t\t!"},
		{s.URL("0/hello.txt"), map[string]string{gopher.OptPlus: "!"}, "/hello.txt\t!"},
		{s.URL("0/hello.txt"), map[string]string{gopher.OptPlus: ""}, "/hello.txt\t+"},
		{s.URL("0/hello.txt%09%09+"), map[string]string{gopher.OptPlus: "!"}, "/hello.txt\t+"},
		{s.URL("9/x.bin"), map[string]string{gopher.OptSearch: "not for type 9"}, "/x.bin"},
	}
	for _, c := range cases {
		before := s.BytesIn()
		res, err := client(c.opts).Open(ctxT(t, 10*time.Second), c.url)
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		// The reply "ok" is not a Gopher+ reply: errors are expected for
		// some; what is checked is the line the server received.
		reqs := s.Requests()
		last := reqs[len(reqs)-1]
		if last.Line != c.line {
			t.Errorf("%s %v: server received %q, want %q", c.url, c.opts, last.Line, c.line)
		}
		if got := s.BytesIn() - before; got != int64(len(c.line)+2) {
			t.Errorf("%s: server received %d bytes, want %d (line and CRLF only)", c.url, got, len(c.line)+2)
		}
	}
}

func TestFetchMenu(t *testing.T) {
	s := gophertest.Start(t, testSite())
	res, err := client(nil).Open(ctxT(t, 10*time.Second), s.URL(""))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if !res.Dir || res.Listing == nil || res.ItemType != '1' || res.ContentType != "application/gopher-menu" {
		t.Fatalf("meta %+v", res.Meta)
	}
	type ent struct {
		name, url, target string
		typ               fetch.EntryType
	}
	var got []ent
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ent{e.Name, e.URL, e.Target, e.Type})
	}
	base := "gopher://" + s.Addr
	want := []ent{
		{"Welcome to the test site", "", "", fetch.EntryOther},
		{"Hello", base + "/0/hello.txt", "", fetch.EntryFile},
		{"Docs", base + "/1/docs", "", fetch.EntryDir},
		{"Search", base + "/7/search", "", fetch.EntryOther},
		{"Binary", base + "/9/binary.bin", "", fetch.EntryFile},
		{"Dots", base + "/0/dots.txt", "", fetch.EntryFile},
		{"Example", base + "/hURL:http://example.com/", "http://example.com/", fetch.EntryLink},
		{"Form", base + "/0/form", "", fetch.EntryFile},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestMenuBodyEndsAtTerminator(t *testing.T) {
	// The server sends the menu and "." and then keeps the connection
	// open: the transfer must end at the ".", not wait for the close.
	menu := "0A\t/a\th\t70\r\n1B\t/b\th\t70\r\n"
	s := gophertest.Start(t, gophertest.NoClose([]byte(menu+".\r\n")))
	start := time.Now()
	_, body := mustGet(t, client(nil), s.URL("1/"))
	if string(body) != menu {
		t.Errorf("body %q, want the menu without the terminator", body)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	// Raw mode gives the bytes as received, terminator included (and so
	// reads to the close: here the server closes).
	s2 := gophertest.Start(t, gophertest.Bytes([]byte(menu+".\r\n")))
	res, body := mustGet(t, client(map[string]string{gopher.OptRaw: "1"}), s2.URL("1/"))
	if string(body) != menu+".\r\n" || res.Dir {
		t.Errorf("raw body %q dir %v", body, res.Dir)
	}
}

func TestRenderFetchedMenu(t *testing.T) {
	s := gophertest.Start(t, testSite())
	res, err := client(nil).Open(ctxT(t, 10*time.Second), s.URL("1/docs"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b bytes.Buffer
	if err := gopher.Render(&b, res.Body, gopher.Readable); err != nil {
		t.Fatal(err)
	}
	want := "(TXT)  one.txt  <gopher://" + s.Addr + "/0/docs/one.txt>\n(TXT)  two.txt  <gopher://" + s.Addr + "/0/docs/two.txt>\n"
	if b.String() != want {
		t.Errorf("render:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestTextDots(t *testing.T) {
	s := gophertest.Start(t, testSite())
	// A server that neither terminates nor stuffs (pygopherd, gophernicus):
	// byte for byte in the default mode.
	_, body := mustGet(t, client(nil), s.URL("0/dots.txt"))
	if string(body) != "first\n.\n..two dots\n.leading\nlast\n" {
		t.Errorf("dots.txt: %q", body)
	}
	// An RFC 1436 server (stuffs, terminates): the default mode removes
	// the terminator and leaves the stuffing; rfc1436 mode undoes it.
	_, body = mustGet(t, client(nil), s.URL("0/stuffed.txt"))
	if string(body) != "first\n..\n...two dots\n..leading\nlast\n" {
		t.Errorf("stuffed.txt (auto): %q", body)
	}
	_, body = mustGet(t, client(map[string]string{gopher.OptText: "rfc1436"}), s.URL("0/stuffed.txt"))
	if string(body) != "first\n.\n..two dots\n.leading\nlast\n" {
		t.Errorf("stuffed.txt (rfc1436): %q", body)
	}
	// rfc1436 mode against a server that never sends the ".": partial.
	_, _, err := get(t, client(map[string]string{gopher.OptText: "rfc1436"}), s.URL("0/hello.txt"))
	fetchtest.WantKind(t, err, fetch.ErrPartial)
	_, _, err = get(t, client(map[string]string{gopher.OptText: "strict"}), s.URL("0/hello.txt"))
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
}

func TestBinaryExact(t *testing.T) {
	s := gophertest.Start(t, testSite())
	for _, u := range []string{s.URL("9/binary.bin"), s.URL("I/binary.bin"), s.URL("s/binary.bin"), s.URL("5/binary.bin")} {
		res, body := mustGet(t, client(nil), u)
		if sha256.Sum256(body) != sha256.Sum256(binData) || len(body) != len(binData) {
			t.Errorf("%s: %d bytes, sha256 differs", u, len(body))
		}
		if res.Dir || res.Size != -1 {
			t.Errorf("%s: meta %+v", u, res.Meta)
		}
	}
}

func TestErrorItems(t *testing.T) {
	s := gophertest.Start(t, testSite())
	c := client(nil)
	for _, u := range []string{s.URL("0/nope"), s.URL("1/nope"), s.URL("9/nope.bin")} {
		_, _, err := get(t, c, u)
		fetchtest.WantKind(t, err, fetch.ErrNotFound)
		var se *gopher.ServerError
		if !errors.As(err, &se) || se.Message != "'/nope' does not exist" && se.Message != "'/nope.bin' does not exist" || se.Item == nil || se.Item.Type != '3' || se.Plus {
			t.Errorf("%s: %v (%+v)", u, err, se)
		}
	}
	// Gopher+ errors.
	_, _, err := get(t, c, s.URL("0/nope%09%09+"))
	fetchtest.WantKind(t, err, fetch.ErrNotFound)
	var se *gopher.ServerError
	if !errors.As(err, &se) || se.Code != 1 || !se.Plus || se.Admin != "Test Admin <admin@example.test>" || se.Message != "'/nope' does not exist" {
		t.Errorf("gopher+ error %+v", se)
	}
	_, _, err = get(t, c, s.URL("0/busy%09%09+"))
	fetchtest.WantKind(t, err, fetch.ErrOther)
	if !errors.As(err, &se) || se.Code != 2 || !strings.Contains(err.Error(), "try again later") {
		t.Errorf("busy: %v", err)
	}
	// A menu that merely contains an error item is a menu.
	s2 := gophertest.Start(t, gophertest.Bytes([]byte("3Something failed\t\terror.host\t1\r\n0Still here\t/x\th\t70\r\n.\r\n")))
	res, body := mustGet(t, c, s2.URL("1/"))
	if !res.Dir || !strings.Contains(string(body), "Still here") {
		t.Errorf("menu with an error item: %v %q", res.Dir, body)
	}
	// gophernicus-style: error item, info lines, "."; and its text page.
	s3 := gophertest.Start(t, gophertest.Bytes([]byte("3Error: File or directory not found! (null)\tTITLE\tnull.host\t1\r\n"+
		"i____\t\tnull.host\t1\r\ni   Gophered by Gophernicus\t\tnull.host\t1\r\n.\r\n")))
	_, _, err = get(t, c, s3.URL("1/nope/"))
	fetchtest.WantKind(t, err, fetch.ErrNotFound)
	s4 := gophertest.Start(t, gophertest.Bytes([]byte("Error: File or directory not found! (null)\r\n____\r\n    Gophered by Gophernicus/3.1.1\r\n")))
	_, _, err = get(t, c, s4.URL("0/nope.txt"))
	fetchtest.WantKind(t, err, fetch.ErrNotFound)
	s5 := gophertest.Start(t, gophertest.Bytes([]byte("Error: Access denied!\r\n")))
	_, _, err = get(t, c, s5.URL("0/secret"))
	fetchtest.WantKind(t, err, fetch.ErrAccessDenied)
	// A text that starts like an error page but is more is a text.
	text := "Error: not found is what this poem is about\r\n" + strings.Repeat("line\r\n", 1000)
	s6 := gophertest.Start(t, gophertest.Bytes([]byte(text)))
	_, body = mustGet(t, c, s6.URL("0/poem"))
	if string(body) != strings.ReplaceAll(text, "\r\n", "\n") {
		t.Errorf("poem altered")
	}
	// A one-line text beginning with "3" and no TABs is a text.
	s7 := gophertest.Start(t, gophertest.Bytes([]byte("3 apples\r\n")))
	_, body = mustGet(t, c, s7.URL("0/fruit"))
	if string(body) != "3 apples\n" {
		t.Errorf("fruit: %q", body)
	}
}

func TestSearch(t *testing.T) {
	s := gophertest.Start(t, testSite())
	res, body := mustGet(t, client(nil), s.URL("7/search%09doc"))
	want := "iSearch results for \"doc\"\t\tnull.host\t1\r\n0one.txt\t/docs/one.txt\t127.0.0.1\t" + itoa(s.Port) + "\t+\r\n"
	if !res.Dir || string(body) != want {
		t.Errorf("search: dir %v body %q", res.Dir, body)
	}
	// Without a search string: refused before connecting.
	before := s.Accepted()
	_, _, err := get(t, client(nil), s.URL("7/search"))
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
	if !errors.Is(err, gopher.ErrNeedSearch) {
		t.Errorf("%v does not wrap ErrNeedSearch", err)
	}
	// A search string with a line break or TAB from the option: refused.
	for _, bad := range []string{"a\r\nb", "a\tb", "a\x00b"} {
		_, _, err = get(t, client(map[string]string{gopher.OptSearch: bad}), s.URL("7/search"))
		fetchtest.WantKind(t, err, fetch.ErrMalformed)
	}
	_, _, err = get(t, client(map[string]string{gopher.OptPlus: "+\r\nx"}), s.URL("0/hello.txt"))
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
	time.Sleep(20 * time.Millisecond)
	if n := s.Accepted() - before; n != 0 {
		t.Errorf("%d connections for refused requests", n)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestRefusedBeforeConnecting(t *testing.T) {
	s := gophertest.Start(t, testSite())
	for _, u := range []string{
		s.URL("0/a%0D%0Ab"),
		s.URL("0/a%0Ab"),
		s.URL("0/a%00b"),
		s.URL("7/search%09a%0D%0AQUIT"),
		s.URL("0/x%09%09+%09extra"),
		s.URL("0/x%09%09+%0D%0A"),
	} {
		_, _, err := get(t, client(nil), u)
		fetchtest.WantKind(t, err, fetch.ErrMalformed)
	}
	// And the fetcher itself, called directly without the Client's check.
	u, err := urlparse.Parse(s.URL("0/a%0D%0Ab"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = gopher.Fetcher{}.Open(context.Background(), &fetch.Request{URL: &u})
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
	time.Sleep(20 * time.Millisecond)
	if n, b := s.Accepted(), s.BytesIn(); n != 0 || b != 0 {
		t.Errorf("the server got %d connections and %d bytes", n, b)
	}
}

// countDialer counts dial attempts and refuses them.
type countDialer struct{ n atomic.Int64 }

func (d *countDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.n.Add(1)
	return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("refused by the test")}
}

func TestPortSmuggling(t *testing.T) {
	for _, port := range []string{"21", "22", "23", "25", "110", "119", "143", "6379", "11211"} {
		d := &countDialer{}
		c := client(nil)
		c.Dialer = d
		_, _, err := get(t, c, "gopher://127.0.0.1:"+port+"/0/FLUSHALL")
		fetchtest.WantKind(t, err, fetch.ErrMalformed)
		var pe *gopher.PortError
		if !errors.As(err, &pe) || itoa(pe.Port) != port {
			t.Errorf("port %s: %v is not a *PortError", port, err)
		}
		if d.n.Load() != 0 {
			t.Errorf("port %s: dialled", port)
		}
		// Allowed by the option: the fetcher dials.
		c.Options = map[string]string{gopher.OptAllowPort: "1"}
		_, _, err = get(t, c, "gopher://127.0.0.1:"+port+"/0/x")
		fetchtest.WantKind(t, err, fetch.ErrConnect)
		if d.n.Load() != 1 {
			t.Errorf("port %s allowed: %d dials", port, d.n.Load())
		}
	}
	d := &countDialer{}
	c := client(nil)
	c.Dialer = d
	for _, u := range []string{"gopher://127.0.0.1:80/0/x", "gopher://127.0.0.1:79/0/user", "gophers://127.0.0.1/1/"} {
		_, _, err := get(t, c, u)
		fetchtest.WantKind(t, err, fetch.ErrConnect)
	}
}

func TestUnsupportedTypes(t *testing.T) {
	for _, typ := range []string{"8", "T", "2"} {
		d := &countDialer{}
		c := client(nil)
		c.Dialer = d
		_, _, err := get(t, c, "gopher://127.0.0.1:7070/"+typ+"user")
		fetchtest.WantKind(t, err, fetch.ErrUnsupported)
		if d.n.Load() != 0 {
			t.Errorf("type %s dialled", typ)
		}
	}
}

func TestGopherPlus(t *testing.T) {
	s := gophertest.Start(t, testSite())
	c := client(nil)
	hello := "Hello, gopher world!\nSecond line.\n"

	res, body := mustGet(t, c, s.URL("0/hello.txt%09%09+"))
	if string(body) != hello || res.Size != int64(len(hello)) {
		t.Errorf("+: %q size %d", body, res.Size)
	}
	_, body = mustGet(t, c, s.URL("0/minus1.txt%09%09+"))
	if string(body) != "dot framed\r\n" {
		t.Errorf("+-1: %q", body)
	}
	_, body = mustGet(t, c, s.URL("0/minus2.txt%09%09+"))
	if string(body) != "close framed\r\n" {
		t.Errorf("+-2: %q", body)
	}
	// Gopher+ menu.
	res, body = mustGet(t, c, s.URL("1/docs%09%09+"))
	if !res.Dir || !strings.HasPrefix(string(body), "0one.txt\t/docs/one.txt\t127.0.0.1\t") || !strings.Contains(string(body), "\t+\r\n") {
		t.Errorf("gopher+ menu: dir %v %q", res.Dir, body)
	}
	// Alternate view.
	res, body = mustGet(t, c, s.URL("0/hello.txt%09%09+application/postscript%20En_US"))
	if string(body) != "%!PS hello\n" || res.ContentType != "application/postscript" {
		t.Errorf("view: %q %q", body, res.ContentType)
	}
	_, _, err := get(t, c, s.URL("0/hello.txt%09%09+image/gif"))
	fetchtest.WantKind(t, err, fetch.ErrNotFound)

	// "!": every attribute.
	res, body = mustGet(t, c, s.URL("0/hello.txt%09%09!"))
	if res.Dir {
		t.Errorf("! reply is Dir")
	}
	all, err := gopher.ParseAttributes(bytes.NewReader(body))
	if err != nil || len(all) != 1 {
		t.Fatalf("attributes %v %+v", err, all)
	}
	a := all[0]
	if a.Info.Selector != "/hello.txt" || a.Info.Plus != '+' || a.Abstract() != "A short abstract for hello.txt" ||
		a.Admin()["Admin"] != "Test Admin <admin@example.test>" || a.Admin()["Mod-Date"] != "Tue Jan  2 03:04:05 2024 <20240102030405>" {
		t.Errorf("attributes %+v", a)
	}
	views := a.Views()
	if len(views) != 2 || views[0] != (gopher.View{Type: "text/plain", Size: "1k"}) || views[1] != (gopher.View{Type: "application/postscript", Language: "En_US", Size: "1k"}) {
		t.Errorf("views %+v", views)
	}
	// "!+ABSTRACT": named blocks only (and +INFO).
	_, body = mustGet(t, c, s.URL("0/hello.txt%09%09!+ABSTRACT"))
	if want := "+INFO: 0hello.txt\t/hello.txt\t127.0.0.1\t" + itoa(s.Port) + "\t+\r\n+ABSTRACT:\r\n A short abstract for hello.txt\r\n"; string(body) != want {
		t.Errorf("!+ABSTRACT: %q, want %q", body, want)
	}
	_, body = mustGet(t, c, s.URL("0/hello.txt%09%09!+ABSTRACT%20+ADMIN"))
	if want := "+INFO: 0hello.txt\t/hello.txt\t127.0.0.1\t" + itoa(s.Port) + "\t+\r\n+ADMIN:\r\n Admin: Test Admin <admin@example.test>\r\n" +
		" Mod-Date: Tue Jan  2 03:04:05 2024 <20240102030405>\r\n+ABSTRACT:\r\n A short abstract for hello.txt\r\n"; string(body) != want {
		t.Errorf("!+ABSTRACT +ADMIN: %q, want %q", body, want)
	}
	// "$": every item of a directory.
	_, body = mustGet(t, c, s.URL("1/docs%09%09$"))
	all, err = gopher.ParseAttributes(bytes.NewReader(body))
	if err != nil || len(all) != 2 || all[0].Info.Selector != "/docs/one.txt" || all[1].Abstract() != "Second document" {
		t.Errorf("$: %v %+v", err, all)
	}
	// From the option instead of the URL.
	_, body = mustGet(t, client(map[string]string{gopher.OptPlus: "!"}), s.URL("0/hello.txt"))
	if !strings.HasPrefix(string(body), "+INFO: 0hello.txt") {
		t.Errorf("option !: %q", body)
	}
}

// plainOnly answers like a server without Gopher+ (gophernicus): the
// document whatever the gopher+ string, except that a bare "!" gets
// attributes (like pygopherd, which only knows "!").
func plainOnly(t *testing.T) *gophertest.Server {
	return gophertest.Start(t, gophertest.HandlerFunc(func(c *gophertest.Conn, r *gophertest.Request) {
		if r.Plus == "!" {
			c.WriteString("+-2\r\n+INFO: 0doc\t/doc\th\t70\t+\r\n+ADMIN:\r\n Admin: A <a@b>\r\n+ABSTRACT:\r\n abstract text\r\n+VIEWS:\r\n text/plain: <1k>\r\n")
			return
		}
		c.WriteString("plain document\r\n")
	}))
}

func TestGopherPlusFallback(t *testing.T) {
	s := plainOnly(t)
	c := client(nil)
	// "+": the plain document.
	res, body := mustGet(t, c, s.URL("0/doc%09%09+"))
	if string(body) != "plain document\n" || res.Size != -1 {
		t.Errorf("+ fallback: %q", body)
	}
	// An alternate view or "$" without a Gopher+ reply: ErrProtocol.
	for _, u := range []string{s.URL("0/doc%09%09+text/html"), s.URL("1/%09%09$")} {
		_, _, err := get(t, c, u)
		fetchtest.WantKind(t, err, fetch.ErrProtocol)
	}
	// "!+ABSTRACT+ADMIN": retried as "!" and filtered here.
	n := len(s.Requests())
	_, body = mustGet(t, c, s.URL("0/doc%09%09!+ABSTRACT%20+ADMIN"))
	if want := "+INFO: 0doc\t/doc\th\t70\t+\r\n+ADMIN:\r\n Admin: A <a@b>\r\n+ABSTRACT:\r\n abstract text\r\n"; string(body) != want {
		t.Errorf("filtered: %q, want %q", body, want)
	}
	reqs := s.Requests()[n:]
	if len(reqs) != 2 || reqs[0].Line != "/doc\t!+ABSTRACT +ADMIN" || reqs[1].Line != "/doc\t!" {
		t.Errorf("requests %+v", reqs)
	}
}

func TestGopherPlusPartial(t *testing.T) {
	s := gophertest.Start(t, gophertest.EarlyClose(100, []byte("only ten b")))
	_, body, err := get(t, client(nil), s.URL("0/x%09%09+"))
	fetchtest.WantKind(t, err, fetch.ErrPartial)
	if string(body) != "" && string(body) != "only ten b" {
		t.Errorf("body %q", body)
	}
	s2 := gophertest.Start(t, gophertest.Bytes([]byte("+-1\r\nno terminator\r\n")))
	_, _, err = get(t, client(nil), s2.URL("0/x%09%09+"))
	fetchtest.WantKind(t, err, fetch.ErrPartial)
	// Exactly the length, then more: the rest is not read.
	s3 := gophertest.Start(t, gophertest.NoClose([]byte("+5\r\nhelloEXTRA")))
	res, body := mustGet(t, client(nil), s3.URL("0/x%09%09+"))
	if string(body) != "hello" || res.Size != 5 {
		t.Errorf("body %q size %d", body, res.Size)
	}
}

func TestAskForm(t *testing.T) {
	s := gophertest.Start(t, testSite())
	var verbose bytes.Buffer
	c := client(map[string]string{gopher.OptAsk: "Ada\nsecret\n2"})
	c.Verbose = &verbose
	res, body := mustGet(t, c, s.URL("0/form%09%09?"))
	if string(body) != "answers: Ada|secret|green\n" {
		t.Errorf("reply %q", body)
	}
	if res.Dir {
		t.Errorf("Dir set")
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].Line != "/form\t!" || reqs[1].Line != "/form\t+\t1" || !reqs[1].DataFlag {
		t.Fatalf("requests %+v", reqs)
	}
	if string(reqs[1].Data) != "+-1\r\nAda\r\nsecret\r\ngreen\r\n.\r\n" {
		t.Errorf("data block %q", reqs[1].Data)
	}
	v := verbose.String()
	if strings.Contains(v, "secret") || !strings.Contains(v, "> ****") || !strings.Contains(v, `> /form\t+\t1`) || !strings.Contains(v, "> Ada") {
		t.Errorf("verbose log:\n%s", v)
	}
	// Defaults fill what is not given (the name), the rest must be given.
	c = client(map[string]string{gopher.OptAsk: ""})
	_, _, err := get(t, c, s.URL("0/form%09%09?"))
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
	var ae *gopher.AskError
	if !errors.As(err, &ae) || len(ae.Questions) != 4 || len(ae.Missing) != 2 || ae.Missing[0] != 2 || ae.Missing[1] != 3 {
		t.Errorf("AskError %+v", ae)
	}
	// No answers at all: the questions come back in the error, and only
	// the form was fetched.
	n := len(s.Requests())
	_, _, err = get(t, client(nil), s.URL("0/form%09%09?"))
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
	if !errors.As(err, &ae) || ae.Questions[1].Prompt != "Your name?" || ae.Questions[1].Default != "Anonymous" || ae.Questions[3].Choices[2] != "blue" {
		t.Errorf("AskError %+v", ae)
	}
	if got := len(s.Requests()) - n; got != 1 {
		t.Errorf("%d requests, want 1 (the form)", got)
	}
	// An item without a form.
	_, _, err = get(t, client(map[string]string{gopher.OptAsk: "x"}), s.URL("0/hello.txt%09%09?"))
	fetchtest.WantKind(t, err, fetch.ErrProtocol)
	// Bad bytes in an answer.
	_, _, err = get(t, client(map[string]string{gopher.OptAsk: "a\x00b\nc\n1"}), s.URL("0/form%09%09?"))
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
}

func TestGophers(t *testing.T) {
	s := gophertest.StartTLS(t, testSite())
	c := client(nil)
	c.TLS = s.ClientTLS()
	_, body := mustGet(t, c, s.URL("0/hello.txt"))
	if string(body) != "Hello, gopher world!\nSecond line.\n" {
		t.Errorf("body %q", body)
	}
	if r := s.Requests(); len(r) != 1 || !r[0].TLS || r[0].Line != "/hello.txt" {
		t.Errorf("requests %+v", r)
	}
	_, body = mustGet(t, c, s.URL("9/binary.bin"))
	if !bytes.Equal(body, binData) {
		t.Errorf("binary over TLS differs")
	}
	// Items on the same host and port are gophers URLs.
	res, err := c.Open(ctxT(t, 10*time.Second), s.URL("1/docs"))
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, e.URL)
	}
	res.Body.Close()
	if len(urls) != 2 || urls[0] != "gophers://"+s.Addr+"/0/docs/one.txt" {
		t.Errorf("urls %v", urls)
	}
	// Not trusted: ErrCertificate, nothing sent.
	before := s.BytesIn()
	_, _, err = get(t, client(nil), s.URL("0/hello.txt"))
	fetchtest.WantKind(t, err, fetch.ErrCertificate)
	if s.BytesIn() != before {
		t.Errorf("request sent over an untrusted connection")
	}
	// --insecure.
	ci := client(nil)
	ci.Insecure = true
	_, body = mustGet(t, ci, s.URL("0/hello.txt"))
	if string(body) != "Hello, gopher world!\nSecond line.\n" {
		t.Errorf("insecure body %q", body)
	}
	// gophers to a plain server: a TLS error, not a hang.
	p := fetchtest.CloseEarly(t, "", []byte("3not TLS\t\terror.host\t1\r\n"))
	_, _, err = get(t, c, "gophers://"+p.Addr+"/0/hello.txt")
	fetchtest.WantKind(t, err, fetch.ErrTLS)
}

func TestVerbose(t *testing.T) {
	s := gophertest.Start(t, testSite())
	var v bytes.Buffer
	c := client(nil)
	c.Verbose = &v
	mustGet(t, c, s.URL("0/hello.txt%09%09+"))
	log := v.String()
	for _, want := range []string{"* connected to " + s.Addr + "\n", "> /hello.txt\\t+\n", "< +34\n"} {
		if !strings.Contains(log, want) {
			t.Errorf("verbose log lacks %q:\n%s", want, log)
		}
	}
}

func TestResume(t *testing.T) {
	s := gophertest.Start(t, testSite())
	u, _ := urlparse.Parse(s.URL("9/binary.bin"))
	res, err := client(nil).Do(ctxT(t, 10*time.Second), &fetch.Request{URL: &u, Offset: 1000})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.Offset != 1000 || !bytes.Equal(body, binData[1000:]) {
		t.Errorf("offset %d, %d bytes, err %v", res.Offset, len(body), err)
	}
	u, _ = urlparse.Parse(s.URL("0/hello.txt%09%09+"))
	res, err = client(nil).Do(ctxT(t, 10*time.Second), &fetch.Request{URL: &u, Offset: 7})
	if err != nil {
		t.Fatal(err)
	}
	body, err = io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || string(body) != "gopher world!\nSecond line.\n" || res.Size != 27 {
		t.Errorf("+N resumed: %q size %d err %v", body, res.Size, err)
	}
	_, err = client(nil).Do(ctxT(t, 10*time.Second), &fetch.Request{URL: &u, Offset: 1000})
	fetchtest.WantKind(t, err, fetch.ErrResume)
}

// TestHostile runs the misbehaving servers.
func TestHostile(t *testing.T) {
	t.Run("HugeLine", func(t *testing.T) {
		s := gophertest.Start(t, gophertest.HugeLine(32<<20))
		res, err := client(nil).Open(ctxT(t, 60*time.Second), s.URL("1/"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		cw := &countWriter{}
		var before, after runtimeStats
		before.read()
		if err := gopher.Render(cw, res.Body, gopher.Readable); err != nil {
			t.Fatal(err)
		}
		after.read()
		if cw.lines != 2 || !strings.Contains(cw.last, "After") || !strings.HasPrefix(cw.first, "(???)") {
			t.Errorf("lines %d first %.20q last %q", cw.lines, cw.first, cw.last)
		}
		if grew := after.total - before.total; grew > 8<<20 {
			t.Errorf("rendering a 32 MiB line allocated %d bytes", grew)
		}
		// Entries: bounded too (fetch.MaxLineLength).
		res2, err := client(nil).Open(ctxT(t, 60*time.Second), s.URL("1/"))
		if err != nil {
			t.Fatal(err)
		}
		defer res2.Body.Close()
		var ents []fetch.Entry
		for e, err := range res2.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			ents = append(ents, fetch.Entry{Name: e.Name, Unparsed: e.Unparsed})
		}
		if len(ents) != 2 || !ents[0].Unparsed || ents[1].Name != "After" {
			t.Errorf("entries %+v", ents)
		}
	})
	t.Run("ManyItems", func(t *testing.T) {
		const n = 1000000
		s := gophertest.Start(t, gophertest.ManyItems(n))
		res, err := client(nil).Open(ctxT(t, 120*time.Second), s.URL("1/"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		cw := &countWriter{}
		var before, after runtimeStats
		before.read()
		if err := gopher.Render(cw, res.Body, gopher.JSON); err != nil {
			t.Fatal(err)
		}
		after.read()
		if cw.lines != n || !strings.Contains(cw.last, `"display":"Item 999999"`) {
			t.Errorf("%d lines, last %q", cw.lines, cw.last)
		}
		if after.heap > before.heap+16<<20 {
			t.Errorf("heap grew from %d to %d", before.heap, after.heap)
		}
	})
	t.Run("EndlessText", func(t *testing.T) {
		s := gophertest.Start(t, gophertest.Endless('x'))
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		res, err := client(nil).Open(ctx, s.URL("1/"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		start := time.Now()
		err = gopher.Render(io.Discard, res.Body, gopher.Readable)
		fetchtest.WantKind(t, err, fetch.ErrTimeout)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("took %v", d)
		}
	})
	t.Run("Trickle", func(t *testing.T) {
		s := gophertest.Start(t, gophertest.Trickle([]byte("+-1\r\nslow\r\n.\r\n"), 2*time.Millisecond))
		_, body := mustGet(t, client(nil), s.URL("0/x%09%09+"))
		if string(body) != "slow\r\n" {
			t.Errorf("body %q", body)
		}
		s2 := gophertest.Start(t, gophertest.Trickle([]byte("3'/x' does not exist\t\terror.host\t1\r\n"), 2*time.Millisecond))
		_, _, err := get(t, client(nil), s2.URL("0/x"))
		fetchtest.WantKind(t, err, fetch.ErrNotFound)
	})
	t.Run("Stall", func(t *testing.T) {
		s := gophertest.Start(t, gophertest.Stall())
		for _, u := range []string{s.URL("0/x"), s.URL("0/x%09%09+"), s.URL("0/x%09%09?")} {
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			start := time.Now()
			res, err := client(map[string]string{gopher.OptAsk: "a"}).Open(ctx, u)
			if err == nil {
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			cancel()
			fetchtest.WantKind(t, err, fetch.ErrTimeout)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: took %v", u, d)
			}
		}
	})
	t.Run("NoCloseText", func(t *testing.T) {
		// A text with no "." from a server that never closes: the
		// context's deadline is what ends it.
		s := gophertest.Start(t, gophertest.NoClose([]byte("some text\r\n")))
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		res, err := client(nil).Open(ctx, s.URL("0/x"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		fetchtest.WantKind(t, err, fetch.ErrTimeout)
		if string(body) != "some text\n" {
			t.Errorf("body %q", body)
		}
	})
	t.Run("CancelDuringRead", func(t *testing.T) {
		s := gophertest.Start(t, gophertest.NoClose([]byte("partial")))
		ctx, cancel := context.WithCancel(context.Background())
		res, err := client(nil).Open(ctx, s.URL("9/x"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var wg sync.WaitGroup
		wg.Add(1)
		var rerr error
		go func() {
			defer wg.Done()
			_, rerr = io.Copy(io.Discard, res.Body)
		}()
		time.Sleep(100 * time.Millisecond)
		cancel()
		wg.Wait()
		fetchtest.WantKind(t, rerr, fetch.ErrAborted)
	})
}

type countWriter struct {
	lines       int
	first, last string
	partial     []byte
}

func (w *countWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\n' {
			w.lines++
			if w.lines == 1 {
				w.first = string(w.partial)
			}
			w.last = string(w.partial)
			w.partial = w.partial[:0]
			continue
		}
		if len(w.partial) < 200 {
			w.partial = append(w.partial, c)
		}
	}
	return len(p), nil
}

type runtimeStats struct{ total, heap uint64 }

func (r *runtimeStats) read() {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	r.total, r.heap = m.TotalAlloc, m.HeapInuse
}

// An item read to its end (type 9) from a slow server: each piece the
// server sends reaches the reader while the server waits for it to be
// read, rather than the reader waiting for bytes to gather (as a raised
// low-water mark without fetch.LowWater's watch would: the first Read
// would wait for the close, and the server gives up after a bound long
// enough never to be reached when it works).
func TestSlowItemComesAsItArrives(t *testing.T) {
	data := fetchtest.Pattern(5 * 1000)
	paced := fetchtest.NewPaced(data, 5, 1000)
	srv := fetchtest.NewServer(t, func(c net.Conn) {
		buf := make([]byte, 512)
		if _, err := c.Read(buf); err == nil { // the selector line
			paced.Send(c)
		}
	})
	res, err := client(nil).Open(ctxT(t, time.Minute), "gopher://"+srv.Addr+"/9/slow")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if got, err := paced.Read(res.Body); !bytes.Equal(got, data) {
		t.Fatalf("got %d bytes of %d before the server closed: %v", len(got), len(data), err)
	}
}
