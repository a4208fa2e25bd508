package mirror

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// Integration tests against real servers (vsftpd, ProFTPD, pure-ftpd,
// gophernicus, pygopherd), started by internal/testserver: skipped when a
// server is missing, failed instead when CI is set.

// inodes maps every file below dir to its inode: a file that was not
// written again keeps its inode (a rewrite renames a new file over it).
func inodes(t *testing.T, dir string) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			if rel != ManifestName && !strings.HasPrefix(fi.Name(), partPrefix) {
				out[filepath.ToSlash(rel)] = fi.Sys().(*syscall.Stat_t).Ino
			}
		}
		return nil
	})
	return out
}

func sameInodes(t *testing.T, before, after map[string]uint64, except ...string) {
	t.Helper()
	skip := map[string]bool{}
	for _, e := range except {
		skip[e] = true
	}
	for p, ino := range before {
		if skip[p] {
			continue
		}
		if after[p] != ino {
			t.Errorf("%s was written again", p)
		}
	}
}

// oldTimes gives every file and directory below root (not the links) the
// time t1: a fixture written just now is racy (its MDTM, its ls minute
// still current when it is fetched), and every run fetches it again until
// its time is a minute past, which tests counting what a rerun fetches
// do not want.
func oldTimes(t *testing.T, root string) {
	t.Helper()
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && (fi.Mode().IsRegular() || fi.IsDir()) {
			os.Chtimes(p, t1, t1)
		}
		return nil
	})
}

func TestRealFTPServers(t *testing.T) {
	testserver.OnEachFTP(t, func(t *testing.T, s *testserver.FTPServer) {
		testRealFTP(t, s)
	})
}

func testRealFTP(t *testing.T, s *testserver.FTPServer) {
	pub := filepath.Join(s.Anon, "pub")
	// More files (for the interrupted run), a symbolic link loop, and
	// names that need encoding.
	for i := 0; i < 24; i++ {
		fetchtest.WriteFile(t, filepath.Join(pub, "many", fmt.Sprintf("m%02d.txt", i)), fmt.Sprintf("many %d\n", i), t1)
	}
	if err := os.Symlink(".", filepath.Join(pub, "loop")); err != nil {
		t.Fatal(err)
	}
	// Links out of the mirror: recorded, never made (issue 25).
	for name, target := range map[string]string{"out-abs": "/etc/passwd", "a/out-rel": "../../readme.txt", "a/up": "../hello.txt"} {
		if err := os.Symlink(target, filepath.Join(pub, name)); err != nil {
			t.Fatal(err)
		}
	}
	if s.Kind != testserver.PureFTPd {
		// pure-ftpd lists dot files but refuses them (553), and leaves
		// names with control bytes out of its listings.
		fetchtest.WriteFile(t, filepath.Join(pub, "odd", ".hidden"), "hidden\n", t1)
		fetchtest.WriteFile(t, filepath.Join(pub, "odd", "ctl\x01name"), "ctl\n", t1)
	}
	fetchtest.WriteFile(t, filepath.Join(pub, "odd", "per%cent"), "pct\n", t1)
	oldTimes(t, pub)

	want := map[string]string{}
	filepath.Walk(pub, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			rel, _ := filepath.Rel(pub, p)
			b, _ := os.ReadFile(p)
			want[encodeRel(filepath.ToSlash(rel))] = string(b)
		}
		return nil
	})
	url := s.URL + "/pub/"
	dir := t.TempDir()
	nfiles := int64(len(want))

	// 1. The first mirror is byte for byte, with the server's times.
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	// Links inside the mirror are made as lftp makes them, relative.
	links := map[string]string{"link-to-hello": "-> hello.txt", "loop": "-> .", "a/up": "-> ../hello.txt"}
	recorded := int64(2)
	if s.Kind == testserver.ProFTPD {
		// ProFTPD's MLSD gives no link targets, its LIST none for
		// "loop" (-> "."), and out-abs is not listed at all.
		delete(links, "loop")
	}
	if sum.New != nfiles || sum.Failed != 0 || sum.Recorded != recorded || sum.Links != int64(len(links)) {
		t.Errorf("first run: %+v, want %d new, 3 links and 2 recorded (links out of the mirror)", countsOf(sum), nfiles)
	}
	wantTree := map[string]string{}
	for k, v := range want {
		wantTree[k] = v
	}
	for k, v := range links {
		wantTree[k] = v
	}
	sameTree(t, tree(t, dir), wantTree)
	for _, rel := range []string{"binary.bin", "a/b/c/deep.txt", "many/m03.txt"} {
		src, _ := os.Stat(filepath.Join(pub, rel))
		got, err := os.Stat(filepath.Join(dir, rel))
		if err != nil || !got.ModTime().Equal(src.ModTime().Truncate(time.Second)) {
			t.Errorf("%s: mtime %v, want %v", rel, got.ModTime(), src.ModTime())
		}
	}
	// Issue 25: names as the server has them.
	if got := tree(t, dir)["100%.txt"]; got != string(testserver.FTPFixtureFiles["pub/100%.txt"]) {
		t.Errorf("100%%.txt not saved under its own name (%q)", keys(tree(t, dir)))
	}
	recs := records(t, dir)
	if r := recs[url+"loop"]; r.Type != TypeSymlink || r.Status != StatusOK && s.Kind != testserver.ProFTPD {
		t.Errorf("loop: %+v", r)
	}
	for _, name := range []string{"out-abs", "a/out-rel"} {
		if _, ok := recs[url+name]; !ok && s.Kind == testserver.ProFTPD && name == "out-abs" {
			continue // ProFTPD leaves a link out of its chroot out of its listings
		}
		if r := recs[url+name]; r.Type != TypeSymlink || r.Status != StatusRecorded || r.Error == "" {
			t.Errorf("%s: %+v", name, r)
		}
	}
	if r := recs[url+"odd/.hidden"]; s.Kind != testserver.PureFTPd && (r.Path != "odd/%2Ehidden" || r.Name != ".hidden") {
		t.Errorf(".hidden: %+v", r)
	}

	// 2. A second run transfers nothing.
	before := inodes(t, dir)
	sum = mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.New != 0 || sum.Changed != 0 || sum.Unchanged != nfiles {
		t.Errorf("second run: %+v, want %d unchanged", countsOf(sum), nfiles)
	}
	sameInodes(t, before, inodes(t, dir))
	if s.Kind == testserver.Vsftpd {
		n := 0
		cmds, _ := s.Commands()
		for _, c := range cmds {
			if strings.HasPrefix(c.Line, "RETR") {
				n++
			}
		}
		if n != int(nfiles) {
			t.Errorf("vsftpd saw %d RETR over two runs, want %d", n, nfiles)
		}
	}

	// 3. A changed file is fetched again; 4. a deleted one is removed with
	// --delete.
	fetchtest.WriteFile(t, filepath.Join(pub, "hello.txt"), "hello, changed\n", t3)
	if err := os.Remove(filepath.Join(pub, "semi;colon.txt")); err != nil {
		t.Fatal(err)
	}
	before = inodes(t, dir)
	sum = mirrorOK(t, Options{URL: url, Dir: dir, Delete: true})
	if sum.Changed != 1 || sum.Deleted != 1 || sum.New != 0 || sum.Unchanged != nfiles-2 {
		t.Errorf("third run: %+v, want 1 changed, 1 deleted, %d unchanged", countsOf(sum), nfiles-2)
	}
	got := tree(t, dir)
	if got["hello.txt"] != "hello, changed\n" {
		t.Errorf("hello.txt = %q", got["hello.txt"])
	}
	if _, ok := got["semi;colon.txt"]; ok {
		t.Errorf("semi;colon.txt not deleted")
	}
	if fi, err := os.Stat(filepath.Join(dir, "hello.txt")); err != nil || !fi.ModTime().Equal(t3) {
		t.Errorf("hello.txt mtime %v, want %v", fi.ModTime(), t3)
	}
	sameInodes(t, before, inodes(t, dir), "hello.txt", "semi;colon.txt")

	// 5. An interrupted run resumes without fetching again what it
	// finished.
	dir2 := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int64
	_, err := Run(ctx, Options{URL: url, Dir: dir2, Parallel: 2, Event: func(ev Event) {
		if ev.Kind == EventNew && done.Add(1) == 10 {
			cancel()
		}
	}})
	if fetch.KindOf(err) != fetch.ErrAborted {
		t.Fatalf("interrupted run: %v", err)
	}
	first := inodes(t, dir2)
	if len(first) < 10 || int64(len(first)) >= nfiles-1 {
		t.Fatalf("%d files after the interruption", len(first))
	}
	sum = mirrorOK(t, Options{URL: url, Dir: dir2})
	if sum.Unchanged != int64(len(first)) || sum.New != nfiles-1-int64(len(first)) {
		t.Errorf("resumed: %+v, want %d unchanged, %d new", countsOf(sum), len(first), nfiles-1-int64(len(first)))
	}
	sameInodes(t, first, inodes(t, dir2))
}

// TestRealSameMinuteChange is issue 25's first finding: a file rewritten
// at the same size within the minute of its last mirroring lists the same
// in LIST (vsftpd has no MLSD); it must be fetched again all the same.
func TestRealSameMinuteChange(t *testing.T) {
	testserver.OnEachFTP(t, func(t *testing.T, s *testserver.FTPServer) {
		p := filepath.Join(s.Anon, "pub", "same.txt")
		// A recent time (LIST shows hours and minutes), seconds apart
		// within one minute.
		t0 := time.Now().Add(-time.Hour).Truncate(time.Minute).Add(10 * time.Second)
		fetchtest.WriteFile(t, p, "v1-aaaa\n", t0)
		dir := t.TempDir()
		var whys []string
		var mu sync.Mutex
		opt := Options{URL: s.URL + "/pub/", Dir: dir, Event: func(ev Event) {
			if ev.Path == "same.txt" {
				mu.Lock()
				whys = append(whys, string(ev.Kind)+": "+ev.Why)
				mu.Unlock()
			}
		}}
		// Issue 25, finding 5: the progress has a total from the
		// listings' sizes, all of it fetched at the end.
		var last Progress
		opt.Progress = func(p Progress) { last = p }
		mirrorOK(t, opt)
		opt.Progress = nil
		if last.ToFetch <= 0 || last.Fetched != last.ToFetch {
			t.Errorf("last progress: %d of %d bytes", last.Fetched, last.ToFetch)
		}
		fetchtest.WriteFile(t, p, "v2-bbbb\n", t0.Add(20*time.Second))
		sum := mirrorOK(t, opt)
		if sum.Changed != 1 {
			t.Errorf("second run: %+v, want 1 changed", countsOf(sum))
		}
		if got := tree(t, dir)["same.txt"]; got != "v2-bbbb\n" {
			t.Errorf("same.txt = %q, want v2", got)
		}
		// A third run: nothing changed, nothing fetched.
		sum = mirrorOK(t, opt)
		if sum.Changed != 0 || sum.New != 0 {
			t.Errorf("third run: %+v, want nothing fetched", countsOf(sum))
		}
		// --checksum: a change that keeps size and time (to the
		// second) is caught all the same: none of the three servers
		// gives a SHA-256 (HASH, XSHA256), so the files are fetched
		// and compared; those with the same bytes are left alone.
		fetchtest.WriteFile(t, p, "v3-cccc\n", t0.Add(20*time.Second))
		before := inodes(t, dir)
		copt := opt
		copt.Event, copt.Checksum = nil, true
		sum = mirrorOK(t, copt)
		if sum.Changed != 1 || sum.Unchanged < 5 {
			t.Errorf("--checksum run: %+v, want 1 changed", countsOf(sum))
		}
		if got := tree(t, dir)["same.txt"]; got != "v3-cccc\n" {
			t.Errorf("same.txt = %q, want v3", got)
		}
		sameInodes(t, before, inodes(t, dir), "same.txt")

		// --verify: a copy changed on disk (same size, same time) is
		// fetched again; without it, nothing looks at the bytes.
		local := filepath.Join(dir, "hello.txt")
		fi, _ := os.Stat(local)
		orig, _ := os.ReadFile(local)
		bad := []byte(strings.ToUpper(string(orig)))
		if err := os.WriteFile(local, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(local, fi.ModTime(), fi.ModTime())
		vopt := opt
		vopt.Event = nil
		if sum := mirrorOK(t, vopt); sum.Changed != 0 {
			t.Errorf("no --verify: %+v", countsOf(sum))
		}
		vopt.Verify = true
		if sum := mirrorOK(t, vopt); sum.Changed != 1 {
			t.Errorf("--verify: %+v, want 1 changed", countsOf(sum))
		}
		if got, _ := os.ReadFile(local); string(got) != string(orig) {
			t.Errorf("hello.txt after --verify: %q", got)
		}
		if len(whys) != 3 || !strings.HasPrefix(whys[0], "new") || !strings.HasPrefix(whys[1], "changed: ") ||
			!strings.HasPrefix(whys[2], "unchanged: ") || strings.HasSuffix(whys[1], ": ") {
			t.Errorf("events with reasons: %q", whys)
		}
	})
}

// TestRealResumeREST: a mirror cut off in the middle of a 64 MiB file
// leaves its bytes in a partial file (not under the final name); the next
// run asks REST and fetches only the rest, byte for byte.
func TestRealResumeREST(t *testing.T) {
	s := testserver.StartFTP(t, testserver.Vsftpd)
	big := make([]byte, 64<<20)
	rand.NewChaCha8([32]byte{25}).Read(big)
	fetchtest.WriteFile(t, filepath.Join(s.Anon, "pub", "big.bin"), string(big), t1)
	oldTimes(t, filepath.Join(s.Anon, "pub"))
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Paced, so that the run is stopped well inside the file.
	_, err := Run(ctx, Options{URL: s.URL + "/pub/", Dir: dir, Parallel: 1,
		Client:           &fetch.Client{LimitRate: fetch.NewLimiter(32 << 20)},
		ProgressInterval: 5 * time.Millisecond,
		Progress: func(p Progress) {
			if p.Current != nil && p.Bytes >= 8<<20 {
				cancel()
			}
		}})
	if fetch.KindOf(err) != fetch.ErrAborted {
		t.Fatalf("interrupted run: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "big.bin")); err == nil {
		t.Fatal("big.bin is under its final name after the interruption")
	}
	parts, _ := filepath.Glob(filepath.Join(dir, partPrefix+"*"))
	if len(parts) != 1 {
		t.Fatalf("partial files: %q", parts)
	}
	fi, err := os.Stat(parts[0])
	if err != nil || fi.Size() == 0 || fi.Size() >= int64(len(big)) {
		t.Fatalf("partial file: %v %v", fi, err)
	}
	have := fi.Size()
	before, _ := s.Commands()
	sum := mirrorOK(t, Options{URL: s.URL + "/pub/", Dir: dir})
	if sum.New < 1 {
		t.Errorf("resumed run: %+v", countsOf(sum))
	}
	got, err := os.ReadFile(filepath.Join(dir, "big.bin"))
	if err != nil || sha256.Sum256(got) != sha256.Sum256(big) {
		t.Errorf("big.bin differs from the server's (%d bytes, %v)", len(got), err)
	}
	// Only the rest was fetched (plus the other small files and listings).
	if rest := int64(len(big)) - have; sum.Bytes > rest+1<<20 {
		t.Errorf("resumed run read %d bytes, want about %d", sum.Bytes, rest)
	}
	cmds, _ := s.Commands()
	rest := false
	for _, c := range cmds[len(before):] {
		if c.Line == fmt.Sprintf("REST %d", have) {
			rest = true
		}
	}
	if !rest {
		t.Errorf("vsftpd's log has no REST %d", have)
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, partPrefix+"*")); len(parts) != 0 {
		t.Errorf("partial files left: %q", parts)
	}
}

// testGopherChange: a document rewritten at the same size and time keeps
// its menu line. pygopherd's Gopher+ "$" dates (to the second) catch a
// change of time; gophernicus gives none, so only --checksum, which
// fetches again and compares, catches a change there; documents with the
// same bytes are left alone.
func TestRealGopherChange(t *testing.T) {
	for _, kind := range []string{"gophernicus", "pygopherd"} {
		t.Run(kind, func(t *testing.T) {
			root := t.TempDir()
			for i := 0; i < 10; i++ {
				fetchtest.WriteFile(t, filepath.Join(root, "many", fmt.Sprintf("m%02d.txt", i)), fmt.Sprintf("many %d\n", i), t1)
			}
			openUp(t, root)
			var s *testserver.GopherServer
			url := ""
			if kind == "gophernicus" {
				s = testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
				url = s.URL("1/")
			} else {
				s = testserver.StartPygopherd(t, testserver.GopherConfig{Root: root})
				url = s.URL("")
			}
			testGopherChange(t, s, root, url)
		})
	}
}

func testGopherChange(t *testing.T, s *testserver.GopherServer, root, url string) {
	dir := t.TempDir()
	p := filepath.Join(root, "many", "m07.txt")
	fetchtest.WriteFile(t, p, "many 7\n", t1)
	mirrorOK(t, Options{URL: url, Dir: dir})
	if s.Kind == "pygopherd" {
		fetchtest.WriteFile(t, p, "MANY 7\n", t1.Add(time.Second))
		if sum := mirrorOK(t, Options{URL: url, Dir: dir}); sum.Changed != 1 {
			t.Errorf("pygopherd, a new Mod-Date: %+v, want 1 changed", countsOf(sum))
		}
	}
	fetchtest.WriteFile(t, p, "many 7\n", t1) // back: same size, same time
	before := inodes(t, dir)
	var whys []string
	var mu sync.Mutex
	sum := mirrorOK(t, Options{URL: url, Dir: dir, Checksum: true, Event: func(ev Event) {
		if ev.Path == "many/m07.txt" {
			mu.Lock()
			whys = append(whys, string(ev.Kind)+": "+ev.Why)
			mu.Unlock()
		}
	}})
	want := int64(0)
	if s.Kind == "pygopherd" {
		want = 1 // the Mod-Date went back
	}
	if sum.Changed != want && s.Kind == "pygopherd" || s.Kind == "gophernicus" && sum.Changed != 0 {
		t.Errorf("%s --checksum, nothing changed since: %+v", s.Kind, countsOf(sum))
	}
	if s.Kind == "gophernicus" {
		sameInodes(t, before, inodes(t, dir))
		fetchtest.WriteFile(t, p, "MANY 7\n", t1)
		if sum := mirrorOK(t, Options{URL: url, Dir: dir}); sum.Changed != 0 {
			t.Errorf("gophernicus, no --checksum: %+v (nothing can tell)", countsOf(sum))
		}
		if sum := mirrorOK(t, Options{URL: url, Dir: dir, Checksum: true}); sum.Changed != 1 {
			t.Errorf("gophernicus --checksum: %+v, want 1 changed", countsOf(sum))
		}
		if got := tree(t, dir)["many/m07.txt"]; !strings.HasPrefix(got, "MANY 7") {
			t.Errorf("many/m07.txt = %q", got)
		}
		if len(whys) != 1 || !strings.Contains(whys[0], "same bytes") {
			t.Errorf("events: %q", whys)
		}
	}
}

// encodeRel encodes each component of a server path as the mirror does.
func encodeRel(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = EncodeName(p)
	}
	return strings.Join(parts, "/")
}

// rawGopher reads what a gopher server sends for a selector, byte for
// byte.
func rawGopher(t *testing.T, addr, sel string) []byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, sel+"\r\n")
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRealGopherServers(t *testing.T) {
	for _, kind := range []string{"gophernicus", "pygopherd"} {
		t.Run(kind, func(t *testing.T) {
			root := t.TempDir()
			if err := testserver.GopherFixtures(root); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 20; i++ {
				fetchtest.WriteFile(t, filepath.Join(root, "many", fmt.Sprintf("m%02d.txt", i)), fmt.Sprintf("many %d\n", i), t1)
			}
			// A menu that links to itself and to the root.
			fetchtest.WriteFile(t, filepath.Join(root, "loop", "gophermap"), "iA loop\n1Myself\t/loop\n1Root\t/\n0Hello\t/hello.txt\n", t1)
			fetchtest.WriteFile(t, filepath.Join(root, "robots.txt"), "User-agent: *\nDisallow: /cgi-bin\n", t1)
			openUp(t, root)
			var s *testserver.GopherServer
			if kind == "gophernicus" {
				s = testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
			} else {
				s = testserver.StartPygopherd(t, testserver.GopherConfig{Root: root})
			}
			testRealGopher(t, s, root)
		})
	}
}

// openUp makes root and its parents reachable by a server running as
// nobody.
func openUp(t *testing.T, root string) {
	t.Helper()
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			if fi.IsDir() {
				os.Chmod(p, 0o755)
			} else if fi.Mode().Perm()&0o111 == 0 {
				os.Chmod(p, 0o644)
			}
		}
		return nil
	})
	for d := filepath.Dir(root); d != "/"; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(d, fi.Mode().Perm()|0o005)
		}
	}
}

func testRealGopher(t *testing.T, s *testserver.GopherServer, root string) {
	url := s.URL("1/")
	if s.Kind == "pygopherd" {
		url = s.URL("")
	}
	dir := t.TempDir()

	// 1. The first mirror: every saved item is what the server sends.
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.New < 25 || sum.Failed != 0 {
		t.Fatalf("first run: %+v", countsOf(sum))
	}
	recs := records(t, dir)
	nfiles := int64(0)
	for u, r := range recs {
		if r.Status != StatusOK || r.Type == TypeDir {
			continue
		}
		if r.Type == TypeFile {
			nfiles++
		}
		sel := r.Name
		if sel == "" {
			if r.Type == TypeMenu {
				sel = "/" + strings.TrimSuffix(filepath.ToSlash(filepath.Dir(r.Path)), ".")
			} else {
				sel = "/" + r.Path
			}
		}
		got, err := os.ReadFile(filepath.Join(dir, r.Path))
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		raw := rawGopher(t, s.Addr, sel)
		if r.Type == TypeFile && r.ItemType == "0" {
			raw = textBody(raw)
		}
		if string(got) != string(raw) && !(r.Type == TypeMenu && sel == "/" && len(got) > 0) {
			t.Errorf("%s (%q): saved %d bytes, the server sends %d", u, sel, len(got), len(raw))
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "binary.bin")); string(b) != string(testserver.GopherBinary()) {
		t.Errorf("binary.bin: %d bytes, want the fixture", len(b))
	}
	for u, r := range recs {
		if strings.Contains(u, "cgi-bin") && r.Status == StatusOK {
			t.Errorf("robots.txt disallows %s, fetched", u)
		}
	}
	// The loop menu was read once.
	loops := 0
	for u, r := range recs {
		if r.Type == TypeMenu && strings.Contains(u, "loop") {
			loops++
		}
	}
	if loops != 1 {
		t.Errorf("%d loop menus, want 1", loops)
	}

	// 2. A second run fetches no document again.
	before := inodes(t, dir)
	sum = mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.New != 0 || sum.Changed != 0 || sum.Unchanged != nfiles {
		t.Errorf("second run: %+v, want %d unchanged", countsOf(sum), nfiles)
	}
	sameInodes(t, before, inodes(t, dir))

	// 3. A changed document (new content, new time) is fetched again; 4.
	// a deleted one is removed with --delete.
	fetchtest.WriteFile(t, filepath.Join(root, "docs", "one.txt"), "one, changed\n", t3)
	os.Chmod(filepath.Join(root, "docs", "one.txt"), 0o644)
	if err := os.Remove(filepath.Join(root, "docs", "two.txt")); err != nil {
		t.Fatal(err)
	}
	before = inodes(t, dir)
	sum = mirrorOK(t, Options{URL: url, Dir: dir, Delete: true})
	if sum.Changed != 1 || sum.Deleted != 1 || sum.New != 0 {
		t.Errorf("third run: %+v, want 1 changed, 1 deleted", countsOf(sum))
	}
	got := tree(t, dir)
	if v, ok := got["docs/one.txt"]; !ok || !strings.HasPrefix(strings.ReplaceAll(v, "\r", ""), "one, changed\n") {
		t.Errorf("docs/one.txt = %q", v)
	}
	if _, ok := got["docs/two.txt"]; ok {
		t.Errorf("docs/two.txt not deleted")
	}
	sameInodes(t, before, inodes(t, dir), "docs/one.txt", "docs/two.txt", "docs/.gopher-menu", ".gopher-menu")

	// 5. An interrupted run resumes.
	dir2 := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int64
	_, err := Run(ctx, Options{URL: url, Dir: dir2, Parallel: 2, Event: func(ev Event) {
		if ev.Kind == EventNew && done.Add(1) == 8 {
			cancel()
		}
	}})
	if fetch.KindOf(err) != fetch.ErrAborted {
		t.Fatalf("interrupted run: %v", err)
	}
	first := map[string]uint64{}
	for p, ino := range inodes(t, dir2) {
		if !strings.HasSuffix(p, menuFile) {
			first[p] = ino
		}
	}
	if len(first) < 8 {
		t.Fatalf("%d files after the interruption", len(first))
	}
	sum = mirrorOK(t, Options{URL: url, Dir: dir2})
	if sum.Unchanged != int64(len(first)) {
		t.Errorf("resumed: %+v, want %d unchanged", countsOf(sum), len(first))
	}
	sameInodes(t, first, inodes(t, dir2))

	// 6. The rewritten menus point at the local copies: served from the
	// mirror, every mirrored item of the root menu is there.
	mirrorOK(t, Options{URL: url, Dir: dir, RewriteMenus: true})
	gm, err := os.ReadFile(filepath.Join(dir, "gophermap"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(gm), "\t/docs/\n") || !strings.Contains(string(gm), "\t/hello.txt\n") {
		t.Errorf("gophermap:\n%s", gm)
	}
}

// textBody is a text item as the gopher client gives it: without a last
// lone "." line (the RFC 1436 terminator gophernicus does not send, but a
// text may end with).
func textBody(b []byte) []byte {
	s := string(b)
	for _, end := range []string{".\r\n", ".\n", "."} {
		if strings.HasSuffix(s, "\n"+end) {
			return []byte(s[:len(s)-len(end)])
		}
	}
	return b
}
