package mirror

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
)

// hole is a gopher server for the tests whose items can be changed between
// runs: every reply is exactly the bytes stored for the selector (menus are
// built from lines with the server's host and port added), so that what a
// mirror saves can be compared byte for byte.
type hole struct {
	t     testing.TB
	srv   *gophertest.Server
	mu    sync.Mutex
	raw   map[string][]byte   // selector -> reply
	mn    map[string][]string // selector -> menu lines
	stall map[string]bool     // selectors answered with silence
}

func newHole(t testing.TB) *hole {
	h := &hole{t: t, raw: map[string][]byte{}, mn: map[string][]string{}, stall: map[string]bool{}}
	h.srv = gophertest.Start(t, gophertest.HandlerFunc(h.serve))
	return h
}

func (h *hole) serve(c *gophertest.Conn, r *gophertest.Request) {
	h.mu.Lock()
	stall := h.stall[r.Selector]
	h.mu.Unlock()
	if stall {
		<-c.Done()
		return
	}
	if data, ok := h.reply(r.Selector); ok {
		c.Write(data)
		return
	}
	c.WriteString("3'" + r.Selector + "' does not exist\t\terror.host\t1\r\n.\r\n")
}

// reply is what the server sends for sel.
func (h *hole) reply(sel string) ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if lines, ok := h.mn[sel]; ok {
		return h.render(lines), true
	}
	d, ok := h.raw[sel]
	return d, ok
}

// render makes a menu: a line with fewer than three TABs gets the server's
// host and port ("i" lines a fake selector and host).
func (h *hole) render(lines []string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		switch {
		case strings.Count(l, "\t") >= 3:
		case strings.HasPrefix(l, "i"):
			l += "\tfake\t(NULL)\t0"
		default:
			l += "\t" + h.srv.Host + "\t" + strconv.Itoa(h.srv.Port)
		}
		b.WriteString(l + "\r\n")
	}
	b.WriteString(".\r\n")
	return b.Bytes()
}

func (h *hole) file(sel string, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.raw[sel] = data
}

func (h *hole) menu(sel string, lines ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.mn[sel] = lines
}

func (h *hole) remove(sel string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.raw, sel)
	delete(h.mn, sel)
}

func (h *hole) url(typ byte, sel string) string {
	return h.srv.Scheme() + "://" + h.srv.Addr + "/" + string(typ) + sel
}

// requested returns the selectors asked for since the first n requests.
func (h *hole) requested(n int) []string {
	var out []string
	for _, r := range h.srv.Requests()[n:] {
		out = append(out, r.Line)
	}
	sort.Strings(out)
	return out
}

// mirrorOK runs a mirror that must succeed.
func mirrorOK(t *testing.T, opt Options) Summary {
	t.Helper()
	sum, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatalf("Run: %v\nsummary %+v", err, sum)
	}
	return sum
}

// counts is the part of a summary the tests compare.
type counts struct {
	New, Changed, Unchanged, Deleted, Gone, Failed, Skipped, Recorded, Links, Dirs int64
}

func countsOf(s Summary) counts {
	return counts{s.New, s.Changed, s.Unchanged, s.Deleted, s.Gone, s.Failed, s.Skipped, s.Recorded, s.Links, s.Dirs}
}

// tree lists every file below dir (relative, "/"-separated) with its
// contents, symbolic links as "-> target", leaving out the manifest and
// its lock.
func tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == ManifestName {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func records(t testing.TB, dir string) map[string]Record {
	t.Helper()
	_, recs, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Record{}
	for _, r := range recs {
		m[r.URL] = r
	}
	return m
}

// sameTree fails the test when the trees differ, naming the paths.
func sameTree(t testing.TB, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("missing %q", k)
		case g != v:
			if len(v) > 200 || len(g) > 200 {
				t.Errorf("%q: %d bytes, want %d (contents differ)", k, len(g), len(v))
			} else {
				t.Errorf("%q = %q, want %q", k, g, v)
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected %q", k)
		}
	}
}

var _ = fetch.ErrOther
