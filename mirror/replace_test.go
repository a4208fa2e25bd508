package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// Issue 25: an item whose kind changed on the server — a link or a file
// that is now a directory of the same name, a directory that is now a
// file or a link — replaces the local copy at once, without --delete, and
// never through a link; a directory with something in it that the mirror
// did not make is left alone and the item fails.
func TestRealKindChanges(t *testing.T) {
	testserver.OnEachFTP(t, func(t *testing.T, s *testserver.FTPServer) {
		pub := filepath.Join(s.Anon, "pub", "kinds")
		fetchtest.WriteFile(t, filepath.Join(pub, "target.txt"), "the target\n", t1)
		// "ln" is a link to a file, "ln2" a link to a directory,
		// "f" a file, "d" and "mine" directories with files.
		fetchtest.WriteFile(t, filepath.Join(pub, "sub", "s.txt"), "in sub\n", t1)
		must(t, os.Symlink("target.txt", filepath.Join(pub, "ln")))
		must(t, os.Symlink("sub", filepath.Join(pub, "ln2")))
		fetchtest.WriteFile(t, filepath.Join(pub, "f"), "a file\n", t1)
		fetchtest.WriteFile(t, filepath.Join(pub, "d", "in-d.txt"), "in d\n", t1)
		fetchtest.WriteFile(t, filepath.Join(pub, "d", "deeper", "x.txt"), "deeper\n", t1)
		fetchtest.WriteFile(t, filepath.Join(pub, "e", "in-e.txt"), "in e\n", t1)
		fetchtest.WriteFile(t, filepath.Join(pub, "mine", "m.txt"), "m\n", t1)
		url := s.URL + "/pub/kinds/"
		dir := t.TempDir()
		mirrorOK(t, Options{URL: url, Dir: dir})
		if fi, err := os.Lstat(filepath.Join(dir, "ln2")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			if s.Kind != testserver.ProFTPD { // ProFTPD lists no target for it
				t.Fatalf("ln2 not made as a link: %v", err)
			}
		}
		// Something of the user's in a mirrored directory.
		fetchtest.WriteFile(t, filepath.Join(dir, "mine", "users-own.txt"), "keep me\n", t1)

		// The server changes the kinds.
		must(t, os.Remove(filepath.Join(pub, "ln")))
		must(t, os.Remove(filepath.Join(pub, "ln2")))
		must(t, os.Remove(filepath.Join(pub, "f")))
		fetchtest.WriteFile(t, filepath.Join(pub, "ln", "now-a-dir.txt"), "ln is a directory\n", t1)
		fetchtest.WriteFile(t, filepath.Join(pub, "ln2", "too.txt"), "ln2 too\n", t1)
		fetchtest.WriteFile(t, filepath.Join(pub, "f", "in-f.txt"), "f is a directory\n", t1)
		must(t, os.RemoveAll(filepath.Join(pub, "d")))
		fetchtest.WriteFile(t, filepath.Join(pub, "d"), "d is a file\n", t1)
		must(t, os.RemoveAll(filepath.Join(pub, "e")))
		must(t, os.Symlink("target.txt", filepath.Join(pub, "e")))
		must(t, os.RemoveAll(filepath.Join(pub, "mine")))
		fetchtest.WriteFile(t, filepath.Join(pub, "mine"), "mine is a file\n", t1)

		sum, err := Run(context.Background(), Options{URL: url, Dir: dir})
		var ie *IncompleteError
		if !errors.As(err, &ie) || sum.Failed != 1 || len(sum.Failures) != 1 || sum.Failures[0].Path != "mine" {
			t.Errorf("second run: %v, %+v %+v; want one failure, for mine", err, countsOf(sum), sum.Failures)
		}
		want := map[string]string{
			"target.txt":         "the target\n",
			"sub/s.txt":          "in sub\n",
			"ln/now-a-dir.txt":   "ln is a directory\n",
			"ln2/too.txt":        "ln2 too\n",
			"f/in-f.txt":         "f is a directory\n",
			"d":                  "d is a file\n",
			"e":                  "-> target.txt",
			"mine/m.txt":         "m\n",
			"mine/users-own.txt": "keep me\n",
		}
		sameTree(t, tree(t, dir), want)
		// Nothing of the old kinds is left in the manifest, and a
		// third run with --delete has nothing to complain about.
		recs := records(t, dir)
		for _, gone := range []string{url + "d/", url + "d/in-d.txt", url + "d/deeper/x.txt", url + "f", url + "ln"} {
			if r, ok := recs[gone]; ok {
				t.Errorf("%s still recorded: %+v", gone, r)
			}
		}
		must(t, os.Remove(filepath.Join(dir, "mine", "users-own.txt")))
		sum = mirrorOK(t, Options{URL: url, Dir: dir, Delete: true})
		if sum.Failed != 0 || sum.New != 1 {
			t.Errorf("third run: %+v, want mine fetched (1 new)", countsOf(sum))
		}
		if got := tree(t, dir)["mine"]; got != "mine is a file\n" {
			t.Errorf("mine = %q after the third run", got)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
