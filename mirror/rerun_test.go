package mirror

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// sameManifest checks that the manifest in dir is the file it was, with
// the bytes it had.
func sameManifest(t *testing.T, dir string, before os.FileInfo, data []byte) {
	t.Helper()
	mpath := filepath.Join(dir, ManifestName)
	after, err := os.Stat(mpath)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the manifest was rewritten by a run that changed nothing")
	}
	if now, _ := os.ReadFile(mpath); !bytes.Equal(now, data) {
		t.Errorf("the manifest changed:\n%s\nwas\n%s", now, data)
	}
}

// TestRealRerunLeavesManifest: as the ftp walk (TestFTPRerunLeavesManifest),
// the http walk on nginx and the gopher walk on gophernicus leave the
// manifest alone when a rerun finds nothing changed: a directory, a menu
// or a skipped item recorded as it is is not written again for the time
// it was read (before, every directory index and menu was put again, and
// the whole manifest rewritten at the end of every run).
func TestRealRerunLeavesManifest(t *testing.T) {
	run := func(t *testing.T, opt Options) {
		mirrorOK(t, opt)
		mpath := filepath.Join(opt.Dir, ManifestName)
		before, err := os.Stat(mpath)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(mpath)
		sum := mirrorOK(t, opt)
		if sum.New+sum.Changed != 0 || sum.Unchanged == 0 {
			t.Errorf("second run: %+v, want all unchanged", countsOf(sum))
		}
		sameManifest(t, opt.Dir, before, data)
	}
	t.Run("http", func(t *testing.T) {
		_, ng, _ := httpTree(t, "")
		run(t, Options{URL: ng.URL + "/", Dir: t.TempDir()})
	})
	t.Run("gopher", func(t *testing.T) {
		root := t.TempDir()
		if err := testserver.GopherFixtures(root); err != nil {
			t.Fatal(err)
		}
		// robots.txt keeps cgi-bin out: a skipped item, recorded each run.
		if err := os.WriteFile(filepath.Join(root, "robots.txt"), []byte("User-agent: *\nDisallow: /cgi-bin\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// Old times: a copy fetched within its menu date's precision is
		// racy, fetched again (and its record with it).
		filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				os.Chtimes(p, t1, t1)
			}
			return nil
		})
		openUp(t, root)
		s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
		run(t, Options{URL: s.URL("1/"), Dir: t.TempDir()})
	})
}
