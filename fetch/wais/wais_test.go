package wais_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/wais"
	"github.com/urlget/urlget/fetch/wais/waistest"
	"github.com/urlget/urlget/urlparse"
)

var testDB = waistest.TestDB()

func start(t testing.TB, mode waistest.Mode) *waistest.Server {
	return waistest.Start(t, waistest.Config{DBs: []*waistest.DB{testDB}, Mode: mode})
}

func client(f wais.Fetcher, opts fetch.Options) *fetch.Client {
	return &fetch.Client{Fetchers: map[string]func(fetch.Config) fetch.Fetcher{"wais": func(cfg fetch.Config) fetch.Fetcher {
		f.Config = cfg
		return f
	}}, Options: opts}
}

func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// fetchAll opens url and reads its body.
func fetchAll(t testing.TB, c *fetch.Client, url string) (*fetch.Resource, []byte, error) {
	t.Helper()
	return fetchtest.Read(c.Open(ctx(t), url))
}

// search returns the hits of a search URL.
func search(t *testing.T, c *fetch.Client, url string) []wais.Hit {
	t.Helper()
	res, body, err := fetchAll(t, c, url)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	if !res.Dir || res.Listing == nil || res.Render == nil {
		t.Fatalf("%s: Dir %v, Listing %v, Render %v", url, res.Dir, res.Listing != nil, res.Render != nil)
	}
	var hits []wais.Hit
	for _, line := range bytes.SplitAfter(body, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		h, ok := wais.ParseHit(line)
		if !ok {
			t.Fatalf("%s: line %q is not a hit", url, line)
		}
		hits = append(hits, h)
	}
	return hits
}

func find(hits []wais.Hit, prefix string) (wais.Hit, bool) {
	for _, h := range hits {
		if strings.HasPrefix(h.Headline, prefix) {
			return h, true
		}
	}
	return wais.Hit{}, false
}

func docData(name string) []byte {
	for _, d := range testDB.Docs {
		if d.Name == name {
			return d.Data
		}
	}
	panic(name)
}

// TestSearchAndFetch: a search lists the documents with URLs in Lynx's
// form, and each URL fetches its document byte for byte — 1 byte,
// 63,237 bytes, 300 KB, 10 MB, and a DocID with fields over 127 bytes.
func TestSearchAndFetch(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, nil)
	hits := search(t, c, s.URL("test?apple"))
	if len(hits) != 3 {
		t.Fatalf("search apple: %d hits, want 3 (apple.txt, big.txt, long.txt): %+v", len(hits), hits)
	}
	h, _ := find(hits, "apple.txt")
	if h.Length != 124 || h.Types[0] != "TEXT" || h.Score <= 0 || h.Lines != 3 ||
		!strings.HasPrefix(h.URL, s.URL("test/TEXT/124/1=vm%3A22100;2=/srv/wais/db/test;3=0%20124%20/srv/wais/data/apple.txt;")) {
		t.Errorf("apple.txt hit %+v", h)
	}
	if l, ok := find(hits, "long.txt"); !ok || l.Date != "19930215" {
		t.Errorf("long.txt hit %+v", l)
	}

	// Every document, from a search that finds it.
	for _, name := range []string{"apple.txt", "big.txt", "one.bin", "k300.bin", "m10.bin", "long.txt"} {
		hits := search(t, c, s.URL("test?"+strings.TrimSuffix(name, ".bin")))
		h, ok := find(hits, name)
		if !ok {
			t.Errorf("no hit for %s in %+v", name, hits)
			continue
		}
		want := docData(name)
		res, got, err := fetchAll(t, c, h.URL)
		if err != nil {
			t.Errorf("%s: %v", h.URL, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, want %d (differ at %d)", name, len(got), len(want), diffAt(got, want))
		}
		if res.Size != int64(len(want)) || res.Dir {
			t.Errorf("%s: Meta.Size %d, Dir %v", name, res.Size, res.Dir)
		}
		// The same document in RFC 1738's form (no LENGTH): read to the end.
		u, err := urlparse.Parse(h.URL)
		if err != nil {
			t.Fatal(err)
		}
		rfc := urlparse.WAISDocFieldsURL(u.Host, u.Port, u.WAIS.Database, u.WAIS.DocType, "", u.WAIS.DocFields)
		res, got, err = fetchAll(t, c, rfc)
		if err != nil || !bytes.Equal(got, want) || res.Size != -1 {
			t.Errorf("%s without LENGTH: %d bytes, want %d, Size %d, %v", name, len(got), len(want), res.Size, err)
		}
	}
}

func diffAt(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestLongDocID: a DocID field of 128 bytes or more has a two-byte length;
// the URL carries it and the document comes back.
func TestLongDocID(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, nil)
	h, ok := find(search(t, c, s.URL("test?pie")), "long.txt")
	if !ok {
		t.Fatal("no hit for long.txt")
	}
	u, _ := urlparse.Parse(h.URL)
	long := false
	for _, f := range u.WAIS.DocFields {
		if len(f.Value) >= 128 {
			long = true
		}
	}
	if !long || len(waistest.LongPath) < 128 {
		t.Fatalf("no DocID field of 128 bytes or more in %s", h.URL)
	}
	_, got, err := fetchAll(t, c, h.URL)
	if err != nil || string(got) != string(docData("long.txt")) {
		t.Errorf("long.txt: %q, %v", got, err)
	}
}

// TestHelpRecords: a database URL without words lists the help records
// (source description and catalog); they can be fetched.
func TestHelpRecords(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, nil)
	for _, url := range []string{s.URL("test"), s.URL("test?")} {
		hits := search(t, c, url)
		if len(hits) != 2 || hits[0].Types[0] != "WSRC" || hits[1].Types[0] != "TEXT" ||
			!strings.HasPrefix(hits[1].Headline, "Catalog for database: ") {
			t.Fatalf("%s: %+v", url, hits)
		}
		_, src, err := fetchAll(t, c, hits[0].URL)
		if err != nil || !strings.Contains(string(src), `:database-name "test"`) || !strings.Contains(string(src), "about apples") {
			t.Errorf("source description: %q, %v", src, err)
		}
		_, cat, err := fetchAll(t, c, hits[1].URL)
		if err != nil || !strings.Contains(string(cat), "Headline: m10.bin") {
			t.Errorf("catalog: %q, %v", cat, err)
		}
	}
	// No hits: the catalog, saying so.
	hits := search(t, c, s.URL("test?zebra"))
	if len(hits) != 1 || !strings.HasPrefix(hits[0].Headline, "Search produced no result. Here's the Catalog for database: ") {
		t.Errorf("search without hits: %+v", hits)
	}
	// Words from the option (-d) when the URL has none.
	hits = search(t, client(wais.Fetcher{}, fetch.Options{fetch.OptSearch: "orchard"}), s.URL("test"))
	if _, ok := find(hits, "apple.txt"); !ok || len(hits) != 2 {
		t.Errorf("-d orchard: %+v", hits)
	}
}

// TestPrompt: with wais-prompt, a database URL without words asks for them.
func TestPrompt(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, fetch.Options{wais.OptPrompt: "1"})
	_, err := c.Open(ctx(t), s.URL("test"))
	var ine *fetch.InputNeededError
	if !errors.As(err, &ine) || ine.Key != fetch.OptSearch || ine.Prompt == "" || fetch.KindOf(err) != fetch.ErrMalformed ||
		!errors.Is(err, wais.ErrNeedSearch) {
		t.Fatalf("Open without words and wais-prompt: %v", err)
	}
	if s.Accepted() != 0 {
		t.Errorf("%d connections before asking", s.Accepted())
	}
	// The retry with the answer searches.
	c.Options[fetch.OptSearch] = "apple"
	if hits := search(t, c, s.URL("test")); len(hits) != 3 {
		t.Errorf("after the answer: %d hits", len(hits))
	}
}

func TestMaxResults(t *testing.T) {
	s := start(t, waistest.Normal)
	if hits := search(t, client(wais.Fetcher{}, fetch.Options{wais.OptMaxResults: "2"}), s.URL("test?apple")); len(hits) != 2 {
		t.Errorf("wais-max-results 2: %d hits", len(hits))
	}
	for _, bad := range []string{"0", "-1", "100001", "many"} {
		_, err := client(wais.Fetcher{}, fetch.Options{wais.OptMaxResults: bad}).Open(ctx(t), s.URL("test?apple"))
		if fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("wais-max-results %q: %v", bad, err)
		}
	}
}

// TestRefusedBeforeConnecting: control bytes in the database or the
// words, forwarding databases, no database.
func TestRefusedBeforeConnecting(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, nil)
	for _, url := range []string{
		s.URL("te%0Dst?apple"), s.URL("test?ap%0Aple"), s.URL("test?apple%00"), s.URL("te%00st/TEXT/1/2=x;"),
		s.URL("test@127.0.0.1:1?apple"), s.URL("test%40evil.example%3A210?x"), s.URL("db@h/TEXT/3/2=x;"),
		s.URL("?apple"), "wais://" + s.Addr(),
	} {
		_, err := c.Open(ctx(t), url)
		if fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("%s: %v (kind %d), want ErrMalformed", url, err, fetch.KindOf(err))
		}
	}
	for _, words := range []string{"a\rb", "a\nb", "a\x00"} {
		_, err := client(wais.Fetcher{}, fetch.Options{fetch.OptSearch: words}).Open(ctx(t), s.URL("test"))
		if fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("-d %q: %v", words, err)
		}
	}
	if n := s.Accepted(); n != 0 {
		t.Errorf("%d connections made for refused URLs", n)
	}
	// Allowed, the forwarding database reaches the server (which knows no
	// such database).
	_, err := client(wais.Fetcher{}, fetch.Options{wais.OptAllowForward: "1"}).Open(ctx(t), s.URL("test@127.0.0.1:1?apple"))
	if fetch.KindOf(err) != fetch.ErrNotFound {
		t.Errorf("forwarding allowed: %v", err)
	}
}

// TestDiagnostics: the server's diagnostics are typed errors with its text,
// made safe for a terminal.
func TestDiagnostics(t *testing.T) {
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{testDB}, DBDir: "/tmp/\x1b[31mdb/"})
	c := client(wais.Fetcher{}, nil)
	_, err := c.Open(ctx(t), s.URL("nosuchdb?apple"))
	var se *wais.ServerError
	if fetch.KindOf(err) != fetch.ErrNotFound || !errors.As(err, &se) || se.Code != "S1" ||
		se.Text != "The following database is not available: /tmp/\x1b[31mdb/nosuchdb" {
		t.Fatalf("unknown database: %v", err)
	}
	if msg := err.Error(); strings.ContainsRune(msg, 0x1b) || !strings.Contains(msg, "not available: /tmp/?[31mdb/nosuchdb") {
		t.Errorf("message %q", msg)
	}
	// An unknown document.
	_, err = c.Open(ctx(t), s.URL("test/TEXT/10/3=0%2010%20/nope;"))
	if fetch.KindOf(err) != fetch.ErrNotFound || !errors.As(err, &se) {
		t.Errorf("unknown document: %v", err)
	}
}

// TestResume: with LENGTH, a resume starts the chunks at the offset; the
// suite checks the middle, here chunk boundaries and the end.
func TestResume(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, nil)
	h, _ := find(search(t, c, s.URL("test?k300")), "k300.bin")
	want := docData("k300.bin")
	u, _ := urlparse.Parse(h.URL)
	for _, off := range []int64{10000, 123457, int64(len(want)) - 1, int64(len(want))} {
		for _, url := range []string{h.URL, urlparse.WAISDocFieldsURL(u.Host, u.Port, "test", "BINARY", "", u.WAIS.DocFields)} {
			res, err := c.Do(ctx(t), &fetch.Request{URL: &u, Offset: off})
			if url != h.URL {
				uu, _ := urlparse.Parse(url)
				res, err = c.Do(ctx(t), &fetch.Request{URL: &uu, Offset: off})
			}
			if err != nil {
				t.Fatalf("offset %d: %v", off, err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.Offset != off || !bytes.Equal(got, want[off:]) {
				t.Errorf("%s offset %d: Offset %d, %d bytes, %v", url, off, res.Offset, len(got), err)
			}
		}
	}
	_, err := c.Do(ctx(t), &fetch.Request{URL: &u, Offset: int64(len(want)) + 1})
	if fetch.KindOf(err) != fetch.ErrResume {
		t.Errorf("resume past the end: %v", err)
	}
}

// TestRange: a Request.Range asks for the chunks from its first byte to
// its last, across chunk boundaries; "-LAST" needs the URL's LENGTH.
func TestRange(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, nil)
	h, _ := find(search(t, c, s.URL("test?k300")), "k300.bin")
	want := docData("k300.bin")
	n := int64(len(want))
	withLength, _ := urlparse.Parse(h.URL)
	noLength, _ := urlparse.Parse(urlparse.WAISDocFieldsURL(withLength.Host, withLength.Port, "test", "BINARY", "", withLength.WAIS.DocFields))
	for _, tc := range []struct {
		spec       string
		start, end int64 // want[start:end]
		noLength   bool  // the URL without LENGTH gives it too
	}{
		{"0-0", 0, 1, true},
		{"10000-150000", 10000, 150001, true},
		{"123457-", 123457, n, true},
		{"-500", n - 500, n, false},
		{"100-99999999", 100, n, true},
	} {
		r, err := fetch.ParseRange(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		for i, u := range []urlparse.URL{withLength, noLength} {
			if i == 1 && !tc.noLength {
				continue
			}
			res, err := c.Do(ctx(t), &fetch.Request{URL: &u, Range: r})
			if err != nil {
				t.Fatalf("%s: %v", tc.spec, err)
			}
			got, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.Offset != tc.start || !bytes.Equal(got, want[tc.start:tc.end]) {
				t.Errorf("%s of %s: Offset %d, %d bytes, %v; want %d bytes at %d", tc.spec, u.RawPath, res.Offset, len(got), err, tc.end-tc.start, tc.start)
			}
		}
	}
	r, _ := fetch.ParseRange("-500")
	if _, err := c.Do(ctx(t), &fetch.Request{URL: &noLength, Range: r}); fetch.KindOf(err) != fetch.ErrResume {
		t.Errorf("-500 without LENGTH: %v", err)
	}
}

// TestInitVariants: a server that refuses the Init, one that cannot read
// it, and one whose buffer is smaller than a chunk (its zero-length replies
// make the chunks smaller) all give the document whole.
func TestInitVariants(t *testing.T) {
	want := docData("big.txt")
	for _, cfg := range []waistest.Config{
		{Mode: waistest.RejectInit}, {Mode: waistest.ZeroInit}, {BufSize: 3000}, {BufSize: 30000},
	} {
		cfg.DBs = []*waistest.DB{testDB}
		s := waistest.Start(t, cfg)
		for _, f := range []wais.Fetcher{{}, {Window: 1}, {ChunkSize: 60000}} {
			c := client(f, nil)
			h, ok := find(search(t, c, s.URL("test?fox")), "big.txt")
			if !ok {
				t.Fatalf("%+v: no big.txt", cfg)
			}
			_, got, err := fetchAll(t, c, h.URL)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%+v %+v: %d bytes, %v", cfg, f, len(got), err)
			}
		}
	}
}

// TestChunks: the captured 63,237-byte document in one chunk by default
// (it fits the server's buffer); in waissearch's chunks (10000 bytes) 7
// requests, one at a time or, to a server that takes them, sent ahead.
func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		f         wais.Fetcher
		pipelined bool
		want      int // requests, the Init included
	}{
		{wais.Fetcher{}, false, 2},
		{wais.Fetcher{ChunkSize: wais.LockstepChunkSize}, false, 8},
		{wais.Fetcher{ChunkSize: wais.LockstepChunkSize, Window: 4}, true, 8},
	} {
		s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{testDB}, Pipelined: tc.pipelined})
		c := client(tc.f, nil)
		h, _ := find(search(t, c, s.URL("test?fox")), "big.txt")
		before := s.RequestCount()
		_, got, err := fetchAll(t, c, h.URL)
		if err != nil || !bytes.Equal(got, docData("big.txt")) {
			t.Fatalf("%+v: big.txt: %d bytes, %v", tc.f, len(got), err)
		}
		if n := s.RequestCount() - before; n != tc.want {
			t.Errorf("%+v: %d requests, want %d", tc.f, n, tc.want)
		}
		if s.ClosedAhead() != 0 {
			t.Errorf("%+v: a request was sent ahead", tc.f)
		}
	}
}

func TestHead(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, nil)
	u, _ := urlparse.Parse(s.URL("test/TEXT/124/2=x;"))
	res, err := c.Do(ctx(t), &fetch.Request{URL: &u, Head: true})
	if err != nil || res.Size != 124 || res.ContentType != "text/plain" {
		t.Fatalf("HEAD: %+v, %v", res, err)
	}
	res.Body.Close()
	if s.Accepted() != 0 {
		t.Errorf("HEAD connected")
	}
}

func TestRender(t *testing.T) {
	s := start(t, waistest.Normal)
	c := client(wais.Fetcher{}, nil)
	res, body, err := fetchAll(t, c, s.URL("test?apple+orchard"))
	if err != nil {
		t.Fatal(err)
	}
	var text, js bytes.Buffer
	if err := res.Render(&text, bytes.NewReader(body), fetch.FormatText); err != nil {
		t.Fatal(err)
	}
	if err := res.Render(&js, bytes.NewReader(body), fetch.FormatJSON); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "[522] apple.txt   /srv/wais/data/   (TEXT, 124 bytes, 3 lines)") ||
		lines[1] != "       "+s.URL("test/TEXT/124/1=vm%3A22100;2=/srv/wais/db/test;3=0%20124%20/srv/wais/data/apple.txt;4=vm%3A22100;5=/srv/wais/db/test;6=0%20124%20/srv/wais/data/apple.txt;7=%00;") ||
		!strings.Contains(lines[4], "(TEXT, 47 bytes, 1 lines, 19930215)") {
		t.Errorf("text:\n%s", text.String())
	}
	jl := strings.Split(strings.TrimSuffix(js.String(), "\n"), "\n")
	if len(jl) != 3 || jl[0] != `{"score":522,"headline":"apple.txt   /srv/wais/data/","length":124,"lines":3,"types":["TEXT"],"date":"0","url":"`+
		s.URL("test/TEXT/124/1=vm%3A22100;2=/srv/wais/db/test;3=0%20124%20/srv/wais/data/apple.txt;4=vm%3A22100;5=/srv/wais/db/test;6=0%20124%20/srv/wais/data/apple.txt;7=%00;")+`"}` {
		t.Errorf("json:\n%s", js.String())
	}
	// Entries read Body; a new fetch for them.
	res2, err := c.Open(ctx(t), s.URL("test?apple+orchard"))
	if err != nil {
		t.Fatal(err)
	}
	defer res2.Body.Close()
	var names []string
	for e, err := range res2.Entries() {
		if err != nil || e.Unparsed {
			t.Fatalf("entry %+v, %v", e, err)
		}
		names = append(names, e.Name)
		if e.Size <= 0 || !strings.HasPrefix(e.URL, "wais://") {
			t.Errorf("entry %+v", e)
		}
	}
	if len(names) != 3 {
		t.Errorf("entries %q", names)
	}
}

// A database's URL takes search words (-d, the gateway's search form); a
// URL with its own, or a document's, does not.
func TestSearchWords(t *testing.T) {
	s, _ := fetch.LookupScheme("wais")
	for raw, want := range map[string]bool{
		"wais://host:210/db":                                 true,
		"wais://host:210/db?apple":                           false,
		"wais://host:210/db/TEXT/1=h;2=db;3=0%201%20/a.txt;": false,
		"wais://host:210/db/TEXT/124/1=h;2=db;3=x;":          false,
	} {
		u, err := urlparse.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got, why := s.SearchWords(&u); got != want {
			t.Errorf("%s takes search words: %v (%s), want %v", raw, got, why, want)
		}
	}
}
