package download

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
)

// cutting serves data (ranges too), breaking the connection after the
// first cut bytes of the first request; it records each request's method,
// path and Range.
func cutting(t *testing.T, data string, cut int) (*httptest.Server, *[]string) {
	var seen []string
	first := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, strings.TrimSpace(r.Method+" "+r.URL.Path+" "+r.Header.Get("Range")))
		w.Header().Set("ETag", `"v1"`)
		if first && cut > 0 {
			first = false
			w = &cutWriter{w, cut}
		}
		http.ServeContent(w, r, "f", time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC), strings.NewReader(data))
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

// cutWriter breaks the connection once left bytes of the body are sent.
type cutWriter struct {
	http.ResponseWriter
	left int
}

func (w *cutWriter) Write(p []byte) (int, error) {
	if len(p) <= w.left {
		w.left -= len(p)
		return w.ResponseWriter.Write(p)
	}
	w.ResponseWriter.Write(p[:w.left])
	w.ResponseWriter.(http.Flusher).Flush()
	panic(http.ErrAbortHandler)
}

func noSleep(context.Context, time.Duration) error { return nil }

// A partial transfer is retried from where it stopped, said through
// Retrying, and the file renamed into place only when whole.
func TestDoRetriesPartialFromWhereItStopped(t *testing.T) {
	t.Chdir(t.TempDir())
	data := strings.Repeat("x", 5000)
	srv, seen := cutting(t, data, 2000)
	var said []string
	d := &Downloader{Client: &fetch.Client{}, Retry: fetch.RetryPolicy{Retries: 2, Sleep: noSleep},
		Retrying: func(err error, wait time.Duration, left int) { said = append(said, fmt.Sprint(wait, " ", left)) }}
	r := d.Do(context.Background(), srv.URL+"/f", Target{Name: "out"})
	if r.Err != nil || readFile(t, "out") != data || r.Filename != "out" || r.Kept != "" {
		t.Fatalf("%v %q %q: %+v", r.Err, *seen, said, r)
	}
	if fmt.Sprint(*seen) != "[GET /f GET /f bytes=2000-]" || fmt.Sprint(said) != "[1s 2]" {
		t.Errorf("requests %q, retries said %q", *seen, said)
	}
	if _, err := os.Stat("out.part"); !os.IsNotExist(err) {
		t.Errorf("out.part left: %v", err)
	}
}

// A failed transfer leaves an existing file as it was and keeps what it
// received in NAME.part.
func TestDoFailureKeepsOriginalAndPart(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("out", []byte("original"), 0o644)
	srv, _ := cutting(t, strings.Repeat("y", 5000), 3000)
	d := &Downloader{Client: &fetch.Client{}}
	r := d.Do(context.Background(), srv.URL+"/f", Target{Name: "out"})
	if r.Code != 18 || r.Kept != "out.part" || r.KeptSize != 3000 {
		t.Fatalf("%+v", r)
	}
	if readFile(t, "out") != "original" || readFile(t, "out.part") != strings.Repeat("y", 3000) {
		t.Errorf("out %q, out.part %d bytes", readFile(t, "out"), len(readFile(t, "out.part")))
	}
}

// Head writes HeadText; Include the header block before the body; Headers
// and ETagSave get the reply's; a condition met leaves all of them alone,
// but for Include, which writes the reply's head (curl's -i).
func TestDoHeadIncludeHeadersETag(t *testing.T) {
	t.Chdir(t.TempDir())
	srv, _ := cutting(t, "body", 0)
	var out, dump bytes.Buffer
	d := &Downloader{Client: &fetch.Client{}, Stdout: &out, Head: true}
	if r := d.Do(context.Background(), srv.URL+"/f", Target{Name: "-"}); r.Err != nil || r.Method != "HEAD" {
		t.Fatalf("%+v", r)
	}
	if s := out.String(); !strings.HasPrefix(s, "HTTP/1.1 200 OK\r\n") || !strings.Contains(s, "Etag: \"v1\"\r\n") || strings.Contains(s, "body") {
		t.Errorf("head text %q", s)
	}
	out.Reset()
	d = &Downloader{Client: &fetch.Client{}, Stdout: &out, Include: true, Headers: &dump, ETagSave: "etag"}
	if r := d.Do(context.Background(), srv.URL+"/f", Target{Name: "-"}); r.Err != nil || r.Status != 200 {
		t.Fatalf("%+v", r)
	}
	if s := out.String(); !strings.HasPrefix(s, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(s, "\r\n\r\nbody") {
		t.Errorf("include %q", s)
	}
	if !strings.HasPrefix(dump.String(), "HTTP/1.1 200 OK\r\n") || readFile(t, "etag") != "\"v1\"\n" {
		t.Errorf("dump %q, etag %q", dump.String(), readFile(t, "etag"))
	}
	os.WriteFile("etag", []byte("kept\n"), 0o644)
	os.WriteFile("out", []byte("old"), 0o644)
	d.IfNoneMatch = `"v1"`
	if r := d.Do(context.Background(), srv.URL+"/f", Target{Name: "out"}); r.Err != nil || r.Status != 304 {
		t.Fatalf("%+v", r)
	}
	// With Include the output is the 304's head, as curl writes it.
	if s := readFile(t, "out"); !strings.HasPrefix(s, "HTTP/1.1 304 Not Modified\r\n") || !strings.HasSuffix(s, "\r\n\r\n") || readFile(t, "etag") != "kept\n" {
		t.Errorf("not modified, with Include: out %q, etag %q", s, readFile(t, "etag"))
	}
	os.WriteFile("out", []byte("old"), 0o644)
	d.Include = false
	if r := d.Do(context.Background(), srv.URL+"/f", Target{Name: "out"}); r.Err != nil || r.Status != 304 {
		t.Fatalf("%+v", r)
	}
	if readFile(t, "out") != "old" || readFile(t, "etag") != "kept\n" {
		t.Errorf("not modified: out %q, etag %q", readFile(t, "out"), readFile(t, "etag"))
	}
}

// Binary data is refused for a terminal when no output was asked for
// (23), printed when "-" was.
func TestDoBinaryGuard(t *testing.T) {
	srv, _ := cutting(t, "a\x00b", 0)
	var out bytes.Buffer
	d := &Downloader{Client: &fetch.Client{}, Stdout: &out, IsTerminal: func(io.Writer) bool { return true }}
	if r := d.Do(context.Background(), srv.URL+"/f", Stdout); r.Code != 23 || out.Len() != 0 {
		t.Errorf("implicit: %+v, %q", r, out.String())
	}
	if r := d.Do(context.Background(), srv.URL+"/f", Target{Name: "-"}); r.Err != nil || out.String() != "a\x00b" {
		t.Errorf("-o -: %+v, %q", r, out.String())
	}
}

// An Upload to a URL ending in "/" goes to the file's name, by PUT, and
// passes through Sending; the Meter is told of the reply's body.
func TestDoUploadAndHooks(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile(filepath.Join(dir, "up.txt"), []byte("payload"), 0o644)
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+r.URL.Path+" "+string(b))
		io.WriteString(w, "done")
	}))
	defer srv.Close()
	var out bytes.Buffer
	var sent, metered []int64
	d := &Downloader{Client: &fetch.Client{}, Stdout: &out, Body: Body{Upload: "up.txt"},
		Sending: func(r io.Reader, size int64) io.Reader { sent = append(sent, size); return r },
		Meter: func(size int64, toFile bool) func() {
			metered = append(metered, size)
			return func() { metered = append(metered, -2) }
		}}
	r := d.Do(context.Background(), srv.URL+"/dir/", Target{Name: "-"})
	if r.Err != nil || r.Effective != srv.URL+"/dir/up.txt" || r.Method != "PUT" {
		t.Fatalf("%+v", r)
	}
	if fmt.Sprint(got) != "[PUT /dir/up.txt payload]" || out.String() != "done" || fmt.Sprint(sent) != "[7]" || fmt.Sprint(metered) != "[4 -2]" {
		t.Errorf("server saw %q; out %q; sending %v; meter %v", got, out.String(), sent, metered)
	}
}

// Two transfers to one file with a Files between them write it one after
// the other: the second waits for the first's rename.
func TestFilesHold(t *testing.T) {
	var f Files
	unhold := f.hold("a")
	done := make(chan struct{})
	go func() {
		f.hold("a")()
		close(done)
	}()
	f.hold("b")() // another file: not held up
	select {
	case <-done:
		t.Fatal("a second writer of a went ahead")
	case <-time.After(50 * time.Millisecond):
	}
	unhold()
	<-done
	if len(f.holding) != 0 {
		t.Errorf("%d files still held", len(f.holding))
	}
	var none *Files
	none.hold("a")()
}

// A Range cut short is asked for again whole, and what the first attempt
// wrote is skipped, not written twice.
func TestDoRangeRetrySkipsWhatWasWritten(t *testing.T) {
	t.Chdir(t.TempDir())
	data := strings.Repeat("0123456789", 500)
	srv, seen := cutting(t, data, 1000)
	rng, err := fetch.ParseRange("100-2999")
	if err != nil {
		t.Fatal(err)
	}
	d := &Downloader{Client: &fetch.Client{}, Range: rng, Retry: fetch.RetryPolicy{Retries: 1, Sleep: noSleep}}
	r := d.Do(context.Background(), srv.URL+"/f", Target{Name: "part"})
	if r.Err != nil || readFile(t, "part") != data[100:3000] {
		t.Fatalf("%v: %d bytes", r.Err, len(readFile(t, "part")))
	}
	if fmt.Sprint(*seen) != "[GET /f bytes=100-2999 GET /f bytes=100-2999]" {
		t.Errorf("requests %q", *seen)
	}
}

// A fetch.InputNeededError goes to Ask, and the request is made once more
// with the answers; without Ask it is the transfer's error.
func TestDoAsk(t *testing.T) {
	var asked []string
	search := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		asked = append(asked, req.Options.String(fetch.OptSearch))
		if !req.Options.Has(fetch.OptSearch) {
			return nil, &fetch.InputNeededError{Key: fetch.OptSearch, Prompt: "Words: ", Err: errors.New("search words needed")}
		}
		return &fetch.Resource{Meta: fetch.Meta{Size: -1}, Body: io.NopCloser(strings.NewReader("hits for " + req.Options.String(fetch.OptSearch)))}, nil
	})
	var out bytes.Buffer
	d := &Downloader{Client: &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"gopher": search})}, Stdout: &out}
	if r := d.Do(context.Background(), "gopher://h/7/find", Target{Name: "-"}); r.Err == nil || len(asked) != 1 {
		t.Errorf("no Ask: %+v, asked %q", r, asked)
	}
	var questions []string
	d.Ask = func(err error) fetch.Options {
		questions = append(questions, err.Error())
		return fetch.Options{fetch.OptSearch: "go"}
	}
	asked = nil
	r := d.Do(context.Background(), "gopher://h/7/find", Target{Name: "-"})
	if r.Err != nil || out.String() != "hits for go" || fmt.Sprint(asked) != "[ go]" || len(questions) != 1 {
		t.Errorf("%v: %q, asked %q, questions %q", r.Err, out.String(), asked, questions)
	}
}

// Data given to a URL that takes none (a gopher document) is not sent, and
// Do says so through Warn before the fetch; a search URL takes it.
func TestDoWarnsOfDataNotSent(t *testing.T) {
	t.Chdir(t.TempDir())
	var said []string
	d := &Downloader{Client: &fetch.Client{}, Body: Body{Data: []byte("words"), HasData: true},
		Warn: func(msg string) { said = append(said, msg) }}
	d.Do(context.Background(), "gopher://127.0.0.1:1/0/doc", Target{Name: "out"})
	d.Do(context.Background(), "gopher://127.0.0.1:1/7/search", Target{Name: "out"})
	want := "-d/--data: gopher://127.0.0.1:1/0/doc is not a gopher search (type 7): the data is not sent"
	if len(said) != 1 || said[0] != want {
		t.Errorf("warnings %q, want [%q]", said, want)
	}
}

// Body.Read reads curl's body arguments: data joined with "&", @FILE
// read through read, --url-query apart, and the combinations curl refuses.
func TestBodyRead(t *testing.T) {
	files := map[string]string{"f": "from\r\nfile"}
	read := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	arg := func(k fetch.DataKind, v string) fetch.DataArg { return fetch.DataArg{Kind: k, Value: v} }
	var b Body
	if err := b.Read([]fetch.DataArg{arg(fetch.DataPlain, "a=1"), arg(fetch.DataPlain, "@f")}, []fetch.DataArg{arg(fetch.DataURLQuery, "q=x y")}, nil, read); err != nil {
		t.Fatal(err)
	}
	if string(b.Data) != "a=1&fromfile" || !b.HasData || b.JSON || string(b.Query) != "q=x+y" || b.Form != nil {
		t.Errorf("read %+v", b)
	}
	b = Body{}
	if err := b.Read([]fetch.DataArg{arg(fetch.DataJSON, `{"a":1}`)}, []fetch.DataArg{arg(fetch.DataURLQuery, "")}, nil, read); err != nil || !b.JSON || b.Query != nil {
		t.Errorf("--json, --url-query \"\": %+v %v", b, err)
	}
	for _, c := range []struct {
		body Body
		data []fetch.DataArg
		form []fetch.FormArg
		want string
	}{
		{Body{}, []fetch.DataArg{arg(fetch.DataPlain, "@missing")}, nil, "missing"},
		{Body{}, []fetch.DataArg{arg(fetch.DataPlain, "a")}, []fetch.FormArg{{Text: "n=v"}}, "-F/--form and -d/--data: give one or the other"},
		{Body{Get: true}, nil, []fetch.FormArg{{Text: "n=v"}}, "-G/--get and -F/--form: a form cannot go in a query string"},
		{Body{Upload: "u"}, nil, []fetch.FormArg{{Text: "n=v"}}, "-T/--upload-file and -F/--form: give one body only"},
		{Body{Upload: "u"}, []fetch.DataArg{arg(fetch.DataPlain, "a")}, nil, "-T/--upload-file and -d/--data: give one body only"},
	} {
		err := c.body.Read(c.data, nil, c.form, read)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %q %v: %v, want %q", c.body, c.data, c.form, err, c.want)
		}
	}
	b = Body{Upload: "u", Get: true}
	if err := b.Read([]fetch.DataArg{arg(fetch.DataPlain, "a")}, nil, nil, read); err != nil {
		t.Errorf("-T with -G -d (the data in the query): %v", err)
	}
}

// ReadETag: the file's first line, `""` for an empty file, exit 26 for
// one that cannot be read.
func TestReadETag(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]string{"\"v1\"\r\nnext\n": `"v1"`, "": `""`, "\n": `""`} {
		name := filepath.Join(dir, "etag")
		os.WriteFile(name, []byte(content), 0o644)
		if got, err := ReadETag(name); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", content, got, err, want)
		}
	}
	if _, err := ReadETag(filepath.Join(dir, "none")); fetch.ExitCode(err) != 26 {
		t.Errorf("missing file: %v, want exit 26", err)
	}
}

// RemoteTime and Resume ask the fetcher for the modification time
// (fetch.OptModTime: ftp's MDTM costs a command); a plain fetch does not.
func TestDoAsksModTimeWhenWanted(t *testing.T) {
	t.Chdir(t.TempDir())
	var asked []bool
	ftp := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		asked = append(asked, req.Options.Has(fetch.OptModTime))
		return &fetch.Resource{Meta: fetch.Meta{Size: 2}, Body: io.NopCloser(strings.NewReader("ok"))}, nil
	})
	cl := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"ftp": ftp})}
	for _, d := range []*Downloader{{Client: cl}, {Client: cl, RemoteTime: true}, {Client: cl, Resume: true}} {
		if r := d.Do(context.Background(), "ftp://h/f", Target{Name: "out"}); r.Err != nil {
			t.Fatal(r.Err)
		}
		os.Remove("out")
	}
	if fmt.Sprint(asked) != "[false true true]" {
		t.Errorf("modtime asked %v, want [false true true]", asked)
	}
	// A resume of bytes urlget did not mark is curl's plain one, no
	// MDTM (its tests 110, 1036): -C N, and -C - with a NAME or an
	// unmarked NAME.part; a part urlget marked is checked (MDTM).
	asked = nil
	os.WriteFile("out", []byte("x"), 0o644)
	for _, from := range []int64{1, ResumeAtEnd} {
		d := &Downloader{Client: cl, Resume: true, ResumeFrom: from}
		d.Do(context.Background(), "ftp://h/f", Target{Name: "out"})
		os.WriteFile("out", []byte("x"), 0o644)
	}
	os.Remove("out")
	os.WriteFile("out.part", []byte("x"), 0o644)
	d := &Downloader{Client: cl, Resume: true, ResumeFrom: ResumeAtEnd}
	d.Do(context.Background(), "ftp://h/f", Target{Name: "out"})
	want := "[false false false]"
	os.WriteFile("out.part", []byte("x"), 0o644)
	if setXattr("out.part", partMark, "1700000000 ftp://h/f") == nil {
		d.Do(context.Background(), "ftp://h/f", Target{Name: "out"})
		want = "[false false false true]"
	}
	if fmt.Sprint(asked) != want {
		t.Errorf("modtime asked %v, want %s", asked, want)
	}
}

// A resume of a file that already has the resource's size, to a server
// that sends it whole, leaves the file as it is and succeeds, as curl's
// "already downloaded" (its test 1434); a part of that size (it may be
// anything) is not resumed: ErrRange, curl's 33, the part left as it is.
func TestDoResumeOfAWholeFile(t *testing.T) {
	t.Chdir(t.TempDir())
	whole := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: 7, Proto: "HTTP/1.1", Status: 200}, Body: io.NopCloser(strings.NewReader("PAYLOAD"))}, nil
	})
	cl := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"http": whole})}
	for _, from := range []int64{7, ResumeAtEnd} {
		os.WriteFile("out", []byte("payload"), 0o644)
		var warned []string
		d := &Downloader{Client: cl, Resume: true, ResumeFrom: from, Warn: func(s string) { warned = append(warned, s) }}
		r := d.Do(context.Background(), "http://h/f", Target{Name: "out"})
		if b, _ := os.ReadFile("out"); r.Err != nil || string(b) != "payload" || len(warned) != 0 {
			t.Errorf("-C %d of a whole file: %v, file %q, warnings %q", from, r.Err, b, warned)
		}
	}
	os.Remove("out")
	os.WriteFile("out.part", []byte("payload"), 0o644)
	var warned []string
	d := &Downloader{Client: cl, Resume: true, ResumeFrom: ResumeAtEnd, Warn: func(s string) { warned = append(warned, s) }}
	r := d.Do(context.Background(), "http://h/f", Target{Name: "out"})
	_, err := os.Stat("out")
	if b, _ := os.ReadFile("out.part"); fetch.KindOf(r.Err) != fetch.ErrRange || string(b) != "payload" || err == nil || len(warned) != 0 {
		t.Errorf("-C - of a part of the size: %v, part %q, out made: %v, warnings %q", r.Err, b, err == nil, warned)
	}
}
