package testserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sbinDirs are searched after $PATH: a non-root user's PATH often lacks them,
// and that is where Debian installs most servers.
var sbinDirs = []string{"/usr/sbin", "/sbin", "/usr/local/sbin"}

// packages names the Debian package that provides a server binary, for the
// hint Require gives when the binary is missing.
var packages = map[string]string{
	"nginx":       "nginx-light",
	"curl":        "curl",
	"socat":       "socat",
	"vsftpd":      "vsftpd",
	"pure-ftpd":   "pure-ftpd",
	"proftpd":     "proftpd-core",
	"gophernicus": "gophernicus",
	"pygopherd":   "pygopherd",
	"innd":        "inn2",
	"nnrpd":       "inn2",
	"telnetd":     "inetutils-telnetd",
	"in.rlogind":  "rsh-redone-server",
	"tmux":        "tmux",
	"c3270":       "c3270",
	"s3270":       "s3270",
	"smtpd":       "opensmtpd",
	"squid":       "squid",
	"chromium":    "chromium",
	"lynx":        "lynx",
}

// LookPath finds a server binary: an absolute or relative path is checked as
// it is; a bare name is looked up in $PATH, then in /usr/sbin, /sbin and
// /usr/local/sbin.
func LookPath(binary string) (string, error) {
	if strings.ContainsRune(binary, filepath.Separator) {
		return exec.LookPath(binary)
	}
	if p, err := exec.LookPath(binary); err == nil {
		return p, nil
	}
	for _, d := range sbinDirs {
		if p, err := exec.LookPath(filepath.Join(d, binary)); err == nil {
			return p, nil
		}
	}
	return "", &exec.Error{Name: binary, Err: exec.ErrNotFound}
}

// InCI reports whether the environment variable CI is set (non-empty), as it
// is in .ci/run.
func InCI() bool { return os.Getenv("CI") != "" }

// Require returns the path of a server binary that an integration test
// needs. When the binary is missing the test is skipped with a hint to run
// scripts/test as root — or, when CI is set, fails: in CI a skip would hide a
// broken install step. Under -short the test is always skipped (-short means
// unit tests only, and CI never passes it).
func Require(t testing.TB, binary string) string {
	t.Helper()
	if testing.Short() {
		t.Skipf("integration test (needs %s): skipped with -short", binary)
	}
	p, err := LookPath(binary)
	if err == nil {
		return p
	}
	msg := binary + " is not installed"
	if pkg := packages[filepath.Base(binary)]; pkg != "" {
		msg += " (Debian package " + pkg + ")"
	}
	if InCI() {
		t.Fatalf("%s, and CI is set: the install step of scripts/test did not provide it", msg)
	}
	t.Skipf("%s: run scripts/test as root, which installs it, to run this integration test", msg)
	return ""
}

// RequireRoot skips the test unless it runs as root — or, when CI is set,
// fails it. why says what needs root ("INN tests need root (…)").
func RequireRoot(t testing.TB, why string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if InCI() {
		t.Fatalf("%s, and CI is set", why)
	}
	t.Skip(why + ": run the tests as root")
}
