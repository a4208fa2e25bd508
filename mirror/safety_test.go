package mirror

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/urlparse"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// hostileNames are names a server might send to escape the mirror's
// directory or confuse it, with where each must land.
var hostileNames = []struct{ name, local string }{
	{"../../../escape.txt", "%2E.%2F..%2F..%2Fescape.txt"},
	{"/etc/abs.txt", "%2Fetc%2Fabs.txt"},
	{"..", ""}, // never an item
	{".", ""},
	{".hidden", "%2Ehidden"},
	{".urlget-mirror.jsonl", "%2Eurlget-mirror.jsonl"},
	{"back\\..\\slash", "back%5C..%5Cslash"},
	{"ctl\x01\x1b[31mred\x7f", "ctl%01%1B[31mred%7F"},
	{"bad\xff\xfeutf8", "bad%FF%FEutf8"},
	{"per%41cent", "per%2541cent"},
	{"100%.txt", "100%.txt"},
	{"@host:70", "%40host:70"},
	{"ok ünïcode name", "ok ünïcode name"},
	{strings.Repeat("L", 300), strings.Repeat("L", 237) + "%~"}, // + 16 hex digits
}

// outsideUntouched checks that base holds only the entries it held before.
func outsideUntouched(t *testing.T, base string, want ...string) {
	t.Helper()
	got := fetchtest.DirNames(t, base)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outside the mirror: %q, want only %q", got, want)
	}
}

func checkLocal(t *testing.T, got map[string]string, name, local string) {
	t.Helper()
	if local == "" {
		return
	}
	if strings.HasSuffix(local, "%~") {
		for p, d := range got {
			if strings.HasPrefix(p, local) && len(p) == len(local)+16 && d == name {
				return
			}
		}
		t.Errorf("no file for the long name (want %s + 16 hex digits)", local)
		return
	}
	if d, ok := got[local]; !ok || d != name {
		t.Errorf("%q: local %q holds %q (present %v)", name, local, d, ok)
	}
}

func TestFTPHostileNames(t *testing.T) {
	s := ftptest.New(t)
	configure(s, func(srv *ftptest.Server) { srv.NoMLSD = true })
	configure(s, func(srv *ftptest.Server) { srv.Features = []string{"EPSV", "MDTM"} })
	var lines []string
	for _, h := range hostileNames {
		lines = append(lines, ftptest.ListLine(h.name, false, len(h.name), t1, ""))
	}
	lines = append(lines, ftptest.ListLine("..", true, 4096, t1, ""), ftptest.ListLine(".", true, 4096, t1, ""))
	list := ftptest.ListingLines(lines...)
	configure(s, func(srv *ftptest.Server) {
		srv.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			switch verb {
			case "LIST", "NLST", "MLSD":
				return list(ss, verb, arg)
			case "RETR":
				// Every name is a file whose content is its name.
				ss.Reply(150, "here it comes")
				dc, err := ss.OpenData()
				if err != nil {
					ss.Reply(425, "no data connection")
					return true
				}
				io.WriteString(dc, arg)
				dc.Close()
				ss.Reply(226, "done")
				return true
			}
			return false
		}
	})
	base := t.TempDir()
	dir := filepath.Join(base, "m")
	sum, err := Run(context.Background(), Options{URL: "ftp://" + s.Addr + "/", Dir: dir})
	if err != nil {
		t.Fatalf("err %v (%+v)", err, sum.Failures)
	}
	got := tree(t, dir)
	n := 0
	for _, h := range hostileNames {
		checkLocal(t, got, h.name, h.local)
		if h.local != "" {
			n++
		}
	}
	if len(got) != n {
		t.Errorf("%d files in the mirror, want %d: %q", len(got), n, keys(got))
	}
	outsideUntouched(t, base, "m")
	// The manifest maps each local name back to the server's.
	for _, r := range records(t, dir) {
		if r.Type == TypeFile && r.Path != EncodeName(r.Name) && r.Name != "" {
			t.Errorf("record %q: path %q is not EncodeName(name)", r.Name, r.Path)
		}
		if r.Type == TypeFile && r.Name == "" && r.Path != "ok ünïcode name" && r.Path != "100%.txt" && r.Path != "bad%FF%FEutf8" {
			t.Errorf("record for %q has no name", r.Path)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestGopherHostileSelectors(t *testing.T) {
	h := newHole(t)
	var lines []string
	for _, n := range hostileNames {
		if n.name == "." || n.name == ".." {
			continue
		}
		sel := n.name
		lines = append(lines, "0x\t"+sel)
		h.file(sel, []byte(n.name))
	}
	// A selector that is a path: each segment is encoded on its own.
	lines = append(lines, "0deep\t/a/../../b/./c")
	h.file("/a/../../b/./c", []byte("deep"))
	// A CR cannot go on the wire: refused, not fetched.
	lines = append(lines, "0cr\t/cr\rx")
	lines = append(lines, "0gophermap\t/sub/gophermap")
	h.file("/sub/gophermap", []byte("not the rewritten map"))
	h.menu("", lines...)
	base := t.TempDir()
	dir := filepath.Join(base, "m")
	sum, err := Run(context.Background(), Options{URL: h.url('1', ""), Dir: dir, RewriteMenus: true})
	if err != nil {
		t.Fatalf("err %v (%+v)", err, sum.Failures)
	}
	crURL := urlparse.GopherURL("gopher", h.srv.Host, h.srv.Port, '0', "/cr\rx")
	if r := records(t, dir)[crURL]; r.Status != StatusSkipped || !strings.Contains(r.Error, "CR") {
		t.Errorf("CR selector: %+v", r)
	}
	if sum.Skipped != 1 {
		t.Errorf("skipped %d, want 1 (the CR selector)", sum.Skipped)
	}
	got := tree(t, dir)
	for _, n := range hostileNames {
		local := n.local
		switch n.name {
		case "../../../escape.txt":
			local = "%2E./%2E./%2E./escape.txt"
		case "/etc/abs.txt":
			local = "etc/abs.txt"
		}
		checkLocal(t, got, n.name, local)
	}
	if got["a/%2E./%2E./b/%2E/c"] != "deep" {
		t.Errorf("deep selector: %q", keys(got))
	}
	if got["sub/%67ophermap"] != "not the rewritten map" {
		t.Errorf("an item named gophermap: %q", keys(got))
	}
	outsideUntouched(t, base, "m")
}

func TestNoWritingThroughSymlinks(t *testing.T) {
	h := basicHole(t)
	base := t.TempDir()
	dir := filepath.Join(base, "m")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(outside, "target")
	if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	// DIR/docs leads out of the tree; DIR/hello.txt is a link to a file
	// outside.
	if err := os.Symlink(outside, filepath.Join(dir, "docs")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "hello.txt")); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(context.Background(), Options{URL: h.url('1', ""), Dir: dir, RetryWait: time.Millisecond})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err = %v, want ErrIncomplete", err)
	}
	// The docs menu and its two documents cannot be written: failed.
	if sum.Failed != 1 || sum.New != 2 {
		t.Errorf("failed %d new %d, want 1 and 2 (%+v)", sum.Failed, sum.New, sum.Failures)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Errorf("the file outside was written: %q", b)
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 {
		t.Errorf("outside holds %d entries, want 1", len(ents))
	}
	// hello.txt: the link itself was replaced by the file.
	fi, err := os.Lstat(filepath.Join(dir, "hello.txt"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("hello.txt: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "docs")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("docs link: %v %v", fi, err)
	}
}

func TestGopherMenuCycles(t *testing.T) {
	// Menus that contain themselves and each other, under several
	// spellings of their selectors.
	h := newHole(t)
	h.menu("", "1Self\t/", "1A\t/a", "1Root again\t", "0f\t/f")
	h.menu("/a", "1B\t/b/", "1A again\t/a/", "1Up\t/")
	h.menu("/b/", "1A\t/a", "1B\t/b", "0g\t/b/g")
	h.file("/f", []byte("f"))
	h.file("/b/g", []byte("g"))
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: h.url('1', ""), Dir: dir, MaxDepth: -1})
	if got, want := countsOf(sum), (counts{New: 2, Dirs: 3}); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	if got, want := h.requested(0), []string{"", "/a", "/b/", "/b/g", "/f", "/robots.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("requests = %q, want %q", got, want)
	}
}

// TestDirViewRefusesLinks: a listing's directory opened for its lookups
// (dirView) answers as intact does: a directory that is a symbolic link, or
// below one, is not looked into, and a file of another directory is asked
// of the mirror's root.
func TestDirViewRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"real/f", "a/b/f", "top"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte("abc"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real", filepath.Join(dir, "a/sub")); err != nil {
		t.Fatal(err)
	}
	l, err := openLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	for _, c := range []struct {
		dir, file string
		size      int64
		want      bool
	}{
		{"real", "real/f", 3, true},
		{"real", "real/f", 4, false},
		{"real", "real/none", -1, false},
		{"a/b", "a/b/f", 3, true},
		{"a/b", "real/f", 3, true}, // another directory: asked of the root
		{"link", "link/f", 3, false},
		{"a/sub", "a/sub/f", 3, false},
		{"none", "none/f", -1, false},
		{"", "top", 3, true},
	} {
		v := l.view(c.dir)
		if got := v.intact(c.file, c.size); got != c.want {
			t.Errorf("view(%q).intact(%q, %d) = %v, want %v", c.dir, c.file, c.size, got, c.want)
		}
		if got := l.intact(c.file, c.size); got != c.want {
			t.Errorf("intact(%q, %d) = %v, want %v", c.file, c.size, got, c.want)
		}
		v.close()
	}
}
