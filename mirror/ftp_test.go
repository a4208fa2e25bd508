package mirror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

var (
	t1 = time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	t2 = time.Date(2023, 1, 2, 3, 4, 5, 0, time.UTC)
	t3 = time.Date(2025, 6, 7, 8, 9, 10, 0, time.UTC)
)

// ftpTree fills s with a small tree below /pub.
func ftpTree(s *ftptest.Server) map[string]string {
	files := map[string]string{
		"pub/readme.txt":        "read me\r\n",
		"pub/a/one.txt":         "one\n",
		"pub/a/b/two.bin":       string(binaryBytes()),
		"pub/a/b/c/three.txt":   "three\n",
		"pub/space dir/f g.txt": "spaces\n",
	}
	for p, d := range files {
		s.AddFile(p, []byte(d), t1)
	}
	s.AddDir("pub/empty")
	s.AddLink("pub/link", "readme.txt")
	s.AddFile("outside.txt", []byte("not below pub"), t1)
	out := map[string]string{"link": "-> readme.txt"} // made as a link (issue 25)
	for p, d := range files {
		out[strings.TrimPrefix(p, "pub/")] = d
	}
	return out
}

// commands lists the command verbs the server received since the first n
// command lines (RETR with its argument).
func retrs(s *ftptest.Server, n int) []string {
	var out []string
	for _, l := range s.Lines()[n:] {
		if strings.HasPrefix(l, "RETR ") {
			out = append(out, strings.TrimPrefix(l, "RETR "))
		}
	}
	sort.Strings(out)
	return out
}

func TestFTPMirrorMLSD(t *testing.T) {
	s := ftptest.New(t)
	want := ftpTree(s)
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: "ftp://" + s.Addr + "/pub/", Dir: dir})
	if got, w := countsOf(sum), (counts{New: 5, Links: 1, Dirs: 6}); got != w {
		t.Errorf("counts = %+v, want %+v", got, w)
	}
	sameTree(t, tree(t, dir), want)
	for rel := range want {
		fi, err := os.Stat(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !fi.ModTime().Equal(t1) {
			t.Errorf("%s: mtime %v, want %v", rel, fi.ModTime().UTC(), t1)
		}
	}
	// MLSD gives exact times: no MDTM was needed. The one LIST is the
	// second look at pub/empty, whose MLSD came empty (not believed on
	// one look).
	lists := 0
	for _, l := range s.Lines() {
		if strings.HasPrefix(l, "LIST") {
			lists++
		}
		if strings.HasPrefix(l, "MDTM") || lists > 1 {
			t.Errorf("sent %q although the server has MLSD", l)
		}
	}
	recs := records(t, dir)
	base := "ftp://" + s.Addr + "/pub/"
	if r := recs[base+"link"]; r.Type != TypeSymlink || r.Target != "readme.txt" || r.Status != StatusOK || r.Path != "link" {
		t.Errorf("link record = %+v", r)
	}
	if r := recs[base+"a/b/two.bin"]; r.Path != "a/b/two.bin" || r.Size != 1024 || r.MTimeSource != "mlsd" ||
		r.MTime != "2024-03-04T05:06:07Z" || r.SHA256 != "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9" {
		t.Errorf("two.bin record = %+v", r)
	}
	if r := recs[base+"space%20dir/"]; r.Type != TypeDir || r.Path != "space dir" || r.Status != StatusOK {
		t.Errorf("directory record = %+v", r)
	}
	// Issue 16: an empty remote directory is made, as lftp and wget do.
	if fi, err := os.Stat(filepath.Join(dir, "empty")); err != nil || !fi.IsDir() {
		t.Errorf("the empty directory was not made: %v", err)
	}
}

func TestFTPMirrorLISTOnly(t *testing.T) {
	s := ftptest.New(t)
	configure(s, func(srv *ftptest.Server) { srv.NoMLSD = true })
	configure(s, func(srv *ftptest.Server) { srv.Features = []string{"EPSV", "MDTM", "PASV", "SIZE"} })
	want := ftpTree(s)
	s.AddFile("pub/a/older.txt", []byte("older\n"), t2)
	want["a/older.txt"] = "older\n"
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: "ftp://" + s.Addr + "/pub", Dir: dir, Parallel: 2})
	if got, w := countsOf(sum), (counts{New: 6, Links: 1, Dirs: 6}); got != w {
		t.Errorf("counts = %+v, want %+v", got, w)
	}
	sameTree(t, tree(t, dir), want)
	// The times come from MDTM (LIST has only minutes, or only the day).
	fi, err := os.Stat(filepath.Join(dir, "a/older.txt"))
	if err != nil || !fi.ModTime().Equal(t2) {
		t.Errorf("older.txt mtime %v (%v), want %v", fi.ModTime().UTC(), err, t2)
	}
	r := records(t, dir)["ftp://"+s.Addr+"/pub/a/older.txt"]
	if r.MTimeSource != "mdtm" || r.MTime != "2023-01-02T03:04:05Z" {
		t.Errorf("older.txt record = %+v", r)
	}
	// A second run: LIST again, nothing fetched.
	n := len(s.Lines())
	sum = mirrorOK(t, Options{URL: "ftp://" + s.Addr + "/pub", Dir: dir, Parallel: 2})
	if got, w := countsOf(sum), (counts{Unchanged: 6, Links: 1, Dirs: 6}); got != w {
		t.Errorf("second run: counts = %+v, want %+v", got, w)
	}
	if got := retrs(s, n); len(got) != 0 {
		t.Errorf("second run fetched %q", got)
	}
	// LIST's dates cannot prove a file unchanged (issue 25): MDTM, one
	// per file, decided it.
	mdtm := 0
	for _, l := range s.Lines()[n:] {
		if strings.HasPrefix(l, "MDTM") {
			mdtm++
		}
	}
	if mdtm != 6 {
		t.Errorf("second run sent %d MDTM, want 6", mdtm)
	}
}

func TestFTPIncremental(t *testing.T) {
	s := ftptest.New(t)
	ftpTree(s)
	dir := t.TempDir()
	url := "ftp://" + s.Addr + "/pub/"
	mirrorOK(t, Options{URL: url, Dir: dir})
	before, err := os.Stat(filepath.Join(dir, "a/one.txt"))
	if err != nil {
		t.Fatal(err)
	}

	n := len(s.Lines())
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	if got, w := countsOf(sum), (counts{Unchanged: 5, Links: 1, Dirs: 6}); got != w {
		t.Errorf("second run: counts = %+v, want %+v", got, w)
	}
	if got := retrs(s, n); len(got) != 0 {
		t.Errorf("second run fetched %q", got)
	}

	// Same size, another time; another size; a new file; one removed.
	s.AddFile("pub/a/one.txt", []byte("ONE\n"), t3)
	s.AddFile("pub/readme.txt", []byte("read me, version 2\r\n"), t1)
	s.AddFile("pub/a/b/new.txt", []byte("new\n"), t1)
	emptyDir(s, "/pub/a/b/c") // three.txt is gone
	n = len(s.Lines())
	sum = mirrorOK(t, Options{URL: url, Dir: dir})
	if got, w := countsOf(sum), (counts{New: 1, Changed: 2, Unchanged: 2, Gone: 1, Links: 1, Dirs: 6}); got != w {
		t.Errorf("third run: counts = %+v, want %+v", got, w)
	}
	if got, w := retrs(s, n), []string{"new.txt", "one.txt", "readme.txt"}; !reflect.DeepEqual(got, w) {
		t.Errorf("third run fetched %q, want %q", got, w)
	}
	got := tree(t, dir)
	if got["a/one.txt"] != "ONE\n" || got["readme.txt"] != "read me, version 2\r\n" || got["a/b/c/three.txt"] != "three\n" {
		t.Errorf("tree = %q", got)
	}
	after, _ := os.Stat(filepath.Join(dir, "a/one.txt"))
	if !after.ModTime().Equal(t3) || after.ModTime().Equal(before.ModTime()) {
		t.Errorf("one.txt mtime %v, want %v", after.ModTime(), t3)
	}

	sum = mirrorOK(t, Options{URL: url, Dir: dir, Delete: true})
	if got, w := countsOf(sum), (counts{Unchanged: 5, Deleted: 1, Links: 1, Dirs: 6}); got != w {
		t.Errorf("--delete run: counts = %+v, want %+v", got, w)
	}
	if _, err := os.Lstat(filepath.Join(dir, "a/b/c/three.txt")); !os.IsNotExist(err) {
		t.Errorf("three.txt not deleted: %v", err)
	}
}

// TestFTPRerunLeavesManifest: a run that finds nothing changed writes
// nothing to the manifest, and so does not rewrite it (on a large tree a
// rewrite is most of a rerun's time): the file is the same one, as it was.
func TestFTPRerunLeavesManifest(t *testing.T) {
	s := ftptest.New(t)
	ftpTree(s)
	dir := t.TempDir()
	url := "ftp://" + s.Addr + "/pub/"
	mirrorOK(t, Options{URL: url, Dir: dir})
	mpath := filepath.Join(dir, ManifestName)
	before, err := os.Stat(mpath)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(mpath)
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	if got, w := countsOf(sum), (counts{Unchanged: 5, Links: 1, Dirs: 6}); got != w {
		t.Errorf("second run: counts = %+v, want %+v", got, w)
	}
	sameManifest(t, dir, before, data)
}

// emptyDir makes the server list dir as empty (ftptest cannot remove
// files).
func emptyDir(s *ftptest.Server, dir string) {
	empty := ftptest.ListingLines()
	s.Configure(func(srv *ftptest.Server) {
		srv.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			if ss.CWD() == dir {
				return empty(ss, verb, arg)
			}
			return false
		}
	})
}

func TestFTPInterruptedRunResumes(t *testing.T) {
	s := ftptest.New(t)
	for i := 0; i < 40; i++ {
		s.AddFile(fmt.Sprintf("d%d/f%02d.txt", i%4, i), []byte(fmt.Sprintf("file %d\n", i)), t1)
	}
	dir := t.TempDir()
	url := "ftp://" + s.Addr + "/"
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int64
	_, err := Run(ctx, Options{URL: url, Dir: dir, Event: func(ev Event) {
		if ev.Kind == EventNew && done.Add(1) == 15 {
			cancel()
		}
	}})
	if fetch.KindOf(err) != fetch.ErrAborted {
		t.Fatalf("err = %v, want ErrAborted", err)
	}
	first := map[string]bool{}
	for _, r := range records(t, dir) {
		if r.Type == TypeFile && r.Status == StatusOK {
			first[r.Path] = true
		}
	}
	if len(first) < 15 || len(first) >= 40 {
		t.Fatalf("%d files recorded, want 15 to 39", len(first))
	}
	for rel := range tree(t, dir) {
		if strings.Contains(rel, tmpPrefix) {
			t.Errorf("temporary file left: %s", rel)
		}
	}
	n := len(s.Lines())
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.New != int64(40-len(first)) || sum.Unchanged != int64(len(first)) {
		t.Errorf("resumed: new %d unchanged %d, want %d and %d", sum.New, sum.Unchanged, 40-len(first), len(first))
	}
	fetched := map[string]bool{}
	for _, l := range s.Lines()[n:] {
		if strings.HasPrefix(l, "RETR ") {
			fetched[strings.TrimPrefix(l, "RETR ")] = true
		}
	}
	for p := range first {
		if fetched[filepath.Base(p)] {
			t.Errorf("resumed run fetched %s again", p)
		}
	}
	if got := len(tree(t, dir)); got != 40 {
		t.Errorf("%d files, want 40", got)
	}
}

func TestFTPSymlinkCycleAndSelfListing(t *testing.T) {
	// Every directory lists a sub-directory "loop" and a file: a server
	// whose tree contains itself (a symlink shown as a directory). The
	// walk must end, having listed the root and one "loop" level.
	s := ftptest.New(t)
	configure(s, func(srv *ftptest.Server) { srv.NoMLSD = true })
	configure(s, func(srv *ftptest.Server) { srv.Features = []string{"EPSV", "MDTM", "SIZE"} })
	s.AddFile("f.txt", []byte("f\n"), t1)
	s.AddDir("loop")
	configure(s, func(srv *ftptest.Server) {
		srv.Hook = ftptest.ListingLines(
			ftptest.ListLine("loop", true, 4096, t1, ""),
			ftptest.ListLine("f.txt", false, 2, t1, ""),
		)
	})
	dir := t.TempDir()
	sum, err := Run(context.Background(), Options{URL: "ftp://" + s.Addr + "/", Dir: dir, MaxDepth: -1})
	if err != nil {
		t.Fatalf("err %v, summary %+v", err, sum)
	}
	if sum.Dirs != 2 || sum.Skipped != 1 || sum.New != 1 {
		t.Errorf("summary %+v: want 2 directories read, 1 skipped (the cycle), 1 file", sum)
	}
	lists := 0
	for _, l := range s.Lines() {
		if strings.HasPrefix(l, "LIST") {
			lists++
		}
	}
	if lists != 2 {
		t.Errorf("%d LIST commands, want 2", lists)
	}
}

func TestFTPUniqueCycle(t *testing.T) {
	// MLSD "unique" facts: "/" holds "self" (itself) and "a"; "a" holds
	// "up", which is "/" again. Neither is listed twice.
	s := ftptest.New(t)
	s.AddDir("a")
	root := ftptest.ListingLines(
		"type=cdir;unique=801g1; .",
		"type=dir;unique=801g1;modify=20240304050607; self",
		"type=dir;unique=801g2;modify=20240304050607; a",
	)
	a := ftptest.ListingLines(
		"type=cdir;unique=801g2; .",
		"type=dir;unique=801g1;modify=20240304050607; up",
	)
	configure(s, func(srv *ftptest.Server) {
		srv.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			if ss.CWD() == "/a" {
				return a(ss, verb, arg)
			}
			return root(ss, verb, arg)
		}
	})
	dir := t.TempDir()
	sum, err := Run(context.Background(), Options{URL: "ftp://" + s.Addr + "/", Dir: dir, MaxDepth: -1})
	if err != nil {
		t.Fatalf("err %v", err)
	}
	if sum.Dirs != 2 || sum.Skipped != 2 {
		t.Errorf("summary %+v: want 2 directories read and 2 skipped", sum)
	}
	recs := records(t, dir)
	for _, u := range []string{"self/", "a/up/"} {
		if r := recs["ftp://"+s.Addr+"/"+u]; r.Status != StatusSkipped || !strings.Contains(r.Error, "cycle") {
			t.Errorf("%s: record %+v", u, r)
		}
	}
}

func TestFTPRefusedConnectionsBackOff(t *testing.T) {
	s := ftptest.New(t)
	ftpTree(s)
	var conns atomic.Int64
	configure(s, func(srv *ftptest.Server) {
		srv.Hook = func(ss *ftptest.Session, verb, _ string) bool {
			if verb == "(connect)" && conns.Add(1) > 2 {
				ss.Raw([]byte("421 Too many connections\r\n"))
				ss.Conn().Close()
				return true
			}
			return false
		}
	})
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: "ftp://" + s.Addr + "/pub/", Dir: dir, Parallel: 6, RetryWait: time.Millisecond})
	if sum.New != 5 || sum.Failed != 0 {
		t.Errorf("summary %+v", sum)
	}
}

func TestFTPRetriesThenFails(t *testing.T) {
	s := ftptest.New(t)
	s.AddFile("ok.txt", []byte("ok\n"), t1)
	s.AddFile("short.bin", []byte("0123456789"), t1)
	var tries atomic.Int64
	short := ftptest.ShortData("short.bin", []byte("0123456789"), 4, "426 Connection lost")
	configure(s, func(srv *ftptest.Server) {
		srv.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			if verb == "RETR" && arg == "short.bin" {
				tries.Add(1)
			}
			return short(ss, verb, arg)
		}
	})
	dir := t.TempDir()
	sum, err := Run(context.Background(), Options{URL: "ftp://" + s.Addr + "/", Dir: dir, Retries: 2, RetryWait: time.Millisecond})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v, want ErrIncomplete", err)
	}
	if sum.New != 1 || sum.Failed != 1 || tries.Load() != 3 {
		t.Errorf("new %d failed %d tries %d, want 1, 1, 3", sum.New, sum.Failed, tries.Load())
	}
	if _, err := os.Stat(filepath.Join(dir, "short.bin")); !os.IsNotExist(err) {
		t.Errorf("a partial file was left: %v", err)
	}
	if r := records(t, dir)["ftp://"+s.Addr+"/short.bin"]; r.Status != StatusFailed || r.Error == "" {
		t.Errorf("record = %+v", r)
	}
}

// configure changes a running server's settings under its lock.
func configure(s *ftptest.Server, f func(*ftptest.Server)) { s.Configure(f) }

// A mirror made when "%" was always escaped ("100%25.txt") has its copy
// renamed to the name the server has: not fetched again, no stale copy.
func TestFTPRenamedToServerName(t *testing.T) {
	s := ftptest.New(t)
	s.AddFile("pub/100%.txt", []byte("percent\n"), t1)
	dir := t.TempDir()
	opt := Options{URL: "ftp://" + s.Addr + "/pub/", Dir: dir}
	mirrorOK(t, opt)
	man := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(man, []byte(strings.ReplaceAll(string(b), `"path":"100%.txt"`, `"path":"100%25.txt"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "100%.txt"), filepath.Join(dir, "100%25.txt")); err != nil {
		t.Fatal(err)
	}
	n := len(s.Lines())
	sum := mirrorOK(t, opt)
	if sum.Unchanged != 1 || sum.New+sum.Changed != 0 || len(retrs(s, n)) != 0 {
		t.Errorf("after the rename: %+v, fetched %q", countsOf(sum), retrs(s, n))
	}
	sameTree(t, tree(t, dir), map[string]string{"100%.txt": "percent\n"})
	if r := records(t, dir)["ftp://"+s.Addr+"/pub/100%25.txt"]; r.Path != "100%.txt" {
		t.Errorf("record %+v", r)
	}
}

// --checksum with a server that gives SHA-256s (XSHA256): a file changed
// at the same size and time is fetched, the others are not.
func TestFTPChecksumXSHA256(t *testing.T) {
	s := ftptest.New(t)
	want := ftpTree(s)
	data := map[string]string{}
	for rel, d := range want {
		data[path.Base(rel)] = d
	}
	var mu sync.Mutex
	configure(s, func(srv *ftptest.Server) {
		srv.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			if verb != "XSHA256" {
				return false
			}
			mu.Lock()
			sum := sha256.Sum256([]byte(data[arg]))
			mu.Unlock()
			ss.Raw([]byte("250 " + hex.EncodeToString(sum[:]) + "\r\n"))
			return true
		}
	})
	dir := t.TempDir()
	opt := Options{URL: "ftp://" + s.Addr + "/pub/", Dir: dir, Checksum: true}
	mirrorOK(t, opt)
	s.AddFile("pub/a/one.txt", []byte("ONE\n"), t1) // same size, same time
	mu.Lock()
	data["one.txt"] = "ONE\n"
	mu.Unlock()
	n := len(s.Lines())
	sum := mirrorOK(t, opt)
	if sum.Changed != 1 || sum.Unchanged != 4 {
		t.Errorf("counts = %+v, want 1 changed, 4 unchanged", countsOf(sum))
	}
	if got := retrs(s, n); !reflect.DeepEqual(got, []string{"one.txt"}) {
		t.Errorf("fetched %q, want only one.txt", got)
	}
	if got := tree(t, dir)["a/one.txt"]; got != "ONE\n" {
		t.Errorf("a/one.txt = %q", got)
	}
}
