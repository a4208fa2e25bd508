package mirror

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/internal/testserver"
)

// Data connections cut cleanly (testserver's Cut: none or some of the
// bytes passed on, the connection closed with FIN, the rest read and
// dropped so that vsftpd's 226 goes through) in front of vsftpd: what
// a NAT or a firewall's FTP helper does now and then (issue 37).

// cutFiles writes n files of 33,983 seeded random bytes below dir and
// returns their contents by name.
func cutFiles(t *testing.T, dir string, n int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i := range n {
		b := make([]byte, 33983)
		rand.NewChaCha8([32]byte{37, byte(i)}).Read(b)
		name := fmt.Sprintf("file%04d.txt", i)
		fetchtest.WriteFile(t, filepath.Join(dir, name), string(b), t1)
		out[name] = string(b)
	}
	return out
}

// cutPlan cuts the data connections whose numbers (from 0) are in cut.
func cutPlan(after int64, cut ...int) func(int) testserver.Fault {
	return func(n int) testserver.Fault {
		for _, c := range cut {
			if n == c || c < 0 && n >= -c {
				return testserver.Fault{After: after, Cut: true}
			}
		}
		return testserver.Fault{}
	}
}

// A file whose data connection is cut is fetched again, whole; one whose
// every data connection is cut fails, is never recorded ok, and the run
// fails.
func TestRealFTPCutFile(t *testing.T) {
	testRealFTPCutFile(t, testserver.StartFTP(t, testserver.Vsftpd))
}

// TestRealFTPCutFileNoSIZE: as TestRealFTPCutFile on a vsftpd that
// refuses SIZE (cmds_denied): the cut is seen by the listing's size and
// the 150 reply's "(N bytes)".
func TestRealFTPCutFileNoSIZE(t *testing.T) {
	testRealFTPCutFile(t, testserver.StartFTPConf(t, testserver.Vsftpd, "cmds_denied=SIZE"))
}

func testRealFTPCutFile(t *testing.T, s *testserver.FTPServer) {
	files := cutFiles(t, filepath.Join(s.Anon, "pub", "cut"), 5)
	for _, after := range []int64{0, 10000} {
		t.Run(fmt.Sprintf("retried, cut after %d bytes", after), func(t *testing.T) {
			// Data connection 0 is the listing, 1 the first file's.
			p := testserver.StartFTPFaultProxy(t, s.Addr, nil, cutPlan(after, 1))
			dir := t.TempDir()
			sum, err := Run(context.Background(), Options{URL: "ftp://" + p.Addr() + "/pub/cut/", Dir: dir, Parallel: 1})
			if err != nil || sum.New != 5 || sum.Failed != 0 || p.Struck() != 1 {
				t.Fatalf("%v: %+v, %d cuts", err, countsOf(sum), p.Struck())
			}
			sameTree(t, tree(t, dir), files)
		})
	}
	t.Run("every try cut", func(t *testing.T) {
		p := testserver.StartFTPFaultProxy(t, s.Addr, nil, cutPlan(0, -1))
		dir := t.TempDir()
		sum, err := Run(context.Background(), Options{URL: "ftp://" + p.Addr() + "/pub/cut/", Dir: dir, Parallel: 1,
			Retries: 2, RetryWait: time.Millisecond})
		if err == nil || sum.Failed != 5 || sum.New != 0 {
			t.Fatalf("%v: %+v, want 5 failed and an error", err, countsOf(sum))
		}
		if p.Struck() != 15 {
			t.Errorf("%d cuts, want 15 (each file tried 3 times)", p.Struck())
		}
		for url, r := range records(t, dir) {
			if r.Type == TypeFile && r.Status == StatusOK {
				t.Errorf("%s recorded ok after every transfer was cut: %+v", url, r)
			}
		}
		for name := range files {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				t.Errorf("%s written although every transfer of it was cut", name)
			}
		}
	})
}

// A directory listing cut (empty, or in the middle of a line) is not
// believed: listed again on a new connection — with LIST where MLSD came
// first (pure-ftpd and ProFTPD have MLSD, vsftpd has not) — its files are
// fetched; a directory mirrored before keeps its files under --delete.
func TestRealFTPCutListing(t *testing.T) {
	for _, kind := range []testserver.FTPKind{testserver.Vsftpd, testserver.PureFTPd, testserver.ProFTPD} {
		t.Run(string(kind), func(t *testing.T) { testRealFTPCutListing(t, testserver.StartFTP(t, kind)) })
	}
}

func testRealFTPCutListing(t *testing.T, s *testserver.FTPServer) {
	files := cutFiles(t, filepath.Join(s.Anon, "pub", "cutlist", "d"), 20)
	want := map[string]string{}
	for name, data := range files {
		want["d/"+name] = data
	}
	// The first listing's command, and the one the second look uses.
	first, again := "MLSD", "LIST"
	if s.Kind == testserver.Vsftpd {
		first = "LIST"
	}
	for _, after := range []int64{0, 100} {
		t.Run(fmt.Sprintf("cut after %d bytes", after), func(t *testing.T) {
			// Data connection 0 of a run lists pub/cutlist/, 1 lists d/.
			var base atomic.Int64
			plan := func(n int) testserver.Fault { return cutPlan(after, 1)(n - int(base.Load())) }
			p := testserver.StartFTPFaultProxy(t, s.Addr, nil, plan)
			dir := t.TempDir()
			var mu sync.Mutex
			var notes []string
			note := func(ev Event) {
				if ev.Kind == EventSkipped && ev.Err != nil {
					mu.Lock()
					notes = append(notes, ev.Err.Error())
					mu.Unlock()
				}
			}
			// The note of the second look names the first command.
			relisted := func() bool {
				mu.Lock()
				defer mu.Unlock()
				for _, n := range notes {
					if strings.HasPrefix(n, "d/: the first listing was not believed ("+first) &&
						strings.Contains(n, "listed again on another connection with "+again+": 20 entries") {
						return true
					}
				}
				return false
			}
			sum, err := Run(context.Background(), Options{URL: "ftp://" + p.Addr() + "/pub/cutlist/", Dir: dir, Parallel: 1, Event: note})
			if err != nil || sum.New != 20 || p.Struck() != 1 {
				t.Fatalf("%v: %+v, %d cuts", err, countsOf(sum), p.Struck())
			}
			if !relisted() || p.Conns() < 2 {
				t.Errorf("d/ not listed again with %s on a new connection (%d connections): notes %q", again, p.Conns(), notes)
			}
			sameTree(t, tree(t, dir), want)

			// Again, with --delete, the listing of d/ cut once more:
			// nothing is deleted.
			base.Store(int64(p.DataConns()))
			notes = nil
			sum, err = Run(context.Background(), Options{URL: "ftp://" + p.Addr() + "/pub/cutlist/", Dir: dir, Parallel: 1, Delete: true, Event: note})
			if err != nil || sum.Deleted != 0 || sum.Gone != 0 || sum.Unchanged != 20 || p.Struck() != 2 {
				t.Fatalf("rerun: %v: %+v, %d cuts", err, countsOf(sum), p.Struck())
			}
			if !relisted() {
				t.Errorf("rerun: d/ not listed again: notes %q", notes)
			}
			sameTree(t, tree(t, dir), want)
			for url, r := range records(t, dir) {
				if strings.Contains(url, "/d/file") && r.Status != StatusOK {
					t.Errorf("rerun: %s: %+v", url, r)
				}
			}
		})
	}
}

// The sizes a file's data are checked against without the 150 reply's
// (a server that writes none): SIZE's, and the listing's where SIZE is
// refused. The file's transfer ends short with a 226: without retries it
// fails, is not recorded ok, and the run fails; the other files arrive.
func TestFTPMirrorShortWith226(t *testing.T) {
	for _, tc := range []struct {
		name string
		size ftptest.Hook
	}{
		{"SIZE", nil},
		{"the listing's size (SIZE refused)", ftptest.Reply("SIZE", "502 SIZE not implemented")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := ftptest.New(t)
			ftpTree(s)
			data := binaryBytes()
			short := ftptest.ShortData("two.bin", data, len(data)/2, "226 Transfer complete")
			s.Configure(func(s *ftptest.Server) {
				s.Hook = short
				if tc.size != nil {
					s.Hook = ftptest.Chain(tc.size, short)
				}
			})
			dir := t.TempDir()
			sum, err := Run(context.Background(), Options{URL: "ftp://" + s.Addr + "/pub/", Dir: dir, Retries: -1})
			if err == nil || sum.Failed != 1 || sum.New != 4 {
				t.Fatalf("%v: %+v, want two.bin failed", err, countsOf(sum))
			}
			for url, r := range records(t, dir) {
				if strings.HasSuffix(url, "/two.bin") && r.Status == StatusOK {
					t.Errorf("%s recorded ok: %+v", url, r)
				}
			}
			if _, err := os.Lstat(filepath.Join(dir, "a", "b", "two.bin")); err == nil {
				t.Error("a/b/two.bin written short")
			}
		})
	}
}

// TestRealHTTPCut: nginx's replies cut (FIN) in the middle of a file's
// body, the Content-Length not reached: the file is fetched again and
// arrives whole; when every try is cut it fails, is never recorded ok nor
// written under its name, its bytes are kept for the next run, which
// continues them with Range.
func TestRealHTTPCut(t *testing.T) {
	root := t.TempDir()
	big := make([]byte, 300000)
	rand.NewChaCha8([32]byte{37, 'h'}).Read(big)
	fetchtest.WriteFile(t, filepath.Join(root, "big.bin"), string(big), t1)
	fetchtest.WriteFile(t, filepath.Join(root, "small.txt"), "small\n", t1)
	ng := testserver.StartNginx(t, testserver.NginxConfig{Root: root})
	want := map[string]string{"big.bin": string(big), "small.txt": "small\n"}
	// Each connection's replies are cut 100,000 bytes in: in big.bin's
	// body (the index and small.txt are a few hundred bytes).
	cut := testserver.Fault{After: 100000, HalfClose: true}
	t.Run("retried", func(t *testing.T) {
		p := testserver.StartFaultProxy(t, ng.Addr, func(n int) testserver.Fault {
			if n == 0 {
				return cut
			}
			return testserver.Fault{}
		})
		dir := t.TempDir()
		sum, err := Run(context.Background(), Options{URL: "http://" + p.Addr() + "/", Dir: dir, Parallel: 1, RetryWait: time.Millisecond})
		if err != nil || sum.New != 2 || sum.Failed != 0 || p.Struck() != 1 {
			t.Fatalf("%v: %+v, %d cuts", err, countsOf(sum), p.Struck())
		}
		sameTree(t, tree(t, dir), want)
	})
	t.Run("every try cut", func(t *testing.T) {
		var cutting atomic.Bool
		cutting.Store(true)
		p := testserver.StartFaultProxy(t, ng.Addr, func(int) testserver.Fault {
			if cutting.Load() {
				return cut
			}
			return testserver.Fault{}
		})
		dir := t.TempDir()
		url := "http://" + p.Addr() + "/"
		sum, err := Run(context.Background(), Options{URL: url, Dir: dir, Parallel: 1, Retries: 2, RetryWait: time.Millisecond})
		if err == nil || sum.Failed != 1 || sum.New != 1 {
			t.Fatalf("%v: %+v, want big.bin failed and an error", err, countsOf(sum))
		}
		if r := records(t, dir)[url+"big.bin"]; r.Status == StatusOK {
			t.Errorf("big.bin recorded ok after every transfer was cut: %+v", r)
		}
		if _, err := os.Lstat(filepath.Join(dir, "big.bin")); err == nil {
			t.Error("big.bin written although every transfer of it was cut")
		}
		parts, _ := filepath.Glob(filepath.Join(dir, partPrefix+"*"))
		if len(parts) != 1 {
			t.Fatalf("partial files after the cuts: %q, want big.bin's", parts)
		}
		// The cuts over, the next run fetches the rest only.
		cutting.Store(false)
		sum = mirrorOK(t, Options{URL: url, Dir: dir, Parallel: 1})
		if sum.New != 1 || sum.Bytes >= int64(len(big)) {
			t.Errorf("rerun: %+v, %d bytes: want big.bin new, resumed", countsOf(sum), sum.Bytes)
		}
		sameTree(t, tree(t, dir), want)
	})
}
