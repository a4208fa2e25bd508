package mirror

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

func TestEncodeName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain.txt", "plain.txt"},
		{"", "%~empty"},
		{".", "%2E"},
		{"..", "%2E."},
		{"a/b", "a%2Fb"},
		{"a\\b", "a%5Cb"},
		{"100%", "100%"},
		{"100%.txt", "100%.txt"},
		{"a%2Fb", "a%252Fb"},
		{"%~empty", "%25~empty"},
		{"50%off", "50%off"},
		{"%af", "%25af"},
		{"@x", "%40x"},
		{"x@y.z", "x@y.z"},
		{"tab\there", "tab%09here"},
		{"del\x7f", "del%7F"},
		{"c1\u0085x", "c1%C2%85x"},
		{"ok é", "ok é"},
		{"\xff", "%FF"},
		{"line\u2028sep", "line%E2%80%A8sep"},
	} {
		if got := EncodeName(tc.in); got != tc.want {
			t.Errorf("EncodeName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := strings.Repeat("é", 200) // 400 bytes
	a, b := EncodeName(long), EncodeName(long+"x")
	if len(a) > 255 || len(b) > 255 || a == b || !strings.Contains(a, "%~") {
		t.Errorf("long names: %d and %d bytes, equal %v", len(a), len(b), a == b)
	}
}

func FuzzEncodeName(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a/b", "%41", "\x00", strings.Repeat("x", 300), "100%", "%~x", "%%41", "%4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := EncodeName(s)
		if e == "" || e == "." || e == ".." || strings.ContainsAny(e, "/\\\x00") || len(e) > 255 || e[0] == '.' || e[0] == '@' {
			t.Fatalf("EncodeName(%q) = %q", s, e)
		}
		for i := 0; i < len(e); i++ {
			if e[i] < 0x20 || e[i] == 0x7f {
				t.Fatalf("EncodeName(%q) = %q holds a control byte", s, e)
			}
		}
		// One to one (below the length cut): a different name, a
		// different result, and DecodeName gives the name back.
		if len(s) < 60 && EncodeName(s+"x") == e {
			t.Fatalf("EncodeName(%q) = EncodeName(%q)", s, s+"x")
		}
		if len(e) < 200 && s != "" && DecodeName(e) != s {
			t.Fatalf("DecodeName(EncodeName(%q)) = %q", s, DecodeName(e))
		}
	})
}

func TestSelectorPath(t *testing.T) {
	for _, tc := range []struct {
		sel  string
		want []string
	}{
		{"", nil},
		{"/", nil},
		{"/docs/one.txt", []string{"docs", "one.txt"}},
		{"docs//x/", []string{"docs", "x"}},
		{"/../../etc", []string{"%2E.", "%2E.", "etc"}},
		{"/a/gophermap", []string{"a", "%67ophermap"}},
		{"/@h:70/x", []string{"%40h:70", "x"}},
		// gophernicus's escapes are decoded: one name, however spelt.
		{"/pub/dir#040with#040spaces/", []string{"pub", "dir with spaces"}},
		{"/pub/100#045.txt", []string{"pub", "100%.txt"}},
		{"/a#043b/c#057d/#056#056", []string{"a#b", "c%2Fd", "%2E."}},
		{"/#400/#12/#8", []string{"#400", "#12", "#8"}},
	} {
		if got := SelectorPath(tc.sel); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SelectorPath(%q) = %q, want %q", tc.sel, got, tc.want)
		}
	}
}

func TestPathTable(t *testing.T) {
	p := newPathTable()
	if got := p.claimFile("u1", []string{"a"}); got != "a" {
		t.Errorf("first file: %q", got)
	}
	// "a" is a file: a directory "a" goes elsewhere, consistently.
	if got := p.claimFile("u2", []string{"a", "b"}); got != "a%!2/b" {
		t.Errorf("file under a file: %q", got)
	}
	if got := p.claimFile("u3", []string{"a", "c"}); got != "a%!2/c" {
		t.Errorf("second file under it: %q", got)
	}
	// A file where a directory is: elsewhere.
	if got := p.claimFile("u4", []string{"a%!2"}); got != "a%!2%!2" {
		t.Errorf("file on a directory: %q", got)
	}
	// The same URL gets its path back; another URL does not.
	if got := p.claimFile("u1", []string{"a"}); got != "a" {
		t.Errorf("again: %q", got)
	}
	if got := p.claimFile("u5", []string{"a"}); got != "a%!2%!3" && got != "a%!3" {
		t.Errorf("another URL, same name: %q", got)
	}
	if got := p.claimDir("m1", []string{"d"}); got != "d" {
		t.Errorf("dir: %q", got)
	}
	if got := p.claimDir("m2", []string{"d"}); got != "d%!2" {
		t.Errorf("another menu, same directory: %q", got)
	}
}

func TestRobots(t *testing.T) {
	r := parseRobots([]byte(`# comment
User-agent: someone-else
Disallow: /

User-agent: *
Disallow: /private
Allow: /private/open
Disallow: cgi-bin

User-agent: URLGet
Disallow: /only-for-urlget
`), "urlget")
	for sel, want := range map[string]bool{
		"/only-for-urlget/x": false,
		"/private":           true, // urlget's own group applies, not "*"
		"/anything":          true,
	} {
		if got := r.allows(sel); got != want {
			t.Errorf("urlget group: allows(%q) = %v, want %v", sel, got, want)
		}
	}
	r = parseRobots([]byte("User-agent: *\nDisallow: /private\nAllow: /private/open\nDisallow: cgi-bin\n"), "urlget")
	for sel, want := range map[string]bool{
		"/private/x":      false,
		"private/x":       false,
		"/private/open/y": true,
		"/cgi-bin/s.cgi":  false,
		"/public":         true,
		"":                true,
	} {
		if got := r.allows(sel); got != want {
			t.Errorf("* group: allows(%q) = %v, want %v", sel, got, want)
		}
	}
	if !parseRobots([]byte("User-agent: *\nDisallow:\n"), "urlget").allows("/x") {
		t.Errorf("an empty Disallow allows everything")
	}
}

func TestFilter(t *testing.T) {
	f, err := newFilter([]string{"*.txt", "docs/*.bin"}, []string{"tmp", "secret*"})
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{
		"a.txt": true, "x/y/a.txt": true, "docs/a.bin": true, "x/docs/a.bin": false, "a.bin": false,
		"secret.txt": false, "x/secret-plan.txt": false,
	} {
		if got := f.file(rel); got != want {
			t.Errorf("file(%q) = %v, want %v", rel, got, want)
		}
	}
	for rel, want := range map[string]bool{"tmp": false, "x/tmp": false, "docs": true} {
		if got := f.dir(rel); got != want {
			t.Errorf("dir(%q) = %v, want %v", rel, got, want)
		}
	}
	if _, err := newFilter([]string{"["}, nil); err == nil {
		t.Errorf("a bad pattern is accepted")
	}
}

// journalSample is a manifest as a run killed mid-line leaves it: a URL
// written twice, one deleted, the last line cut.
const journalSample = `{"urlget_mirror":"urlget","version":1,"url":"ftp://h/"}
{"url":"ftp://h/a","path":"a","type":"file","size":1,"status":"ok"}
{"url":"ftp://h/b","path":"b","type":"file","size":2,"status":"ok"}
{"url":"ftp://h/a","path":"a","type":"file","size":3,"status":"ok"}
{"url":"ftp://h/b","type":"file","size":0,"status":"deleted"}
{"url":"ftp://h/c","path":"c","ty`

func TestManifestJournal(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte(journalSample), 0o644); err != nil {
		t.Fatal(err)
	}
	url, recs, err := ReadManifest(dir)
	if err != nil || url != "ftp://h/" || len(recs) != 1 || recs[0].URL != "ftp://h/a" || recs[0].Size != 3 {
		t.Errorf("ReadManifest = %q, %+v, %v (the last line for a URL counts, a cut line is skipped)", url, recs, err)
	}
	// Another URL into the same directory is refused.
	_, err = Run(context.Background(), Options{URL: "ftp://127.0.0.1:1/", Dir: dir})
	if !errors.Is(err, ErrManifestMismatch) {
		t.Errorf("another URL: %v", err)
	}
}

func TestFTPLimitsAndFilters(t *testing.T) {
	s := ftptest.New(t)
	ftpTree(s)
	url := "ftp://" + s.Addr + "/pub/"

	// --include/--exclude.
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: url, Dir: dir, Include: []string{"*.txt"}, Exclude: []string{"c"}})
	got := keys(tree(t, dir))
	if want := []string{"a/one.txt", "readme.txt", "space dir/f g.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("filtered: %q, want %q", got, want)
	}
	if sum.New != 3 {
		t.Errorf("filtered: %d new", sum.New)
	}

	// --max-depth 1: the top and one level below.
	dir = t.TempDir()
	sum, err := Run(context.Background(), Options{URL: url, Dir: dir, MaxDepth: 1})
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "mirror.Options.MaxDepth 1 reached") {
		t.Errorf("max-depth: %v", err)
	}
	if got, want := keys(tree(t, dir)), []string{"a/one.txt", "link", "readme.txt", "space dir/f g.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("max-depth: %q, want %q", got, want)
	}

	// --max-files 2: two files, and no deletion of what was not reached.
	dir = t.TempDir()
	sum, err = Run(context.Background(), Options{URL: url, Dir: dir, MaxFiles: 2, Parallel: 1})
	if !errors.Is(err, ErrIncomplete) || sum.New != 2 || sum.Links != 1 || len(tree(t, dir)) != 3 { // and the link
		t.Errorf("max-files: %v, %+v", err, countsOf(sum))
	}

	// --max-bytes: stops.
	dir = t.TempDir()
	_, err = Run(context.Background(), Options{URL: url, Dir: dir, MaxBytes: 100, Parallel: 1})
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "mirror.Options.MaxBytes 100 reached") {
		t.Errorf("max-bytes: %v", err)
	}

	// --dry-run writes nothing at all.
	dir = filepath.Join(t.TempDir(), "never")
	sum, err = Run(context.Background(), Options{URL: url, Dir: dir, DryRun: true})
	if err != nil || sum.New != 5 {
		t.Errorf("dry run: %v %+v", err, countsOf(sum))
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("dry run made the directory: %v", err)
	}
}

func TestFTPFallbacks(t *testing.T) {
	// No EPSV (PASV only), no MLSD, LIST refused: NLST and SIZE.
	s := ftptest.New(t)
	s.AddFile("d/f1.txt", []byte("one"), t1)
	s.AddFile("g.txt", []byte("gee"), t1)
	list := ftptest.Reply("LIST", "502 LIST not here")
	configure(s, func(srv *ftptest.Server) {
		srv.NoEPSV, srv.NoMLSD = true, true
		srv.Features = []string{"PASV", "SIZE"}
		srv.Hook = list
	})
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: "ftp://" + s.Addr + "/", Dir: dir})
	if sum.New != 2 || sum.Dirs != 2 {
		t.Errorf("%+v", countsOf(sum))
	}
	if got := tree(t, dir); got["d/f1.txt"] != "one" || got["g.txt"] != "gee" {
		t.Errorf("tree %q", got)
	}
	var verbs []string
	for _, l := range s.Lines() {
		v, _, _ := strings.Cut(l, " ")
		if v == "EPSV" || v == "PASV" || v == "NLST" || v == "LIST" {
			if len(verbs) == 0 || verbs[len(verbs)-1] != v {
				verbs = append(verbs, v)
			}
		}
	}
	if verbs[0] != "EPSV" || !strings.Contains(strings.Join(verbs, " "), "NLST") {
		t.Errorf("commands: %q", verbs)
	}
}

func TestGopherDocFacts(t *testing.T) {
	for _, tc := range []struct {
		display  string
		date     string
		lo, hi   int64
		sizeText string
	}{
		{"doc.txt                               2026-Dec-06 19:54     0.0 KB", "2026-12-06T19:54:00Z", 0, 52, "0.0 KB"},
		{"big.bin                               2026-Dec-06 19:54    50.0 MB", "2026-12-06T19:54:00Z", 52376370, 52481229, "50.0 MB"},
		{"f1076                                 2026-Dec-06 19:57     1.1 KB", "2026-12-06T19:57:00Z", 1074, 1178, "1.1 KB"},
		{"c                                     2026-Dec-06 19:54   --------", "2026-12-06T19:54:00Z", 0, -1, ""},
		{"Hello", "", 0, -1, ""},
		{"a file of 50.0 MB", "", 0, -1, ""},
	} {
		f := menuDocFacts(tc.display)
		date := ""
		if !f.date.IsZero() {
			date = f.date.Format(time.RFC3339)
		}
		if date != tc.date || f.lo != tc.lo || f.hi != tc.hi || f.sizeText != tc.sizeText {
			t.Errorf("menuDocFacts(%q) = %s %d..%d %q, want %s %d..%d %q", tc.display, date, f.lo, f.hi, f.sizeText, tc.date, tc.lo, tc.hi, tc.sizeText)
		}
	}
	f := menuDocFacts("x  2026-Dec-06 19:54    50.0 MB")
	if f.fits(30098346) || !f.fits(52428800) {
		t.Errorf("50.0 MB: fits(30098346) %v, fits(52428800) %v", f.fits(30098346), f.fits(52428800))
	}
	fetched := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		mtime, src string
		want       bool
	}{
		{"2026-12-06T19:59:00Z", "menu", true},  // the minute of the fetch (UTC)
		{"2026-12-06T08:00:00Z", "menu", true},  // could be UTC-12's 20:00
		{"2026-12-06T07:57:00Z", "menu", false}, // over before the fetch in every zone
		{"2026-12-06T07:58:59Z", "gopher+", false},
		{"2026-12-06T07:59:00Z", "gopher+", true},
		{"2026-12-06T19:59:10Z", "http", true}, // GMT, the second: within a minute's skew
		{"2026-12-06T19:59:10Z", "mdtm", true},
		{"2026-12-06T19:59:10Z", "mlsd", true},
		{"2026-12-06T19:59:10Z", "list-noyear", true},
		{"2026-12-06T19:58:00Z", "mdtm", false}, // UTC: over more than a minute before the fetch
		{"2026-12-06T19:58:00Z", "http", false},
		{"2026-12-06T08:00:00Z", "list-noyear", true}, // an ls minute, any zone
		{"2026-12-06T19:59:00Z", "", false},           // no date that decides
	} {
		r := Record{MTime: tc.mtime, MTimeSource: tc.src, Fetched: fetched.Format(time.RFC3339Nano)}
		if got := racy(r); got != tc.want {
			t.Errorf("racy(%s %s, fetched %s) = %v, want %v", tc.mtime, tc.src, fetched, got, tc.want)
		}
	}
}
