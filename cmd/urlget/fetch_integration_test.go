package main

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

// nginxFixture starts nginx on a document root with a few files and the
// locations the side-by-side cases use.
func nginxFixture(t *testing.T) (*testserver.NginxServer, map[string][]byte) {
	t.Helper()
	testserver.Require(t, "nginx")
	root := t.TempDir()
	big := make([]byte, 3<<20+12345)
	rand.Read(big)
	files := map[string][]byte{
		"small.txt":         []byte("small file\n"),
		"big.bin":           big,
		"dir/index.txt":     []byte("in a directory\n"),
		"a%20b.txt":         []byte("percent in the name\n"), // served at /a%2520b.txt
		"empty":             nil,
		"dir/nested/x.html": []byte("<p>x</p>\n"),
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for name := range files {
		os.Chtimes(filepath.Join(root, name), old, old)
	}
	files["text.txt"] = bytes.Repeat([]byte("compressible text, "), 5000)
	os.WriteFile(filepath.Join(root, "text.txt"), files["text.txt"], 0o644)
	s := testserver.StartNginx(t, testserver.NginxConfig{Root: root,
		HTTPExtra: "    gzip on; gzip_types text/plain; gzip_min_length 1;",
		Extra: `
        location = /old { return 301 /small.txt; }
        location = /hop1 { return 302 /hop2; }
        location = /hop2 { return 307 /dir/index.txt; }
        location = /loop { return 302 /loop; }
        location = /e500 { return 500; }
        location = /e503 { return 503; }
        location /slow/ { limit_rate 256k; alias ` + root + `/; }
`})
	return s, files
}

// sideBySide runs curl and urlget with the same arguments, each in a fresh
// directory prepared by prep, and compares exit status, stdout and the
// files each left behind.
type sideCase struct {
	name string
	args []string
	prep func(dir string)
	// normalize rewrites stdout before the comparison (for Date headers).
	normalize func(string) string
	code      int // the expected exit status (checked for both)
	// ucode, when set, is urlget's expected exit status where it differs
	// from curl's on purpose.
	ucode int
}

// dropDate normalizes -I output for comparison: the Date field changes by
// the second; every other line, its place and its case, must be the same.
func dropDate(s string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\r\n") {
		if !strings.HasPrefix(strings.ToLower(l), "date:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

func TestSideBySideWithCurl(t *testing.T) {
	s, files := nginxFixture(t)
	curl := testserver.Require(t, "curl")
	base := s.URL
	partial := func(name string, n int) func(string) {
		return func(dir string) { os.WriteFile(filepath.Join(dir, name), files["big.bin"][:n], 0o644) }
	}
	whole := func(dir string) { os.WriteFile(filepath.Join(dir, "out"), files["small.txt"], 0o644) }
	cases := []sideCase{
		{name: "stdout", args: []string{base + "/small.txt"}},
		{name: "two to stdout", args: []string{base + "/small.txt", base + "/dir/index.txt"}},
		{name: "-o", args: []string{"-o", "out", base + "/big.bin"}},
		{name: "-o twice", args: []string{"-o", "a", base + "/small.txt", "-o", "b", base + "/big.bin"}},
		{name: "-O", args: []string{"-O", base + "/big.bin"}},
		{name: "-O percent", args: []string{"-O", base + "/a%2520b.txt"}},
		{name: "-O empty body", args: []string{"-O", base + "/empty"}},
		{name: "-O and stdout", args: []string{"-O", base + "/dir/nested/x.html", base + "/small.txt"}},
		{name: "--output-dir", args: []string{"--create-dirs", "--output-dir", "d/e", "-O", base + "/small.txt"}},
		{name: "-C - partial", args: []string{"-C", "-", "-o", "out", base + "/big.bin"}, prep: partial("out", 1000)},
		{name: "-C - nothing", args: []string{"-C", "-", "-o", "out", base + "/big.bin"}},
		{name: "-C - complete", args: []string{"-C", "-", "-o", "out", base + "/small.txt"}, prep: whole},
		{name: "-C N stdout", args: []string{"-C", "100", base + "/big.bin"}},
		{name: "-C - -O", args: []string{"-C", "-", "-O", base + "/big.bin"}, prep: partial("big.bin", 777777)},
		{name: "no -L", args: []string{base + "/old"}},
		{name: "-L", args: []string{"-L", base + "/old"}},
		{name: "-L two hops", args: []string{"-L", base + "/hop1"}},
		{name: "-L loop", args: []string{"-L", "--max-redirs", "3", base + "/loop"}, code: 47},
		{name: "-L max-redirs 0", args: []string{"-L", "--max-redirs", "0", base + "/old"}, code: 47},
		{name: "-I", args: []string{"-I", base + "/small.txt"}, normalize: dropDate},
		{name: "-I 404", args: []string{"-I", base + "/missing"}, normalize: dropDate},
		{name: "-I -L", args: []string{"-I", "-L", base + "/hop1"}, normalize: dropDate},
		{name: "404", args: []string{base + "/missing"}},
		{name: "-f 404", args: []string{"-f", base + "/missing"}, code: 22},
		{name: "-f 404 -o keeps", args: []string{"-f", "-o", "out", base + "/missing"}, prep: whole, code: 22},
		{name: "-f 500", args: []string{"-f", base + "/e500"}, code: 22},
		{name: "500", args: []string{base + "/e500"}},
		{name: "-w", args: []string{"-w", "%{http_code} %{size_download}\\n", "-o", "/dev/null", base + "/big.bin"}},
		{name: "-w 404", args: []string{"-w", "%{http_code} %{size_download}", base + "/missing"}},
		{name: "-w -f", args: []string{"-f", "-w", "%{http_code} %{size_download} %{exitcode}", base + "/missing"}, code: 22},
		{name: "-w -L", args: []string{"-L", "-w", "[%{http_code} %{url_effective}]", base + "/old"}},
		{name: "--compressed", args: []string{"--compressed", base + "/text.txt"}},
		{name: "--compressed -o", args: []string{"--compressed", "-o", "out", base + "/text.txt"}},
		{name: "--compressed -w", args: []string{"--compressed", "-w", "%{http_code} %{content_type}", "-o", "/dev/null", base + "/text.txt"}},
		{name: "gzip not asked", args: []string{base + "/text.txt"}},
		{name: "connect refused", args: []string{"http://127.0.0.1:1/"}, code: 7},
		{name: "--url-query glob", args: []string{"--url-query", "a=1 2", "-w", "%{url_effective} %{http_code}\n", base + "/{small.txt,empty}", "-o", "o#1"}},
		{name: "--url-query raw space", args: []string{"--url-query", "+x=y z", base + "/small.txt"}, code: 3},
		{name: "max-filesize", args: []string{"--max-filesize", "1000", base + "/big.bin"}, code: 63},
		// curl 7.88 exits with the last transfer's status; urlget with the
		// last failure's, so that a failure is never hidden by a later
		// success.
		{name: "-f then ok", args: []string{"-f", base + "/missing", base + "/small.txt"}, ucode: 22},
		{name: "ok then -f", args: []string{"-f", base + "/small.txt", base + "/missing"}, code: 22},
	}
	runSideBySide(t, curl, cases)
}

// runSideBySide runs each case with curl and with urlget (in-process), -s
// added, in fresh directories, and compares.
func runSideBySide(t *testing.T, curl string, cases []sideCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := besideCurl(t, curl, tc.args, tc.prep)
			cout, ccode, uout, uerr, ucode, cdir, udir := b.cout, b.ccode, b.uout, b.uerr, b.ucode, b.cdir, b.udir
			if ccode != tc.code {
				t.Errorf("curl exit %d, want %d", ccode, tc.code)
			}
			want := tc.code
			if tc.ucode != 0 {
				want = tc.ucode
			}
			if ucode != want {
				t.Errorf("urlget exit %d, want %d (curl %d; urlget stderr %q)", ucode, want, ccode, uerr)
			}
			cs, us := cout, uout
			if tc.normalize != nil {
				cs, us = tc.normalize(cs), tc.normalize(us)
			}
			if cs != us {
				t.Errorf("stdout differs:\nurlget %q\ncurl   %q", clip(us), clip(cs))
			}
			compareTrees(t, cdir, udir)
		})
	}
}

// beside is one command run by curl and by urlget, each in a fresh
// directory of its own.
type beside struct {
	cdir, udir       string
	cout, uout, uerr string
	ccode, ucode     int
}

// besideCurl runs curl and urlget (in-process, then in udir) with "-s"
// and args, each in a new directory prepared by prep (nil: none).
func besideCurl(t *testing.T, curl string, args []string, prep func(dir string)) beside {
	t.Helper()
	args = append([]string{"-s"}, args...)
	b := beside{cdir: t.TempDir(), udir: t.TempDir()}
	if prep != nil {
		prep(b.cdir)
		prep(b.udir)
	}
	b.cout, _, b.ccode = curlIn(t, curl, b.cdir, args)
	b.uout, b.uerr, b.ucode = urlgetIn(t, b.udir, args)
	return b
}

// curlIn runs curl with args in dir: its stdout, stderr and exit status.
func curlIn(t *testing.T, curl, dir string, args []string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(curl, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

// urlgetIn runs urlget in-process with args in dir, which stays the
// test's working directory: its stdout, stderr and exit status.
func urlgetIn(t *testing.T, dir string, args []string) (stdout, stderr string, code int) {
	t.Helper()
	t.Chdir(dir)
	var out, errb bytes.Buffer
	code = run(env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	return out.String(), errb.String(), code
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

// compareTrees checks that two directories hold the same files with the
// same contents.
func compareTrees(t *testing.T, a, b string) {
	t.Helper()
	list := func(root string) map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				m[rel], _ = os.ReadFile(p)
			}
			return nil
		})
		return m
	}
	ma, mb := list(a), list(b)
	var names []string
	for k := range ma {
		names = append(names, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		da, oka := ma[n]
		db, okb := mb[n]
		switch {
		case !oka:
			t.Errorf("urlget left %s, curl did not", n)
		case !okb:
			t.Errorf("curl left %s, urlget did not", n)
		case !bytes.Equal(da, db):
			t.Errorf("%s differs: urlget %d bytes, curl %d bytes", n, len(db), len(da))
		}
	}
}

// TestNginxOwnCases checks what curl does differently on purpose, or cannot
// show: an existing file survives a failed transfer, resume after an
// interrupted transfer, retries.
func TestNginxOwnCases(t *testing.T) {
	s, files := nginxFixture(t)
	dir := t.TempDir()
	t.Chdir(dir)
	runIt := func(args ...string) cliResult {
		var out, errb bytes.Buffer
		code := run(env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
		return cliResult{code, out.String(), errb.String()}
	}
	os.WriteFile("keep", []byte("precious"), 0o600)
	for _, args := range [][]string{
		{"-f", "-o", "keep", s.URL + "/missing"},
		{"--max-filesize", "1000", "-o", "keep", s.URL + "/big.bin"},
		{"-L", "--max-redirs", "2", "-o", "keep", s.URL + "/loop"},
		{"-o", "keep", "http://127.0.0.1:1/x"},
		{"--retry", "1", "--retry-delay", "0", "-f", "-o", "keep", s.URL + "/e503"},
	} {
		r := runIt(append([]string{"-s"}, args...)...)
		if r.code == 0 {
			t.Errorf("%q succeeded", args)
		}
		if got, _ := os.ReadFile("keep"); string(got) != "precious" {
			t.Errorf("%q: existing file now %q", args, got)
		}
	}
	noTemps(t, dir)
	// Without -f the 404 page does replace it, as curl.
	if r := runIt("-s", "-o", "keep", s.URL+"/missing"); r.code != 0 {
		t.Errorf("404 without -f: %+v", r)
	}
	// -I on a file that is not http.
	p := filepath.Join(dir, "local")
	os.WriteFile(p, []byte("12345"), 0o644)
	mod := time.Date(2021, 6, 7, 8, 9, 10, 0, time.UTC)
	os.Chtimes(p, mod, mod)
	r := runIt("-I", "file://"+p)
	if r.code != 0 || !strings.Contains(r.stdout, "Content-Length: 5\r\n") ||
		!strings.Contains(r.stdout, "Last-Modified: Mon, 07 Jun 2021 08:09:10 GMT\r\n") {
		t.Errorf("-I file: %+v", r)
	}
	// -R keeps the server's time.
	if r := runIt("-s", "-R", "-o", "r", s.URL+"/small.txt"); r.code != 0 {
		t.Errorf("-R: %+v", r)
	} else if fi, _ := os.Stat("r"); !fi.ModTime().Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("-R: mtime %v", fi.ModTime())
	}
	// A resume really resumes: nginx answers 206.
	big := files["big.bin"]
	os.WriteFile("res", big[:100000], 0o644)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes("res", old, old)
	if r := runIt("-sS", "-C", "-", "-o", "res", s.URL+"/big.bin"); r.code != 0 {
		t.Fatalf("resume: %+v", r)
	}
	if got, _ := os.ReadFile("res"); !bytes.Equal(got, big) {
		t.Errorf("resumed file differs (%d bytes)", len(got))
	}
	if l := lastRequest(t, s); !strings.Contains(l, " 206 ") || !strings.Contains(l, `"bytes=100000-"`) {
		t.Errorf("resume request: %s", l)
	}
	// A file urlget did not write proves nothing by its time: it is
	// resumed as curl resumes it, its bytes taken as they are (a part
	// urlget marked is checked with If-Range: TestResumeOwnPartAfterKill).
	os.WriteFile("res", []byte("not the same bytes"), 0o644)
	if r := runIt("-sS", "-C", "-", "-o", "res", s.URL+"/big.bin"); r.code != 0 {
		t.Fatalf("resume: %+v", r)
	}
	if got, _ := os.ReadFile("res"); !bytes.Equal(got, append([]byte("not the same bytes"), big[18:]...)) {
		t.Errorf("resumed file differs (%d bytes)", len(got))
	}
	if l := lastRequest(t, s); !strings.Contains(l, " 206 ") {
		t.Errorf("resume request: %s", l)
	}

	// --max-time stops a slow transfer: 28. What arrived stays in slow.part
	// (never under slow), with the server's time; -C - continues it (206)
	// and the next -C - finishes it.
	start := time.Now()
	if r := runIt("-sS", "--max-time", "0.5", "-o", "slow", s.URL+"/slow/big.bin"); r.code != 28 ||
		!strings.HasPrefix(r.stderr, "urlget: (28) ") {
		t.Errorf("--max-time: %+v", r)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("--max-time 0.5 took %v", d)
	}
	if _, err := os.Stat("slow"); err == nil {
		t.Errorf("partial file under its final name")
	}
	fi, err := os.Stat("slow.part")
	if err != nil || fi.Size() == 0 || fi.Size() >= int64(len(big)) || !fi.ModTime().Equal(old) {
		t.Fatalf("partial kept in slow.part: %v %v", fi, err)
	}
	if got, _ := os.ReadFile("slow.part"); !bytes.Equal(got, big[:len(got)]) {
		t.Errorf("slow.part is not a prefix of the resource")
	}
	first := fi.Size()
	if r := runIt("-sS", "-C", "-", "--max-time", "0.5", "-o", "slow", s.URL+"/slow/big.bin"); r.code != 28 {
		t.Errorf("--max-time -C: %+v", r)
	}
	fi, err = os.Stat("slow.part")
	if err != nil || fi.Size() <= first || fi.Size() >= int64(len(big)) || !fi.ModTime().Equal(old) {
		t.Fatalf("slow.part not continued with -C -: %v %v", fi, err)
	}
	if l := lastRequest(t, s); !strings.Contains(l, " 206 ") {
		t.Errorf("continuing slow.part: %s", l)
	}
	if r := runIt("-sS", "-C", "-", "-o", "slow", s.URL+"/big.bin"); r.code != 0 {
		t.Fatalf("finish: %+v", r)
	}
	if got, _ := os.ReadFile("slow"); !bytes.Equal(got, big) {
		t.Errorf("finished file differs (%d bytes)", len(got))
	}
	if l := lastRequest(t, s); !strings.Contains(l, " 206 ") {
		t.Errorf("finish request: %s", l)
	}
	noTemps(t, dir)

	// --retry with -f on a 503: retried, then 22.
	r = runIt("--retry", "2", "--retry-delay", "0.01", "-f", s.URL+"/e503")
	if r.code != 22 || strings.Count(r.stderr, "Will retry") != 2 {
		t.Errorf("--retry 503: %+v", r)
	}
	// -v shows the exchange on stderr, the password masked.
	r = runIt("-v", "-o", "/dev/null", "http://user:sekrit@"+s.Addr+"/small.txt")
	if r.code != 0 || !strings.Contains(r.stderr, "> GET /small.txt") || !strings.Contains(r.stderr, "< HTTP/1.1 200") ||
		strings.Contains(r.stderr, "sekrit") {
		t.Errorf("-v: %+v", r)
	}
	// -I with -v: headers on stdout, the exchange on stderr.
	r = runIt("-v", "-I", s.URL+"/small.txt")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "HTTP/1.1 200 OK\r\n") || !strings.Contains(r.stderr, "< HTTP/1.1 200") {
		t.Errorf("-I -v: %+v", r)
	}
}

// lastRequest is the last line of nginx's access log (nginx writes it just
// after the response, so wait for it a little).
func lastRequest(t *testing.T, s *testserver.NginxServer) string {
	t.Helper()
	var prev int
	for range 50 {
		lines, err := s.Requests()
		if err == nil && len(lines) > 0 && len(lines) == prev {
			return lines[len(lines)-1]
		}
		prev = len(lines)
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no access log")
	return ""
}

// TestBinary builds urlget and runs it as a process: exit codes and bytes as
// seen from a shell, stdout a pipe.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	s, files := nginxFixture(t)
	bin := filepath.Join(t.TempDir(), "urlget")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		code int
		out  []byte
	}{
		{[]string{"-s", s.URL + "/big.bin"}, 0, files["big.bin"]},
		{[]string{"-s", "-f", s.URL + "/missing"}, 22, nil},
		{[]string{"-s", "--bogus"}, 2, nil},
		{[]string{"-s", "http://[bad/"}, 3, nil},
	} {
		cmd := exec.Command(bin, tc.args...)
		out, err := cmd.Output()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != tc.code || !bytes.Equal(out, tc.out) {
			t.Errorf("%q: exit %d (want %d), %d bytes (want %d)", tc.args, code, tc.code, len(out), len(tc.out))
		}
	}
	// SIGINT: the existing file is kept, what arrived stays in keep.part,
	// and the exit status is 130.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "keep"), []byte("precious"), 0o644)
	cmd := exec.Command(bin, "-s", "-o", "keep", s.URL+"/slow/big.bin")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The signal goes once bytes have arrived: before them there is
	// nothing to keep (an empty keep.part is removed).
	if !waitPart(filepath.Join(dir, "keep.part"), 1) {
		t.Errorf("no bytes in keep.part while the transfer runs")
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("SIGINT: %v, want exit 130", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "keep")); string(got) != "precious" {
		t.Errorf("SIGINT: existing file now %d bytes", len(got))
	}
	if got, err := os.ReadFile(filepath.Join(dir, "keep.part")); err != nil || len(got) == 0 || !bytes.Equal(got, files["big.bin"][:len(got)]) {
		t.Errorf("SIGINT: keep.part holds %d bytes (%v), want a prefix of the resource", len(got), err)
	}

	// stdout closed early (a pipe whose reader went away): a write error, 23.
	cmd = exec.Command("bash", "-c", fmt.Sprintf("%q -sS %q | head -c 10 >/dev/null; echo ${PIPESTATUS[0]}", bin, s.URL+"/big.bin"))
	out, _ := cmd.Output()
	if got := strings.TrimSpace(string(out)); got != "23" {
		t.Errorf("closed pipe: exit %s, want 23", got)
	}
}

// TestThroughput compares urlget with curl on a 256 MiB file over loopback:
// wall time and peak RSS, to a file and to /dev/null. It runs only with
// URLGET_BENCH=1 (it takes a while and its result depends on the machine).
// Target: urlget's time at most 0.85 of curl's, RSS under 20 MB.
func TestThroughput(t *testing.T) {
	if os.Getenv("URLGET_BENCH") == "" {
		t.Skip("set URLGET_BENCH=1 to measure")
	}
	curl := testserver.Require(t, "curl")
	root := t.TempDir()
	const size = 256 << 20
	f, err := os.Create(filepath.Join(root, "big"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for range size / len(buf) {
		rand.Read(buf)
		f.Write(buf)
	}
	f.Close()
	s := testserver.StartNginx(t, testserver.NginxConfig{Root: root})
	bin := filepath.Join(t.TempDir(), "urlget")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(t.TempDir(), "out")
	// Peak RSS comes from GNU time: the rusage Go's os/exec reports would
	// include the test binary's own (its children start as a vfork).
	gnuTime, _ := exec.LookPath("/usr/bin/time")
	measure := func(prog string, args ...string) (time.Duration, int64) {
		best, rss := time.Duration(1<<62), int64(-1)
		for range 7 {
			os.Remove(out)
			cmd := exec.Command(prog, args...)
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s %q: %v", prog, args, err)
			}
			best = min(best, time.Since(start))
		}
		if gnuTime != "" {
			tcmd := exec.Command(gnuTime, append([]string{"-f", "%M", prog}, args...)...)
			b, err := tcmd.CombinedOutput()
			if err == nil {
				fmt.Sscan(strings.TrimSpace(string(b)), &rss)
			}
		}
		return best, rss
	}
	for _, dst := range []string{out, "/dev/null"} {
		ct, crss := measure(curl, "-s", "-o", dst, s.URL+"/big")
		ut, urss := measure(bin, "-s", "-o", dst, s.URL+"/big")
		t.Logf("-o %s: curl %v (RSS %d KB), urlget %v (RSS %d KB): ratio %.2f", dst, ct, crss, ut, urss, float64(ut)/float64(ct))
		if float64(ut) > 0.85*float64(ct) {
			t.Errorf("-o %s: urlget %v is over 0.85 of curl's %v", dst, ut, ct)
		}
		if urss > 20<<10 || urss < 0 && gnuTime != "" {
			t.Errorf("-o %s: urlget peak RSS %d KB", dst, urss)
		}
	}
}

// waitPart waits up to 5 s for the file part (a transfer's NAME.part) to
// hold at least size bytes, and reports whether it came to.
func waitPart(part string, size int64) bool {
	for range 500 {
		if fi, err := os.Stat(part); err == nil && fi.Size() >= size {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// TestFileSideBySideWithCurl compares file: URLs with curl's.
func TestFileSideBySideWithCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	src := t.TempDir()
	data := make([]byte, 1<<20+7)
	rand.Read(data)
	os.WriteFile(filepath.Join(src, "data.bin"), data, 0o644)
	os.WriteFile(filepath.Join(src, "note.txt"), []byte("a note\n"), 0o644)
	base := "file://" + src
	cases := []sideCase{
		{name: "stdout", args: []string{base + "/note.txt"}},
		{name: "-o", args: []string{"-o", "out", base + "/data.bin"}},
		{name: "-O", args: []string{"-O", base + "/data.bin"}},
		{name: "-C -", args: []string{"-C", "-", "-o", "out", base + "/data.bin"},
			prep: func(dir string) { os.WriteFile(filepath.Join(dir, "out"), data[:5000], 0o644) }},
		{name: "-C N", args: []string{"-C", "1000000", base + "/data.bin"}},
		{name: "missing", args: []string{base + "/missing"}, code: 37},
		{name: "missing -o keeps", args: []string{"-o", "out", base + "/missing"}, code: 37,
			prep: func(dir string) { os.WriteFile(filepath.Join(dir, "out"), []byte("keep"), 0o644) }},
		{name: "-w", args: []string{"-w", "%{size_download} %{exitcode}", "-o", "/dev/null", base + "/data.bin"}},
	}
	runSideBySide(t, curl, cases)
}
