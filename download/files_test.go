package download

import (
	"testing"
	"time"
)

// Files.lockDir: the files of one directory are created one at a time, those
// of another directory meanwhile; no lock is kept once nobody holds or
// waits for it; nil locks nothing.
func TestFilesLockDir(t *testing.T) {
	var d Files
	unlockA := d.lockDir("/out/a/f1.bin.part")
	got := make(chan struct{})
	go func() {
		unlock := d.lockDir("/out/a/f2.bin")
		close(got)
		unlock()
	}()
	d.lockDir("/out/b/f3.bin.part")() // another directory: not held up
	select {
	case <-got:
		t.Fatal("a second file of /out/a went ahead while the first was being created")
	case <-time.After(50 * time.Millisecond):
	}
	unlockA()
	<-got
	d.mu.Lock()
	left := len(d.dirs)
	d.mu.Unlock()
	if left != 0 {
		t.Errorf("%d directory locks kept after every transfer let go", left)
	}
	var none *Files
	none.lockDir("/out/a/f1.bin")()
}
