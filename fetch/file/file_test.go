package file_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/file"
	"github.com/urlget/urlget/urlparse"
)

// fileURL makes a file URL for a local path, percent-encoding what a path
// segment may not hold.
func fileURL(path string) string {
	var b strings.Builder
	b.WriteString("file://")
	for i := 0; i < len(path); i++ {
		c := path[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("/-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	dir := t.TempDir()
	body := fetchtest.Pattern(300 << 10)
	write(t, filepath.Join(dir, "known.bin"), body)
	write(t, filepath.Join(dir, "sub", "one.txt"), []byte("one\n"))
	write(t, filepath.Join(dir, "sub", "two words.txt"), []byte("two\n"))
	if err := os.Mkdir(filepath.Join(dir, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	fetchtest.Run(t, fetchtest.Suite{
		Known:       fileURL(filepath.Join(dir, "known.bin")),
		KnownBody:   body,
		Missing:     fileURL(filepath.Join(dir, "missing.bin")),
		MissingKind: fetch.ErrFileRead,
		Dir:         fileURL(filepath.Join(dir, "sub")) + "/",
		DirNames:    []string{"one.txt", "two words.txt", "deeper"},
		// The name the NUL cuts off exists: only the refusal keeps the
		// fetch from succeeding.
		Inject: fileURL(filepath.Join(dir, "known.bin")) + "%00.txt",
		Cannot: map[fetchtest.Case]string{
			fetchtest.CaseStall:     "a local file has no server to stall",
			fetchtest.CaseStallBody: "a local file has no server to stall",
			fetchtest.CaseEarly:     "a local file has no connection to close early",
		},
	})
}

func open(t *testing.T, c *fetch.Client, url string) (*fetch.Resource, error) {
	t.Helper()
	if c == nil {
		c = &fetch.Client{}
	}
	return c.Open(context.Background(), url)
}

func TestRemoteHostRefused(t *testing.T) {
	res, err := open(t, nil, "file://example.com/etc/hostname")
	if err == nil {
		res.Body.Close()
		t.Fatal("a file URL naming another host was fetched")
	}
	if fetch.KindOf(err) != fetch.ErrMalformed || fetch.ExitCode(err) != 3 {
		t.Errorf("error %v: kind %d, exit %d; want ErrMalformed, exit 3", err, fetch.KindOf(err), fetch.ExitCode(err))
	}
	want := "file:// URL names host example.com: only local files (empty host, localhost or 127.0.0.1) are fetched"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

func TestLocalhost(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "f"), []byte("local\n"))
	for _, u := range []string{
		"file://localhost" + filepath.ToSlash(filepath.Join(dir, "f")),
		"file://127.0.0.1" + filepath.ToSlash(filepath.Join(dir, "f")), // curl's test 2071
		"file://" + filepath.ToSlash(filepath.Join(dir, "f")),
		"file:" + filepath.ToSlash(filepath.Join(dir, "f")),
	} {
		res, err := open(t, nil, u)
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(got) != "local\n" {
			t.Errorf("%s: %q, %v", u, got, err)
		}
	}
}

// dated is a file of 5 bytes with a known time.
func dated(t *testing.T) (string, time.Time) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	write(t, p, []byte("12345"))
	mtime := time.Date(2020, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	return p, mtime
}

func TestMeta(t *testing.T) {
	p, mtime := dated(t)
	res, err := open(t, nil, fileURL(p))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Size != 5 || !res.ModTime.Equal(mtime) || res.Dir || res.Offset != 0 {
		t.Errorf("Meta = %+v; want Size 5, ModTime %v, not Dir", res.Meta, mtime)
	}
}

func TestMissingAndUnreadable(t *testing.T) {
	dir := t.TempDir()
	res, err := open(t, nil, fileURL(filepath.Join(dir, "nope")))
	if err == nil {
		res.Body.Close()
		t.Fatal("missing file opened")
	}
	if fetch.ExitCode(err) != 37 || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v (exit %d); want exit 37 wrapping ErrNotExist", err, fetch.ExitCode(err))
	}
	if !strings.Contains(err.Error(), "couldn't open file") {
		t.Errorf("message %q", err)
	}
	if os.Geteuid() == 0 {
		t.Log("root reads any file: unreadable case skipped")
		return
	}
	p := filepath.Join(dir, "secret")
	write(t, p, []byte("x"))
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	res, err = open(t, nil, fileURL(p))
	if err == nil {
		res.Body.Close()
		t.Fatal("unreadable file opened")
	}
	if fetch.ExitCode(err) != 37 {
		t.Errorf("unreadable file: %v (exit %d); want 37", err, fetch.ExitCode(err))
	}
}

func TestResume(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	data := []byte("0123456789")
	write(t, p, data)
	mtime := time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	u, err := parseURL(fileURL(p))
	if err != nil {
		t.Fatal(err)
	}
	c := &fetch.Client{}
	for _, tc := range []struct {
		name       string
		off        int64
		since      time.Time
		wantOff    int64
		wantBody   string
		wantKind   fetch.Kind
		wantFailed bool
	}{
		{"middle", 4, time.Time{}, 4, "456789", 0, false},
		{"unchanged since", 4, mtime, 4, "456789", 0, false},
		{"unchanged, sub-second since", 4, mtime.Add(500 * time.Millisecond), 4, "456789", 0, false},
		{"changed since", 4, mtime.Add(-time.Hour), 0, "0123456789", 0, false},
		{"at the end", 10, time.Time{}, 10, "", 0, false},
		{"past the end", 11, time.Time{}, 0, "", fetch.ErrResume, true},
	} {
		res, err := c.Do(context.Background(), &fetch.Request{URL: u, Offset: tc.off, Since: tc.since})
		if tc.wantFailed {
			if err == nil {
				res.Body.Close()
				t.Errorf("%s: resumed", tc.name)
			} else if fetch.KindOf(err) != tc.wantKind {
				t.Errorf("%s: %v, want kind %d", tc.name, err, tc.wantKind)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(got) != tc.wantBody || res.Offset != tc.wantOff || res.Size != int64(len(tc.wantBody)) {
			t.Errorf("%s: body %q err %v Offset %d Size %d; want %q at %d", tc.name, got, err, res.Offset, res.Size, tc.wantBody, tc.wantOff)
		}
	}
}

func TestHead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, []byte("abc"))
	u, _ := parseURL(fileURL(p))
	res, err := (&fetch.Client{}).Do(context.Background(), &fetch.Request{URL: u, Head: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || len(got) != 0 || res.Size != 3 {
		t.Errorf("HEAD: body %q err %v Size %d", got, err, res.Size)
	}
}

// A file that shrinks while it is read ends before Meta.Size: ErrPartial,
// not a silent short copy.
func TestTruncatedWhileReading(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, fetchtest.Pattern(100<<10))
	for _, viaCopy := range []bool{false, true} {
		res, err := open(t, nil, fileURL(p))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, 10<<10); err != nil {
			t.Fatal(err)
		}
		if viaCopy {
			_, err = io.Copy(io.Discard, res.Body)
		} else {
			_, err = io.ReadAll(res.Body)
		}
		res.Body.Close()
		if fetch.KindOf(err) != fetch.ErrPartial || fetch.ExitCode(err) != 18 {
			t.Errorf("copy=%v: reading a file truncated under us: %v; want ErrPartial (18)", viaCopy, err)
		}
		write(t, p, fetchtest.Pattern(100<<10))
	}
}

func TestSizeCap(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	write(t, p, fetchtest.Pattern(1000))
	c := &fetch.Client{MaxFileSize: 999}
	res, err := open(t, c, fileURL(p))
	if err == nil {
		res.Body.Close()
		t.Fatal("a 1000-byte file passed a 999-byte cap")
	}
	if fetch.ExitCode(err) != 63 {
		t.Errorf("cap: %v, exit %d; want 63", err, fetch.ExitCode(err))
	}
	c.MaxFileSize = 1000
	res, err = open(t, c, fileURL(p))
	if err != nil {
		t.Fatalf("a 1000-byte file under a 1000-byte cap: %v", err)
	}
	res.Body.Close()
}

func TestListing(t *testing.T) {
	dir := t.TempDir()
	mtime := time.Date(2022, 3, 4, 5, 6, 7, 0, time.UTC)
	files := map[string]string{
		"plain.txt":          "hello",
		"with space":         "s",
		"new\nline":          "n",
		"back\\slash":        "b",
		"arrow -> not link":  "a",
		"percent%and#hash?":  "p",
		"tab\tand\x01ctrl\r": "c",
	}
	for name, data := range files {
		write(t, filepath.Join(dir, name), []byte(data))
		if err := os.Chtimes(filepath.Join(dir, name), mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plain.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("odd -> target", filepath.Join(dir, "odd link")); err != nil {
		t.Fatal(err)
	}
	base := fileURL(dir) + "/"
	res, err := open(t, nil, fileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if !res.Dir || res.Listing == nil || res.Size != -1 {
		t.Fatalf("Meta = %+v, Listing %v", res.Meta, res.Listing != nil)
	}
	got := map[string]fetch.Entry{}
	var order []string
	line := regexp.MustCompile(`^[-dl] [0-9]+ [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z [^\n]+$`)
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		if e.Unparsed {
			t.Errorf("unparsed line %q", e.Raw)
			continue
		}
		if !line.MatchString(e.Raw) {
			t.Errorf("line %q does not follow the documented format", e.Raw)
		}
		got[e.Name] = e
		order = append(order, e.Name)
	}
	if !slices.IsSorted(order) {
		t.Errorf("listing not sorted: %q", order)
	}
	if len(got) != len(files)+3 {
		t.Errorf("%d entries, want %d: %q", len(got), len(files)+3, order)
	}
	for name, data := range files {
		e, ok := got[name]
		if !ok {
			t.Errorf("entry %q missing", name)
			continue
		}
		if e.Type != fetch.EntryFile || e.Size != int64(len(data)) || !e.ModTime.Equal(mtime) {
			t.Errorf("entry %q = %+v", name, e)
		}
		u, err := parseURL(e.URL)
		if err != nil {
			t.Errorf("entry %q: URL %q: %v", name, e.URL, err)
			continue
		}
		if u.File.Path != filepath.ToSlash(filepath.Join(dir, name)) {
			t.Errorf("entry %q: URL %q decodes to %q", name, e.URL, u.File.Path)
		}
	}
	if e := got["subdir"]; e.Type != fetch.EntryDir || e.URL != base+"subdir/" {
		t.Errorf("subdir = %+v", e)
	}
	if e := got["link"]; e.Type != fetch.EntryLink || e.Target != "plain.txt" {
		t.Errorf("link = %+v", e)
	}
	if e := got["odd link"]; e.Type != fetch.EntryLink || e.Target != "odd -> target" {
		t.Errorf("odd link = %+v", e)
	}
}

func TestListingFetchesEntries(t *testing.T) {
	// Every entry URL of a listing fetches that entry.
	dir := t.TempDir()
	names := []string{"a b", "c%d", "e#f", "g?h", "ü"}
	for _, n := range names {
		write(t, filepath.Join(dir, n), []byte("content of "+n))
	}
	res, err := open(t, nil, fileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	n := 0
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		r, err := open(t, nil, e.URL)
		if err != nil {
			t.Errorf("%q: %v", e.URL, err)
			continue
		}
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil || string(b) != "content of "+e.Name {
			t.Errorf("%q: %q, %v", e.URL, b, err)
		}
		n++
	}
	if n != len(names) {
		t.Errorf("%d entries, want %d", n, len(names))
	}
}

func TestLargeDirectory(t *testing.T) {
	defer file.SetSortLimit(300)()
	dir := t.TempDir()
	const n = 1000 // over the sorted limit: streamed in batches of 256
	for i := range n {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%05d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	res, err := open(t, nil, fileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	seen := map[string]bool{}
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		if e.Unparsed || e.Type != fetch.EntryFile || e.Size != 0 {
			t.Fatalf("entry %+v", e)
		}
		if seen[e.Name] {
			t.Fatalf("%q listed twice", e.Name)
		}
		seen[e.Name] = true
	}
	if len(seen) != n {
		t.Errorf("%d entries, want %d", len(seen), n)
	}
}

func TestParseLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want fetch.Entry
	}{
		{"- 5 2020-01-02T03:04:05Z a.txt", fetch.Entry{Name: "a.txt", Type: fetch.EntryFile, Size: 5, URL: "file:///d/a.txt"}},
		{"d 4096 2020-01-02T03:04:05Z sub", fetch.Entry{Name: "sub", Type: fetch.EntryDir, Size: 4096, URL: "file:///d/sub/"}},
		{`l 3 2020-01-02T03:04:05Z x -\x3e y -> t -> u`, fetch.Entry{Name: "x -> y", Type: fetch.EntryLink, Size: 3, Target: "t -> u", URL: "file:///d/x%20-%3E%20y"}},
		{`p 0 2020-01-02T03:04:05Z fifo`, fetch.Entry{Name: "fifo", Type: fetch.EntryOther, Size: 0, URL: "file:///d/fifo"}},
		{`- 1 2020-01-02T03:04:05Z a\nb\\c\x7f`, fetch.Entry{Name: "a\nb\\c\x7f", Type: fetch.EntryFile, Size: 1, URL: "file:///d/a%0Ab%5Cc%7F"}},
	} {
		got := file.ParseLine([]byte(tc.line), "file:///d/")
		tc.want.Raw = tc.line
		tc.want.ModTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
		if got != tc.want {
			t.Errorf("ParseLine(%q) =\n %+v\nwant\n %+v", tc.line, got, tc.want)
		}
	}
	for _, bad := range []string{
		"", "-", "- 5", "- 5 2020-01-02T03:04:05Z", "- x 2020-01-02T03:04:05Z a", "- -1 2020-01-02T03:04:05Z a",
		"- 5 yesterday a", "x 5 2020-01-02T03:04:05Z a", "l 5 2020-01-02T03:04:05Z nolinkarrow",
		`- 5 2020-01-02T03:04:05Z bad\q`, `- 5 2020-01-02T03:04:05Z bad\x4`, "- 5 2020-01-02T03:04:05Z a/b",
		"total 12",
	} {
		got := file.ParseLine([]byte(bad), "file:///d/")
		if !got.Unparsed || got.Raw != bad || got.Name != "" {
			t.Errorf("ParseLine(%q) = %+v, want Unparsed", bad, got)
		}
	}
}

// The listing round-trips through AppendLine and ParseLine for any name.
func FuzzListingLine(f *testing.F) {
	for _, s := range []string{"a", "a -> b", "x\\y", "\n", " -> ", "->", "a\x00b", "\xff"} {
		f.Add(s, "t")
	}
	f.Fuzz(func(t *testing.T, name, target string) {
		if name == "" || strings.ContainsAny(name, "/") {
			return
		}
		fi := fakeInfo{name: name, size: 7, mode: os.ModeSymlink, mtime: time.Unix(1e9, 0)}
		line := file.AppendLine(nil, fi, target)
		if bytes.Count(line, []byte{'\n'}) != 1 || line[len(line)-1] != '\n' {
			t.Fatalf("line %q is not one line", line)
		}
		e := file.ParseLine(line[:len(line)-1], "")
		if e.Unparsed || e.Name != name || e.Target != target || e.Type != fetch.EntryLink || e.Size != 7 {
			t.Fatalf("name %q target %q: line %q parsed as %+v", name, target, line, e)
		}
	})
}

type fakeInfo struct {
	name  string
	size  int64
	mode  os.FileMode
	mtime time.Time
}

func (f fakeInfo) Name() string       { return f.name }
func (f fakeInfo) Size() int64        { return f.size }
func (f fakeInfo) Mode() os.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return f.mtime }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return nil }

func parseURL(s string) (*urlparse.URL, error) {
	u, err := urlparse.Parse(s)
	if err != nil {
		return nil, err
	}
	return &u, nil
}

func TestIfModifiedSince(t *testing.T) {
	p, mtime := dated(t)
	u := fileURL(p)
	for _, tc := range []struct {
		since time.Time
		want  bool
	}{{mtime, true}, {mtime.Add(time.Hour), true}, {mtime.Add(-time.Second), false}} {
		pu, _ := urlparse.Parse(u)
		res, b, err := fetchtest.Read((&fetch.Client{}).Do(context.Background(), &fetch.Request{URL: &pu, IfModifiedSince: tc.since}))
		if err != nil {
			t.Fatal(err)
		}
		if res.NotModified != tc.want || tc.want != (len(b) == 0) {
			t.Errorf("since %v: NotModified %v, %d bytes; want %v", tc.since, res.NotModified, len(b), tc.want)
		}
	}
}
