package main

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// -o never replaces a file the user cannot write (curl's open fails: 23,
// the file kept), and never changes the owner of the file it writes: one
// that is another's, though writable, is written in place (issue 37,
// item 8). Run as the test user FTPUser, in a world-writable directory
// without the sticky bit, where a rename over any file would work.
func TestOutputFileOwnerAndMode(t *testing.T) {
	bin, dir, uid, gid, run := asTestUser(t)
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte("new contents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	asUser := func(out string) (int, string) { return run(bin, "-sS", "-o", out, "file://"+src) }
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
	if u, _, m := owner(t, ro); u != 0 || m != 0o444 {
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
	if u, g, m := owner(t, rw); u != 0 || g != 0 || m != 0o666 {
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
	if u, g, _ := owner(t, own); u != uid || g != gid {
		t.Errorf("own file: owner %d:%d, want %d:%d", u, g, uid, gid)
	}
}

// asTestUser builds urlget and gives a directory writable by all (no
// sticky bit) and a function that runs a command as the test user
// FTPUser (uid, gid): its exit code and output.
func asTestUser(t *testing.T) (bin, dir string, uid, gid int, run func(name string, args ...string) (int, string)) {
	t.Helper()
	testserver.RequireRoot(t, "runs urlget as another user")
	if err := testserver.EnsureFTPUser(); err != nil {
		t.Fatal(err)
	}
	u, err := user.Lookup(testserver.FTPUser)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	bin = buildBinary(t)
	os.Chmod(filepath.Dir(bin), 0o755)
	dir = t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o777) // searchable by the user; dir writable by all
	}
	run = func(name string, args ...string) (int, string) {
		cmd := exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		b, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(b)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(b)
	}
	return bin, dir, uid, gid, run
}

// owner is the owner, group and mode of the file p.
func owner(t *testing.T, p string) (int, int, os.FileMode) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid), fi.Mode().Perm()
}

// The mirror, as for -o: a copy the user may not write is left as it is
// (the file fails, the run is exit 23, as curl's -o; issue 37), one that
// is another's is written in place, keeping its owner.
func TestMirrorFileOwnerAndMode(t *testing.T) {
	s := testserver.StartFTP(t, testserver.Vsftpd)
	bin, dir, _, _, run := asTestUser(t)
	src := filepath.Join(s.Anon, "pub", "own")
	for _, n := range []string{"ro.txt", "rw.txt"} {
		fetchtest.WriteFile(t, filepath.Join(src, n), "old\n", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC))
	}
	mdir := filepath.Join(dir, "m")
	os.Mkdir(mdir, 0o777)
	os.Chmod(mdir, 0o777)
	if code, out := run(bin, "mirror", "-q", s.URL+"/pub/own/", mdir); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, out)
	}
	ro, rw := filepath.Join(mdir, "ro.txt"), filepath.Join(mdir, "rw.txt")
	for p, mode := range map[string]os.FileMode{ro: 0o444, rw: 0o666} {
		os.Chown(p, 0, 0)
		os.Chmod(p, mode)
	}
	for _, n := range []string{"ro.txt", "rw.txt"} {
		fetchtest.WriteFile(t, filepath.Join(src, n), "new!\n", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	}
	code, out := run(bin, "mirror", "-q", s.URL+"/pub/own/", mdir)
	if code != 23 || !strings.Contains(out, "ro.txt") || !strings.Contains(out, "urlget: (23) mirror: 1 local copy may not be written, left as it is") {
		t.Errorf("second run: exit %d, want 23 (ro.txt may not be written): %s", code, out)
	}
	if b, _ := os.ReadFile(ro); string(b) != "old\n" {
		t.Errorf("root's 0444 copy replaced: %q", b)
	}
	if u, _, m := owner(t, ro); u != 0 || m != 0o444 {
		t.Errorf("root's 0444 copy: owner %d, mode %o", u, m)
	}
	if b, _ := os.ReadFile(rw); string(b) != "new!\n" {
		t.Errorf("root's 0666 copy: %q", b)
	}
	if u, g, m := owner(t, rw); u != 0 || g != 0 || m != 0o666 {
		t.Errorf("root's 0666 copy: owner %d:%d, mode %o; want 0:0 0666", u, g, m)
	}
}
