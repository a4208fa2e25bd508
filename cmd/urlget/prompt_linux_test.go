package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the master, and the terminal (slave)
// urlget reads as its stdin.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); m.Close() })
	return m, s
}

// TestHTTPUserPasswordPrompt: -u USER without a password, for an http URL
// with stdin a terminal, asks for the password (without echo) before the
// request, as curl does, and sends it.
func TestHTTPUserPasswordPrompt(t *testing.T) {
	rec := newRecorder(t)
	master, tty := openPTY(t)
	if _, err := master.WriteString("s3cret\n"); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run(env{args: []string{"-s", "-u", "joe", "http://" + rec.addr + "/private"}, stdin: tty, stdout: &out, stderr: &errb})
	if code != 0 || !strings.HasPrefix(errb.String(), "Enter host password for user 'joe': ") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	reqs := rec.take()
	// joe:s3cret in base64
	if len(reqs) != 1 || !bytes.Contains(reqs[0], []byte("\r\nAuthorization: Basic am9lOnMzY3JldA==\r\n")) {
		t.Errorf("requests %q", reqs)
	}
}
