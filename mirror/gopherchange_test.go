package mirror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/internal/testserver"
)

// whys collects the Events of one local path as "kind: why".
type whys struct {
	mu   sync.Mutex
	path string
	got  []string
}

func (w *whys) event(ev Event) {
	if ev.Path == w.path {
		w.mu.Lock()
		w.got = append(w.got, string(ev.Kind)+": "+ev.Why)
		w.mu.Unlock()
	}
}

func (w *whys) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.got, "; ")
}

// TestRealGopherRacy: a file rewritten on gophernicus (7 -> 26 bytes) and
// given back its modification time keeps its menu line ("0.0 KB", the
// same minute), but was fetched within that minute's reach: the next run
// fetches it again and sees the change (today's code: "unchanged (the same
// menu line as recorded)"). An old file is not fetched again.
func TestRealGopherRacy(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "racy.txt")
	now := time.Now().Truncate(time.Second)
	fetchtest.WriteFile(t, p, "seven!\n", now)
	fetchtest.WriteFile(t, filepath.Join(root, "old.txt"), "old\n", t1)
	openUp(t, root)
	s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
	dir := t.TempDir()
	mirrorOK(t, Options{URL: s.URL("1/"), Dir: dir})
	rec := records(t, dir)[s.URL("0/racy.txt")]
	if rec.MTimeSource != "menu" || rec.MTime == "" || !rec.Unconfirmed {
		t.Errorf("record %+v: want the menu's date and unconfirmed", rec)
	}
	fetchtest.WriteFile(t, p, "twenty-six bytes of text\n", now)
	os.Chmod(p, 0o644)
	w := &whys{path: "racy.txt"}
	old := &whys{path: "old.txt"}
	sum := mirrorOK(t, Options{URL: s.URL("1/"), Dir: dir, Event: func(ev Event) { w.event(ev); old.event(ev) }})
	if sum.Changed != 1 || !strings.Contains(w.String(), "changed: racy") {
		t.Errorf("rewritten in the minute: %+v, events %s", countsOf(sum), w)
	}
	if got := tree(t, dir)["racy.txt"]; got != "twenty-six bytes of text\r\n" {
		t.Errorf("racy.txt = %q", got)
	}
	if !strings.HasPrefix(old.String(), "unchanged: the same menu line") {
		t.Errorf("old.txt: %s", old)
	}
}

// TestRealGopherVerifyUnconfirmed: gophernicus states no length (its
// "0.0 KB" is 0 to 52 bytes), so a copy is recorded unconfirmed, and
// --verify fetches it again and compares: a change that keeps the menu
// line (an old date given back) is found, where today's --verify said
// unchanged.
func TestRealGopherVerifyUnconfirmed(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "doc.txt")
	fetchtest.WriteFile(t, p, "seven!\n", t1)
	openUp(t, root)
	s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
	dir := t.TempDir()
	mirrorOK(t, Options{URL: s.URL("1/"), Dir: dir})
	fetchtest.WriteFile(t, p, "twenty-six bytes of text\n", t1)
	os.Chmod(p, 0o644)
	if sum := mirrorOK(t, Options{URL: s.URL("1/"), Dir: dir}); sum.Changed != 0 {
		t.Errorf("without --verify: %+v (nothing can tell)", countsOf(sum))
	}
	w := &whys{path: "doc.txt"}
	sum := mirrorOK(t, Options{URL: s.URL("1/"), Dir: dir, Verify: true, Event: w.event})
	if sum.Changed != 1 || !strings.Contains(w.String(), "no server stated its length") {
		t.Errorf("--verify: %+v, events %s", countsOf(sum), w)
	}
	if got := tree(t, dir)["doc.txt"]; got != "twenty-six bytes of text\r\n" {
		t.Errorf("doc.txt = %q", got)
	}
}

// gophernicusChildren returns the gophernicus processes socat (pid) runs,
// one per connection.
func gophernicusChildren(t *testing.T, pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.Contains(s[:i], "(gophernicus") {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

// killingDialer dials as usual; once a connection has read after bytes,
// it calls kill (once for all its connections).
type killingDialer struct {
	after int64
	kill  func()
	armed atomic.Bool
}

func (d *killingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &killingConn{Conn: c, d: d}, nil
}

type killingConn struct {
	net.Conn
	d *killingDialer
	n int64
}

func (c *killingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n += int64(n)
	if c.n > c.d.after && c.d.armed.CompareAndSwap(true, false) {
		c.d.kill()
	}
	return n, err
}

// TestRealGopherServerRestart: gophernicus killed (kill -9) in the middle
// of a 50 MiB file closes the connection early; its menu says "50.0 MB",
// so the short copy is never recorded ok (today's code recorded 8 to 20
// MiB "ok" and every rerun, --verify too, said unchanged): without
// retries the file fails, with them the retry brings it whole, and a
// short copy recorded ok by an older urlget is fetched again.
func TestRealGopherServerRestart(t *testing.T) {
	root := t.TempDir()
	big := make([]byte, 50<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	fetchtest.WriteFile(t, filepath.Join(root, "big.bin"), string(big), t1)
	openUp(t, root)
	s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
	d := &killingDialer{after: 8 << 20, kill: func() {
		for _, pid := range gophernicusChildren(t, s.Process.PID) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}}
	client := &fetch.Client{Dialer: d}
	url := s.URL("1/")
	bigURL := s.URL("9/big.bin")
	dir := t.TempDir()

	d.armed.Store(true)
	sum, err := Run(context.Background(), Options{URL: url, Dir: dir, Client: client, Retries: -1, Parallel: 1})
	if err == nil || sum.Failed != 1 || sum.New != 0 {
		t.Fatalf("cut, no retries: %v, %+v; want 1 failed", err, countsOf(sum))
	}
	if d.armed.Load() {
		t.Fatal("the server was not killed")
	}
	r := records(t, dir)[bigURL]
	if r.Status == StatusOK || !strings.Contains(r.Error, "50.0 MB") {
		t.Errorf("cut file recorded %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.bin")); err == nil {
		t.Errorf("a cut file was kept as big.bin")
	}

	d.armed.Store(true)
	sum = mirrorOK(t, Options{URL: url, Dir: dir, Client: client, Retries: 2, RetryWait: time.Millisecond, Parallel: 1})
	if d.armed.Load() || sum.New != 1 {
		t.Errorf("cut, retried: %+v, killed %v", countsOf(sum), !d.armed.Load())
	}
	wantSum := sha256.Sum256(big)
	r = records(t, dir)[bigURL]
	if r.Status != StatusOK || r.Size != int64(len(big)) || r.SHA256 != hex.EncodeToString(wantSum[:]) {
		t.Errorf("retried: %+v", r)
	}

	// A short copy recorded ok, as an older urlget left it.
	short := big[:30098346]
	shortSum := sha256.Sum256(short)
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), short, 0o644); err != nil {
		t.Fatal(err)
	}
	r.Size, r.SHA256 = int64(len(short)), hex.EncodeToString(shortSum[:])
	line, _ := json.Marshal(r)
	f, err := os.OpenFile(filepath.Join(dir, ManifestName), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%s\n", line)
	f.Close()
	w := &whys{path: "big.bin"}
	sum = mirrorOK(t, Options{URL: url, Dir: dir, Event: w.event})
	if sum.Changed != 1 || !strings.Contains(w.String(), "not what the server states") {
		t.Errorf("short copy recorded ok: %+v, events %s", countsOf(sum), w)
	}
	if r := records(t, dir)[bigURL]; r.Size != int64(len(big)) {
		t.Errorf("after the rerun: %+v", r)
	}
}

// TestGopherPlusLength: a Gopher+ item is fetched with "+", whose "+N"
// states its length: the copy is confirmed (--verify does not fetch it
// again), and a reply that brings fewer bytes than it states fails.
func TestGopherPlusLength(t *testing.T) {
	site := &gophertest.Site{Items: map[string]*gophertest.Item{
		"":           {Type: '1', Menu: []string{"0Doc\t/doc.txt", "9Short\t/short.bin"}},
		"/doc.txt":   {Type: '0', Data: []byte("a Gopher+ document\r\n"), Plus: true},
		"/short.bin": {Type: '9', Data: []byte("0123456789"), Plus: true},
	}}
	var cut atomic.Bool
	cut.Store(true)
	srv := gophertest.Start(t, gophertest.HandlerFunc(func(c *gophertest.Conn, r *gophertest.Request) {
		if r.Selector == "/short.bin" && r.HasPlus && r.Plus == "+" && cut.Load() {
			c.WriteString("+100\r\n0123456789")
			return
		}
		site.ServeGopher(c, r)
	}))
	url := srv.Scheme() + "://" + srv.Addr + "/1"
	dir := t.TempDir()
	sum, err := Run(context.Background(), Options{URL: url, Dir: dir, Retries: -1})
	if err == nil || sum.Failed != 1 || sum.New != 1 {
		t.Fatalf("%v, %+v: want 1 new, 1 failed", err, countsOf(sum))
	}
	recs := records(t, dir)
	doc := recs[srv.Scheme()+"://"+srv.Addr+"/0/doc.txt"]
	if doc.Status != StatusOK || doc.Unconfirmed || doc.Size != 20 {
		t.Errorf("doc.txt: %+v", doc)
	}
	if r := recs[srv.Scheme()+"://"+srv.Addr+"/9/short.bin"]; r.Status != StatusFailed {
		t.Errorf("short.bin: %+v", r)
	}
	cut.Store(false)
	w := &whys{path: "doc.txt"}
	mirrorOK(t, Options{URL: url, Dir: dir, Verify: true, Event: w.event})
	if !strings.HasPrefix(w.String(), "unchanged:") {
		t.Errorf("--verify, a confirmed copy: %s", w)
	}
}

// TestRealGophernicusSizes: every size gophernicus writes into a menu
// line ("%.1f" of a unit, around each of its boundaries) is read as a
// range that holds the file's true size.
func TestRealGophernicusSizes(t *testing.T) {
	root := t.TempDir()
	sizes := []int64{0, 1, 51, 52, 53, 1023, 1024, 1075, 1076, 1022976, 1023000, 1048575, 1048576, 1101004, 52428800, 1048576000, 1 << 30, 1<<40 + 12345}
	for _, n := range sizes {
		p := filepath.Join(root, fmt.Sprintf("f%d", n))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, n); err != nil {
			t.Skipf("a sparse file of %d bytes: %v", n, err)
		}
	}
	openUp(t, root)
	s := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
	seen := 0
	for _, line := range strings.Split(string(rawGopher(t, s.Addr, "/")), "\r\n") {
		display, _, _ := strings.Cut(line, "\t")
		name, _, _ := strings.Cut(display, " ")
		n, err := strconv.ParseInt(strings.TrimPrefix(name[min(1, len(name)):], "f"), 10, 64)
		if err != nil || !strings.HasPrefix(name[min(1, len(name)):], "f") {
			continue
		}
		seen++
		f := menuDocFacts(display[1:])
		if !f.stated() || !f.fits(n) || f.date.IsZero() {
			t.Errorf("%q: %d..%d does not hold %d", display, f.lo, f.hi, n)
		}
	}
	if seen != len(sizes) {
		t.Errorf("%d menu lines read, want %d", seen, len(sizes))
	}
}

// cuttingDialer dials as usual; while armed, a connection that has read
// after bytes ends there (closed, io.EOF): a server's reply cut short,
// as a restart or a middlebox cuts it.
type cuttingDialer struct {
	after int64
	armed atomic.Bool
	cuts  atomic.Int32
}

func (d *cuttingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &cuttingConn{Conn: c, d: d}, nil
}

type cuttingConn struct {
	net.Conn
	d *cuttingDialer
	n int64
}

func (c *cuttingConn) Read(p []byte) (int, error) {
	if c.d.armed.Load() && c.n >= c.d.after {
		c.d.cuts.Add(1)
		c.Conn.Close()
		return 0, io.EOF
	}
	if c.d.armed.Load() && int64(len(p)) > c.d.after-c.n {
		p = p[:c.d.after-c.n]
	}
	n, err := c.Conn.Read(p)
	c.n += int64(n)
	return n, err
}

// TestRealGopherPlusLength: pygopherd's items are Gopher+ ("+" in the
// menu): each is asked for with "+", whose "+N" states its exact length.
// A reply cut short of it fails and is never recorded ok; whole, the copy
// is recorded confirmed with that length, and --verify leaves it alone
// (where a document whose length nothing stated is fetched again).
func TestRealGopherPlusLength(t *testing.T) {
	root := t.TempDir()
	data := make([]byte, 100000)
	for i := range data {
		data[i] = byte(i * 13)
	}
	fetchtest.WriteFile(t, filepath.Join(root, "doc.bin"), string(data), t1)
	openUp(t, root)
	s := testserver.StartPygopherd(t, testserver.GopherConfig{Root: root})
	d := &cuttingDialer{after: 50000}
	client := &fetch.Client{Dialer: d}
	url := s.URL("")
	docURL := s.URL("9/doc.bin")
	dir := t.TempDir()

	d.armed.Store(true)
	sum, err := Run(context.Background(), Options{URL: url, Dir: dir, Client: client, Retries: -1, IgnoreRobots: true})
	d.armed.Store(false)
	if err == nil || sum.Failed != 1 || sum.New != 0 || d.cuts.Load() == 0 {
		t.Fatalf("cut: %v, %+v, %d cuts; want doc.bin failed", err, countsOf(sum), d.cuts.Load())
	}
	if r := records(t, dir)[docURL]; r.Status == StatusOK {
		t.Errorf("a cut copy recorded ok: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "doc.bin")); err == nil {
		t.Error("a cut copy kept as doc.bin")
	}

	sum = mirrorOK(t, Options{URL: url, Dir: dir, Client: client, IgnoreRobots: true})
	r := records(t, dir)[docURL]
	if sum.New != 1 || r.Status != StatusOK || r.Unconfirmed || r.Size != int64(len(data)) {
		t.Errorf("whole: %+v, record %+v: want confirmed, %d bytes", countsOf(sum), r, len(data))
	}
	w := &whys{path: "doc.bin"}
	mirrorOK(t, Options{URL: url, Dir: dir, Client: client, IgnoreRobots: true, Verify: true, Event: w.event})
	if !strings.HasPrefix(w.String(), "unchanged:") {
		t.Errorf("--verify, a confirmed copy: %s", w)
	}
}
