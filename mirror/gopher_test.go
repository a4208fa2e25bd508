package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

func binaryBytes() []byte {
	b := make([]byte, 1024)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// basicHole is a small hole: a root menu with every kind of item, a
// sub-menu, texts and a binary.
func basicHole(t *testing.T) *hole {
	h := newHole(t)
	h.menu("",
		"iWelcome to the hole",
		"0Hello\t/hello.txt",
		"1Docs\t/docs",
		"9Binary\t/bin/data.bin",
		"7Search\t/search",
		"8Telnet\t/tel",
		"2CSO\t/cso",
		"hExample\tURL:http://example.com/",
		"0Elsewhere\t/x\tother.example\t70",
		"3an error line",
	)
	h.menu("/docs", "0One\t/docs/one.txt", "0Two\t/docs/two.txt", "1Back\t/")
	h.file("/hello.txt", []byte("Hello, hole!\r\nSecond line\r\n"))
	h.file("/docs/one.txt", []byte("one\n.\n..two dots\n"))
	h.file("/docs/two.txt", []byte("two\n"))
	h.file("/bin/data.bin", binaryBytes())
	return h
}

func TestGopherFirstMirror(t *testing.T) {
	h := basicHole(t)
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir})
	want := counts{New: 4, Recorded: 5, Dirs: 2}
	if got := countsOf(sum); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	root, _ := h.reply("")
	docs, _ := h.reply("/docs")
	wantTree := map[string]string{
		".gopher-menu":      string(root),
		"docs/.gopher-menu": string(docs),
		"hello.txt":         "Hello, hole!\r\nSecond line\r\n",
		"docs/one.txt":      "one\n.\n..two dots\n",
		"docs/two.txt":      "two\n",
		"bin/data.bin":      string(binaryBytes()),
	}
	sameTree(t, tree(t, dir), wantTree)
	recs := records(t, dir)
	types := map[string]string{}
	for u, r := range recs {
		types[strings.TrimPrefix(u, "gopher://"+h.srv.Addr)] = r.Type + "/" + r.Status
	}
	wantTypes := map[string]string{
		"/1":                             "menu/ok",
		"/1/docs":                        "menu/ok",
		"/0/hello.txt":                   "file/ok",
		"/0/docs/one.txt":                "file/ok",
		"/0/docs/two.txt":                "file/ok",
		"/9/bin/data.bin":                "file/ok",
		"/7/search":                      "search/recorded",
		"/8/tel":                         "session/recorded",
		"/2/cso":                         "cso/recorded",
		"/hURL:http://example.com/#link": "link/recorded",
		"gopher://other.example/0/x":     "external/recorded",
	}
	if !reflect.DeepEqual(types, wantTypes) {
		t.Errorf("manifest:\n got %v\nwant %v", types, wantTypes)
	}
	bin := recs[h.url('9', "/bin/data.bin")]
	if bin.Size != 1024 || bin.SHA256 != "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9" || bin.Path != "bin/data.bin" {
		t.Errorf("binary record = %+v", bin)
	}
	if l := recs[h.url('h', "URL:http://example.com/")+"#link"]; l.Target != "http://example.com/" {
		t.Errorf("link record = %+v", l)
	}
	// Every menu was asked for once, robots.txt once, every document once.
	wantReq := []string{"", "/bin/data.bin", "/docs", "/docs/one.txt", "/docs/two.txt", "/hello.txt", "/robots.txt"}
	if got := h.requested(0); !reflect.DeepEqual(got, wantReq) {
		t.Errorf("requests = %q, want %q", got, wantReq)
	}
}

func TestGopherSecondRunFetchesOnlyMenus(t *testing.T) {
	h := basicHole(t)
	dir := t.TempDir()
	mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir})
	before := tree(t, dir)
	n := len(h.srv.Requests())
	sum := mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir})
	if got, want := countsOf(sum), (counts{Unchanged: 4, Recorded: 5, Dirs: 2}); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	if got, want := h.requested(n), []string{"", "/docs", "/robots.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("second run asked for %q, want %q", got, want)
	}
	sameTree(t, tree(t, dir), before)
}

func TestGopherChangedAndDeleted(t *testing.T) {
	h := basicHole(t)
	dir := t.TempDir()
	mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir})
	// two.txt changes (its menu line says so: new display string), one.txt
	// disappears, three.txt is new.
	h.menu("/docs", "0Two (updated)\t/docs/two.txt", "0Three\t/docs/three.txt", "1Back\t/")
	h.file("/docs/two.txt", []byte("two, version 2\n"))
	h.file("/docs/three.txt", []byte("three\n"))
	h.remove("/docs/one.txt")
	n := len(h.srv.Requests())
	sum := mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir})
	if got, want := countsOf(sum), (counts{New: 1, Changed: 1, Unchanged: 2, Gone: 1, Recorded: 5, Dirs: 2}); got != want {
		t.Errorf("without --delete: counts = %+v, want %+v", got, want)
	}
	if got, want := h.requested(n), []string{"", "/docs", "/docs/three.txt", "/docs/two.txt", "/robots.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("asked for %q, want %q", got, want)
	}
	got := tree(t, dir)
	if got["docs/two.txt"] != "two, version 2\n" || got["docs/three.txt"] != "three\n" || got["docs/one.txt"] != "one\n.\n..two dots\n" {
		t.Errorf("tree = %q", got)
	}
	if r := records(t, dir)[h.url('0', "/docs/one.txt")]; r.Status != StatusGone || r.Path != "docs/one.txt" {
		t.Errorf("one.txt record = %+v", r)
	}
	// --dry-run --delete says what it would delete and deletes nothing.
	var would []string
	sum, err := Run(context.Background(), Options{URL: h.url('1', ""), Dir: dir, Delete: true, DryRun: true,
		Event: func(ev Event) {
			if ev.Kind == EventWouldDel {
				would = append(would, ev.Path)
			}
		}})
	if err != nil || sum.Deleted != 1 || !reflect.DeepEqual(would, []string{"docs/one.txt"}) {
		t.Errorf("dry run: err %v, deleted %d, would delete %q", err, sum.Deleted, would)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs/one.txt")); err != nil {
		t.Errorf("the dry run deleted: %v", err)
	}
	// --max-delete 0 (DeleteLimit -1) refuses.
	sum, err = Run(context.Background(), Options{URL: h.url('1', ""), Dir: dir, Delete: true, DeleteLimit: -1})
	if !errors.Is(err, ErrIncomplete) || sum.Deleted != 0 || sum.Gone != 1 {
		t.Errorf("limit: err %v, deleted %d, gone %d", err, sum.Deleted, sum.Gone)
	}
	sum = mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir, Delete: true})
	if got, want := countsOf(sum), (counts{Unchanged: 4, Deleted: 1, Recorded: 5, Dirs: 2}); got != want {
		t.Errorf("with --delete: counts = %+v, want %+v", got, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "docs/one.txt")); !os.IsNotExist(err) {
		t.Errorf("one.txt still there: %v", err)
	}
	if _, ok := records(t, dir)[h.url('0', "/docs/one.txt")]; ok {
		t.Errorf("one.txt still in the manifest")
	}
}

func TestGopherInterruptedRunResumes(t *testing.T) {
	h := newHole(t)
	var lines []string
	for i := 0; i < 30; i++ {
		sel := "/f/" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + ".txt"
		lines = append(lines, "0File\t"+sel)
		h.file(sel, []byte(sel+"\n"))
	}
	h.menu("", lines...)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int64
	_, err := Run(ctx, Options{URL: h.url('1', ""), Dir: dir, Parallel: 2, Event: func(ev Event) {
		if ev.Kind == EventNew && done.Add(1) == 10 {
			cancel()
		}
	}})
	if fetch.KindOf(err) != fetch.ErrAborted {
		t.Fatalf("interrupted run: err %v, want ErrAborted", err)
	}
	first := map[string]bool{}
	for u, r := range records(t, dir) {
		if r.Type == TypeFile && r.Status == StatusOK {
			first[u] = true
		}
	}
	if len(first) < 10 || len(first) >= 30 {
		t.Fatalf("%d files recorded after the interruption, want 10 to 29", len(first))
	}
	for rel := range tree(t, dir) {
		if strings.Contains(rel, tmpPrefix) {
			t.Errorf("temporary file left: %s", rel)
		}
	}
	n := len(h.srv.Requests())
	sum := mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir})
	if sum.New != int64(30-len(first)) || sum.Unchanged != int64(len(first)) || sum.Failed != 0 {
		t.Errorf("resumed run: new %d unchanged %d failed %d, want %d %d 0", sum.New, sum.Unchanged, sum.Failed, 30-len(first), len(first))
	}
	for _, sel := range h.requested(n) {
		if first[h.url('0', sel)] {
			t.Errorf("resumed run fetched %s again", sel)
		}
	}
	got := tree(t, dir)
	if len(got) != 31 {
		t.Errorf("%d files after resuming, want 31", len(got))
	}
}

func TestGopherRewriteMenus(t *testing.T) {
	h := basicHole(t)
	dir := t.TempDir()
	mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir, RewriteMenus: true})
	got := tree(t, dir)
	port := strconv.Itoa(h.srv.Port)
	wantRoot := "iWelcome to the hole\tfake\t(NULL)\t0\n" +
		"0Hello\t/hello.txt\n" +
		"1Docs\t/docs/\n" +
		"9Binary\t/bin/data.bin\n" +
		"7Search\t/search\t127.0.0.1\t" + port + "\n" +
		"8Telnet\t/tel\t127.0.0.1\t" + port + "\n" +
		"2CSO\t/cso\t127.0.0.1\t" + port + "\n" +
		"hExample\tURL:http://example.com/\t127.0.0.1\t" + port + "\n" +
		"0Elsewhere\t/x\tother.example\t70\n" +
		"3an error line\t127.0.0.1\t" + port + "\n" +
		".\n"
	if got["gophermap"] != wantRoot {
		t.Errorf("gophermap:\n%s\nwant:\n%s", got["gophermap"], wantRoot)
	}
	if want := "0One\t/docs/one.txt\n0Two\t/docs/two.txt\n1Back\t/\n.\n"; got["docs/gophermap"] != want {
		t.Errorf("docs/gophermap = %q, want %q", got["docs/gophermap"], want)
	}
	// The saved menus are still byte for byte what was received.
	root, _ := h.reply("")
	if got[".gopher-menu"] != string(root) {
		t.Errorf(".gopher-menu changed")
	}
}

func TestGopherStalledServerTimesOut(t *testing.T) {
	h := newHole(t)
	h.menu("", "0Stuck\t/stuck", "0Fine\t/fine")
	h.file("/fine", []byte("fine"))
	h.stall["/stuck"] = true
	dir := t.TempDir()
	sum, err := Run(context.Background(), Options{URL: h.url('1', ""), Dir: dir, Timeout: 50 * time.Millisecond,
		Retries: 1, RetryWait: time.Millisecond})
	if !errors.Is(err, ErrIncomplete) || sum.Failed != 1 || sum.New != 1 {
		t.Fatalf("err %v, summary %+v", err, countsOf(sum))
	}
	if f := sum.Failures[0]; !strings.Contains(f.Error, "sent nothing for 50ms") {
		t.Errorf("failure %+v", f)
	}
	stuck := 0
	for _, r := range h.srv.Requests() {
		if r.Selector == "/stuck" {
			stuck++
		}
	}
	if stuck != 2 {
		t.Errorf("/stuck asked %d times, want 2 (one retry)", stuck)
	}
}
