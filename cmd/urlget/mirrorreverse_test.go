package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

// TestMirrorReverseKilled kills urlget mirror -R (SIGKILL: no chance to
// clean up) in the middle of an upload to vsftpd and pure-ftpd: the file
// being uploaded is nowhere under its final name, only under the run's
// temporary name; the rerun continues it (APPE), finishes the tree, and
// leaves nothing else behind; a third run uploads nothing.
func TestMirrorReverseKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "urlget")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	src := t.TempDir()
	big := bytes.Repeat([]byte("killed mid-upload "), 200_000) // 3.6 MB
	files := map[string][]byte{"a/big.bin": big, "small.txt": []byte("small\n"), "a/b/c.txt": []byte("c\n")}
	for rel, data := range files {
		p := filepath.Join(src, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, kind := range []testserver.FTPKind{testserver.Vsftpd, testserver.PureFTPd} {
		t.Run(string(kind), func(t *testing.T) {
			s := testserver.StartFTP(t, kind)
			url := "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr + "/upload/tree/"
			remote := filepath.Join(s.Home, "upload", "tree")
			cmd := exec.Command(bin, "mirror", "-R", "-q", "-P", "1", "--limit-rate", "400k", src, url)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Kill once the big file's upload is well under way.
			deadline := time.Now().Add(20 * time.Second)
			var part string
			for part == "" && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				ents, _ := os.ReadDir(filepath.Join(remote, "a"))
				for _, e := range ents {
					if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), ".urlget-up-") && fi.Size() > 100_000 {
						part = e.Name()
					}
				}
			}
			cmd.Process.Kill()
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("wait: %v, want killed (the upload ended before the kill?)", err)
			}
			if part == "" {
				t.Fatal("no temporary file appeared on the server")
			}
			if _, err := os.Stat(filepath.Join(remote, "a", "big.bin")); !os.IsNotExist(err) {
				t.Errorf("a/big.bin is on the server under its final name after the kill (%v)", err)
			}
			fi, err := os.Stat(filepath.Join(remote, "a", part))
			if err != nil || fi.Size() >= int64(len(big)) {
				t.Fatalf("the temporary file: %v, want part of the file", err)
			}
			code, stdout, stderr := runMirrorTest(t, "-R", "-v", src, url)
			if code != 0 {
				t.Fatalf("rerun: exit %d\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "APPE") {
				t.Errorf("the rerun did not continue the cut upload:\n%s", stderr)
			}
			for rel, data := range files {
				if b, _ := os.ReadFile(filepath.Join(remote, rel)); !bytes.Equal(b, data) {
					t.Errorf("%s on the server: %d bytes, want %d", rel, len(b), len(data))
				}
			}
			filepath.Walk(remote, func(p string, fi os.FileInfo, err error) error {
				if err == nil && strings.HasPrefix(fi.Name(), ".urlget-") {
					t.Errorf("left on the server: %s", p)
				}
				return nil
			})
			code, _, stderr = runMirrorTest(t, "-R", "--json", src, url)
			if code != 0 || !strings.Contains(stderr, "0 new, 0 changed, 3 unchanged") {
				t.Errorf("third run: exit %d\n%s", code, stderr)
			}
		})
	}
}

// TestMirrorReverseUsage: -R takes DIR then the URL (lftp's order), and
// refuses the download-only flags with a usage error.
func TestMirrorReverseUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-R", "--warc", "x.warc", dir, "ftp://127.0.0.1:1/x/"}, 2, "--warc is for downloads"},
		{[]string{"-R", "--checksum", dir, "ftp://127.0.0.1:1/x/"}, 2, "--checksum is for downloads"},
		{[]string{"-R", "--parents", dir, "ftp://127.0.0.1:1/x/"}, 2, "--parents is for downloads"},
		{[]string{"-R", "ftp://127.0.0.1:1/x/", dir}, 3, "malformed URL"},  // the order reversed: DIR is no URL
		{[]string{"-R", dir, "http://127.0.0.1:1/x/"}, 1, "only ftp URLs"}, // uploads go to ftp only
	} {
		code, _, stderr := runMirrorTest(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
