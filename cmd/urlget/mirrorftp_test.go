package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// mirrorFTPServer is an in-tree FTP server with a small tree for user
// "urlget" (password "secret", home /home/urlget) and nothing for
// anonymous logins.
func mirrorFTPServer(t *testing.T) (*ftptest.Server, map[string]string) {
	s := ftptest.New(t)
	s.Configure(func(s *ftptest.Server) {
		s.Anonymous = false
		s.Users["urlget"] = "secret"
		s.Homes["urlget"] = "/home/urlget"
	})
	files := map[string]string{
		"readme.txt":    "read me\n",
		"a/one.txt":     "one\n",
		"a/b/two.bin":   "\x00\r\n\xff two",
		"a/b/c/three":   strings.Repeat("three ", 10000),
		"space d/f.txt": "spaces\n",
	}
	mod := time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)
	for p, d := range files {
		s.AddFile("/home/urlget/data/"+p, []byte(d), mod)
	}
	return s, files
}

// sameFiles checks that dir holds exactly want (the manifest aside).
func sameFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && !strings.HasPrefix(fi.Name(), ".urlget-mirror") {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			got[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if len(got) != len(want) {
		t.Errorf("mirrored %d files, want %d: %v", len(got), len(want), keys(got))
	}
	for p, d := range want {
		if got[p] != d {
			t.Errorf("%s: %d bytes, want %d", p, len(got[p]), len(d))
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// `urlget mirror -x socks5h://…` sends the control connection and every
// data connection through the SOCKS proxy, which resolves the name: here
// one that does not resolve at all.
func TestMirrorFTPThroughSOCKS5(t *testing.T) {
	t.Setenv("no_proxy", "")
	t.Setenv("NO_PROXY", "")
	s, files := mirrorFTPServer(t)
	proxy := fetchtest.NewSOCKS5(t, true, func(asked string) string {
		host, port, _ := net.SplitHostPort(asked)
		if host != "ftp.invalid" {
			return "127.0.0.1:1" // refused: only the URL's host is expected
		}
		return net.JoinHostPort("127.0.0.1", port)
	})
	dir := t.TempDir()
	url := "ftp://urlget:secret@ftp.invalid:" + strconv.Itoa(s.Port) + "/data/"
	code, _, stderr := runMirrorTest(t, "-q", "-P", "2", "-x", "socks5h://pu:pp@"+proxy.Addr, url, dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	sameFiles(t, dir, files)
	asked := proxy.Asked()
	control := 0
	for _, a := range asked {
		if !strings.HasPrefix(a, "ftp.invalid:") {
			t.Errorf("the proxy was asked for %s", a)
		}
		if a == "ftp.invalid:"+strconv.Itoa(s.Port) {
			control++
		}
	}
	// Every connection went through the proxy: the control connections,
	// one data connection per listing and per file.
	if control == 0 || control > 2 || len(asked) < control+len(files)+4 || s.Conns() != control {
		t.Errorf("the proxy was asked for %d connections (%d control), the server had %d control connections", len(asked), control, s.Conns())
	}
	if l := proxy.Logins(); len(l) == 0 || l[0] != "pu:pp" {
		t.Errorf("proxy logins %q", l)
	}
	// An HTTP proxy cannot carry an FTP mirror: refused before any
	// connection, with the reason.
	code, _, stderr = runMirrorTest(t, "-x", "http://127.0.0.1:1", url, t.TempDir())
	if code != 1 || !strings.Contains(stderr, "HTTP proxy") {
		t.Errorf("through an HTTP proxy: exit %d\n%s", code, stderr)
	}
}

// -n takes the credentials from ~/.netrc, --netrc-file from a file; a
// netrc file that cannot be read is an error; a user without a password
// is not logged in with an empty one.
func TestMirrorFTPNetrc(t *testing.T) {
	s, files := mirrorFTPServer(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine 127.0.0.1 login urlget password secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url := "ftp://" + s.Addr + "/data/"
	dir := t.TempDir()
	code, _, stderr := runMirrorTest(t, "-q", "-n", url, dir)
	if code != 0 {
		t.Fatalf("-n: exit %d\n%s", code, stderr)
	}
	sameFiles(t, dir, files)
	lines := s.Lines()
	if len(lines) < 2 || lines[0] != "USER urlget" || lines[1] != "PASS secret" {
		t.Errorf("login %q, want USER urlget, PASS secret", lines[:min(2, len(lines))])
	}
	// Without -n: anonymous, refused (exit 67).
	code, _, stderr = runMirrorTest(t, "-q", url, t.TempDir())
	if code != 67 {
		t.Errorf("without -n: exit %d, want 67\n%s", code, stderr)
	}
	// A netrc file that is not there is reported, not taken as empty.
	code, _, stderr = runMirrorTest(t, "-q", "--netrc-file", filepath.Join(home, "missing"), url, t.TempDir())
	if code != 26 || !strings.Contains(stderr, "netrc") {
		t.Errorf("missing netrc file: exit %d, want 26\n%s", code, stderr)
	}
	// -u with a user and no password: the server wants one, none is sent.
	s2, _ := mirrorFTPServer(t)
	code, _, stderr = runMirrorTest(t, "-q", "-u", "urlget", "ftp://"+s2.Addr+"/data/", t.TempDir())
	if code != 67 || strings.Join(s2.Lines(), "|") != "USER urlget" {
		t.Errorf("-u without a password: exit %d, server saw %q\n%s", code, s2.Lines(), stderr)
	}
}
