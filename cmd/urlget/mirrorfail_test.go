package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/mirror"
)

// Issue 16, Found 7: a mirror that cannot start says so in one line, with
// the right exit code, no summary, and no empty DIR left behind; an
// interrupted one prints no summary either.
func TestMirrorFailsInOneLine(t *testing.T) {
	closed := testserver.FreeAddr(t) // nothing listens there
	for _, tc := range []struct {
		url  string
		code int
		msg  string
	}{
		{"telnet://" + closed + "/", 1, "only ftp, http, https, gopher and gophers URLs can be mirrored, not telnet"},
		{"http://" + closed + "/", 7, "could not connect to " + closed + ": connection refused"},
		{"gopher://" + closed + "/1", 7, "could not connect to " + closed + ": connection refused"},
	} {
		dir := filepath.Join(t.TempDir(), "new")
		code, stdout, stderr := runMirrorTest(t, "--retry", "0", "--json", tc.url, dir)
		if code != tc.code || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.msg) || strings.Contains(stderr, "urlget: mirrored") || stdout != "" {
			t.Errorf("%s: exit %d (want %d), stdout %q, stderr %q", tc.url, code, tc.code, stdout, stderr)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s: %s left behind (%v)", tc.url, dir, err)
		}
	}

	s, _ := mirrorSite(t, 20, 200*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	code := runMirrorWith(ctx, env{args: []string{"-P", "1", s.URL("1"), t.TempDir()}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb},
		func(c *mirrorCmd, o *mirror.Options) {})
	if code != mirrorExitInterrupt || strings.Contains(errb.String(), "urlget: mirrored") || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("interrupted: exit %d, %q", code, errb.String())
	}
}
