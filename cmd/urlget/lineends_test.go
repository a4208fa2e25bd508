package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// TestListingLinesBesideCurl: ftp listings (LIST, NLST, ;type=d) print
// lines ending in LF, byte for byte as curl prints them, so that
// "urlget -l URL | while read f" gets clean names; --raw keeps the wire's
// CRLF.
func TestListingLinesBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s := testserver.StartFTP(t, testserver.Vsftpd)
	pub := s.URL + "/pub/"
	runSideBySide(t, curl, []sideCase{
		{name: "NLST", args: []string{"-l", pub}},
		{name: "LIST", args: []string{pub}},
		{name: ";type=d", args: []string{pub + "a/;type=d"}},
	})
	out, _ := runLines(t, "--raw", "-l", pub)
	if !strings.Contains(out, "hello.txt\r\n") {
		t.Errorf("--raw -l: %q, want the wire's CRLF", out)
	}
}

// TestTextLinesEndInLF: a news article prints with LF line ends, and a
// gopher text readable (--readable, a terminal) too; to a pipe a gopher
// text goes as sent, CRLF and all, as curl writes it; --raw gives the
// wire's bytes.
func TestTextLinesEndInLF(t *testing.T) {
	curl := testserver.Require(t, "curl")
	g := testserver.StartGophernicus(t, testserver.GopherConfig{})
	hello := g.URL("0/hello.txt")
	if out, _ := runLines(t, "--readable", hello); out != testserver.GopherHello {
		t.Errorf("gopher text --readable: %q, want %q", out, testserver.GopherHello)
	}
	wire, err := exec.Command(curl, "-s", hello).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{hello}, {"--raw", hello}} {
		if out, _ := runLines(t, args...); out != string(wire) || !strings.Contains(out, "\r\n") {
			t.Errorf("gopher text %q: %q, curl %q", args, out, wire)
		}
	}

	n := testserver.StartINN(t, testserver.INNConfig{})
	article := "nntp://" + n.Addr + "/" + strings.Trim(testserver.INNKnownID, "<>")
	out, code := runLines(t, article)
	if code != 0 || strings.Contains(out, "\r") || !strings.Contains(out, "\nSubject: Known article one\n") {
		t.Errorf("article: exit %d %q", code, out)
	}
	if out, _ := runLines(t, "--raw", article); !strings.Contains(out, "\r\nSubject: Known article one\r\n") {
		t.Errorf("article --raw: %q", out)
	}
}

// runLines runs urlget -s with args and returns its stdout and exit code.
func runLines(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(env{args: append([]string{"-s"}, args...), stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	if code != 0 {
		t.Errorf("%q: exit %d %s", args, code, errb.String())
	}
	return out.String(), code
}

// TestFTPTypeBesideCurl: without ;type= an ftp file is binary, the
// server's bytes as curl gives them, whatever its name; -B asks for ASCII
// (CRLF made LF); -I on an ASCII transfer reports the server's SIZE, as
// curl -I does.
func TestFTPTypeBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s := testserver.StartFTP(t, testserver.Vsftpd)
	hello := s.URL + "/pub/hello.txt"
	runSideBySide(t, curl, []sideCase{
		{name: "no typecode", args: []string{hello}},
		{name: "no typecode -O", args: []string{"-O", hello}},
		{name: "-B", args: []string{"-B", hello}},
		{name: ";type=a", args: []string{hello + ";type=a"}},
	})
	if out, _ := runLines(t, hello); out != string(testserver.FTPHello) {
		t.Errorf("no typecode: %q, want the server's %q", out, testserver.FTPHello)
	}
	want := fmt.Sprintf("Content-Length: %d\r\n", len(testserver.FTPHello))
	if out, _ := runLines(t, "-I", hello+";type=a"); !strings.Contains(out, want) {
		t.Errorf("-I ;type=a: %q, want %q", out, want)
	}
}

// TestWriteOutBesideCurl: -w %{size_download} counts the bytes on the wire
// (with --compressed, the gzip bytes), and %{response_code} of an ftp
// transfer is its final reply (226), as curl reports them.
func TestWriteOutBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s, _ := nginxFixture(t)
	f := testserver.StartFTP(t, testserver.Vsftpd)
	w := "%{response_code} %{size_download}\\n"
	runSideBySide(t, curl, []sideCase{
		{name: "--compressed size", args: []string{"--compressed", "-w", w, "-o", "/dev/null", s.URL + "/text.txt"}},
		{name: "ftp RETR", args: []string{"-w", w, "-o", "/dev/null", f.URL + "/pub/binary.bin"}},
		{name: "ftp LIST", args: []string{"-w", w, "-o", "/dev/null", f.URL + "/pub/"}},
	})
}
