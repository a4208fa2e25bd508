package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

// urlget mirror on an nginx autoindex, with -v and --warc: the first run
// says each file is new, the second that each is unchanged because the
// server answered 304 to the recorded ETag, and both exit 0; the WARC file
// grows with each run.
func TestMirrorHTTPCommand(t *testing.T) {
	root := t.TempDir()
	for name, data := range map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		// An old time: a file written just now is racy, fetched again
		// without conditions, not answered 304.
		old := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		os.Chtimes(p, old, old)
	}
	s := testserver.StartNginx(t, testserver.NginxConfig{Root: root})
	dir := t.TempDir()
	warc := filepath.Join(t.TempDir(), "m.warc.gz")
	code, _, stderr := runMirrorTest(t, "-v", "--warc", warc, s.URL+"/", dir)
	if code != 0 || strings.Count(stderr, "urlget: new ") != 2 || !strings.Contains(stderr, "2 new, 0 changed, 0 unchanged") {
		t.Errorf("first run: exit %d\n%s", code, stderr)
	}
	fi1, err := os.Stat(warc)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runMirrorTest(t, "-v", "--warc", warc, s.URL, dir) // without the "/": the same mirror
	unchanged := regexp.MustCompile(`(?m)^urlget: unchanged +d/b\.txt \(304 Not Modified to the recorded ETag "[^"]+" and Last-Modified [^)]+\)$`)
	if code != 0 || !unchanged.MatchString(stderr) || !strings.Contains(stderr, "0 new, 0 changed, 2 unchanged") {
		t.Errorf("second run: exit %d\n%s", code, stderr)
	}
	if fi2, err := os.Stat(warc); err != nil || fi2.Size() <= fi1.Size() {
		t.Errorf("the WARC file did not grow with the second run (%v)", err)
	}
}
