package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

// parCase is one -Z command run beside curl.
type parCase struct {
	name string
	args []string
	prep func(dir string)
	code int
	// cut are output files whose transfer is cut on purpose: curl leaves
	// NAME holding what arrived, urlget NAME.part (and no NAME); both
	// must hold a prefix of src[NAME].
	cut map[string][]byte
}

// runParBeside runs each case with curl and urlget (in-process), "-s"
// first, in fresh directories: the same exit status, the same stdout once
// its lines are sorted (the transfers end in any order, and -w follows
// it), the same files.
func runParBeside(t *testing.T, curl string, cases []parCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := besideCurl(t, curl, tc.args, tc.prep)
			cout, ccode, uout, uerr, ucode, cdir, udir := b.cout, b.ccode, b.uout, b.uerr, b.ucode, b.cdir, b.udir
			if ccode != tc.code || ucode != tc.code {
				t.Errorf("exit: curl %d, urlget %d, want %d (urlget stderr %q)", ccode, ucode, tc.code, uerr)
			}
			if cs, us := sortedLines(cout), sortedLines(uout); cs != us {
				t.Errorf("stdout differs (lines sorted):\nurlget %q\ncurl   %q", clip(us), clip(cs))
			}
			for name, src := range tc.cut {
				c, cerr := os.ReadFile(filepath.Join(cdir, name))
				u, uerr := os.ReadFile(filepath.Join(udir, name+".part"))
				if _, err := os.Stat(filepath.Join(udir, name)); err == nil {
					t.Errorf("urlget left the cut transfer under its final name %s", name)
				}
				if cerr != nil || uerr != nil || !bytes.HasPrefix(src, c) || !bytes.HasPrefix(src, u) || len(u) == 0 {
					t.Errorf("cut %s: curl %d bytes (%v), urlget %d bytes in .part (%v), want a prefix of the %d", name, len(c), cerr, len(u), uerr, len(src))
				}
				os.Remove(filepath.Join(cdir, name))
				os.Remove(filepath.Join(udir, name+".part"))
			}
			compareTrees(t, cdir, udir)
		})
	}
}

func sortedLines(s string) string {
	l := strings.SplitAfter(s, "\n")
	slices.Sort(l)
	return strings.Join(l, "")
}

// parFixture starts nginx on 40 files of random bytes, f01.bin to f40.bin
// (0 to 300 kB), and big.bin (2 MiB); under /slow/ the same at 64 kB/s
// (nginx sends the first second's worth at once).
func parFixture(t *testing.T) (*testserver.NginxServer, map[string][]byte) {
	t.Helper()
	testserver.Require(t, "nginx")
	root := t.TempDir()
	rng := rand.New(rand.NewPCG(26, 26))
	files := map[string][]byte{"big.bin": make([]byte, 2<<20)}
	for i := 1; i <= 40; i++ {
		files[fmt.Sprintf("f%02d.bin", i)] = make([]byte, rng.IntN(300_000))
	}
	for name, b := range files {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return testserver.StartNginx(t, testserver.NginxConfig{Root: root,
		Extra: "        location = /e500 { return 500; }\n        location /slow/ { limit_rate 64k; alias " + root + "/; }\n"}), files
}

// TestParallelBesideCurl: -Z against nginx, a mix of good and failing
// URLs — a 404, a refused connection, a transfer cut short (a FaultProxy
// closes it) — with globs, -o #N, -O and -w per URL.
func TestParallelBesideCurl(t *testing.T) {
	s, files := parFixture(t)
	curl := testserver.Require(t, "curl")
	b := s.URL
	// Every connection through cut ends (FIN) 100000 bytes into the reply.
	cut := "http://" + testserver.StartFaultProxy(t, s.Addr, testserver.Always(testserver.Fault{After: 100_000, HalfClose: true})).Addr()
	refused := "http://127.0.0.1:1"
	wo := "%{urlnum} %{url} %{http_code} %{exitcode} %{size_download} %{filename_effective} %{content_type}\\n"
	existing := func(dir string) { os.WriteFile(filepath.Join(dir, "keep"), []byte("old\n"), 0o644) }
	cases := []parCase{
		{name: "glob -o #1", args: []string{"-Z", b + "/f[01-40].bin", "-o", "o#1"}},
		{name: "glob -w", args: []string{"-Z", "--parallel-max", "7", "-w", wo, b + "/f[01-40:3].bin", "-o", "o#1"}},
		{name: "-O each", args: []string{"-Z", "-O", b + "/f01.bin", "-O", b + "/f02.bin", "-O", b + "/big.bin", "--remote-name-all", b + "/f{03,04}.bin"}},
		{name: "one to stdout", args: []string{"-Z", "-o", "a", b + "/f05.bin", b + "/f06.bin", "-o", "c", b + "/f07.bin"}},
		{name: "404 kept", args: []string{"-Z", "-w", wo, "-o", "a", b + "/f01.bin", "-o", "b", b + "/missing", "-o", "c", b + "/f02.bin"}},
		{name: "-f 404", args: []string{"-Z", "-f", "-w", wo, "-o", "a", b + "/f01.bin", "-o", "keep", b + "/missing", "-o", "c", b + "/big.bin"}, prep: existing, code: 22},
		{name: "refused", args: []string{"-Z", "-w", wo, "-o", "a", b + "/f08.bin", "-o", "r", refused + "/x", "-o", "c", b + "/big.bin"}, code: 7},
		{name: "cut keeps .part", args: []string{"-Z", "-w", wo, "-o", "a", b + "/f09.bin", "-o", "big", cut + "/big.bin", "-o", "c", b + "/f10.bin"},
			code: 18, cut: map[string][]byte{"big": files["big.bin"]}},
		// The last failure to end: the refusal comes at once, the cut
		// after 100000 bytes at 64 kB/s: a second.
		{name: "last to fail", args: []string{"-Z", "-w", wo, "-o", "big", cut + "/slow/big.bin", "-o", "r", refused + "/", "-o", "a", b + "/f11.bin"},
			code: 18, cut: map[string][]byte{"big": files["big.bin"]}},
		// One at a time: the failures end in the order given.
		{name: "max 1 last failure", args: []string{"-Z", "--parallel-max", "1", "-f", "-w", wo, "-o", "x", b + "/e500", "-o", "r", refused + "/", "-o", "a", b + "/f12.bin"}, code: 7},
		{name: "max 1 other order", args: []string{"-Z", "--parallel-max", "1", "-f", "-w", wo, "-o", "r", refused + "/", "-o", "x", b + "/e500", "-o", "a", b + "/f12.bin"}, code: 22},
		{name: "--parallel-immediate", args: []string{"-Z", "--parallel-immediate", "--parallel-max", "300", b + "/f[1-3]{0,1}.bin", "-o", "p#1#2"}},
	}
	runParBeside(t, curl, cases)

	// Each transfer's -w times are its own, on a kept connection too.
	t.Run("times", func(t *testing.T) {
		out, errs, code := urlgetIn(t, t.TempDir(), []string{"-s", "-Z", "--parallel-max", "3", "-w", "%{time_pretransfer} %{time_starttransfer} %{local_port}\\n",
			b + "/f[01-12].bin", "-o", "o#1"})
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || len(lines) != 12 {
			t.Fatalf("exit %d, %d lines: %q %q", code, len(lines), out, errs)
		}
		for _, l := range lines {
			var pre, start float64
			var port int
			if n, _ := fmt.Sscanf(l, "%f %f %d", &pre, &start, &port); n != 3 || pre <= 0 || start < pre || port == 0 {
				t.Errorf("-w line %q: want a time before the request, one at its reply, and the local port", l)
			}
		}
	})
}

// TestParallelFTPBesideCurl: -Z against vsftpd, with a missing file and a
// data connection cut (FaultProxy).
func TestParallelFTPBesideCurl(t *testing.T) {
	s := testserver.StartFTP(t, testserver.Vsftpd)
	curl := testserver.Require(t, "curl")
	b := s.URL + "/pub"
	p := testserver.StartFTPFaultProxy(t, s.Addr, nil, testserver.Always(testserver.Fault{After: 65536, HalfClose: true}))
	cut := "ftp://" + p.Addr() + "/pub"
	wo := "%{url} %{response_code} %{exitcode} %{size_download} %{filename_effective}\\n"
	cases := []parCase{
		{name: "glob -o #1", args: []string{"-Z", "--create-dirs", b + "/{hello.txt,binary.bin,1mb.txt,a/b/c/deep.txt}", "-o", "#1"}},
		{name: "no dirs", args: []string{"-Z", b + "/{hello.txt,a/b/c/deep.txt}", "-o", "#1"}, code: 23},
		{name: "-O -w", args: []string{"-Z", "-w", wo, "--remote-name-all", b + "/hello.txt", b + "/binary.bin", b + "/1mb.txt"}},
		{name: "missing", args: []string{"-Z", "-w", wo, b + "/{hello.txt,missing.txt,binary.bin}", "-o", "o_#1"}, code: 78},
		{name: "cut keeps .part", args: []string{"-Z", "-o", "h", b + "/hello.txt", "-o", "bin", cut + "/binary.bin"},
			code: 18, cut: map[string][]byte{"bin": testserver.FTPBinaryData}},
	}
	runParBeside(t, curl, cases)
}

// TestParallel: the transfers do run at once, --parallel-max bounds them,
// two URLs given one output file write it one after the other, and the
// summary line is drawn on a terminal, and not with -s.
func TestParallel(t *testing.T) {
	inDir(t)
	var now, peak atomic.Int32
	files := map[string]*fakeFile{}
	for i := range 12 {
		files[fmt.Sprintf("/f%d", i)] = &fakeFile{data: bytes.Repeat([]byte{byte('a' + i)}, 50000)}
	}
	srv := newFakeSrv(files)
	// The first four transfers wait at the server until all four are
	// there, so that four at once is reached whatever the scheduler does;
	// every open counts what is open beside it.
	var opened atomic.Int32
	four := make(chan struct{})
	srv.onOpen = func() {
		c := now.Add(1)
		for p := peak.Load(); c > p && !peak.CompareAndSwap(p, c); p = peak.Load() {
		}
		switch o := opened.Add(1); {
		case o == 4:
			close(four)
		case o < 4:
			select {
			case <-four:
			case <-time.After(30 * time.Second): // four never came: peak says so below
			}
		}
		now.Add(-1)
	}
	if r := runCLI(t, srv, "-Z", "--parallel-max", "4", "test://h/f[0-11]", "-o", "o#1"); r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if peak.Load() != 4 {
		t.Errorf("at most %d at once, want 4", peak.Load())
	}
	for i := range 12 {
		if got := readFile(t, fmt.Sprintf("o%d", i)); got != string(files[fmt.Sprintf("/f%d", i)].data) {
			t.Errorf("o%d: %d bytes", i, len(got))
		}
	}
	// All into one file: each transfer writes it whole, one at a time.
	if r := runCLI(t, srv, "-Z", "test://h/f[0-11]", "-o", "same"); r.code != 0 {
		t.Fatalf("same: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := readFile(t, "same"); len(got) != 50000 || strings.Count(got, got[:1]) != 50000 {
		t.Errorf("same: %d bytes, mixed: %q...", len(got), got[:min(20, len(got))])
	}
	noTemps(t, ".")
	// -D: one file for every transfer, each reply's block whole.
	if r := runCLI(t, srv, "-Z", "-D", "heads", "http://h/f[0-11]", "-o", "h#1"); r.code != 0 {
		t.Fatalf("-D: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := readFile(t, "heads"); got != strings.Repeat("HTTP/1.1 200\r\n\r\n", 12) {
		t.Errorf("-D file under -Z: %q", got)
	}

	term := func(c *fetchCmd) { c.isTerminal = func(w io.Writer) bool { return w == c.e.stderr } }
	// The transfers end one by one after the line is first drawn.
	opened.Store(0)
	srv.onOpen = func() { time.Sleep(250*time.Millisecond + time.Duration(opened.Add(1))*20*time.Millisecond) }
	r := runCLIWith(t, srv, term, "-Z", "test://h/f[0-11]", "-o", "m#1")
	if !strings.Contains(r.stderr, "12 done, 0 going") || !strings.Contains(r.stderr, "100.0%") || !strings.HasSuffix(r.stderr, "\n") {
		t.Errorf("summary line: %q", r.stderr)
	}
	// Transfers that end with nothing to say leave the line alone (it is
	// cleared only for a message).
	if strings.Contains(r.stderr, strings.Repeat(" ", 79)+"\r") {
		t.Errorf("the line was cleared with nothing to write: %q", r.stderr)
	}
	if r := runCLIWith(t, srv, term, "-Z", "-s", "test://h/f[0-11]", "-o", "m#1"); r.stderr != "" {
		t.Errorf("-s drew: %q", r.stderr)
	}
	// An error message is not written over the line.
	r = runCLIWith(t, srv, term, "-Z", "test://h/f1", "-o", "a", "test://h/missing", "-o", "b")
	if !strings.Contains(r.stderr, "\nurlget: (") && !strings.Contains(r.stderr, "\r\x1b[Kurlget: (") && !strings.HasPrefix(r.stderr, "urlget: (") {
		t.Errorf("error among the meter: %q", r.stderr)
	}
}

func TestParallelMaxBounds(t *testing.T) {
	for in, want := range map[int]int{0: 50, -3: 50, 1: 1, 300: 300, 301: 300, 50: 50} {
		if got := (parOpts{max: in}).limit(); got != want {
			t.Errorf("--parallel-max %d: %d, want %d", in, got, want)
		}
	}
}

// TestParallelInterrupt: SIGINT in the middle of -Z keeps each transfer's
// FILE.part (a prefix of its resource), says how to resume each, and exits
// 130; a -Z -C - run then completes both.
func TestParallelInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, real servers")
	}
	data := bigData(4)[:8<<20]
	s := nginxServing(t, map[string][]byte{"a.bin": data, "b.bin": data})
	bin := buildBinary(t)
	dir := t.TempDir()
	args := []string{"-sS", "-Z", "--limit-rate", "2M", "--output-dir", dir, "-O", s.URL + "/a.bin", "-O", s.URL + "/b.bin"}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for range 500 {
		fa, erra := os.Stat(filepath.Join(dir, "a.bin.part"))
		fb, errb := os.Stat(filepath.Join(dir, "b.bin.part"))
		if erra == nil && errb == nil && fa.Size() > 0 && fb.Size() > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("%v, want exit 130 (stderr %q)", err, stderr.String())
	}
	for _, name := range []string{"a.bin", "b.bin"} {
		part, err := os.ReadFile(filepath.Join(dir, name+".part"))
		if err != nil || len(part) == 0 || len(part) >= len(data) || !bytes.Equal(part, data[:len(part)]) {
			t.Errorf("%s.part has %d bytes (%v), want a prefix", name, len(part), err)
		}
		if !strings.Contains(stderr.String(), "resume with: urlget -C - -o "+filepath.Join(dir, name)) {
			t.Errorf("stderr %q does not say how to resume %s", stderr.String(), name)
		}
	}
	if r := runQuiet(t, "-sS", "-Z", "-C", "-", "--output-dir", dir, "-O", s.URL+"/a.bin", "-O", s.URL+"/b.bin"); r.code != 0 {
		t.Fatalf("-C -: exit %d: %s", r.code, r.stderr)
	}
	sameFile(t, "a.bin after -C -", filepath.Join(dir, "a.bin"), data)
	sameFile(t, "b.bin after -C -", filepath.Join(dir, "b.bin"), data)
}

// BenchmarkParallelHTTP: -Z fetching 200 files (1 to 512 KiB) from nginx
// into a directory, the workload of bench/parallel.sh's http half.
func BenchmarkParallelHTTP(b *testing.B) {
	testserver.Require(b, "nginx")
	root := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var total int64
	for i := 1; i <= 200; i++ {
		data := make([]byte, (rng.IntN(512)+1)<<10)
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		total += int64(len(data))
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d.bin", i)), data, 0o644)
	}
	s := testserver.StartNginx(b, testserver.NginxConfig{Root: root})
	tmp := b.TempDir()
	b.SetBytes(total)
	n := 0
	for b.Loop() {
		// A new directory each time, as a user's first run: replacing
		// the files of the last makes the file system flush them.
		n++
		out := filepath.Join(tmp, strconv.Itoa(n))
		pgoFetch(b, "-s", "-Z", "--create-dirs", "--output-dir", out, s.URL+"/f[001-200].bin", "-o", "f#1.bin")
		os.RemoveAll(out)
	}
}
