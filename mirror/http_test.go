package mirror

import (
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// condLog is an access log format that shows what a request asked with.
// The last field is the connection's serial number.
const condLog = `log_format cond '$request|$status|$http_if_none_match|$http_if_modified_since|$http_range|$connection';`

// httpTree serves a tree on a real nginx (autoindex), with a log of the
// conditions and ranges of each request.
func httpTree(t *testing.T, extra string) (root string, ng *testserver.NginxServer, log func() []string) {
	t.Helper()
	root = t.TempDir()
	files := map[string]string{
		"hello.txt":             "hello, http\n",
		"100%.txt":              "a hundred per cent\n",
		"name with spaces.txt":  "spaces\n",
		"a&b <c>.txt":           "html in a name\n",
		"sub/deep.txt":          "deep\n",
		"sub/sub2/x.bin":        "\x00\x01\x02binary\xff",
		strings.Repeat("L", 80): "a name longer than nginx shows\n",
	}
	for rel, data := range files {
		fetchtest.WriteFile(t, filepath.Join(root, rel), data, t1)
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	logDir := t.TempDir()
	ng = testserver.StartNginx(t, testserver.NginxConfig{Root: root, HTTPExtra: condLog,
		Extra: "access_log " + filepath.Join(logDir, "cond.log") + " cond;\n" + extra})
	read := 0
	log = func() []string {
		// nginx logs a request just after its response: the log is read
		// once it stops growing.
		var b []byte
		for range 50 {
			prev := len(b)
			b, _ = os.ReadFile(filepath.Join(logDir, "cond.log"))
			if len(b) == prev && len(b) > read {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		b = b[read:]
		read += len(b)
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
		return out
	}
	return root, ng, log
}

// An autoindex tree on nginx mirrors byte for byte, names as the server
// has them; the second run asks only conditional requests, all answered
// 304; a change is fetched, a removal deleted with Delete (issue 25).
func TestHTTPMirrorNginx(t *testing.T) {
	root, ng, log := httpTree(t, "")
	dir := t.TempDir()
	url := ng.URL + "/"
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	want := tree(t, root)
	if sum.New != int64(len(want)) || sum.Failed != 0 || sum.Dirs != 4 {
		t.Errorf("first run: %+v, want %d new, 4 dirs", countsOf(sum), len(want))
	}
	sameTree(t, tree(t, dir), want)
	if fi, err := os.Stat(filepath.Join(dir, "empty")); err != nil || !fi.IsDir() {
		t.Errorf("the empty directory was not made: %v", err)
	}
	for rel := range want {
		fi, err := os.Stat(filepath.Join(dir, rel))
		if err != nil || !fi.ModTime().Equal(t1) {
			t.Errorf("%s: mtime %v, want the Last-Modified %v", rel, fi.ModTime(), t1)
		}
	}
	if r := records(t, dir)[url+"hello.txt"]; r.ETag == "" || r.MTimeSource != "http" || r.Status != StatusOK {
		t.Errorf("hello.txt record: %+v", r)
	}
	log()

	// 2. Nothing changed: every file is asked for with its ETag and
	// Last-Modified, and nothing comes back but 304s and the indexes; the
	// workers keep their connections (keep-alive): no more connections
	// than workers.
	sum = mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.Unchanged != int64(len(want)) || sum.New+sum.Changed != 0 {
		t.Errorf("second run: %+v, want all %d unchanged", countsOf(sum), len(want))
	}
	second := log()
	conns := map[string]bool{}
	for _, l := range second {
		f := strings.Split(l, "|")
		conns[f[len(f)-1]] = true
	}
	if len(conns) > DefaultParallel || len(second) <= DefaultParallel {
		t.Errorf("second run: %d requests on %d connections, want at most %d connections (one per worker)",
			len(second), len(conns), DefaultParallel)
	}
	for _, l := range second {
		f := strings.Split(l, "|")
		isIndex := strings.HasSuffix(strings.Fields(f[0])[1], "/")
		if !isIndex && (f[1] != "304" || f[2] == "" || f[3] == "") || isIndex && f[1] != "200" {
			t.Errorf("second run sent %q: want only conditional requests answered 304 (and the indexes)", l)
		}
	}

	// A dry run asks the same with HEAD: nothing would be fetched.
	sum = mirrorOK(t, Options{URL: url, Dir: dir, DryRun: true})
	if sum.Unchanged != int64(len(want)) || sum.New+sum.Changed != 0 {
		t.Errorf("dry run: %+v, want all %d unchanged", countsOf(sum), len(want))
	}
	for _, l := range log() {
		if f := strings.Split(l, "|"); !strings.HasPrefix(f[0], "HEAD ") && !strings.HasSuffix(strings.Fields(f[0])[1], "/") {
			t.Errorf("dry run sent %q: want HEAD requests only (and the indexes)", l)
		}
	}

	// 3. A change of the same size a second later (another ETag and
	// Last-Modified) is fetched; a file removed on the server is deleted.
	fetchtest.WriteFile(t, filepath.Join(root, "hello.txt"), "HELLO, HTTP\n", t1.Add(time.Second))
	os.Remove(filepath.Join(root, "sub", "deep.txt"))
	// A directory that is now a file, a file that is now a directory.
	must(t, os.RemoveAll(filepath.Join(root, "sub", "sub2")))
	fetchtest.WriteFile(t, filepath.Join(root, "sub", "sub2"), "sub2 is a file\n", t1)
	must(t, os.Remove(filepath.Join(root, "100%.txt")))
	fetchtest.WriteFile(t, filepath.Join(root, "100%.txt", "in.txt"), "100%.txt is a directory\n", t1)
	sum = mirrorOK(t, Options{URL: url, Dir: dir, Delete: true})
	if sum.Changed != 1 || sum.New != 2 || sum.Deleted != 1 || sum.Unchanged != int64(len(want))-4 {
		t.Errorf("third run: %+v, want 1 changed, 2 new, 1 deleted", countsOf(sum))
	}
	sameTree(t, tree(t, dir), tree(t, root))
}

// Symbolic links to "." and to an ancestor in an nginx tree (autoindex
// follows them, as vsftpd does) are cycles, told as the ftp mirror tells
// them: sub/loop/ lists the same as sub/, sub/sub2/up/ (-> ..) the same as
// sub/, so each is recorded skipped with the reason and not followed (the
// walk went 41 levels deep before). The rest of the tree is the server's.
func TestHTTPMirrorSymlinkLoop(t *testing.T) {
	root, ng, _ := httpTree(t, "")
	want := tree(t, root)
	must(t, os.Symlink(".", filepath.Join(root, "sub", "loop")))
	must(t, os.Symlink("..", filepath.Join(root, "sub", "sub2", "up")))
	dir := t.TempDir()
	url := ng.URL + "/"
	// (MaxDepth only keeps a walk into the cycles short when it fails.)
	sum := mirrorOK(t, Options{URL: url, Dir: dir, MaxDepth: 8})
	if sum.Dirs != 4 || sum.Skipped != 2 || sum.Failed != 0 || sum.New != int64(len(want)) {
		t.Errorf("%+v, want 4 directories, 2 skipped (the cycles), %d new", countsOf(sum), len(want))
	}
	recs := records(t, dir)
	for _, u := range []string{"sub/loop/", "sub/sub2/up/"} {
		if r := recs[url+u]; r.Status != StatusSkipped || r.Error != "a cycle: the directory lists the same as its ancestor "+url+"sub/" {
			t.Errorf("%s: %+v, want skipped as a cycle of %ssub/", u, r, url)
		}
	}
	for u := range recs {
		if strings.Contains(u, "/loop/") && u != url+"sub/loop/" || strings.Contains(u, "/up/") && u != url+"sub/sub2/up/" {
			t.Errorf("followed into the cycle: %s", u)
		}
	}
	sameTree(t, tree(t, dir), want)
}

// A file cut short keeps its bytes under a partial name; the next run
// continues it with Range (If-Range its Last-Modified), and the copy is
// byte for byte the server's.
func TestHTTPMirrorResumesWithRange(t *testing.T) {
	root, ng, log := httpTree(t, "location /big/ { limit_rate 1m; }")
	big := make([]byte, 2<<20)
	rand.Read(big)
	fetchtest.WriteFile(t, filepath.Join(root, "big", "big.bin"), string(big), t1)
	dir := t.TempDir()
	url := ng.URL + "/big/"
	ctx, cancel := context.WithCancel(context.Background())
	go cancelAtPart(ctx, cancel, dir, 200<<10)
	_, err := Run(ctx, Options{URL: url, Dir: dir})
	cancel()
	if err == nil {
		t.Fatal("the first run was not interrupted")
	}
	parts, _ := filepath.Glob(filepath.Join(dir, partPrefix+"*"))
	if len(parts) != 1 {
		t.Fatalf("partial files after the cut: %q", parts)
	}
	fi, _ := os.Stat(parts[0])
	log()
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.New != 1 || sum.Bytes >= int64(len(big)) {
		t.Errorf("second run: %+v, %d bytes: want 1 new, less than the whole file", countsOf(sum), sum.Bytes)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "big.bin"))
	if string(got) != string(big) {
		t.Errorf("big.bin: %d bytes, not the server's", len(got))
	}
	var ranged bool
	for _, l := range log() {
		if strings.Contains(l, "big.bin") && strings.Contains(l, "|206|") && strings.Split(l, "|")[4] == "bytes="+strconv.FormatInt(fi.Size(), 10)+"-" {
			ranged = true
		}
	}
	if !ranged {
		t.Errorf("no Range request from byte %d answered 206", fi.Size())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, partPrefix+"*")); len(m) != 0 {
		t.Errorf("partial files left: %q", m)
	}
}

func TestParseIndex(t *testing.T) {
	base := "http://h/pub/"
	for _, tc := range []struct {
		name, page string
		want       []indexEntry
	}{
		{"nginx", `<html><head><title>Index of /pub/</title></head><body><h1>Index of /pub/</h1><hr><pre><a href="../">../</a>
<a href="sub/">sub/</a>                                               27-Nov-2026 01:00       -
<a href="a%20b.txt">a b.txt</a>                                        27-Nov-2026 01:00      12
<a href="x%26y.txt">x&amp;y.txt</a>                                   27-Nov-2026 01:00       3
</pre><hr></body></html>`, []indexEntry{
			{url: base + "sub/", name: "sub", dir: true, size: -1, facts: "27-Nov-2026 01:00 -"},
			{url: base + "a%20b.txt", name: "a b.txt", size: 12, facts: "27-Nov-2026 01:00 12"},
			{url: base + "x%26y.txt", name: "x&y.txt", size: 3, facts: "27-Nov-2026 01:00 3"},
		}},
		{"apache", `<table><tr><th><a href="?C=N;O=D">Name</a></th></tr>
<tr><td><a href="/">Parent Directory</a></td><td>&nbsp;</td><td align="right">  - </td></tr>
<tr><td><a href="big.iso">big.iso</a></td><td align="right">2026-11-27 01:00  </td><td align="right">1.2G</td></tr>
<tr><td><a href="small.txt">small.txt</a></td><td align="right">2026-11-27 01:00  </td><td align="right">  7 </td></tr>
<tr><td><a href="http://elsewhere/x">x</a></td></tr><tr><td><a href="d/e/">deep</a></td></tr>
<tr><td><a href="%2e%2e/">up</a></td></tr><tr><td><a href="..%2Fetc/">up</a></td></tr><tr><td><a href="a%2Fb">slash</a></td></tr>
<tr><td><a href="../pub2/x">sibling</a></td></tr><tr><td><a href="//h/pub/y">scheme-relative</a></td></tr><tr><td><a href="x%0Ay">LF</a></td></tr>
</table>`, []indexEntry{
			{url: base + "big.iso", name: "big.iso", size: -1, facts: "2026-11-27 01:00 1.2G"},
			{url: base + "small.txt", name: "small.txt", size: 7, facts: "2026-11-27 01:00 7"},
			{url: base + "y", name: "y", size: -1},        // //h/pub/y is in the directory
			{url: base + "x%0Ay", name: "x\ny", size: -1}, // a name with LF: fetched, saved as x%0Ay (EncodeName)
		}},
	} {
		got := parseIndex([]byte(tc.page), base)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: entry %d = %+v, want %+v", tc.name, i, got[i], tc.want[i])
			}
		}
	}
}

// Python's http.server is another kind of index (an <li> list) and
// another server: Last-Modified but no ETag, If-Modified-Since answered
// 304. The tree mirrors, and the rerun fetches nothing.
func TestHTTPMirrorPythonIndex(t *testing.T) {
	py := testserver.Require(t, "/usr/bin/python3")
	root := t.TempDir()
	for rel, data := range map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "dir/sp ace.txt": "space\n", "x%y.txt": "pct\n"} {
		fetchtest.WriteFile(t, filepath.Join(root, rel), data, t1)
	}
	p := testserver.StartOnFreePort(t, testserver.Options{Name: "python3 -m http.server"}, func(port int) (*exec.Cmd, string, error) {
		return exec.Command(py, "-m", "http.server", strconv.Itoa(port), "--bind", "127.0.0.1", "--directory", root),
			"127.0.0.1:" + strconv.Itoa(port), nil
	})
	url := "http://" + p.Addr + "/"
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.New != 4 || sum.Dirs != 2 {
		t.Errorf("first run: %+v, want 4 new, 2 dirs", countsOf(sum))
	}
	sameTree(t, tree(t, dir), tree(t, root))
	sum = mirrorOK(t, Options{URL: url, Dir: dir})
	if sum.Unchanged != 4 || sum.New+sum.Changed != 0 || sum.Bytes > 4096 {
		t.Errorf("second run: %+v, %d bytes: want 4 unchanged, only the indexes read", countsOf(sum), sum.Bytes)
	}
}

// cancelAtPart cancels (ctx's cancel) once the one temporary file in dir
// holds more than size bytes: a run interrupted in the middle of a file.
func cancelAtPart(ctx context.Context, cancel context.CancelFunc, dir string, size int64) {
	for ctx.Err() == nil {
		m, _ := filepath.Glob(filepath.Join(dir, partPrefix+"*"))
		if len(m) == 1 {
			if fi, err := os.Stat(m[0]); err == nil && fi.Size() > size {
				cancel()
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}
