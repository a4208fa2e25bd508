package mirror

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// TestRealReverse uploads a tree (Options.Reverse, lftp's mirror -R) to
// vsftpd, pure-ftpd and ProFTPD, beside lftp's mirror -R to the same server: the
// same remote tree; a rerun uploads nothing (every server file keeps its
// inode); a changed file is uploaded again, by size and by time alone;
// --delete removes what is gone locally (only then); a dry run changes
// nothing; and the server's times are the local ones where it lets them be
// set.
func TestRealReverse(t *testing.T) {
	testserver.OnEachFTP(t, func(t *testing.T, s *testserver.FTPServer) {
		testRealReverse(t, s)
	})
}

func testRealReverse(t *testing.T, s *testserver.FTPServer) {
	src := t.TempDir()
	files := map[string]string{
		"a.txt":                 "alpha\n",
		"big.bin":               strings.Repeat("0123456789abcdef", 70_000),
		"sub/b.txt":             "beta\n",
		"sub/deeper/c.txt":      "gamma\n",
		"sub/name with spaces":  "spaces\n",
		"per%cent.txt":          "percent\n",
		"sub/deeper/empty.file": "",
	}
	for rel, data := range files {
		fetchtest.WriteFile(t, filepath.Join(src, rel), data, t1)
	}
	if err := os.MkdirAll(filepath.Join(src, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	upload := filepath.Join(s.Home, "upload")
	owner := ftpUID(t)
	base := "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr + "/upload/"
	remote := filepath.Join(upload, "urlget")
	opt := Options{URL: base + "urlget/", Dir: src, Reverse: true, Parallel: 3}

	// 1. The first run uploads everything, and makes the directories.
	sum := mirrorOK(t, opt)
	if sum.New != int64(len(files)) || sum.Changed+sum.Unchanged+sum.Failed != 0 {
		t.Errorf("first run: %+v", countsOf(sum))
	}
	if got := tree(t, remote); !reflect.DeepEqual(got, files) {
		t.Errorf("server tree %v\nwant %v", keys(got), keys(files))
	}
	if got, want := dirsOf(t, remote), dirsOf(t, src); !reflect.DeepEqual(got, want) {
		t.Errorf("server directories %v, want %v", got, want)
	}
	// The local times, where the server lets them be set: vsftpd (MDTM
	// with a time), pure-ftpd and ProFTPD (MFMT) all do.
	for rel := range files {
		if fi, err := os.Stat(filepath.Join(remote, rel)); err != nil || !fi.ModTime().Equal(t1) {
			t.Errorf("%s: server time %v, want %v", rel, fi.ModTime(), t1)
		}
	}

	// 2. Beside lftp: the same tree.
	if lftp, err := testserver.LookPath("lftp"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("lftp: %v", err)
		}
		t.Logf("lftp not installed: not compared")
	} else {
		cmd := exec.Command(lftp, "-c", fmt.Sprintf("set ftp:passive-mode on; set net:max-retries 1; open -u %s,%s ftp://%s; mirror -R --no-perms %s upload/lftp",
			testserver.FTPUser, testserver.FTPPassword, s.Addr, src))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("lftp: %v\n%s", err, out)
		}
		lremote := filepath.Join(upload, "lftp")
		if got, want := tree(t, remote), tree(t, lremote); !reflect.DeepEqual(got, want) {
			t.Errorf("urlget's tree %v\nlftp's %v", keys(got), keys(want))
		}
		if got, want := dirsOf(t, remote), dirsOf(t, lremote); !reflect.DeepEqual(got, want) {
			t.Errorf("urlget's directories %v, lftp's %v", got, want)
		}
	}

	// 3. A rerun uploads nothing: every server file keeps its inode.
	before := inodes(t, remote)
	sum = mirrorOK(t, opt)
	if sum.Unchanged != int64(len(files)) || sum.New+sum.Changed != 0 {
		t.Errorf("rerun: %+v", countsOf(sum))
	}
	sameInodes(t, before, inodes(t, remote))

	// 4. A file changed by size, one by time alone (same size): each is
	// uploaded again, nothing else; a dry run first changes nothing.
	fetchtest.WriteFile(t, filepath.Join(src, "a.txt"), "alpha, longer\n", t1)
	fetchtest.WriteFile(t, filepath.Join(src, "sub/b.txt"), "BETA\n", t1.Add(time.Hour))
	dry := opt
	dry.DryRun = true
	var would []string
	var mu sync.Mutex // events come from several goroutines
	dry.Event = func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Kind == EventWouldGet {
			would = append(would, ev.Path)
		}
	}
	sum = mirrorOK(t, dry)
	if sum.Changed != 2 || len(would) != 2 {
		t.Errorf("dry run: %+v, would upload %v", countsOf(sum), would)
	}
	sameInodes(t, before, inodes(t, remote))
	sum = mirrorOK(t, opt)
	if sum.Changed != 2 || sum.Unchanged != int64(len(files)-2) {
		t.Errorf("after changes: %+v", countsOf(sum))
	}
	sameInodes(t, before, inodes(t, remote), "a.txt", "sub/b.txt")
	for rel, want := range map[string]string{"a.txt": "alpha, longer\n", "sub/b.txt": "BETA\n"} {
		if b, _ := os.ReadFile(filepath.Join(remote, rel)); string(b) != want {
			t.Errorf("%s on the server: %q, want %q", rel, b, want)
		}
	}

	// 5. Gone locally: kept without --delete, deleted with it (a
	// directory with its contents); an excluded name is never deleted.
	os.Remove(filepath.Join(src, "per%cent.txt"))
	os.RemoveAll(filepath.Join(src, "sub/deeper"))
	fetchtest.WriteFile(t, filepath.Join(remote, "keep.log"), "not ours\n", t1)
	os.Chown(filepath.Join(remote, "keep.log"), owner, -1)
	sum = mirrorOK(t, opt)
	if sum.Gone != 3 || sum.Deleted != 0 {
		t.Errorf("without --delete: %+v", countsOf(sum))
	}
	del := opt
	del.Delete, del.Exclude = true, []string{"*.log"}
	sum = mirrorOK(t, del)
	if sum.Deleted != 2 {
		t.Errorf("--delete: %+v", countsOf(sum))
	}
	for _, rel := range []string{"per%cent.txt", "sub/deeper"} {
		if _, err := os.Lstat(filepath.Join(remote, rel)); !os.IsNotExist(err) {
			t.Errorf("%s still on the server (%v)", rel, err)
		}
	}
	if _, err := os.Stat(filepath.Join(remote, "keep.log")); err != nil {
		t.Errorf("an excluded file was deleted: %v", err)
	}
	// Nothing of the run is left on the server, nor written into Dir.
	filepath.WalkDir(s.Home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".urlget") {
			t.Errorf("left on the server: %s", p)
		}
		return nil
	})
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".urlget") {
			t.Errorf("written into the source: %s", p)
		}
		return nil
	})
}

// TestRealReverseResume: an upload cut short (a file of the run's
// temporary name holding the first bytes) is continued with APPE by the
// next run, never left or renamed short; one made from another version of
// the file is deleted and the file uploaded whole.
func TestRealReverseResume(t *testing.T) {
	s := testserver.StartFTP(t, testserver.Vsftpd)
	src := t.TempDir()
	data := strings.Repeat("resumable upload ", 40_000)
	fetchtest.WriteFile(t, filepath.Join(src, "f.bin"), data, t1)
	remote := filepath.Join(s.Home, "upload", "r")
	os.MkdirAll(remote, 0o755)
	owner := ftpUID(t)
	os.Chown(remote, owner, -1)
	j := &upJob{rel: "f.bin", size: int64(len(data)), mtime: t1}
	part := filepath.Join(remote, upTempName(j))
	stale := filepath.Join(remote, upTempName(&upJob{rel: "f.bin", size: 5, mtime: t1}))
	for p, b := range map[string]string{part: data[:100_000], stale: "stale"} {
		fetchtest.WriteFile(t, p, b, t1)
		os.Chown(p, owner, -1)
	}
	logBefore, _ := s.Commands()
	opt := Options{URL: "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr + "/upload/r/", Dir: src, Reverse: true}
	var why string
	var mu sync.Mutex
	opt.Event = func(ev Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.Kind == EventNew {
			why = ev.Why
		}
	}
	sum := mirrorOK(t, opt)
	if sum.New != 1 || !strings.Contains(why, "APPE") {
		t.Errorf("%+v, why %q", countsOf(sum), why)
	}
	if b, _ := os.ReadFile(filepath.Join(remote, "f.bin")); string(b) != data {
		t.Errorf("the server holds %d bytes, want %d", len(b), len(data))
	}
	for _, p := range []string{part, stale} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left (%v)", p, err)
		}
	}
	after, _ := s.Commands()
	var appe int
	for _, c := range after[len(logBefore):] {
		if strings.HasPrefix(c.Line, "APPE "+upPrefix) {
			appe++
		}
		if strings.HasPrefix(c.Line, "STOR ") {
			t.Errorf("sent %q: the part was not continued", c.Line)
		}
	}
	if appe != 1 {
		t.Errorf("%d APPE sent, want 1", appe)
	}
}

// TestReverseRefused: what the reverse mirror refuses before connecting.
func TestReverseRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		opt  Options
		kind fetch.Kind
	}{
		{Options{URL: "http://127.0.0.1:1/x/", Dir: dir, Reverse: true}, fetch.ErrUnsupported},
		{Options{URL: "ftp://127.0.0.1:1/x%0d%0aDELE%20y/", Dir: dir, Reverse: true}, fetch.ErrMalformed},
		{Options{URL: "ftp://127.0.0.1:1/x/", Dir: dir, Reverse: true, WARC: filepath.Join(dir, "w.warc")}, fetch.ErrUnsupported},
		{Options{URL: "ftp://127.0.0.1:1/x/", Dir: dir, Reverse: true, Checksum: true}, fetch.ErrUnsupported},
	} {
		_, err := Run(context.Background(), tc.opt)
		if fetch.KindOf(err) != tc.kind {
			t.Errorf("%s: %v, want kind %v", tc.opt.URL, err, tc.kind)
		}
	}
	if _, err := Run(context.Background(), Options{URL: "ftp://127.0.0.1:1/x/", Dir: filepath.Join(dir, "missing"), Reverse: true}); err == nil || fetch.KindOf(err) == fetch.ErrConnect {
		t.Errorf("a missing source: %v, want a local error before connecting", err)
	}
}

// dirsOf lists the directories below dir.
func dirsOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

// ftpUID is the FTP user's uid, so that files the test puts on the
// server belong to it.
func ftpUID(t *testing.T) int {
	t.Helper()
	u, err := user.Lookup(testserver.FTPUser)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	return uid
}
