package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/mirror"
)

// mirrorSite is a small gopher hole: a root menu, a sub-menu, n documents.
func mirrorSite(t *testing.T, n int, slow time.Duration) (*gophertest.Server, *gophertest.Site) {
	return sizedSite(t, n, 0, slow)
}

// sizedSite is mirrorSite with documents of about size bytes (0: a line),
// made before the server starts: its goroutines read them.
func sizedSite(t *testing.T, n, size int, slow time.Duration) (*gophertest.Server, *gophertest.Site) {
	site := &gophertest.Site{Items: map[string]*gophertest.Item{}}
	root := &gophertest.Item{Type: '1', Menu: []string{"iA test hole", "1Docs\t/docs", "7Search\t/search"}}
	docs := &gophertest.Item{Type: '1'}
	for i := 0; i < n; i++ {
		sel := fmt.Sprintf("/docs/d%02d.txt", i)
		docs.Menu = append(docs.Menu, "0Doc\t"+sel)
		data := []byte(fmt.Sprintf("document %d\n", i))
		if size > 0 {
			data = bytes.Repeat([]byte(sel+" "), size/(len(sel)+1))
		}
		site.Items[sel] = &gophertest.Item{Type: '0', Data: data}
	}
	site.Items[""] = root
	site.Items["/docs"] = docs
	var h gophertest.Handler = site
	if slow > 0 {
		h = gophertest.HandlerFunc(func(c *gophertest.Conn, r *gophertest.Request) {
			if strings.HasSuffix(r.Selector, ".txt") {
				select {
				case <-time.After(slow):
				case <-c.Done():
					return
				}
			}
			site.ServeGopher(c, r)
		})
	}
	return gophertest.Start(t, h), site
}

// runMirrorTest runs the mirror command in-process.
func runMirrorTest(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runMirrorWith(context.Background(), env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb},
		func(c *mirrorCmd, o *mirror.Options) { o.RetryWait = time.Millisecond })
	return code, out.String(), errb.String()
}

func TestMirrorUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "want a URL and a directory, got 0 arguments"},
		{[]string{"gopher://h/"}, "want a URL and a directory, got 1 argument"},
		{[]string{"--bogus", "gopher://h/", "d"}, "unknown flag: --bogus"},
		{[]string{"-P", "0", "gopher://h/", "d"}, "-P/--parallel: want at least 1, not 0"},
		{[]string{"--max-bytes", "lots", "gopher://h/", "d"}, "--max-bytes: want a byte count"},
		{[]string{"--retry-delay", "-1", "gopher://h/", "d"}, "--retry-delay: want a number of seconds"},
		{[]string{"--max-files", "0", "gopher://h/", "d"}, "--max-files: want at least 1"},
	} {
		code, _, stderr := runMirrorTest(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	code, stdout, _ := runMirrorTest(t, "--help")
	if code != 0 || !strings.Contains(stdout, "usage: urlget mirror [options] URL DIR") || !strings.Contains(stdout, "--max-delete N") {
		t.Errorf("--help: exit %d\n%s", code, stdout)
	}
}

// --retry and --max-delete count as curl and wget do (0: none; -1: no
// limit) and land in the mirror.Options fields, whose zero is the
// default; --ftp-email and --trace in the Client.
func TestMirrorFlagFields(t *testing.T) {
	for _, tc := range []struct {
		args                 []string
		retries, deleteLimit int
	}{
		{nil, mirror.DefaultRetries, 0},
		{[]string{"--retry", "0", "--max-delete", "0"}, -1, -1},
		{[]string{"--retry", "5", "--max-delete", "-1"}, 5, 0},
		{[]string{"--max-delete", "7"}, mirror.DefaultRetries, 7},
	} {
		o, err := parseMirrorArgs(env{stderr: io.Discard}, append(tc.args, "ftp://h/", "d"))
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if opt := o.options(); opt.Retries != tc.retries || opt.DeleteLimit != tc.deleteLimit {
			t.Errorf("%q: Retries %d, DeleteLimit %d; want %d, %d", tc.args, opt.Retries, opt.DeleteLimit, tc.retries, tc.deleteLimit)
		}
	}
	if o, err := parseMirrorArgs(env{stderr: io.Discard}, []string{"--parents", "gopher://h/1/pub/", "d"}); err != nil || !o.options().Parents {
		t.Errorf("--parents: %v, Parents not set", err)
	}
	o, err := parseMirrorArgs(env{stderr: io.Discard}, []string{"--trace", "--ftp-email", "me@here", "ftp://h/", "d"})
	if cl := o.options().Client; err != nil || cl.Verbose == nil || cl.Options["ftp-email"] != "me@here" {
		t.Errorf("--trace --ftp-email: %v, %+v", err, cl)
	}
}

func TestMirrorCommand(t *testing.T) {
	s, site := mirrorSite(t, 5, 0)
	dir := filepath.Join(t.TempDir(), "m")
	url := s.URL("1")
	code, stdout, stderr := runMirrorTest(t, "--json", "-v", url, dir)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var sum mirror.Summary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	if sum.New != 5 || sum.Dirs != 2 || sum.Recorded != 1 || sum.URL != url || sum.Dir != dir {
		t.Errorf("summary %+v", sum)
	}
	if n := strings.Count(stderr, "urlget: new       docs/d0"); n != 5 {
		t.Errorf("%d 'new' lines, want 5:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "5 new, 0 changed, 0 unchanged, 0 deleted, 0 failed; 2 directories") {
		t.Errorf("summary line:\n%s", stderr)
	}
	for i := 0; i < 5; i++ {
		b, err := os.ReadFile(filepath.Join(dir, "docs", fmt.Sprintf("d%02d.txt", i)))
		if err != nil || string(b) != fmt.Sprintf("document %d\n", i) {
			t.Errorf("d%02d.txt: %q %v", i, b, err)
		}
	}

	// Again: nothing to do.
	code, _, stderr = runMirrorTest(t, url, dir)
	if code != 0 || !strings.Contains(stderr, "0 new, 0 changed, 5 unchanged") {
		t.Errorf("second run: exit %d\n%s", code, stderr)
	}

	// A document disappears from the menu, one fails: --dry-run --delete
	// says what it would do, then the real run deletes and exits 4.
	docs := site.Items["/docs"]
	docs.Menu = append(docs.Menu[1:], "0Broken\t/docs/broken.txt")
	site.Items["/docs/broken.txt"] = &gophertest.Item{Type: '0', ErrorCode: 2, Data: []byte("try again later")}
	code, _, stderr = runMirrorTest(t, "--dry-run", "--delete", url, dir)
	if code != 0 || !strings.Contains(stderr, "would delete docs/d00.txt") || !strings.Contains(stderr, "would get docs/broken.txt (new)") ||
		!strings.Contains(stderr, "would delete 1, ") || strings.Contains(stderr, "1 deleted") {
		t.Errorf("--dry-run: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs/d00.txt")); err != nil {
		t.Errorf("--dry-run deleted: %v", err)
	}
	code, _, stderr = runMirrorTest(t, "--delete", "--retry", "1", url, dir)
	if code != 4 || !strings.Contains(stderr, "failed    docs/broken.txt: ") || !strings.Contains(stderr, "1 deleted") ||
		!strings.Contains(stderr, "mirror incomplete: 1 item failed") {
		t.Errorf("--delete with a failure: exit %d, want 4\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs/d00.txt")); !os.IsNotExist(err) {
		t.Errorf("d00.txt not deleted: %v", err)
	}

	// The directory belongs to this URL.
	other, _ := mirrorSite(t, 1, 0)
	code, _, stderr = runMirrorTest(t, other.URL("1"), dir)
	if code != 1 || !strings.Contains(stderr, "is a mirror of "+url) {
		t.Errorf("another URL into the same directory: exit %d\n%s", code, stderr)
	}
}

func TestMirrorExitCodes(t *testing.T) {
	closed := testserver.FreeAddr(t) // nothing listens there
	dir := t.TempDir()
	for _, tc := range []struct {
		url  string
		code int
	}{
		{"gopher://" + closed + "/1", 7},
		{"ftp://" + closed + "/", 7},
		{"telnet://" + closed + "/", 1},
		{"http://" + closed + "/", 7},
		{"gopher://[bad/", 3},
	} {
		code, _, stderr := runMirrorTest(t, tc.url, dir)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", tc.url, code, tc.code, stderr)
		}
	}
	// Runs that read nothing leave no manifest behind (it would tie the
	// directory to a mistyped URL).
	if _, err := os.Stat(filepath.Join(dir, mirror.ManifestName)); !os.IsNotExist(err) {
		t.Errorf("a failed run left a manifest: %v", err)
	}
	// A menu that is not there.
	s, _ := mirrorSite(t, 1, 0)
	code, _, stderr := runMirrorTest(t, s.URL("1/nothing"), filepath.Join(dir, "nothing"))
	if code != 78 {
		t.Errorf("missing menu: exit %d, want 78\n%s", code, stderr)
	}
}

func TestMirrorProgressOnTerminal(t *testing.T) {
	s, _ := mirrorSite(t, 3, 0)
	var out, errb bytes.Buffer
	code := runMirrorWith(context.Background(), env{args: []string{s.URL("1"), t.TempDir()}, stdout: &out, stderr: &errb},
		func(c *mirrorCmd, o *mirror.Options) {
			c.isTerminal = func(io.Writer) bool { return true }
			c.out.Width = func() int { return 60 }
		})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	// The last progress line (drawn once more at the end) and its erasure.
	got := errb.String()
	if !strings.Contains(got, "\r\x1b[K3/3 files, 2 dirs, ") || !strings.Contains(got, "\r\x1b[Kurlget: mirrored ") {
		t.Errorf("stderr %q", got)
	}
}

// TestMirrorKilledResumes kills a running urlget mirror (SIGKILL: no
// chance to clean up) and runs it again: what was finished is not fetched
// again.
func TestMirrorKilledResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "urlget")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	s, _ := mirrorSite(t, 40, 30*time.Millisecond)
	dir := t.TempDir()
	cmd := exec.Command(bin, "mirror", "-v", "-P", "2", s.URL("1"), dir)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	n := 0
	for sc.Scan() {
		if strings.Contains(sc.Text(), "urlget: new ") {
			if n++; n == 10 {
				cmd.Process.Kill()
				break
			}
		}
	}
	go io.Copy(io.Discard, stderr)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("wait: %v, want killed", err)
	}
	_, recs, err := mirror.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	finished := map[string]bool{}
	for _, r := range recs {
		if r.Type == mirror.TypeFile && r.Status == mirror.StatusOK {
			finished[r.Path] = true
		}
	}
	if len(finished) < 10 || len(finished) >= 40 {
		t.Fatalf("%d files in the manifest after the kill, want 10 to 39", len(finished))
	}
	before := len(s.Requests())
	code, stdout, errOut := runMirrorTest(t, "--json", s.URL("1"), dir)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, errOut)
	}
	var sum mirror.Summary
	json.Unmarshal([]byte(stdout), &sum)
	if sum.Unchanged != int64(len(finished)) || sum.New != int64(40-len(finished)) {
		t.Errorf("rerun: %d unchanged, %d new; want %d and %d", sum.Unchanged, sum.New, len(finished), 40-len(finished))
	}
	for _, r := range s.Requests()[before:] {
		if finished[strings.TrimPrefix(r.Selector, "/")] {
			t.Errorf("rerun fetched %s again", r.Selector)
		}
	}
	// Nothing half-written is left.
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasPrefix(fi.Name(), ".urlget-tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}
