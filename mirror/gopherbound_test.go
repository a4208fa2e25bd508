package mirror

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// boundRoot is a gophernicus root with a start menu /pub/a/b/ deep in it:
// above it a document beside it and the rest of the server, below it a
// sub-menu, a directory whose name gophernicus escapes ("#040") and a
// name with "%" ("#045").
func boundRoot(t *testing.T) string {
	root := t.TempDir()
	for name, data := range map[string]string{
		"top.txt":                               "top\n",
		"pub/other.txt":                         "other\n",
		"pub/a/beside.txt":                      "beside\n",
		"pub/a/b/doc.txt":                       "doc\n",
		"pub/a/b/c/deep.txt":                    "deep\n",
		"pub/a/b/dir with spaces/file name.txt": "spaces\n",
		"pub/a/b/100%.txt":                      "percent\n",
	} {
		fetchtest.WriteFile(t, filepath.Join(root, filepath.FromSlash(name)), data, t1)
	}
	openUp(t, root)
	return root
}

// TestRealGopherBound: on gophernicus, a mirror of /pub/a/b/ stays below
// it (its ".." items are recorded, not followed) and stores what it
// mirrors relative to it, one local directory per server directory
// (gophernicus's "#040" escapes decoded), where today's code climbed the
// ".." items to the whole server, stored by full selector, and split the
// spaced directory in two; --parents mirrors the whole host by full
// selector.
func TestRealGopherBound(t *testing.T) {
	s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: boundRoot(t)})
	want := map[string]string{
		"doc.txt":                       "doc\r\n",
		"c/deep.txt":                    "deep\r\n",
		"100%.txt":                      "percent\r\n",
		"dir with spaces/file name.txt": "spaces\r\n",
	}
	t.Run("Bound", func(t *testing.T) {
		dir := t.TempDir()
		sum := mirrorOK(t, Options{URL: s.URL("1/pub/a/b/"), Dir: dir})
		got := map[string]string{}
		menus := 0
		for p, v := range tree(t, dir) {
			if strings.HasSuffix(p, menuFile) {
				menus++
				if p != menuFile && !strings.HasSuffix(p, "/"+menuFile) {
					t.Errorf("menu at %q", p)
				}
				continue
			}
			got[p] = v
		}
		sameTree(t, got, want)
		if menus != 3 || sum.Dirs != 3 || sum.New != 4 {
			t.Errorf("%d menus saved, %+v: want 3 menus, 4 new", menus, countsOf(sum))
		}
		ext := 0
		for u, r := range records(t, dir) {
			if r.Type == TypeExternal {
				ext++
				if !strings.HasSuffix(u, "/1/pub/a/") || !strings.Contains(r.Error, "parents is off") {
					t.Errorf("external %s: %+v", u, r)
				}
			}
		}
		if ext != 1 {
			t.Errorf("%d external records, want 1 (the start menu's \"..\")", ext)
		}
	})
	t.Run("Parents", func(t *testing.T) {
		dir := t.TempDir()
		mirrorOK(t, Options{URL: s.URL("1/pub/a/b/"), Dir: dir, Parents: true})
		got := tree(t, dir)
		for p, v := range want {
			if got["pub/a/b/"+p] != v {
				t.Errorf("pub/a/b/%s = %q, want %q", p, got["pub/a/b/"+p], v)
			}
		}
		for _, p := range []string{"top.txt", "pub/other.txt", "pub/a/beside.txt", ".gopher-menu", "pub/a/b/.gopher-menu"} {
			if _, ok := got[p]; !ok {
				t.Errorf("--parents: no %s", p)
			}
		}
	})
	t.Run("Document", func(t *testing.T) {
		// A document URL: stored by its name, in DIR itself.
		dir := t.TempDir()
		mirrorOK(t, Options{URL: s.URL("0/pub/a/b/c/deep.txt"), Dir: dir})
		sameTree(t, tree(t, dir), map[string]string{"deep.txt": "deep\r\n"})
	})
}
