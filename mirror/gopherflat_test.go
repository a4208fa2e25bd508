package mirror

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// TestRealGopherDocsSpilled: the gopher walk tells a document linked
// before by its keySet and lets the path table drop a menu's files once
// it is read; forced to spill both after a few entries, a gophernicus hole
// whose menus link each other's documents (twice, under another item
// type, and menus in a cycle) is mirrored whole, each document fetched
// once, and a rerun fetches none.
func TestRealGopherDocsSpilled(t *testing.T) {
	oldMem, oldBlock, oldDrop := keySetMem, keyBlock, dropFiles
	keySetMem, keyBlock, dropFiles = 4, 2, 2
	t.Cleanup(func() { keySetMem, keyBlock, dropFiles = oldMem, oldBlock, oldDrop })
	root := t.TempDir()
	want := map[string]string{}
	for _, d := range []string{"a", "b", "c", "c/d"} {
		for i := range 6 {
			rel := fmt.Sprintf("%s/f%d.txt", d, i)
			fetchtest.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), rel+"\n", t1)
			want[rel] = rel + "\r\n"
		}
	}
	// x's menu links documents of a, b and c/d (one twice, one as type 9
	// too), the menu a and the root (a cycle).
	fetchtest.WriteFile(t, filepath.Join(root, "x", "gophermap"),
		"iCross links\n0One\t/a/f1.txt\n0One again\t/a/f1.txt\n9One binary\t/a/f1.txt\n0Two\t/b/f2.txt\n0Deep\t/c/d/f3.txt\n1A\t/a\n1Root\t/\n", t1)
	openUp(t, root)
	s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
	var mu sync.Mutex
	fetched := map[string]int{}
	event := func(ev Event) {
		if ev.Kind == EventNew || ev.Kind == EventChanged {
			mu.Lock()
			fetched[ev.Path]++
			mu.Unlock()
		}
	}
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: s.URL("1/"), Dir: dir, Event: event})
	got := map[string]string{}
	for p, v := range tree(t, dir) {
		if !strings.HasSuffix(p, menuFile) {
			got[p] = v
		}
	}
	sameTree(t, got, want)
	for p, n := range fetched {
		if n != 1 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}
	if sum.New != int64(len(want)) || len(fetched) != len(want) {
		t.Errorf("first run: %+v, %d fetched: want %d new, each once", countsOf(sum), len(fetched), len(want))
	}
	clear(fetched)
	sum = mirrorOK(t, Options{URL: s.URL("1/"), Dir: dir, Event: event})
	if sum.New+sum.Changed != 0 || sum.Unchanged != int64(len(want)) || len(fetched) != 0 {
		t.Errorf("rerun: %+v, fetched %v: want all %d unchanged", countsOf(sum), fetched, len(want))
	}
}
