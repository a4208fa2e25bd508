package main

// Faults on the wire: connections reset at random points through
// testserver.FaultProxy in front of real servers, retries that must deliver
// the resource byte for byte, FILE.part kept and completed with -C -,
// signals, a mirror killed again and again, a full disk.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
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

// bigSize is the size of the resource the reset tests move.
const bigSize = 64 << 20

// bigData is bigSize seeded random bytes (the same in every run).
func bigData(seed uint64) []byte {
	b := make([]byte, bigSize)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), 'u', 'r', 'l', 'g', 'e', 't'})
	r.Read(b)
	return b
}

// nginxServing starts nginx with a document root holding files.
func nginxServing(t *testing.T, files map[string][]byte) *testserver.NginxServer {
	t.Helper()
	testserver.Require(t, "nginx")
	root := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return testserver.StartNginx(t, testserver.NginxConfig{Root: root})
}

// runQuiet runs the fetch command in-process, stdout discarded unless out
// is set.
func runQuiet(t *testing.T, args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runFetchWith(env{args: args, stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, nil)
	return cliResult{code, stdout.String(), stderr.String()}
}

// sameFile fails the test unless file holds exactly want (by SHA-256).
func sameFile(t *testing.T, what, file string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(file)
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if sha256.Sum256(got) != sha256.Sum256(want) {
		t.Errorf("%s: %s has %d bytes, sha256 differs from the %d bytes served", what, file, len(got), len(want))
	}
}

// resetScenario is the Done-when sequence for one scheme, through a proxy
// whose first resets connections (or data connections) reset at random
// points: with --retry 10 the file arrives whole and byte-identical, after
// at least 5 resets; without --retry the exit code is 18 or 56, FILE.part
// holds a prefix and FILE does not exist; -C - then completes it.
//
// start returns the URL to fetch through a fresh proxy using plan, and a
// function that counts the faults that struck.
func resetScenario(t *testing.T, data []byte, start func(plan func(int) testserver.Fault) (url string, struck func() int)) {
	dir := t.TempDir()
	const resets = 6
	// Points between 1 MiB and 10 MiB: six of them cannot cover 64 MiB,
	// so every reset falls inside the one transfer.
	lo, hi := int64(1<<20), int64(10<<20)
	if len(data) < bigSize {
		lo, hi = int64(len(data)/40), int64(len(data)/8)
	}
	url, struck := start(testserver.ResetPlan(uint64(len(data))+1, resets, lo, hi))
	out := filepath.Join(dir, "whole")
	r := runQuiet(t, "-sS", "--retry", "10", "--retry-delay", "0.01", "-o", out, url)
	if r.code != 0 {
		t.Fatalf("--retry 10: exit %d: %s", r.code, r.stderr)
	}
	sameFile(t, "--retry 10", out, data)
	if n := struck(); n < 5 {
		t.Errorf("--retry 10: %d resets struck, want at least 5", n)
	}
	if _, err := os.Stat(out + ".part"); err == nil {
		t.Errorf("--retry 10: %s.part left behind", out)
	}

	url, struck = start(testserver.ResetPlan(uint64(len(data))+2, 1, lo, hi))
	out = filepath.Join(dir, "cut")
	r = runQuiet(t, "-sS", "-o", out, url)
	if r.code != 18 && r.code != 56 {
		t.Fatalf("no --retry: exit %d, want 18 or 56: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("no --retry: %s exists after a failed transfer", out)
	}
	part, err := os.ReadFile(out + ".part")
	if err != nil || len(part) == 0 || len(part) >= len(data) || !bytes.Equal(part, data[:len(part)]) {
		t.Fatalf("no --retry: %s.part has %d bytes (%v), want a prefix of the %d", out, len(part), err, len(data))
	}
	if !strings.Contains(r.stderr, "-C - -o "+out) {
		t.Errorf("no --retry: stderr does not say how to resume: %q", r.stderr)
	}
	r = runQuiet(t, "-sS", "-C", "-", "-o", out, url)
	if r.code != 0 {
		t.Fatalf("-C -: exit %d: %s", r.code, r.stderr)
	}
	sameFile(t, "-C - after the cut", out, data)
	if _, err := os.Stat(out + ".part"); err == nil {
		t.Errorf("-C -: %s.part left behind", out)
	}
	if struck() != 1 {
		t.Errorf("the cut run and its resume saw %d resets, want 1", struck())
	}
}

func TestResetsHTTPNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	data := bigData(1)
	s := nginxServing(t, map[string][]byte{"big.bin": data})
	resetScenario(t, data, func(plan func(int) testserver.Fault) (string, func() int) {
		p := testserver.StartFaultProxy(t, s.Addr, plan)
		return "http://" + p.Addr() + "/big.bin", p.Struck
	})
}

func TestResetsFTPVsftpd(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	s := testserver.StartFTP(t, testserver.Vsftpd)
	data := bigData(2)
	if err := os.WriteFile(filepath.Join(s.Anon, "big.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	// The control connection is left alone; the data connections are
	// reset.
	resetScenario(t, data, func(plan func(int) testserver.Fault) (string, func() int) {
		p := testserver.StartFTPFaultProxy(t, s.Addr, nil, plan)
		return "ftp://" + p.Addr() + "/big.bin", p.Struck
	})
}

// Gopher has no resume: each retry fetches the item again and skips what
// is held. Between attempts the server itself is restarted (a new
// gophernicus on a new port, the proxy sent there).
func TestResetsGopherGophernicus(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	testserver.Require(t, "gophernicus")
	testserver.Require(t, "socat")
	root := t.TempDir()
	os.Chmod(root, 0o755)
	data := bigData(3)
	if err := os.WriteFile(filepath.Join(root, "big.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
	restarts := 0
	resetScenario(t, data, func(plan func(int) testserver.Fault) (string, func() int) {
		p := testserver.StartFaultProxy(t, s.Addr, plan)
		p.OnConnect(func(n int) {
			if n != 2 {
				return
			}
			// The third attempt finds a new server.
			ns, err := testserver.LaunchGophernicus(testserver.GopherConfig{Root: root})
			if err != nil {
				t.Errorf("restarting gophernicus: %v", err)
				return
			}
			t.Cleanup(func() { ns.Stop() })
			p.SetTarget(ns.Addr)
			restarts++
		})
		return "gopher://" + p.Addr() + "/9/big.bin", p.Struck
	})
	if restarts == 0 {
		t.Error("the server was never restarted between attempts")
	}
}

// An nntp article cut by resets is fetched again from its start.
func TestResetsNNTPINN(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	s := testserver.INN(t)
	var art *testserver.INNArticle
	for _, a := range s.Articles {
		if a.MessageID == testserver.INNLongID {
			art = a
		}
	}
	url := fmt.Sprintf("nntp://%s/local.test/%d", s.Addr, art.Numbers["local.test"])
	whole := filepath.Join(t.TempDir(), "article")
	if r := runQuiet(t, "-sS", "-o", whole, url); r.code != 0 {
		t.Fatalf("direct fetch: exit %d: %s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(whole)
	resetScenario(t, data, func(plan func(int) testserver.Fault) (string, func() int) {
		p := testserver.StartFaultProxy(t, s.Addr, plan)
		return strings.Replace(url, s.Addr, p.Addr(), 1), p.Struck
	})
}

// buildBinary builds urlget for the tests that run it as a process.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "urlget")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// SIGINT and SIGTERM in the middle of a download keep FILE.part (a prefix
// of the resource) and exit 130; -C - then completes it byte-identical.
func TestSignalsKeepPart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, real servers")
	}
	data := bigData(4)[:16<<20]
	s := nginxServing(t, map[string][]byte{"big.bin": data})
	bin := buildBinary(t)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		dir := t.TempDir()
		out := filepath.Join(dir, "big.bin")
		// --limit-rate keeps the transfer going for seconds.
		cmd := exec.Command(bin, "-sS", "--limit-rate", "2M", "-o", out, s.URL+"/big.bin")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitPart(out+".part", 1<<20)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("%v: %v, want exit 130 (stderr %q)", sig, err, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s exists", sig, out)
		}
		part, err := os.ReadFile(out + ".part")
		if err != nil || len(part) < 1<<20 || len(part) >= len(data) || !bytes.Equal(part, data[:len(part)]) {
			t.Fatalf("%v: %s.part has %d bytes (%v), want a prefix of at least 1 MiB", sig, out, len(part), err)
		}
		if !strings.Contains(stderr.String(), "resume with: urlget -C - -o") {
			t.Errorf("%v: stderr %q does not say how to resume", sig, stderr.String())
		}
		if r := runQuiet(t, "-sS", "-C", "-", "-o", out, s.URL+"/big.bin"); r.code != 0 {
			t.Fatalf("%v: -C -: exit %d: %s", sig, r.code, r.stderr)
		}
		sameFile(t, fmt.Sprintf("%v, then -C -", sig), out, data)
	}
}

// checkMirrorDir fails the test when a file under a final name in dir is
// not exactly what the site serves, or a temporary file is left; it returns
// the files the manifest records as finished, and fails when the manifest
// cannot be read or a finished file does not match its record.
func checkMirrorDir(t *testing.T, what, dir string, site *gophertest.Site, tmpOK bool) map[string]bool {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == mirror.ManifestName:
		case strings.HasPrefix(fi.Name(), ".urlget-tmp-"):
			if !tmpOK {
				t.Errorf("%s: temporary file left: %s", what, rel)
			}
		case strings.HasPrefix(fi.Name(), ".gopher-menu"):
		default:
			it := site.Items["/"+filepath.ToSlash(rel)]
			got, _ := os.ReadFile(p)
			if it == nil || !bytes.Equal(got, it.Data) {
				t.Errorf("%s: %s under its final name holds %d bytes that are not the served item", what, rel, len(got))
			}
		}
		return nil
	})
	_, recs, err := mirror.ReadManifest(dir)
	if errors.Is(err, fs.ErrNotExist) && tmpOK {
		// Killed before the run had written its manifest (a slow start
		// on a loaded machine): nothing is finished yet.
		err, recs = nil, nil
	}
	if err != nil {
		t.Fatalf("%s: manifest: %v", what, err)
	}
	// A torn line (what a kill leaves) is skipped when read; the record
	// written after it must not be glued to it and lost.
	raw, _ := os.ReadFile(filepath.Join(dir, mirror.ManifestName))
	for i, l := range strings.Split(string(raw), "\n") {
		if !json.Valid([]byte(l)) && strings.Count(l, `{"url"`) > 1 {
			t.Errorf("%s: manifest line %d glues a record to a torn one: %.120q", what, i+1, l)
		}
	}
	finished := map[string]bool{}
	for _, r := range recs {
		if r.Type != mirror.TypeFile || r.Status != mirror.StatusOK {
			continue
		}
		finished[r.Path] = true
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.Path)))
		if sum := sha256.Sum256(got); err != nil || r.SHA256 != "" && r.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: %s recorded as mirrored, but the file is missing or differs (%v)", what, r.Path, err)
		}
	}
	return finished
}

// urlget mirror SIGKILLed at 10 random moments of one run: every rerun
// goes on, no finished file is fetched again, nothing partial is ever
// under a final name, and the manifest survives a torn last line.
func TestMirrorKilledTenTimes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	s, site := sizedSite(t, 80, 64<<10, 40*time.Millisecond)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(15, 15))
	finished := map[string]bool{}
	seen := 0
	// tear ends the manifest with a torn line, as a kill in the middle of a
	// write leaves, once a run has written one (on a loaded machine the
	// first kills can come before any has).
	torn := false
	tear := func() bool {
		name := filepath.Join(dir, mirror.ManifestName)
		if fi, err := os.Stat(name); err != nil || fi.Size() == 0 {
			return false
		}
		f, err := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"url":"gopher://torn","path":"docs/d0`)
		f.Close()
		return true
	}
	for round := range 10 {
		cmd := exec.Command(bin, "mirror", "-q", "-P", "2", s.URL("1"), dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+rng.IntN(130)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		what := fmt.Sprintf("after kill %d", round+1)
		reqs := s.Requests()
		for _, r := range reqs[seen:] {
			if finished[strings.TrimPrefix(r.Selector, "/")] {
				t.Errorf("%s: %s fetched again though the manifest had it", what, r.Selector)
			}
		}
		seen = len(reqs)
		finished = checkMirrorDir(t, what, dir, site, true)
		if round >= 4 && !torn {
			torn = tear()
		}
	}
	if !torn {
		tear()
	}
	code, _, stderr := runMirrorTest(t, s.URL("1"), dir)
	if code != 0 {
		t.Fatalf("final rerun: exit %d: %s", code, stderr)
	}
	for _, r := range s.Requests()[seen:] {
		if finished[strings.TrimPrefix(r.Selector, "/")] {
			t.Errorf("final rerun: %s fetched again though the manifest had it", r.Selector)
		}
	}
	all := checkMirrorDir(t, "final", dir, site, false)
	if len(all) != 80 {
		t.Errorf("final: %d files mirrored, want 80", len(all))
	}
	if len(finished) == 80 {
		t.Errorf("every file was finished before the last kill: the kills came too late to test anything")
	}
	t.Logf("%d of 80 files were finished before the final rerun", len(finished))
}

// mountTmpfs mounts a tmpfs of size bytes for the rest of the test; it
// skips when that is impossible (not root), unless CI is set.
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size))
	if err != nil {
		if os.Geteuid() != 0 && !testserver.InCI() {
			t.Skipf("mounting a tmpfs needs root: %v", err)
		}
		t.Fatalf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// A full disk: exit 23 and nothing partial under a final name, for a fetch
// and for a mirror, whose manifest stays consistent with the files.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	data := bigData(5)[:8<<20]
	s := nginxServing(t, map[string][]byte{"big.bin": data})
	small := mountTmpfs(t, 2<<20)
	out := filepath.Join(small, "big.bin")
	r := runQuiet(t, "-sS", "-o", out, s.URL+"/big.bin")
	if r.code != 23 {
		t.Errorf("fetch to a full disk: exit %d, want 23: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("fetch to a full disk: %s exists", out)
	}
	os.Remove(out + ".part")

	g, site := sizedSite(t, 20, 256<<10, 0)
	mdir := filepath.Join(small, "mirror")
	code, _, stderr := runMirrorTest(t, g.URL("1"), mdir)
	if code != 23 {
		t.Errorf("mirror to a full disk: exit %d, want 23: %s", code, stderr)
	}
	got := checkMirrorDir(t, "mirror on a full disk", mdir, site, false)
	if len(got) >= 20 {
		t.Errorf("mirror on a full disk: %d files mirrored into 2 MiB", len(got))
	}
}

// An ftp mirror on a file system out of inodes, at each point of the run
// in turn (a file's partial file, the manifest's compaction): exit 23,
// never 1, and every file under its final name whole.
func TestDiskFullInodesFTPMirror(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	s := testserver.StartFTP(t, testserver.Vsftpd)
	for i := range 3 {
		p := filepath.Join(s.Anon, "few", fmt.Sprintf("f%d", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("data\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// 7 inodes are enough for the tmpfs root, DIR, the manifest, its
	// lock and the three files; fewer run out somewhere.
	for n := 2; n <= 7; n++ {
		dir := t.TempDir()
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=1m,nr_inodes=%d", n)); err != nil {
			if os.Geteuid() != 0 && !testserver.InCI() {
				t.Skipf("mounting a tmpfs needs root: %v", err)
			}
			t.Fatalf("mount tmpfs: %v", err)
		}
		t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
		code, _, stderr := runMirrorTest(t, s.URL+"/few/", filepath.Join(dir, "m"))
		if want := map[bool]int{true: 0, false: 23}[n == 7]; code != want {
			t.Errorf("nr_inodes=%d: exit %d, want %d: %s", n, code, want, stderr)
		}
		for i := range 3 {
			if b, err := os.ReadFile(filepath.Join(dir, "m", fmt.Sprintf("f%d", i))); err == nil && string(b) != "data\n" {
				t.Errorf("nr_inodes=%d: f%d holds %q", n, i, b)
			}
		}
	}
}

// Stalls, trickles and half-closes in front of nginx: -Y/-y end a stalled
// transfer with 28 (FILE.part kept), and --retry gets past it; a trickle
// above the speed limit is left alone; a half-close mid-body is a partial
// transfer (18) that --retry completes.
//
// (The trickle: 2 KiB every 20 ms, about 100 kB/s for 0.6 s, against -Y
// 10000 over -y 0.3.)
func TestStallTrickleHalfCloseNginx(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	data := bigData(6)[:4<<20]
	small := bigData(7)[:64<<10]
	s := nginxServing(t, map[string][]byte{"f.bin": data, "small.bin": small})
	dir := t.TempDir()
	firstOnly := func(f testserver.Fault) func(int) testserver.Fault {
		return func(n int) testserver.Fault {
			if n == 0 {
				return f
			}
			return testserver.Fault{}
		}
	}

	stall := testserver.StartFaultProxy(t, s.Addr, firstOnly(testserver.Fault{After: 1 << 20, Stall: testserver.StallForever}))
	url := "http://" + stall.Addr() + "/f.bin"
	out := filepath.Join(dir, "stalled")
	r := runQuiet(t, "-sS", "-Y", "100000", "-y", "0.5", "-o", out, url)
	if r.code != 28 || !strings.Contains(r.stderr, "too slow") {
		t.Errorf("stall with -Y/-y: exit %d: %s", r.code, r.stderr)
	}
	if part, err := os.ReadFile(out + ".part"); err != nil || len(part) == 0 || !bytes.Equal(part, data[:len(part)]) {
		t.Errorf("stall: %s.part has %d bytes (%v), want a prefix", out, len(part), err)
	}
	if r := runQuiet(t, "-sS", "-C", "-", "-o", out, url); r.code != 0 {
		t.Errorf("stall, then -C -: exit %d: %s", r.code, r.stderr)
	}
	sameFile(t, "stall, then -C -", out, data)

	stall2 := testserver.StartFaultProxy(t, s.Addr, firstOnly(testserver.Fault{After: 1 << 20, Stall: testserver.StallForever}))
	out = filepath.Join(dir, "stalled-retry")
	if r := runQuiet(t, "-sS", "-Y", "100000", "-y", "0.5", "--retry", "2", "--retry-delay", "0.01", "-o", out, "http://"+stall2.Addr()+"/f.bin"); r.code != 0 {
		t.Errorf("stall with --retry: exit %d: %s", r.code, r.stderr)
	}
	sameFile(t, "stall with --retry", out, data)

	trickle := testserver.StartFaultProxy(t, s.Addr, testserver.Always(testserver.Fault{After: 1000, Trickle: 2 << 10, TrickleEvery: 20 * time.Millisecond}))
	out = filepath.Join(dir, "trickled")
	if r := runQuiet(t, "-sS", "-Y", "10000", "-y", "0.3", "-o", out, "http://"+trickle.Addr()+"/small.bin"); r.code != 0 {
		t.Errorf("trickle above -Y: exit %d: %s", r.code, r.stderr)
	}
	sameFile(t, "trickle", out, small)

	half := testserver.StartFaultProxy(t, s.Addr, firstOnly(testserver.Fault{After: 1 << 20, HalfClose: true}))
	url = "http://" + half.Addr() + "/f.bin"
	out = filepath.Join(dir, "half")
	if r := runQuiet(t, "-sS", "-o", out, url); r.code != 18 {
		t.Errorf("half-close: exit %d, want 18: %s", r.code, r.stderr)
	}
	if r := runQuiet(t, "-sS", "--retry", "2", "--retry-delay", "0.01", "-o", out, url); r.code != 0 {
		t.Errorf("half-close, then --retry: exit %d: %s", r.code, r.stderr)
	}
	sameFile(t, "half-close, then --retry", out, data)
}

// TestCutFTPDataVsftpd: a data connection closed cleanly after none or
// some of the file's bytes while vsftpd's 226 goes through (testserver's
// Cut, as a NAT or a firewall's FTP helper may) is exit 18, the bytes
// kept in FILE.part, FILE not made; -C - completes it. The cut is seen
// with SIZE, and with SIZE refused (cmds_denied) by the 150 reply's
// "(N bytes)" alone, as curl reads it.
func TestCutFTPDataVsftpd(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	data := bigData(4)[:33983]
	for _, tc := range []struct {
		name  string
		conf  []string
		after int64
	}{
		{"SIZE, cut before the first byte", nil, 0},
		{"no SIZE, cut before the first byte", []string{"cmds_denied=SIZE"}, 0},
		{"no SIZE, cut after 10000 bytes", []string{"cmds_denied=SIZE"}, 10000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testserver.StartFTPConf(t, testserver.Vsftpd, tc.conf...)
			if err := os.WriteFile(filepath.Join(s.Anon, "pub", "cut.bin"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			p := testserver.StartFTPFaultProxy(t, s.Addr, nil, func(n int) testserver.Fault {
				if n == 0 {
					return testserver.Fault{After: tc.after, Cut: true}
				}
				return testserver.Fault{}
			})
			url := "ftp://" + p.Addr() + "/pub/cut.bin"
			out := filepath.Join(t.TempDir(), "cut.bin")
			r := runQuiet(t, "-sS", "-o", out, url)
			if r.code != 18 || p.Struck() != 1 {
				t.Fatalf("exit %d (%d cuts), want 18: %s", r.code, p.Struck(), r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s exists after a cut transfer", out)
			}
			part, err := os.ReadFile(out + ".part")
			if tc.after > 0 && (err != nil || !bytes.Equal(part, data[:tc.after])) {
				t.Errorf("%s.part has %d bytes (%v), want the %d before the cut", out, len(part), err, tc.after)
			}
			if r = runQuiet(t, "-sS", "-C", "-", "-o", out, url); r.code != 0 {
				t.Fatalf("-C -: exit %d: %s", r.code, r.stderr)
			}
			sameFile(t, "-C - after the cut", out, data)
		})
	}
}
