package download

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Files.lockDir: the files of one directory are created one at a time, those
// of another directory meanwhile; no lock is kept once nobody holds or
// waits for it; nil locks nothing.
func TestFilesLockDir(t *testing.T) {
	var d Files
	unlockA := d.lockDir("/out/a/f1.bin.part")
	got, done := make(chan struct{}), make(chan struct{})
	go func() {
		unlock := d.lockDir("/out/a/f2.bin")
		close(got)
		unlock()
		close(done)
	}()
	d.lockDir("/out/b/f3.bin.part")() // another directory: not held up
	select {
	case <-got:
		t.Fatal("a second file of /out/a went ahead while the first was being created")
	case <-time.After(50 * time.Millisecond):
	}
	unlockA()
	<-got
	<-done // the second file's unlock has returned
	d.mu.Lock()
	left := len(d.dirs)
	d.mu.Unlock()
	if left != 0 {
		t.Errorf("%d directory locks kept after every transfer let go", left)
	}
	var none *Files
	none.lockDir("/out/a/f1.bin")()
}

// saveETag: an ETag field with no value (curl's test 347) leaves an empty
// file, as a reply without one does; a value is written with a newline.
func TestSaveETagEmpty(t *testing.T) {
	for _, tc := range []struct{ value, want string }{{"  ", ""}, {"", ""}, {`"abc"`, "\"abc\"\n"}} {
		name := filepath.Join(t.TempDir(), "etag")
		d := &Downloader{ETagSave: name}
		if err := d.saveETag(&fetch.Meta{Header: fetch.Header{{Name: "ETag", Value: tc.value}}}); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(name); err != nil || string(b) != tc.want {
			t.Errorf("ETag %q: file %q, %v; want %q", tc.value, b, err, tc.want)
		}
	}
}
