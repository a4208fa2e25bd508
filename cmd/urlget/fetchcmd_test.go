package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
)

// fakeFile is one resource of a fakeSrv.
type fakeFile struct {
	data    []byte
	status  []int     // status per attempt (the last repeats); default 200 for http, 0 else
	mod     time.Time // modification time
	ctype   string
	cut     int   // with cutTimes: the body stops with an error after cut bytes
	cutErr  error // the error it stops with (default: an unexpected EOF)
	cutN    int   // the first cutN attempts are cut
	failN   int   // the first failN attempts fail with failErr
	failErr error
	whole   bool          // never resume
	block   bool          // block until the context ends
	after   time.Duration // a Retry-After header on every reply (whole seconds)
}

// fakeSrv is a Fetcher serving fakeFiles by path, recording requests.
type fakeSrv struct {
	mu       sync.Mutex
	files    map[string]*fakeFile
	reqs     []fetch.Request
	attempts map[string]int
	onOpen   func() // called as each Open begins (parallel_test.go)
}

func newFakeSrv(files map[string]*fakeFile) *fakeSrv {
	return &fakeSrv{files: files, attempts: map[string]int{}}
}

type cutReader struct {
	r   io.Reader
	n   int
	err error
}

func (c *cutReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		return 0, c.err
	}
	if len(p) > c.n {
		p = p[:c.n]
	}
	k, err := c.r.Read(p)
	c.n -= k
	if err == io.EOF {
		err = c.err
	}
	return k, err
}

func (s *fakeSrv) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	if s.onOpen != nil {
		s.onOpen()
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, *req)
	f, ok := s.files[req.URL.Path]
	s.attempts[req.URL.Path]++
	n := s.attempts[req.URL.Path]
	s.mu.Unlock()
	isHTTP := req.URL.Scheme == "http"
	if !ok {
		if isHTTP {
			return &fetch.Resource{Meta: fetch.Meta{Size: 9, Status: 404, Proto: "HTTP/1.1", EffectiveURL: req.URL.String()},
				Body: io.NopCloser(strings.NewReader("not found"))}, nil
		}
		return nil, fetch.NewError(fetch.ErrNotFound, "no such file: "+req.URL.Path, nil)
	}
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if n <= f.failN {
		return nil, f.failErr
	}
	status, proto := 0, ""
	if isHTTP {
		status, proto = 200, "HTTP/1.1"
	}
	if len(f.status) > 0 {
		status = f.status[min(n, len(f.status))-1]
	}
	data := f.data
	off := int64(0)
	if req.Offset > 0 && !f.whole && req.Offset <= int64(len(data)) && (req.Since.IsZero() || !f.mod.After(req.Since)) {
		off = req.Offset
		data = data[off:]
	}
	if req.Head {
		data = nil
	}
	var body io.Reader = bytes.NewReader(data)
	if n <= f.cutN {
		e := f.cutErr
		if e == nil {
			e = io.ErrUnexpectedEOF
		}
		body = &cutReader{r: body, n: f.cut, err: e}
	}
	size := int64(len(data))
	if req.Head {
		size = int64(len(f.data))
	}
	var header fetch.Header
	if f.after > 0 {
		header = fetch.Header{{Name: "Retry-After", Value: strconv.Itoa(int(f.after / time.Second))}}
	}
	return &fetch.Resource{
		Meta: fetch.Meta{Size: size, ModTime: f.mod, ContentType: f.ctype, EffectiveURL: req.URL.String(),
			Status: status, Offset: off, Proto: proto, Header: header},
		Body: io.NopCloser(body),
	}, nil
}

// cliResult is the outcome of one in-process run.
type cliResult struct {
	code           int
	stdout, stderr string
}

// runCLI runs the fetch command in-process with srv serving the schemes
// "test" and "http".
func runCLI(t *testing.T, srv *fakeSrv, args ...string) cliResult {
	t.Helper()
	return runCLIWith(t, srv, nil, args...)
}

func runCLIWith(t *testing.T, srv *fakeSrv, setup func(*fetchCmd), args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runFetchWith(env{args: args, stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, func(c *fetchCmd) {
		if srv != nil {
			c.client.Fetchers = fetchtest.Given(map[string]fetch.Fetcher{"test": srv, "http": srv})
		}
		c.sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
		if setup != nil {
			setup(c)
		}
	})
	return cliResult{code, stdout.String(), stderr.String()}
}

func inDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	t.Chdir(d)
	return d
}

// readFile is the file's contents (fetchtest.ReadFile).
var readFile = fetchtest.ReadFile

// noTemps fails if a .part file was left behind in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".part") {
			t.Errorf(".part file left behind: %s", e.Name())
		}
	}
}

func TestFlagParsing(t *testing.T) {
	var e env
	e.stderr, e.stdout, e.stdin = io.Discard, io.Discard, strings.NewReader("")
	o, err := parseFetchArgs(e, []string{"-sSfL", "-o", "a", "u1", "-O", "u2", "--output", "b", "u3", "-C", "-",
		"--retry", "3", "--retry-delay", "0.5", "--max-time", "2.5", "--connect-timeout", "1", "-u", "bob:se:cret",
		"--max-filesize", "2k", "-#", "-w", "%{http_code}", "-x", "proxy:3128", "--noproxy", "a,b", "-A", "ua",
		"-k", "--compressed", "-I", "--max-redirs", "7", "--netrc-file", "/n", "--output-dir", "d", "--create-dirs", "u4"})
	if err != nil {
		t.Fatal(err)
	}
	want := []download.Target{{Name: "a"}, {Remote: true}, {Name: "b"}}
	if fmt.Sprint(o.outputs) != fmt.Sprint(want) {
		t.Errorf("outputs %v, want %v", o.outputs, want)
	}
	if fmt.Sprint(o.urls) != "[u1 u2 u3 u4]" {
		t.Errorf("urls %v", o.urls)
	}
	if !o.silent || !o.showError || !o.client.Fail || !o.client.FollowRedirects || o.dl.ResumeFrom != -1 || o.dl.Retry.Retries != 3 ||
		o.dl.Retry.Delay != 500*time.Millisecond || o.client.MaxTime != 2500*time.Millisecond || o.client.ConnectTimeout != time.Second ||
		o.client.MaxFileSize != 2048 || !o.progressBar || o.writeOut != "%{http_code}" || !o.client.Insecure || !o.client.Compressed ||
		!o.dl.Head || o.maxRedirs != 7 || !o.client.Netrc || o.client.NetrcFile != "/n" || o.dl.OutputDir != "d" || !o.dl.CreateDirs {
		t.Errorf("options not all set: %+v", o)
	}
	c, err := newFetchCmd(e, o)
	if err != nil {
		t.Fatal(err)
	}
	cl := c.client
	if !cl.HasUser || cl.User != "bob" || !cl.HasPassword || cl.Password != "se:cret" {
		t.Errorf("user %q %q %v %v", cl.User, cl.Password, cl.HasUser, cl.HasPassword)
	}
	if cl.Proxy == nil || cl.Proxy.String() != "http://proxy:3128" || cl.NoProxy != "a,b" || cl.UserAgent != "ua" ||
		cl.MaxRedirects != 7 || !cl.FollowRedirects || cl.MaxFileSize != 2048 || !cl.Insecure || !cl.Compressed ||
		cl.ConnectTimeout != time.Second || !cl.Netrc || cl.NetrcFile != "/n" {
		t.Errorf("client not set up: %+v", cl)
	}
	if !cl.Fail || cl.FailWithBody {
		t.Errorf("-f: Client.Fail %v, FailWithBody %v; want Fail alone (the error carries the reply for -w)", cl.Fail, cl.FailWithBody)
	}

	o, err = parseFetchArgs(e, []string{"-C", "123", "-u", "alice", "-C-", "x"})
	if err != nil || o.dl.ResumeFrom != -1 {
		t.Fatalf("-C-: %v %+v", err, o)
	}
	o, _ = parseFetchArgs(e, []string{"-C", "123", "-u", "alice", "x"})
	c, _ = newFetchCmd(e, o)
	if o.dl.ResumeFrom != 123 || c.client.User != "alice" || c.client.HasPassword {
		t.Errorf("-C 123 -u alice: %+v %+v", o, c.client)
	}
	if c.client.UserAgent != "urlget/"+version {
		t.Errorf("default user agent %q", c.client.UserAgent)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--bogus", "http://x/"},
		{"-9", "http://x/"},
		{},
		{"-C", "abc", "http://x/"},
		{"-C", "-5", "http://x/"},
		{"--max-time", "soon", "http://x/"},
		{"--retry", "-1", "http://x/"},
		{"--max-filesize", "12Q", "http://x/"},
		{"-o"},
		{"-w", "@/nonexistent/format", "http://x/"},
	} {
		r := runCLI(t, nil, args...)
		if r.code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, r.code, r.stderr)
		}
		if !strings.HasPrefix(r.stderr, "urlget: ") || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: stderr %q, want one urlget: line", args, r.stderr)
		}
	}
}

func TestHelpVersion(t *testing.T) {
	r := runCLI(t, nil, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--continue-at") || !strings.Contains(r.stdout, "usage: urlget") {
		t.Errorf("--help: %d %q", r.code, r.stdout)
	}
	if r2 := runCLI(t, nil, "-h"); r2.stdout != r.stdout {
		t.Errorf("-h differs from --help")
	}
	fetch.Schemes() // the registry may be empty in this package's tests
	r = runCLI(t, nil, "-V")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "urlget "+version+"\nSchemes:") {
		t.Errorf("-V: %d %q", r.code, r.stdout)
	}
}

func TestStdoutAndFiles(t *testing.T) {
	dir := inDir(t)
	srv := newFakeSrv(map[string]*fakeFile{
		"/a.txt":     {data: []byte("alpha\n")},
		"/dir/b.txt": {data: []byte("beta\n")},
		"/c":         {data: []byte("gamma\n")},
	})
	r := runCLI(t, srv, "test://h/a.txt", "test://h/dir/b.txt")
	if r.code != 0 || r.stdout != "alpha\nbeta\n" || r.stderr != "" {
		t.Fatalf("stdout: %+v", r)
	}
	// -o, -O and stdout in order, like curl.
	r = runCLI(t, srv, "-O", "test://h/a.txt", "-o", "out/x", "--create-dirs", "test://h/dir/b.txt", "-o", "-", "test://h/c", "test://h/c")
	if r.code != 0 || r.stdout != "gamma\ngamma\n" {
		t.Fatalf("-O/-o: %+v", r)
	}
	if got := readFile(t, "a.txt"); got != "alpha\n" {
		t.Errorf("a.txt %q", got)
	}
	if got := readFile(t, "out/x"); got != "beta\n" {
		t.Errorf("out/x %q", got)
	}
	fi, _ := os.Stat("a.txt")
	if fi.Mode().Perm() != 0o666&^umask(t) {
		t.Errorf("mode %v", fi.Mode())
	}
	// --output-dir and --remote-name-all.
	r = runCLI(t, srv, "--output-dir", "od", "--create-dirs", "--remote-name-all", "test://h/a.txt", "test://h/dir/b.txt")
	if r.code != 0 || readFile(t, "od/a.txt") != "alpha\n" || readFile(t, "od/b.txt") != "beta\n" {
		t.Errorf("--output-dir: %+v", r)
	}
	// Without --create-dirs a missing directory is a write error.
	r = runCLI(t, srv, "-o", "nodir/x", "test://h/a.txt")
	if r.code != 23 || !strings.HasPrefix(r.stderr, "urlget: (23) ") {
		t.Errorf("missing dir: %+v", r)
	}
	noTemps(t, dir)
	noTemps(t, filepath.Join(dir, "out"))
}

func umask(t *testing.T) os.FileMode {
	f := filepath.Join(t.TempDir(), "m")
	os.WriteFile(f, nil, 0o666)
	fi, _ := os.Stat(f)
	return 0o666 &^ fi.Mode().Perm()
}

// TestRemoteNameHostile: the CLI's face of download.RemoteName's refusal
// (its table is download's TestRemoteNameHostile).
func TestRemoteNameHostile(t *testing.T) {
	inDir(t)
	r := runCLI(t, newFakeSrv(nil), "-O", "http://h/")
	if r.code != 23 || !strings.Contains(r.stderr, "-O") {
		t.Errorf("-O on /: %+v", r)
	}
}

func TestExistingFilePreserved(t *testing.T) {
	dir := inDir(t)
	srv := newFakeSrv(map[string]*fakeFile{
		"/cut":  {data: bytes.Repeat([]byte("n"), 1000), cut: 500, cutN: 100},
		"/big":  {data: bytes.Repeat([]byte("b"), 1000)},
		"/slow": {block: true},
	})
	orig := "precious original\n"
	os.WriteFile("keep", []byte(orig), 0o640)
	// Each failure leaves keep as it was; what arrived (if anything) is
	// in keep.part, a prefix of the resource (part).
	check := func(what string, r cliResult, code int, part string) {
		t.Helper()
		if r.code != code {
			t.Errorf("%s: exit %d, want %d (%q)", what, r.code, code, r.stderr)
		}
		if got := readFile(t, "keep"); got != orig {
			t.Errorf("%s: existing file changed to %q", what, got)
		}
		if part != "" {
			if got, err := os.ReadFile("keep.part"); err != nil || len(got) < 500 || !strings.HasPrefix(part, string(got)) {
				t.Errorf("%s: keep.part holds %d bytes (%v), want at least the 500 sent before the cut", what, len(got), err)
			}
			os.Remove("keep.part")
		}
		noTemps(t, dir)
	}
	check("partial body", runCLI(t, srv, "-o", "keep", "test://h/cut"), 18, strings.Repeat("n", 1000))
	check("not found", runCLI(t, srv, "-o", "keep", "test://h/missing"), 78, "")
	check("-f 404", runCLI(t, srv, "-f", "-o", "keep", "http://h/missing"), 22, "")
	check("max-time", runCLI(t, srv, "--max-time", "0.05", "-o", "keep", "test://h/slow"), 28, "")
	check("-O hostile", runCLI(t, srv, "-O", "-o", "keep", "test://h/.."), 23, "")
	check("retries exhausted", runCLI(t, srv, "--retry", "2", "-o", "keep", "test://h/cut"), 18, strings.Repeat("n", 1000))

	// A write failure in the middle (the stdout side here; files below).
	r := runCLIOut(t, srv, &failWriter{after: 10}, "test://h/big")
	if r.code != 23 || !strings.Contains(r.stderr, "(23)") {
		t.Errorf("stdout write error: %+v", r)
	}

	// Success replaces it, keeping its mode.
	r = runCLI(t, srv, "-o", "keep", "test://h/big")
	if r.code != 0 || readFile(t, "keep") != string(srv.files["/big"].data) {
		t.Fatalf("replace: %+v", r)
	}
	if fi, _ := os.Stat("keep"); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode after replace: %v", fi.Mode())
	}
	noTemps(t, dir)

	// A symlink is followed: its target is replaced, the link stays.
	os.WriteFile("target", []byte(orig), 0o600)
	os.Symlink("target", "link")
	if r := runCLI(t, srv, "-o", "link", "test://h/big"); r.code != 0 {
		t.Fatalf("symlink: %+v", r)
	}
	if fi, _ := os.Lstat("link"); fi.Mode()&os.ModeSymlink == 0 || readFile(t, "target") != string(srv.files["/big"].data) {
		t.Errorf("symlink replaced or target not written")
	}
	// A device is written in place (never renamed over).
	if r := runCLI(t, srv, "-o", "/dev/null", "test://h/big"); r.code != 0 {
		t.Errorf("/dev/null: %+v", r)
	}
	if fi, err := os.Stat("/dev/null"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null damaged!")
	}
	// A directory is refused.
	os.Mkdir("adir", 0o755)
	if r := runCLI(t, srv, "-o", "adir", "test://h/big"); r.code != 23 {
		t.Errorf("-o dir: %+v", r)
	}
}

// failWriter fails every write after the first after bytes.
type failWriter struct {
	after int
	n     int
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > w.after {
		return 0, errors.New("disk full")
	}
	w.n += len(p)
	return len(p), nil
}

func runCLIOut(t *testing.T, srv *fakeSrv, stdout io.Writer, args ...string) cliResult {
	t.Helper()
	var stderr bytes.Buffer
	code := runFetchWith(env{args: args, stdin: strings.NewReader(""), stdout: stdout, stderr: &stderr}, func(c *fetchCmd) {
		c.client.Fetchers = fetchtest.Given(map[string]fetch.Fetcher{"test": srv, "http": srv})
	})
	return cliResult{code: code, stderr: stderr.String()}
}

func TestExitCodes(t *testing.T) {
	inDir(t)
	srv := newFakeSrv(map[string]*fakeFile{
		"/ok":    {data: []byte("ok")},
		"/conn":  {failN: 100, failErr: fetch.NewError(fetch.ErrConnect, "connection refused", nil)},
		"/deny":  {failN: 100, failErr: fetch.NewError(fetch.ErrLoginDenied, "login denied", nil)},
		"/raw":   {failN: 100, failErr: errors.New("something odd")},
		"/ctx":   {failN: 100, failErr: context.DeadlineExceeded},
		"/cut":   {data: []byte("0123456789"), cut: 4, cutN: 100},
		"/500":   {data: []byte("oops"), status: []int{500}},
		"/short": {data: []byte("0123456789"), cut: 4, cutN: 100, cutErr: io.EOF},
	})
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"test://h/ok"}, 0},
		{[]string{"http://h/ok"}, 0},
		{[]string{"http://h/missing"}, 0},             // no -f: the 404 body is output
		{[]string{"-f", "http://h/missing"}, 22},      // -f
		{[]string{"-f", "http://h/500"}, 22},          //
		{[]string{"http://h/500"}, 0},                 //
		{[]string{"test://h/missing"}, 78},            //
		{[]string{"test://h/conn"}, 7},                //
		{[]string{"test://h/deny"}, 67},               //
		{[]string{"test://h/raw"}, 1},                 //
		{[]string{"test://h/ctx"}, 28},                //
		{[]string{"test://h/cut"}, 18},                //
		{[]string{"test://h/short"}, 18},              // body shorter than Size
		{[]string{"http://h/a b"}, 3},                 // malformed
		{[]string{"http://[::1/"}, 3},                 //
		{[]string{"test://h/conn", "test://h/ok"}, 7}, // the last failure counts
		{[]string{"test://h/missing", "test://h/conn", "test://h/ok"}, 7},
		{[]string{"test://h/ok", "test://h/missing"}, 78},
	} {
		r := runCLI(t, srv, tc.args...)
		if r.code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.args, r.code, tc.code, r.stderr)
		}
		if tc.code != 0 && !strings.Contains(r.stderr, fmt.Sprintf("urlget: (%d) ", tc.code)) {
			t.Errorf("%q: stderr %q", tc.args, r.stderr)
		}
	}
	// Several failures: one line each, and the output of the good one.
	r := runCLI(t, srv, "test://h/missing", "test://h/ok", "test://h/conn")
	if r.stdout != "ok" || strings.Count(r.stderr, "\n") != 2 || !strings.HasPrefix(r.stderr, "urlget: (78) ") {
		t.Errorf("several: %+v", r)
	}
	// -f writes no body.
	if r := runCLI(t, srv, "-f", "http://h/missing"); r.stdout != "" {
		t.Errorf("-f wrote %q", r.stdout)
	}
	// -s hides errors, -sS shows them.
	if r := runCLI(t, srv, "-s", "test://h/missing"); r.code != 78 || r.stderr != "" {
		t.Errorf("-s: %+v", r)
	}
	if r := runCLI(t, srv, "-sS", "test://h/missing"); r.code != 78 || !strings.HasPrefix(r.stderr, "urlget: (78) ") {
		t.Errorf("-sS: %+v", r)
	}
}

func TestRetry(t *testing.T) {
	inDir(t)
	data := []byte("0123456789abcdefghij")
	srv := newFakeSrv(map[string]*fakeFile{
		"/conn2": {data: data, failN: 2, failErr: fetch.NewError(fetch.ErrConnect, "refused", nil)},
		"/deny":  {data: data, failN: 2, failErr: fetch.NewError(fetch.ErrAccessDenied, "denied", nil)},
		"/503":   {data: data, status: []int{503, 429, 200}},
		"/cut":   {data: data, cut: 7, cutN: 2},
		"/cutw":  {data: data, cut: 7, cutN: 1, whole: true},
	})
	r := runCLI(t, srv, "--retry", "2", "test://h/conn2")
	if r.code != 0 || r.stdout != string(data) || strings.Count(r.stderr, "Will retry") != 2 {
		t.Errorf("retry connect: %+v", r)
	}
	srv.attempts = map[string]int{}
	if r := runCLI(t, srv, "--retry", "1", "test://h/conn2"); r.code != 7 {
		t.Errorf("retry exhausted: %+v", r)
	}
	if r := runCLI(t, srv, "--retry", "5", "test://h/deny"); r.code != 9 || strings.Contains(r.stderr, "Will retry") {
		t.Errorf("no retry of a permanent error: %+v", r)
	}
	// 503 and 429 are retried without writing their bodies.
	srv.attempts = map[string]int{}
	srv.files["/503"].data = []byte("good")
	r = runCLI(t, srv, "-s", "--retry", "3", "http://h/503")
	if r.code != 0 || r.stdout != "good" || r.stderr != "" {
		t.Errorf("retry 503: %+v", r)
	}
	// Out of retries: the 503 body is the output (no -f), as curl.
	srv.attempts = map[string]int{}
	if r := runCLI(t, srv, "-s", "--retry", "0", "-w", "%{http_code}", "http://h/503"); r.code != 0 || r.stdout != "good503" {
		t.Errorf("503 no retry: %+v", r)
	}
	// A partial transfer to stdout goes on from where it stopped.
	srv.reqs = nil
	r = runCLI(t, srv, "--retry", "3", "test://h/cut")
	if r.code != 0 || r.stdout != string(data) {
		t.Errorf("retry partial stdout: %+v", r)
	}
	if len(srv.reqs) != 3 || srv.reqs[1].Offset != 7 || srv.reqs[2].Offset != 14 {
		t.Errorf("offsets asked: %v", offsets(srv.reqs))
	}
	// ... also when the server then sends it whole: the repeated part is skipped.
	srv.attempts = map[string]int{}
	if r := runCLI(t, srv, "--retry", "1", "test://h/cutw"); r.code != 0 || r.stdout != string(data) {
		t.Errorf("retry partial whole: %+v", r)
	}
	// To a file: the temporary file goes on, then is renamed.
	srv.attempts = map[string]int{}
	srv.reqs = nil
	if r := runCLI(t, srv, "--retry", "3", "-o", "f", "test://h/cut"); r.code != 0 || readFile(t, "f") != string(data) {
		t.Errorf("retry partial file: %+v", r)
	}
	srv.attempts = map[string]int{}
	if r := runCLI(t, srv, "--retry", "3", "-o", "g", "test://h/cutw"); r.code != 0 || readFile(t, "g") != string(data) {
		t.Errorf("retry partial file whole: %+v", r)
	}
}

func offsets(reqs []fetch.Request) []int64 {
	var o []int64
	for _, r := range reqs {
		o = append(o, r.Offset)
	}
	return o
}

func TestResume(t *testing.T) {
	dir := inDir(t)
	data := []byte("0123456789abcdefghij")
	old := time.Now().Add(-time.Hour)
	srv := newFakeSrv(map[string]*fakeFile{
		"/f":     {data: data, mod: old},
		"/new":   {data: data, mod: time.Now().Add(time.Hour)},
		"/whole": {data: data, whole: true},
		"/cut":   {data: data, cut: 5, cutN: 1},
	})
	os.WriteFile("f", data[:8], 0o644)
	srv.reqs = nil
	r := runCLI(t, srv, "-C", "-", "-o", "f", "test://h/f")
	if r.code != 0 || readFile(t, "f") != string(data) {
		t.Fatalf("resume: %+v %q", r, readFile(t, "f"))
	}
	if srv.reqs[0].Offset != 8 || !srv.reqs[0].Since.IsZero() {
		t.Errorf("asked %+v, want byte 8 on and no time: a file urlget did not mark proves nothing", srv.reqs[0])
	}
	// -O works the same.
	os.WriteFile("f", data[:3], 0o644)
	if r := runCLI(t, srv, "-C", "-", "-O", "test://h/f"); r.code != 0 || readFile(t, "f") != string(data) {
		t.Errorf("resume -O: %+v", r)
	}
	// A file urlget did not mark, changed on the server since: resumed
	// as curl resumes it, its bytes as they are (TestResumeMarkedPart:
	// a marked part).
	os.WriteFile("new", []byte("stale..."), 0o644)
	if r := runCLI(t, srv, "-C", "-", "-o", "new", "test://h/new"); r.code != 0 || readFile(t, "new") != "stale..."+string(data[8:]) {
		t.Errorf("resume unmarked: %+v %q", r, readFile(t, "new"))
	}
	os.WriteFile("whole", []byte("xyz"), 0o644)
	if r := runCLI(t, srv, "-C", "-", "-o", "whole", "test://h/whole"); r.code != 0 || readFile(t, "whole") != string(data) {
		t.Errorf("resume refused: %+v", r)
	}
	// No file yet: a plain download.
	if r := runCLI(t, srv, "-C", "-", "-o", "fresh", "test://h/f"); r.code != 0 || readFile(t, "fresh") != string(data) {
		t.Errorf("resume nothing: %+v", r)
	}
	// A failed resume keeps what it appended; the next run finishes it.
	os.WriteFile("cut", data[:2], 0o644)
	r = runCLI(t, srv, "-C", "-", "-o", "cut", "test://h/cut")
	if r.code != 18 || readFile(t, "cut") != string(data[:7]) {
		t.Errorf("failed resume: %+v %q", r, readFile(t, "cut"))
	}
	if r := runCLI(t, srv, "-C", "-", "-o", "cut", "test://h/cut"); r.code != 0 || readFile(t, "cut") != string(data) {
		t.Errorf("resume again: %+v %q", r, readFile(t, "cut"))
	}
	// A transfer that fails keeps what arrived in NAME.part (never under
	// NAME), with or without -C, says so, and -C - continues it.
	for _, args := range [][]string{{"-C", "-"}, nil} {
		os.Remove("part")
		srv.attempts = map[string]int{}
		r := runCLI(t, srv, append(args, "-o", "part", "test://h/cut")...)
		if r.code != 18 || readFile(t, "part.part") != string(data[:5]) {
			t.Errorf("%v: partial new file: %+v", args, r)
		}
		if !strings.Contains(r.stderr, "urlget: 5 bytes kept in part.part; resume with: urlget -C - -o part test://h/cut\n") {
			t.Errorf("%v: no resume hint: %q", args, r.stderr)
		}
		if _, err := os.Stat("part"); err == nil {
			t.Errorf("%v: a partial file sits under its final name", args)
		}
		if r := runCLI(t, srv, "-C", "-", "-o", "part", "test://h/cut"); r.code != 0 || readFile(t, "part") != string(data) {
			t.Errorf("%v: resume from part.part: %+v", args, r)
		}
		if _, err := os.Stat("part.part"); err == nil {
			t.Errorf("%v: part.part left after the resume completed", args)
		}
	}
	// A .part that is a symbolic link is never written through.
	os.Symlink("victim", "link.part")
	os.WriteFile("victim", []byte("precious"), 0o644)
	if r := runCLI(t, srv, "-o", "link", "test://h/f"); r.code != 23 || readFile(t, "victim") != "precious" {
		t.Errorf("symlinked .part: %+v, victim %q", r, readFile(t, "victim"))
	}
	os.Remove("link.part")
	// -C N to stdout.
	if r := runCLI(t, srv, "-C", "10", "test://h/f"); r.code != 0 || r.stdout != string(data[10:]) {
		t.Errorf("-C 10: %+v", r)
	}
	// -C N to a file appends when the server resumes.
	os.WriteFile("n", []byte("AB"), 0o644)
	if r := runCLI(t, srv, "-C", "15", "-o", "n", "test://h/f"); r.code != 0 || readFile(t, "n") != "AB"+string(data[15:]) {
		t.Errorf("-C 15 -o: %+v %q", r, readFile(t, "n"))
	}
	noTemps(t, dir)
}

func TestHead(t *testing.T) {
	inDir(t)
	mod := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := newFakeSrv(map[string]*fakeFile{"/f": {data: []byte("12345"), mod: mod, ctype: "text/plain"}})
	r := runCLI(t, srv, "-I", "test://h/f")
	want := "Content-Length: 5\r\nContent-Type: text/plain\r\nLast-Modified: Fri, 01 Mar 2024 12:00:00 GMT\r\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("-I: %+v", r)
	}
	if !srv.reqs[0].Head {
		t.Errorf("Head not asked")
	}
	if r := runCLI(t, srv, "-I", "-o", "h", "test://h/f"); r.code != 0 || readFile(t, "h") != want {
		t.Errorf("-I -o: %+v", r)
	}
	if r := runCLI(t, srv, "-I", "-f", "http://h/none"); r.code != 22 || r.stdout != "" {
		t.Errorf("-I -f: %+v", r)
	}
}

func TestProgress(t *testing.T) {
	inDir(t)
	srv := newFakeSrv(map[string]*fakeFile{"/f": {data: bytes.Repeat([]byte("x"), 1<<20)}})
	// Never by default in tests: stderr is not a terminal.
	if r := runCLI(t, srv, "-o", "f", "test://h/f"); r.stderr != "" {
		t.Errorf("meter drawn: %q", r.stderr)
	}
	term := func(c *fetchCmd) { c.isTerminal = func(w io.Writer) bool { return w == c.e.stderr } }
	r := runCLIWith(t, srv, term, "-o", "f", "test://h/f")
	if !strings.Contains(r.stderr, "100.0%") || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("meter: %q", r.stderr)
	}
	r = runCLIWith(t, srv, term, "-#", "-o", "f", "test://h/f")
	if !strings.Contains(r.stderr, "####") || !strings.Contains(r.stderr, "100.0%") {
		t.Errorf("bar: %q", r.stderr)
	}
	if r := runCLIWith(t, srv, term, "-s", "-o", "f", "test://h/f"); r.stderr != "" {
		t.Errorf("-s drew: %q", r.stderr)
	}
	if r := runCLIWith(t, srv, term, "--no-progress-meter", "-o", "f", "test://h/f"); r.stderr != "" || r.code != 0 {
		t.Errorf("--no-progress-meter drew: %q (exit %d)", r.stderr, r.code)
	}
	// Unlike -s, it keeps the error messages.
	if r := runCLIWith(t, srv, term, "--no-progress-meter", "-o", "g", "test://h/missing"); r.code == 0 || !strings.HasPrefix(r.stderr, "urlget: ") {
		t.Errorf("--no-progress-meter on an error: exit %d, stderr %q", r.code, r.stderr)
	}
	// Output to the terminal: no meter.
	both := func(c *fetchCmd) { c.isTerminal = func(io.Writer) bool { return true } }
	if r := runCLIWith(t, srv, both, "test://h/f"); r.stderr != "" {
		t.Errorf("meter with output on the terminal: %q", r.stderr[:min(80, len(r.stderr))])
	}
}

func TestURLGuess(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/x":        "http://example.com/x",
		"localhost:8080/a":     "http://localhost:8080/a",
		"ftp.example.com/pub/": "ftp://ftp.example.com/pub/",
		"http://h/x":           "http://h/x",
		"file:///etc/hosts":    "file:///etc/hosts",
	} {
		u, err := parseFetchURL(in)
		if err != nil || u.String() != want {
			t.Errorf("%s: %q %v, want %q", in, u.String(), err, want)
		}
	}
}

// pooledSrv is a fakeSrv that keeps connections: it counts the calls that
// close them.
type pooledSrv struct {
	*fakeSrv
	closed int
}

func (p *pooledSrv) CloseIdleConnections() { p.closed++ }

// The connections fetchers keep are closed once every URL is done.
func TestCloseIdleAtExit(t *testing.T) {
	inDir(t)
	p := &pooledSrv{fakeSrv: newFakeSrv(map[string]*fakeFile{"/f": {data: []byte("x")}})}
	r := runCLIWith(t, nil, func(c *fetchCmd) {
		c.client.Fetchers = fetchtest.Given(map[string]fetch.Fetcher{"test": p})
	}, "test://h/f", "test://h/f")
	if r.code != 0 || r.stdout != "xx" {
		t.Fatalf("%+v", r)
	}
	if p.closed != 1 {
		t.Errorf("CloseIdleConnections called %d times, want once at the end", p.closed)
	}
}

// TestSchemeWithoutSlashesRefused: "nntp:/host", "http:host" and an empty
// "news:" are refused as what they are (exit 3) before any connection or lookup, never
// guessed into a host named after the scheme ("http:/host" is curl's slip
// for "http://host": download.ParseURL). The socks5h proxy would be
// asked for that name (it resolves names for us), so it must see nothing.
func TestSchemeWithoutSlashesRefused(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	proxy := fetchtest.NewServer(t, func(c net.Conn) {
		mu.Lock()
		asked++
		mu.Unlock()
		c.Close()
	})
	for raw, want := range map[string]string{
		"nntp:/127.0.0.1/a.b": `urlget: (3) not a valid nntp URL "nntp:/127.0.0.1/a.b" at byte 5: a nntp URL needs "//" and a host (nntpurl)`,
		"news:":               `urlget: (3) not a valid news URL "news:" at byte 5: empty news URL (want a newsgroup, a message-id or "*") (grouppart)`,
		"http:127.0.0.1/x":    `urlget: (3) not a valid http URL "http:127.0.0.1/x" at byte 5: a http URL needs "//" and a host (httpurl)`,
	} {
		var out, errb bytes.Buffer
		code := run(env{args: []string{"-sS", "-x", "socks5h://" + proxy.Addr, raw}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
		if code != 3 || errb.String() != want+"\n" {
			t.Errorf("%s: exit %d %q, want 3 %q", raw, code, errb.String(), want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 0 {
		t.Errorf("the proxy was asked %d times", asked)
	}
}

// TestFailTellsTheReply: with -f the Client fails the request (Client.Fail)
// and its error carries the reply, so that -w, -D and --etag-save still
// tell of it; --fail-with-body writes the body, keeps the file, exits 22.
func TestFailTellsTheReply(t *testing.T) {
	inDir(t)
	gone := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: 9, Status: 404, Proto: "HTTP/1.1", ContentType: "text/x-gone",
			Header: fetch.Header{{Name: "Content-Type", Value: "text/x-gone"}, {Name: "ETag", Value: `"e1"`}}},
			Body: io.NopCloser(strings.NewReader("gone body"))}, nil
	})
	given := func(c *fetchCmd) { c.client.Fetchers = fetchtest.Given(map[string]fetch.Fetcher{"http": gone}) }
	r := runCLIWith(t, nil, given, "-f", "-D", "hdr", "--etag-save", "etag", "-o", "out",
		"-w", "%{http_code} %{content_type} %{url_effective}", "http://h/a/../gone")
	if r.code != 22 || r.stdout != "404 text/x-gone http://h/gone" {
		t.Errorf("-f -w: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile("hdr"); !strings.HasPrefix(string(b), "HTTP/1.1 404\r\n") || !strings.Contains(string(b), "ETag: \"e1\"\r\n") {
		t.Errorf("-f -D: %q", b)
	}
	if b, _ := os.ReadFile("etag"); string(b) != "\"e1\"\n" {
		t.Errorf("-f --etag-save: %q", b)
	}
	if _, err := os.Stat("out"); err == nil {
		t.Errorf("-f -o: the 404's body was written")
	}
	r = runCLIWith(t, nil, given, "--fail-with-body", "-o", "out", "-w", "%{http_code} %{size_download}", "http://h/gone")
	if b, _ := os.ReadFile("out"); r.code != 22 || r.stdout != "404 9" || string(b) != "gone body" {
		t.Errorf("--fail-with-body: exit %d stdout %q file %q stderr %q", r.code, r.stdout, b, r.stderr)
	}
}
