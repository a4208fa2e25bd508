package download

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all" // the schemes' file names (wais)
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/urlparse"
)

func TestRemoteNameHostile(t *testing.T) {
	for _, tc := range []struct {
		url, name string
	}{
		{"http://h/a/b/file.tar.gz", "file.tar.gz"},
		{"http://h/file?x=1/2", "file"},
		{"http://h/a%20b", "a%20b"},       // not decoded, as curl
		{"http://h/..%2Fetc", "..%2Fetc"}, // %2F stays literal: no separator
		{"ftp://h/d/f.bin;type=i", "f.bin"},
		{"gopher://h/0/docs/readme", "readme"},
		{"http://h/", ""},
		{"http://h", ""},
		{"http://h/a/..", ""},
		{"http://h/.", ""},
		{"http://h/dir/", ""},
		{"mailto:a@b", ""},
		{"http://h/" + strings.Repeat("x", 300), ""},
	} {
		u, err := fetch.GuessURL(tc.url)
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		got, err := RemoteName(&u)
		if tc.name == "" {
			if err == nil {
				t.Errorf("%s: name %q, want refusal", tc.url, got)
			} else if fetch.ExitCode(err) != 23 {
				t.Errorf("%s: exit %d", tc.url, fetch.ExitCode(err))
			}
			continue
		}
		if err != nil || got != tc.name {
			t.Errorf("%s: %q %v, want %q", tc.url, got, err, tc.name)
		}
	}
	for _, name := range []string{"", ".", "..", "a/b", `a\b`, "a\x00b", "a\nb", "a\x7fb", "a\u0085b", "\xff"} {
		if CheckRemoteName(name) == nil {
			t.Errorf("CheckRemoteName(%q) accepted", name)
		}
	}
	for _, name := range []string{"a", ".hidden", "a b", "日本.txt", "-x"} {
		if err := CheckRemoteName(name); err != nil {
			t.Errorf("CheckRemoteName(%q): %v", name, err)
		}
	}
}

func TestFileWriteErrorKeepsOriginal(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("keep", []byte("original"), 0o644)
	d := &Downloader{Stdout: io.Discard}
	u, _ := fetch.GuessURL("http://h/x")
	out, err := d.newOutput(&u, Target{Name: "keep"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.start(0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("new data")); err != nil {
		t.Fatal(err)
	}
	out.f.Close() // the disk "fills up"
	if _, err := out.Write([]byte("more")); err == nil {
		t.Fatal("write to a closed file succeeded")
	} else if fetch.ExitCode(writeError(err)) != 23 {
		t.Errorf("write error exit %d", fetch.ExitCode(writeError(err)))
	}
	if kept, n := out.abort(); kept != "keep.part" || n != 8 || readFile(t, "keep.part") != "new data" {
		t.Errorf("abort kept %q (%d bytes), want keep.part with the 8 bytes written", kept, n)
	}
	if got := readFile(t, "keep"); got != "original" {
		t.Errorf("existing file now %q", got)
	}
}

// readFile is the file's contents (fetchtest.ReadFile).
var readFile = fetchtest.ReadFile

// An upload's method and Expect header go into the attempt's own options:
// the answers a request carries (shared by every attempt) are not written
// to, and a second attempt has one Expect header, not two.
func TestShapeRequestLeavesAnswersAlone(t *testing.T) {
	up := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(up, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := &Downloader{Client: &fetch.Client{}, Body: Body{Upload: up}}
	answers := fetch.Options{"answer": "yes"}
	u, err := urlparse.Parse("http://127.0.0.1/dir/f")
	if err != nil {
		t.Fatal(err)
	}
	for attempt := range 2 {
		req := &fetch.Request{URL: &u, Options: answers}
		if err := d.shapeRequest(req); err != nil {
			t.Fatal(err)
		}
		if c, ok := req.Body.(io.Closer); ok {
			c.Close()
		}
		if req.Method() != "PUT" || len(req.Options.Strings(fetch.OptBodyHeader)) != 1 || req.Options["answer"] != "yes" {
			t.Errorf("attempt %d: options %q, want PUT, one Expect header and the answer", attempt, req.Options)
		}
	}
	if len(answers) != 1 {
		t.Errorf("the answers were written to: %q", answers)
	}
}
