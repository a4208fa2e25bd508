package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// TestFTPUploadResumeBesideCurl: -C - -T asks the remote size (SIZE) and
// APPEnds the rest of the local file, as curl does: the remote file ends
// up whole, and only the missing bytes are sent.
func TestFTPUploadResumeBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s := testserver.StartFTP(t, testserver.Vsftpd)
	base := "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr + "/upload/"
	full := bytes.Repeat([]byte("0123456789abcdef"), 4096)
	local := filepath.Join(t.TempDir(), "up.bin")
	if err := os.WriteFile(local, full, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"curl", "urlget"} {
		remote := filepath.Join(s.Home, "upload", who+".bin")
		if err := os.WriteFile(remote, full[:10000], 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chown(remote, uidOf(t, filepath.Join(s.Home, "upload")), -1)
		before, _ := s.CommandLines(0) // no log before the first session
		args := []string{"-sS", "-C", "-", "-T", local, base + who + ".bin"}
		if code, _ := runClient(t, curl, who, args...); code != 0 {
			t.Fatalf("%s: exit %d", who, code)
		}
		got, _ := os.ReadFile(remote)
		if !bytes.Equal(got, full) {
			t.Errorf("%s: remote file %d bytes, want %d", who, len(got), len(full))
		}
		after, _ := s.CommandLines(len(before))
		cmds := strings.Join(after, "|")
		if !strings.Contains(cmds, "SIZE "+who+".bin") || !strings.Contains(cmds, "APPE "+who+".bin") || strings.Contains(cmds, "STOR") {
			t.Errorf("%s sent %q, want SIZE then APPE", who, after)
		}
	}
}

// uidOf is the owner of dir, so that a file put there by the test belongs
// to the FTP user.
func uidOf(t *testing.T, dir string) int {
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid)
}

// TestUploadToFileURLBesideCurl: -T FILE file:///path writes the file, as
// curl does.
func TestUploadToFileURLBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	os.WriteFile(src, []byte("copied by -T\n"), 0o644)
	for _, who := range []string{"curl", "urlget"} {
		dst := filepath.Join(dir, who+".txt")
		args := []string{"-sS", "-T", src, "file://" + dst}
		if who == "curl" {
			if out, err := exec.Command(curl, args...).CombinedOutput(); err != nil {
				t.Fatalf("curl: %v %s", err, out)
			}
		} else {
			var out, errb bytes.Buffer
			if code := run(env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != 0 || out.Len() != 0 {
				t.Fatalf("urlget: exit %d %q %s", code, out.String(), errb.String())
			}
		}
		if got, err := os.ReadFile(dst); err != nil || string(got) != "copied by -T\n" {
			t.Errorf("%s: %q %v", who, got, err)
		}
	}
}

// TestUploadGlobBesideCurl: -T takes a glob as the URL does; each file goes
// to each URL, the files in the outer loop, a URL ending in "/" getting
// each file's name: the requests are curl's, in curl's order.
func TestUploadGlobBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	dir := t.TempDir()
	for _, n := range []string{"first", "second"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n+" file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, []string{"-s", "http://" + rec.addr + "/{one,two}/", "-T", "{" + dir + "/first," + dir + "/second}"}, "")
	if len(creqs) != 4 || len(ureqs) != len(creqs) {
		t.Fatalf("curl sent %d requests, urlget %d", len(creqs), len(ureqs))
	}
	for i := range creqs {
		if c, u := comparableRequest(creqs[i]), comparableRequest(ureqs[i]); c != u {
			t.Errorf("request %d differs:\nurlget %q\ncurl   %q", i, u, c)
		}
	}
}

// TestFTPUploadCRLFBesideCurl: -T with --crlf stores each LF as CRLF, in
// binary mode, as curl does.
func TestFTPUploadCRLFBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s := testserver.StartFTP(t, testserver.Vsftpd)
	base := "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr + "/upload/"
	local := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(local, []byte("one\ntwo\n\nthree"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{"curl", "urlget"} {
		args := []string{"-sS", "--crlf", "-T", local, base + who + ".txt"}
		if code, _ := runClient(t, curl, who, args...); code != 0 {
			t.Fatalf("%s: exit %d", who, code)
		}
		got, _ := os.ReadFile(filepath.Join(s.Home, "upload", who+".txt"))
		if want := "one\r\ntwo\r\n\r\nthree"; string(got) != want {
			t.Errorf("%s stored %q, want %q", who, got, want)
		}
	}
}
