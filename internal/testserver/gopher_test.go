package testserver

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// gopherAsk sends one request line and returns the whole reply.
func gopherAsk(t *testing.T, addr, line string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, line+"\r\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("%q: %v (after %q)", line, err, b)
	}
	return string(b)
}

func TestGopherFixtures(t *testing.T) {
	root := t.TempDir()
	if err := GopherFixtures(root); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"hello.txt":            GopherHello,
		"dots.txt":             GopherDots,
		"name with spaces.txt": GopherSpaces,
		"menu/gophermap":       GopherMenu,
		"form.txt.ask":         GopherAsk,
	} {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "binary.bin")); !bytes.Equal(b, GopherBinary()) || len(b) != 1024 {
		t.Errorf("binary.bin: %d bytes", len(b))
	}
	fi, err := os.Stat(filepath.Join(root, "cgi-bin/search.cgi"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("search.cgi mode %v, %v", fi.Mode(), err)
	}
}

func TestPygopherd(t *testing.T) {
	s := Pygopherd(t)
	if got := gopherAsk(t, s.Addr, "/hello.txt"); got != GopherHello {
		t.Errorf("hello.txt: %q", got)
	}
	if got := gopherAsk(t, s.Addr, "/hello.txt\t+"); got != "+"+strconv.Itoa(len(GopherHello))+"\r\n"+GopherHello {
		t.Errorf("hello.txt +: %q", got)
	}
	menu := gopherAsk(t, s.Addr, "")
	if !strings.Contains(menu, "0hello\t/hello.txt\t127.0.0.1\t"+strconv.Itoa(s.Port)+"\t+\r\n") {
		t.Errorf("root menu:\n%s", menu)
	}
	if got := gopherAsk(t, s.Addr, "/cgi-bin/search.cgi\tdoc"); !strings.Contains(got, "0docs/two.txt\t/docs/two.txt\t127.0.0.1\t"+strconv.Itoa(s.Port)+"\r\n.\r\n") {
		t.Errorf("search: %q", got)
	}
	if got := gopherAsk(t, s.Addr, "/form.txt\t!"); !strings.Contains(got, "+ASK:\r\n Ask: Your name?\tAnonymous\r\n") {
		t.Errorf("form attributes: %q", got)
	}
	if s.Process.Exited() {
		t.Fatal("pygopherd exited")
	}
}

func TestGophernicus(t *testing.T) {
	s := Gophernicus(t)
	if got := gopherAsk(t, s.Addr, "/hello.txt"); got != strings.ReplaceAll(GopherHello, "\n", "\r\n") {
		t.Errorf("hello.txt: %q", got)
	}
	menu := gopherAsk(t, s.Addr, "/menu")
	if !strings.Contains(menu, "0Hello\t/hello.txt\t127.0.0.1\t"+strconv.Itoa(s.Port)+"\r\n") || !strings.HasSuffix(menu, "\r\n.\r\n") {
		t.Errorf("menu:\n%s", menu)
	}
	if got := gopherAsk(t, s.Addr, "/binary.bin"); got != string(GopherBinary()) {
		t.Errorf("binary.bin: %d bytes", len(got))
	}
	if got := gopherAsk(t, s.Addr, "/cgi-bin/search.cgi\tone"); !strings.Contains(got, "0docs/one.txt\t/docs/one.txt\t") || strings.Contains(got, "two.txt") {
		t.Errorf("search: %q", got)
	}
}
