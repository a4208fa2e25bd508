package main

import (
	"bytes"
	"crypto/sha1"
	"encoding/base32"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

// Issue 37: urlget mirror --warc killed with SIGKILL in the middle of a
// file, then run again: the rerun continues the file with Range, and the
// WARC file holds a complete capture of it, a resource record whose
// payload digest is the whole file's, as gowarc (an independent reader,
// mirror/internal/warccheck) reads and checks it; beside it the 206
// exchange as it was. (Before, the 206 record was the only one: the
// first part was in the file but in no record.)
func TestMirrorWARCAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, real servers")
	}
	testserver.Require(t, "nginx")
	root := t.TempDir()
	big := bigData(41)[:4<<20]
	os.Mkdir(filepath.Join(root, "big"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "big", "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	s := testserver.StartNginx(t, testserver.NginxConfig{Root: root, Extra: "        location /big/ { limit_rate 1m; }\n"})
	bin := buildBinary(t)
	dir, w := t.TempDir(), filepath.Join(t.TempDir(), "run.warc.gz")
	url := s.URL + "/big/"
	cmd := exec.Command(bin, "mirror", "-q", "--warc", w, url, dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cut := false
	for i := 0; i < 1000 && !cut; i++ {
		m, _ := filepath.Glob(filepath.Join(dir, ".urlget-part-*"))
		if len(m) == 1 {
			if fi, err := os.Stat(m[0]); err == nil && fi.Size() > 300<<10 {
				cut = true
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !cut {
		t.Fatal("the partial file never grew: nothing was killed mid-file")
	}
	if code, _, stderr := runMirrorTest(t, "-q", "--warc", w, url, dir); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	sameFile(t, "after kill -9 and a rerun", filepath.Join(dir, "big.bin"), big)

	check := exec.Command("go", "run", ".", "-records", w)
	check.Dir = filepath.Join("..", "..", "mirror", "internal", "warccheck")
	check.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	out, err := check.CombinedOutput()
	if err != nil {
		if bytes.Contains(out, []byte(": invalid: ")) || testserver.InCI() {
			t.Fatalf("gowarc: %v\n%s", err, out)
		}
		t.Skipf("no gowarc (not in the module cache?): %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	sum := sha1.Sum(big)
	whole := "resource\t" + url + "big.bin\tsha1:" + base32.StdEncoding.EncodeToString(sum[:])
	if !slices.Contains(lines, whole) {
		t.Errorf("gowarc reads no record %q:\n%s", whole, out)
	}
	responses := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "response\t"+url+"big.bin\t") {
			responses++
		}
	}
	if responses != 1 {
		t.Errorf("%d response records of big.bin, want 1 (the 206 of the rerun):\n%s", responses, out)
	}
}
