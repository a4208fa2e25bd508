package mirror

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// An empty remote directory is made locally; gone from the server, it is
// kept without Delete and removed with it.
func TestFTPEmptyDirectories(t *testing.T) {
	s := ftptest.New(t)
	ftpTree(s)
	s.AddDir("pub/a/empty2")
	dir := t.TempDir()
	opt := Options{URL: "ftp://" + s.Addr + "/pub/", Dir: dir}
	mirrorOK(t, opt)
	for _, d := range []string{"empty", "a/empty2"} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Fatalf("%s not made: %v", d, err)
		}
	}
	s.Remove("pub/empty")
	s.Remove("pub/a/empty2")
	mirrorOK(t, opt)
	if _, err := os.Stat(filepath.Join(dir, "empty")); err != nil {
		t.Errorf("without Delete a gone directory was removed: %v", err)
	}
	opt.Delete = true
	mirrorOK(t, opt)
	for _, d := range []string{"empty", "a/empty2"} {
		if _, err := os.Stat(filepath.Join(dir, d)); !os.IsNotExist(err) {
			t.Errorf("with Delete, %s is still there: %v", d, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a", "one.txt")); err != nil {
		t.Errorf("a live file went: %v", err)
	}
}
