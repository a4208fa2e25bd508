package mirror

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/internal/testserver"
)

// openTestManifest loads the manifest of dir for url (a run's view).
func openTestManifest(t *testing.T, dir, url string) (*manifest, *localFS) {
	t.Helper()
	l, err := openLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadManifest(l, url, false)
	if err != nil {
		l.close()
		t.Fatal(err)
	}
	return m, l
}

// checkSorted checks that the manifest in dir is a version 2 one: the
// header, records in order, one per URL, the mark, and no journal; it
// returns the records' URLs.
func checkSorted(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var h header
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h.Version != 2 {
		t.Fatalf("header %q (%v): want version 2", lines[0], err)
	}
	if lines[len(lines)-1] != journalMark {
		t.Fatalf("last line %q, want the mark and no journal", lines[len(lines)-1])
	}
	var urls []string
	for _, l := range lines[1 : len(lines)-1] {
		var r Record
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.URL == "" || r.Status == StatusDeleted {
			t.Fatalf("line %q is not a live record (%v)", l, err)
		}
		if n := len(urls); n > 0 && !keyOf(urls[n-1]).less(keyOf(r.URL)) {
			t.Fatalf("%q after %q: not in order", r.URL, urls[n-1])
		}
		urls = append(urls, r.URL)
	}
	return urls
}

// TestManifestMigratesV1: a version 1 manifest (a journal: a URL twice,
// one deleted, the last line torn) is merged into a sorted version 2 one
// when a run loads it, and reads the same.
func TestManifestMigratesV1(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(journalSample), 0o644); err != nil {
		t.Fatal(err)
	}
	_, before, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, l := openTestManifest(t, dir, "ftp://h/")
	if r, ok := m.get("ftp://h/a"); !ok || r.Size != 3 {
		t.Errorf("get(a) = %+v, %v: want the last line's size 3", r, ok)
	}
	if _, ok := m.get("ftp://h/b"); ok {
		t.Error("get(b): the deleted record is there")
	}
	if _, ok := m.get("ftp://h/c"); ok {
		t.Error("get(c): the torn line is there")
	}
	m.release()
	l.close()
	if urls := checkSorted(t, dir); !reflect.DeepEqual(urls, []string{"ftp://h/a"}) {
		t.Errorf("migrated manifest has %q", urls)
	}
	url, after, err := ReadManifest(dir)
	if err != nil || url != "ftp://h/" || !reflect.DeepEqual(after, before) {
		t.Errorf("after migration ReadManifest = %q %+v %v, want %+v", url, after, err, before)
	}
}

// TestManifestKilledRun: the records a run put before it was killed (the
// journal appended to the manifest, the last line torn) are there for the
// next run; the torn one is not, and the next record is not glued to it.
func TestManifestKilledRun(t *testing.T) {
	dir := t.TempDir()
	m, l := openTestManifest(t, dir, "ftp://h/")
	m.put(Record{URL: "ftp://h/d/x", Path: "d/x", Type: TypeFile, Size: 1, Status: StatusOK})
	if err := m.compact(); err != nil {
		t.Fatal(err)
	}
	m.put(Record{URL: "ftp://h/d/y", Path: "d/y", Type: TypeFile, Size: 2, Status: StatusOK})
	m.put(Record{URL: "ftp://h/d/x", Path: "d/x", Type: TypeFile, Size: 5, Status: StatusOK})
	// Killed: no compact, and a line cut short.
	m.journal.Write([]byte(`{"url":"ftp://h/d/z","pa`))
	m.release()
	l.close()

	m, l = openTestManifest(t, dir, "ftp://h/")
	if r, ok := m.get("ftp://h/d/x"); !ok || r.Size != 5 {
		t.Errorf("get(x) = %+v, %v: want the killed run's size 5", r, ok)
	}
	if r, ok := m.get("ftp://h/d/y"); !ok || r.Size != 2 {
		t.Errorf("get(y) = %+v, %v: want the killed run's record", r, ok)
	}
	if _, ok := m.get("ftp://h/d/z"); ok {
		t.Error("get(z): the torn line is there")
	}
	m.put(Record{URL: "ftp://h/d/w", Path: "d/w", Type: TypeFile, Size: 3, Status: StatusOK})
	m.release() // killed again, after a whole line
	l.close()
	_, recs, err := ReadManifest(dir)
	if err != nil || len(recs) != 3 {
		t.Fatalf("ReadManifest = %+v, %v: want w, x, y", recs, err)
	}
	m, l = openTestManifest(t, dir, "ftp://h/")
	defer l.close()
	defer m.release()
	if r, ok := m.get("ftp://h/d/w"); !ok || r.Size != 3 {
		t.Errorf("get(w) = %+v, %v", r, ok)
	}
}

// TestManifestMerge: many records in many directories, changed and
// deleted over several runs, with the journal sorted in chunks small
// enough to spill to files: each run's manifest is sorted, one line per
// URL, and holds what a map of the same puts holds; get and each agree.
func TestManifestMerge(t *testing.T) {
	old := chunkBytes
	chunkBytes = 2000
	defer func() { chunkBytes = old }()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	model := map[string]Record{}
	url := func() string {
		d := rng.IntN(30)
		if d < 5 {
			return fmt.Sprintf("ftp://h/d%d/", rng.IntN(10)) // a directory
		}
		return fmt.Sprintf("ftp://h/d%d/s%d/f%d", d%10, d, rng.IntN(40))
	}
	for run := 0; run < 4; run++ {
		m, l := openTestManifest(t, dir, "ftp://h/")
		for u, want := range model {
			if got, ok := m.get(u); !ok || got != want {
				t.Fatalf("run %d: get(%s) = %+v, %v, want %+v", run, u, got, ok, want)
			}
		}
		for i := 0; i < 600; i++ {
			u := url()
			if rng.IntN(5) == 0 {
				m.put(Record{URL: u, Status: StatusDeleted, Type: TypeFile})
				delete(model, u)
				continue
			}
			r := Record{URL: u, Path: strings.TrimPrefix(u, "ftp://h/"), Type: TypeFile, Size: int64(rng.IntN(1000)), Status: StatusOK}
			m.put(r)
			model[u] = r
		}
		if err := m.compact(); err != nil {
			t.Fatal(err)
		}
		got := map[string]Record{}
		if err := m.each(false, func(r Record) bool { got[r.URL] = r; return true }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, model) {
			t.Fatalf("run %d: each after compact has %d records, want %d", run, len(got), len(model))
		}
		m.release()
		l.close()
		urls := checkSorted(t, dir)
		var want []string
		for u := range model {
			want = append(want, u)
		}
		sort.Slice(want, func(i, j int) bool { return keyOf(want[i]).less(keyOf(want[j])) })
		if !reflect.DeepEqual(urls, want) {
			t.Fatalf("run %d: the manifest has %d URLs, want %d", run, len(urls), len(want))
		}
		if n, _ := filepath.Glob(filepath.Join(dir, tmpPrefix+"*")); len(n) > 0 {
			t.Fatalf("run %d: scratch files left: %q", run, n)
		}
	}
}

// TestManifestCurrent: current sees this run's journal, the last version
// of a URL counting: a record moved out of the subtree or deleted is not
// in it.
func TestManifestCurrent(t *testing.T) {
	dir := t.TempDir()
	m, l := openTestManifest(t, dir, "ftp://h/")
	defer l.close()
	defer m.release()
	for _, p := range []string{"a/x", "a/y", "a/z", "b/x"} {
		m.put(Record{URL: "ftp://h/" + p, Path: p, Type: TypeFile, Status: StatusOK})
	}
	if err := m.compact(); err != nil {
		t.Fatal(err)
	}
	m.put(Record{URL: "ftp://h/a/y", Path: "c/y", Type: TypeFile, Status: StatusOK})
	m.put(Record{URL: "ftp://h/a/z", Status: StatusDeleted})
	m.put(Record{URL: "ftp://h/b/w", Path: "a/w", Type: TypeFile, Status: StatusOK})
	got, err := m.current(func(r Record) bool { return strings.HasPrefix(r.Path, "a/") })
	if err != nil {
		t.Fatal(err)
	}
	var urls []string
	for u := range got {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	if want := []string{"ftp://h/a/x", "ftp://h/b/w"}; !reflect.DeepEqual(urls, want) {
		t.Errorf("current = %q, want %q", urls, want)
	}
}

// TestManifestUnsortedV2: a version 2 manifest whose records are not in
// order (edited by hand) is merged when loaded, the last line for a URL
// counting, as ReadManifest reads it.
func TestManifestUnsortedV2(t *testing.T) {
	dir := t.TempDir()
	data := `{"urlget_mirror":"urlget","version":2,"url":"ftp://h/"}
{"url":"ftp://h/b","path":"b","type":"file","size":1,"status":"ok"}
{"url":"ftp://h/a","path":"a","type":"file","size":2,"status":"ok"}
{"url":"ftp://h/b","path":"b","type":"file","size":3,"status":"ok"}
` + journalMark + "\n"
	if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, before, err := ReadManifest(dir)
	if err != nil || len(before) != 2 {
		t.Fatalf("ReadManifest = %+v, %v", before, err)
	}
	m, l := openTestManifest(t, dir, "ftp://h/")
	if r, ok := m.get("ftp://h/b"); !ok || r.Size != 3 {
		t.Errorf("get(b) = %+v, %v: want size 3", r, ok)
	}
	m.release()
	l.close()
	checkSorted(t, dir)
	if _, after, _ := ReadManifest(dir); !reflect.DeepEqual(after, before) {
		t.Errorf("after the merge ReadManifest = %+v, want %+v", after, before)
	}
}

// TestManifestDryRunMigrates: a dry run reads a version 1 manifest without
// writing the directory (the merged copy is a temporary file elsewhere).
func TestManifestDryRunMigrates(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ManifestName)
	if err := os.WriteFile(p, []byte(journalSample), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := openLocalReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	m, err := loadManifest(l, "ftp://h/", true)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := m.get("ftp://h/a"); !ok || r.Size != 3 {
		t.Errorf("get(a) = %+v, %v", r, ok)
	}
	m.release()
	if data, _ := os.ReadFile(p); !bytes.Equal(data, []byte(journalSample)) {
		t.Error("a dry run rewrote the manifest")
	}
}

func TestBucketOf(t *testing.T) {
	for in, want := range map[string]string{
		"ftp://h/a/b/c.txt": "ftp://h/a/b/",
		"ftp://h/a/b/":      "ftp://h/a/",
		"ftp://h/":          "ftp://",
		"gopher://h/1/x":    "gopher://h/1/",
		"nothing":           "",
	} {
		if got := bucketOf(in); got != want {
			t.Errorf("bucketOf(%q) = %q, want %q", in, got, want)
		}
	}
	// A directory sorts before what is in it.
	if !keyOf("ftp://h/a/b/").less(keyOf("ftp://h/a/b/c.txt")) || !keyOf("ftp://h/a/zz").less(keyOf("ftp://h/a/b/c")) {
		t.Error("a directory's records do not come before those below it")
	}
}

// TestPathTableReserved: the manifest's file paths, read a directory at a
// time from the sorted scratch file, keep other URLs off them; a directory
// dropped from memory (done) and claimed in again still knows what was
// claimed in it this run; a released directory's paths are free.
func TestPathTableReserved(t *testing.T) {
	oldSpill, oldDrop := spillBytes, dropFiles
	spillBytes, dropFiles = 1, 0 // scratch files at once
	defer func() { spillBytes, dropFiles = oldSpill, oldDrop }()
	m, l := openTestManifest(t, t.TempDir(), "ftp://h/")
	defer l.close()
	defer m.release()
	p := newPathTable()
	defer p.close()
	p.reserveFile(m, "u1", "a/x")
	p.reserveFile(m, "u9", "b/c/y")
	if err := p.seal(m); err != nil {
		t.Fatal(err)
	}
	if len(p.files) != 0 {
		t.Fatalf("reserved files held in memory: %v", p.files)
	}
	if got := p.claimFile("u2", []string{"a", "x"}); got != "a/x%!2" {
		t.Errorf("another URL on a reserved path: %q", got)
	}
	if got := p.claimFile("u1", []string{"a", "x"}); got != "a/x" {
		t.Errorf("the reserving URL: %q", got)
	}
	p.done("a")
	if _, ok := p.files["a/"]; ok {
		t.Error("done: the directory's files are still in memory")
	}
	if got := p.claimFile("u3", []string{"a", "x"}); got != "a/x%!3" {
		t.Errorf("claimed in again after done: %q (a/x and a/x%%!2 are taken)", got)
	}
	if got := p.claimDir("d", []string{"b", "c", "y"}); got != "b/c/y%!2" {
		t.Errorf("a directory on a reserved file: %q", got)
	}
	p.release("b", true)
	if got := p.claimFile("u4", []string{"b", "c", "y"}); got != "b/c/y" {
		t.Errorf("after release: %q", got)
	}
}

// TestFTPIncrementalSpilled: the incremental FTP runs (a change, a new
// file, a file gone, then --delete) with every list on its scratch file
// and the journal sorted in chunks of a few lines: the seen URLs joined
// with the sorted manifest, the manifest's paths read a directory at a
// time, directories dropped after their listing.
func TestFTPIncrementalSpilled(t *testing.T) {
	oldSpill, oldDrop, oldChunk := spillBytes, dropFiles, chunkBytes
	spillBytes, dropFiles, chunkBytes = 1, 0, 400
	defer func() { spillBytes, dropFiles, chunkBytes = oldSpill, oldDrop, oldChunk }()
	TestFTPIncremental(t)
}

// TestLineField: a field read from a line as Marshal writes it is the
// parsed one; a line not so written, or a value with an escape, is left to
// the parser.
func TestLineField(t *testing.T) {
	r := Record{URL: "ftp://h/a", Path: "a", Type: TypeFile, Parent: "ftp://h/", Error: `say ,"parent":"x" and "status":"deleted"`, Status: StatusOK}
	line, _ := json.Marshal(r)
	if p, ok := lineField(line, "parent"); !ok || string(p) != r.Parent {
		t.Errorf("parent = %q, %v", p, ok)
	}
	if p, ok := lineField(line, "target"); !ok || p != nil {
		t.Errorf("a field left out = %q, %v, want empty", p, ok)
	}
	if deletedLine(line) {
		t.Error("deletedLine: a status inside a string counted")
	}
	if _, ok := lineField([]byte(`{"path":"a","url":"u"}`), "path"); ok {
		t.Error("a line not as Marshal writes it was read")
	}
	if _, ok := lineField([]byte(`{"url":"u","path":"a\"b"}`), "path"); ok {
		t.Error("a value with an escape was read")
	}
}

// TestPathTableReleaseThenClaim: a path given up (its directory replaced)
// and claimed again by another URL keeps the new owner when its directory
// is dropped and read back; what was there before the release does not
// come back.
func TestPathTableReleaseThenClaim(t *testing.T) {
	oldSpill, oldDrop := spillBytes, dropFiles
	spillBytes, dropFiles = 1, 0
	defer func() { spillBytes, dropFiles = oldSpill, oldDrop }()
	m, l := openTestManifest(t, t.TempDir(), "ftp://h/")
	defer l.close()
	defer m.release()
	p := newPathTable()
	defer p.close()
	p.reserveFile(m, "old", "b/c/y")
	if err := p.seal(m); err != nil {
		t.Fatal(err)
	}
	if got := p.claimFile("early", []string{"b", "c", "z"}); got != "b/c/z" {
		t.Fatalf("claim: %q", got)
	}
	p.done("b/c")
	p.release("b", true)
	if got := p.claimFile("new", []string{"b", "c", "y"}); got != "b/c/y" {
		t.Errorf("after release: %q", got)
	}
	p.done("b/c")
	if got := p.claimFile("other", []string{"b", "c", "y"}); got != "b/c/y%!2" {
		t.Errorf("the new owner was lost when read back: %q", got)
	}
	if got := p.claimFile("other2", []string{"b", "c", "z"}); got != "b/c/z" {
		t.Errorf("a claim from before the release came back: %q", got)
	}
}

// TestFailuresBounded: a run holds at most MaxFailures failures for its
// summary; Failed counts them all.
func TestFailuresBounded(t *testing.T) {
	s := ftptest.New(t)
	n := MaxFailures + 5
	for i := 0; i < n; i++ {
		s.AddFile(fmt.Sprintf("pub/f%04d", i), []byte("x"), t1)
	}
	s.Configure(func(srv *ftptest.Server) {
		srv.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			if verb == "RETR" {
				ss.Reply(550, "No.")
				return true
			}
			return false
		}
	})
	sum, _ := Run(context.Background(), Options{URL: "ftp://" + s.Addr + "/pub/", Dir: t.TempDir(), Retries: -1})
	if sum.Failed != int64(n) || len(sum.Failures) != MaxFailures {
		t.Errorf("Failed %d, %d Failures; want %d, %d", sum.Failed, len(sum.Failures), n, MaxFailures)
	}
}

// TestSortLinesFanIn: a journal of many chunks is merged as the chunks pile
// up, so that the end of a run reads a bounded number of files at once
// (each with a read-ahead buffer: a 1,000,000-file journal made some 100
// of them), and the merge still keeps the newest line of each URL.
func TestSortLinesFanIn(t *testing.T) {
	oldChunk, oldFan := chunkBytes, mergeFanIn
	chunkBytes, mergeFanIn = 300, 4
	defer func() { chunkBytes, mergeFanIn = oldChunk, oldFan }()
	m, l := openTestManifest(t, t.TempDir(), "ftp://h/")
	defer l.close()
	defer m.release()
	var in bytes.Buffer
	want := map[string]string{}
	for i := 0; i < 2000; i++ {
		u := fmt.Sprintf("ftp://h/d%d/f%d", i%7, i%500)
		line, _ := json.Marshal(Record{URL: u, Type: TypeFile, Size: int64(i), Status: StatusOK})
		in.Write(line)
		in.WriteByte('\n')
		want[u] = string(line)
	}
	r, err := m.journalSourcesOf(bytesLineReader(in.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	// 2000 lines of ~90 bytes in chunks of 300 bytes: hundreds of chunks;
	// at most mergeFanIn-1 of each level are left.
	if n := len(r.files); n > 4*(mergeFanIn-1) {
		t.Errorf("%d chunk files left to merge at once, want at most %d", n, 4*(mergeFanIn-1))
	}
	got := map[string]string{}
	var prev key
	err = mergeLines(r.sources(), func(k key, line []byte) error {
		if len(got) > 0 && !prev.less(k) {
			t.Errorf("%v after %v", k, prev)
		}
		prev = k
		got[k.url] = string(line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d URLs merged, want %d", len(got), len(want))
	}
	for u, w := range want {
		if got[u] != w {
			t.Errorf("%s: %s, want the newest line %s", u, got[u], w)
		}
	}
}

// TestRealManifestMigratesV1: a mirror of vsftpd whose manifest is in
// today's .urlget-mirror.jsonl form of before (version 1: the records in
// the order they were written, one of them twice) is migrated by the
// next run, which finds every file unchanged and sends no RETR, and
// leaves a sorted version 2 manifest.
func TestRealManifestMigratesV1(t *testing.T) {
	s := testserver.StartFTP(t, testserver.Vsftpd)
	oldTimes(t, filepath.Join(s.Anon, "pub"))
	dir := t.TempDir()
	url := s.URL + "/pub/"
	first := mirrorOK(t, Options{URL: url, Dir: dir})
	mpath := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var h header
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h.Version != 2 {
		t.Fatalf("header %q: %v", lines[0], err)
	}
	h.Version = 1
	hl, _ := json.Marshal(h)
	recs := slices.Clone(lines[1 : len(lines)-1]) // without the mark
	rand.New(rand.NewPCG(37, 1)).Shuffle(len(recs), func(i, j int) { recs[i], recs[j] = recs[j], recs[i] })
	recs = append(recs, recs[0])
	v1 := string(hl) + "\n" + strings.Join(recs, "\n") + "\n"
	if err := os.WriteFile(mpath, []byte(v1), 0o644); err != nil {
		t.Fatal(err)
	}
	before := inodes(t, dir)
	cmds, _ := s.Commands()
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.Unchanged != first.New || sum.New+sum.Changed != 0 {
		t.Errorf("after the migration: %+v, want all %d unchanged", countsOf(sum), first.New)
	}
	sameInodes(t, before, inodes(t, dir))
	after, _ := s.Commands()
	for _, c := range after[len(cmds):] {
		if strings.HasPrefix(c.Line, "RETR") {
			t.Errorf("the run after the migration sent %s", c.Line)
		}
	}
	if n := len(checkSorted(t, dir)); n != len(lines)-2 {
		t.Errorf("the migrated manifest has %d records, want %d", n, len(lines)-2)
	}
}
