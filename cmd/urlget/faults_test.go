package main

// Faults on the wire: connections reset at random points through
// testserver.FaultProxy in front of real servers, retries that must deliver
// the resource byte for byte, FILE.part kept and completed with -C -,
// signals, a mirror killed again and again, a full disk.

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
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
	testserver.Require(t, "nginx")
	root := t.TempDir()
	data := bigData(1)
	if err := os.WriteFile(filepath.Join(root, "big.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s := testserver.StartNginx(t, testserver.NginxConfig{Root: root})
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
