package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// -o never replaces a file the user cannot write (curl's open fails: 23,
// the file kept), and never changes the owner of the file it writes: one
// that is another's, though writable, is written in place (issue 37,
// item 8). Run as the test user FTPUser, in a world-writable directory
// without the sticky bit, where a rename over any file would work.
func TestOutputFileOwnerAndMode(t *testing.T) {
	testserver.RequireRoot(t, "runs urlget as another user")
	if err := testserver.EnsureFTPUser(); err != nil {
		t.Fatal(err)
	}
	u, err := user.Lookup(testserver.FTPUser)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	bin := buildBinary(t)
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o777) // searchable by the user; dir writable by all, no sticky bit
	}
	os.Chmod(filepath.Dir(bin), 0o755)
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte("new contents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	asUser := func(out string) (int, string) {
		cmd := exec.Command(bin, "-sS", "-o", out, "file://"+src)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		b, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(b)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(b)
	}
	owner := func(p string) (int, int, os.FileMode) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		return int(st.Uid), int(st.Gid), fi.Mode().Perm()
	}
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("kept\n"), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}

	// root's, read-only: refused, left as it is.
	ro := write("ro.txt", 0o444)
	if code, out := asUser(ro); code != 23 {
		t.Errorf("root's 0444 file: exit %d, want 23: %s", code, out)
	}
	if b, _ := os.ReadFile(ro); string(b) != "kept\n" {
		t.Errorf("root's 0444 file replaced: %q", b)
	}
	if u, _, m := owner(ro); u != 0 || m != 0o444 {
		t.Errorf("root's 0444 file: owner %d, mode %o", u, m)
	}
	if _, err := os.Stat(ro + ".part"); err == nil {
		t.Errorf("%s.part left", ro)
	}

	// root's, writable by all: written, still root's, same mode.
	rw := write("rw.txt", 0o666)
	if code, out := asUser(rw); code != 0 {
		t.Errorf("root's 0666 file: exit %d: %s", code, out)
	}
	if b, _ := os.ReadFile(rw); string(b) != "new contents\n" {
		t.Errorf("root's 0666 file: %q", b)
	}
	if u, g, m := owner(rw); u != 0 || g != 0 || m != 0o666 {
		t.Errorf("root's 0666 file: owner %d:%d, mode %o; want 0:0 0666", u, g, m)
	}

	// The user's own file is replaced as always (a rename).
	own := write("own.txt", 0o644)
	os.Chown(own, uid, gid)
	if code, out := asUser(own); code != 0 {
		t.Errorf("own file: exit %d: %s", code, out)
	}
	if b, _ := os.ReadFile(own); string(b) != "new contents\n" {
		t.Errorf("own file: %q", b)
	}
	if u, _, _ := owner(own); u != uid {
		t.Errorf("own file: owner %d, want %d", u, uid)
	}
}
