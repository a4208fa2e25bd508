package prospero_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	_ "github.com/urlget/urlget/fetch/file"
	"github.com/urlget/urlget/fetch/prospero"
	"github.com/urlget/urlget/fetch/prospero/ardp"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
	"github.com/urlget/urlget/urlparse"
)

const root = prosperotest.DefaultRoot

// Fixtures.
var (
	hello    = []byte("Hello from the Prospero test server.\nSecond line.\n")
	oneByte  = []byte{'\''}
	allBytes = func() []byte {
		b := make([]byte, 1024)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}()
	big = func() []byte {
		r := rand.New(rand.NewPCG(1, 2))
		b := make([]byte, 200_000)
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	}()
)

func TestMain(m *testing.M) {
	// Short timers: a lost datagram costs 40 ms, not 4 s.
	restore := prospero.SetTransport(&ardp.Config{Timeout: 40 * time.Millisecond, Retries: 6, WaitUnit: 10 * time.Millisecond})
	code := m.Run()
	restore()
	os.Exit(code)
}

// tree is the standard served tree.
func tree() map[string]*prosperotest.Object {
	return map[string]*prosperotest.Object{
		root:                          {Dir: true},
		root + "/pub":                 {Dir: true},
		root + "/pub/hello.txt":       {Contents: hello},
		root + "/pub/one.bin":         {Contents: oneByte},
		root + "/pub/all.bin":         {Contents: allBytes},
		root + "/pub/big.bin":         {Contents: big},
		root + "/pub/versioned.txt":   {Contents: []byte("current\n"), Versions: map[string][]byte{"3": []byte("third\n")}},
		root + "/pub/docs":            {Dir: true},
		root + "/pub/docs/one.txt":    {Contents: []byte("One document\n")},
		root + "/pub/docs/a b'c.txt":  {Contents: []byte("quoted name\n")},
		root + "/pub/secret":          {Failure: "NOT-AUTHORIZED"},
		root + "/pub/session":         {Methods: [][]string{{"TELNET", "INTERNET-D", "library.example(2323)", "ASCII", "", "login: guest"}}},
		root + "/pub/nfs-only":        {Methods: [][]string{{"NFS", "INTERNET-D", "nfs.example", "ASCII", "/export/x", "/export"}}},
		root + "/pub/docs/ext-gopher": {External: true, Methods: [][]string{{"GOPHER", "INTERNET-D", "gopher.example(7070)", "ASCII", "/docs/one.txt", "TEXT"}}},
	}
}

type env struct {
	srv  *prosperotest.Server
	addr string // the address clients use (the server's or a relay's)
}

func start(t *testing.T, s *prosperotest.Server) *env {
	t.Helper()
	if s.Objects == nil {
		s.Objects = tree()
	}
	return &env{srv: s, addr: s.Start(t)}
}

func (e *env) url(hso string) string { return "prospero://" + e.addr + "/" + hso }

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// get fetches url whole (with a zero Client when c is nil).
func get(t *testing.T, c *fetch.Client, url string) (*fetch.Resource, []byte, error) {
	t.Helper()
	if c == nil {
		c = &fetch.Client{}
	}
	return fetchtest.Read(c.Open(ctxT(t, 30*time.Second), url))
}

func TestContents(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	testContents(t, e)
}

func testContents(t *testing.T, e *env) {
	for _, tc := range []struct {
		name string
		want []byte
	}{{"hello.txt", hello}, {"one.bin", oneByte}, {"all.bin", allBytes}, {"big.bin", big}} {
		url := e.url(root + "/pub/" + tc.name)
		res, got, err := get(t, nil, url)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: %d bytes, want %d (equal prefix %d)", tc.name, len(got), len(tc.want), commonPrefix(got, tc.want))
		}
		if res.Size != int64(len(tc.want)) || res.EffectiveURL != url || res.ModTime.IsZero() {
			t.Errorf("%s: size %d effective %q mtime %v", tc.name, res.Size, res.EffectiveURL, res.ModTime)
		}
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// TestWindowAcks: a reply of 161 packets needs an ACK after every window
// of 16 (the server stalls without them, see TestServerWindow): at least
// one ACK per window, in order, the last one in the last window. (Under
// load a retransmission timer may ACK earlier than the "please ACK"
// packet, so the exact values are not fixed.)
func TestWindowAcks(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	_, got, err := get(t, nil, e.url(root+"/pub/big.bin"))
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("big.bin: %v (%d bytes)", err, len(got))
	}
	acks := e.srv.Acks()
	last := uint16(0)
	for _, a := range acks {
		if a < last || a > 161 {
			t.Errorf("ACKs out of order or past the end: %v", acks)
			break
		}
		last = a
	}
	if len(acks) < 10 || last < 145 {
		t.Errorf("ACKs %v: fewer than one per window", acks)
	}
}

// TestServerWindow: without ACKs the test server sends 16 packets, the
// last asking for an ACK, and then nothing more; an ACK brings the next
// window.
func TestServerWindow(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	conn, err := net.Dial("udp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := ardp.Header{Len: 9, CID: 0x7777, Seq: 1, Total: 1}
	conn.Write(req.Append(nil, []byte("VERSION 5 x\nGET-OBJECT-INFO CONTENTS ASCII '"+root+"/pub/big.bin' 0\n")))
	read := func() []ardp.Header {
		var hs []ardp.Header
		buf := make([]byte, 2048)
		for {
			conn.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			n, err := conn.Read(buf)
			if err != nil {
				return hs
			}
			h, _, _ := ardp.Parse(buf[:n])
			hs = append(hs, h)
		}
	}
	hs := read()
	if len(hs) != 16 || hs[15].Seq != 16 || hs[15].Flags&ardp.FlagPleaseAck == 0 || hs[14].Flags != 0 || hs[0].Total != 0 {
		t.Fatalf("first window: %+v", hs)
	}
	ack := ardp.Header{Len: 9, CID: 0x7777, RcvdThru: 16}
	conn.Write(ack.Append(nil, nil))
	hs = read()
	if len(hs) != 16 || hs[0].Seq != 17 || hs[0].Total != 161 || hs[15].Seq != 32 || hs[15].Flags&ardp.FlagPleaseAck == 0 {
		t.Fatalf("second window: %+v", hs)
	}
}

func TestByteSwappedCID(t *testing.T) {
	e := start(t, &prosperotest.Server{Hostile: prosperotest.SwapCID})
	_, got, err := get(t, nil, e.url(root+"/pub/big.bin"))
	if err != nil || !bytes.Equal(got, big) {
		t.Fatalf("big.bin with swapped ids: %v (%d bytes)", err, len(got))
	}
}

func TestVersion(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	_, got, err := get(t, nil, e.url(root+"/pub/versioned.txt;OBJECT-VERSION=3;OTHER=x"))
	if err != nil || string(got) != "third\n" {
		t.Fatalf("version 3: %q %v", got, err)
	}
	msgs := e.srv.Messages()
	if len(msgs) == 0 || !strings.Contains(msgs[0], "GET-OBJECT-INFO #ALL ASCII '"+root+"/pub/versioned.txt' 3\n") {
		t.Errorf("request: %q", msgs)
	}
}

func TestDirectory(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	testDirectory(t, e)
}

func testDirectory(t *testing.T, e *env) {
	res, err := (&fetch.Client{}).Open(ctxT(t, 30*time.Second), e.url(root+"/pub/docs"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if !res.Dir || res.Listing == nil {
		t.Fatalf("not a listing: %+v", res.Meta)
	}
	got := map[string]fetch.Entry{}
	for en, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		got[en.Name] = en
	}
	host := e.srv.Host() // 127.0.0.1(PORT)
	port := strings.TrimSuffix(host[strings.IndexByte(host, '(')+1:], ")")
	want := map[string]fetch.Entry{
		"one.txt":    {Type: fetch.EntryFile, Size: 13, URL: "prospero://127.0.0.1:" + port + "//tmp/prospero-build/pfs/root/pub/docs/one.txt"},
		"a b'c.txt":  {Type: fetch.EntryFile, Size: 12, URL: "prospero://127.0.0.1:" + port + "//tmp/prospero-build/pfs/root/pub/docs/a%20b'c.txt"},
		"ext-gopher": {Type: fetch.EntryFile, Size: -1, URL: "gopher://gopher.example:7070/0/docs/one.txt"},
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("no entry %q in %v", name, got)
			continue
		}
		if g.Type != w.Type || g.URL != w.URL || (w.Size >= 0 && g.Size != w.Size) {
			t.Errorf("%q: %+v, want %+v", name, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d entries, want %d", len(got), len(want))
	}
}

func TestNotFound(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	for hso, kind := range map[string]fetch.Kind{
		root + "/pub/nope":   fetch.ErrNotFound,
		root + "/pub/secret": fetch.ErrAccessDenied,
		"/etc/passwd":        fetch.ErrAccessDenied,
	} {
		_, _, err := get(t, nil, e.url(hso))
		if fetch.KindOf(err) != kind {
			t.Errorf("%s: %v, want kind %d", hso, err, kind)
		}
	}
	_, _, err := get(t, nil, e.url(root+"/pub/nope"))
	if fetch.ExitCode(err) != 78 {
		t.Errorf("NOT-FOUND exit code %d", fetch.ExitCode(err))
	}
}

func TestForwarded(t *testing.T) {
	second := start(t, &prosperotest.Server{})
	first := start(t, &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/moved.txt": {Forward: second.srv.Host()},
	}})
	second.srv.Set(root+"/moved.txt", &prosperotest.Object{Contents: []byte("moved here\n")})
	var v bytes.Buffer
	res, got, err := get(t, &fetch.Client{Verbose: &v}, first.url(root+"/moved.txt"))
	if err != nil || string(got) != "moved here\n" {
		t.Fatalf("forwarded: %q %v\n%s", got, err, v.String())
	}
	if want := "prospero://" + second.addr + "/" + root + "/moved.txt"; res.EffectiveURL != want {
		t.Errorf("effective URL %q, want %q", res.EffectiveURL, want)
	}
	if !strings.Contains(v.String(), "FORWARDED") || !strings.Contains(v.String(), "Following referral") {
		t.Errorf("-v does not show the chain:\n%s", v.String())
	}
}

func TestForwardLoop(t *testing.T) {
	s := &prosperotest.Server{Objects: map[string]*prosperotest.Object{}}
	e := start(t, s)
	s.Set(root+"/loop", &prosperotest.Object{Forward: s.Host()})
	_, _, err := get(t, &fetch.Client{MaxRedirects: 5}, e.url(root+"/loop"))
	if fetch.KindOf(err) != fetch.ErrTooManyRedirects {
		t.Errorf("forward loop: %v", err)
	}
}

func TestResolveOption(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	e.srv.Set(root+"/pub/multi", &prosperotest.Object{Methods: [][]string{
		{"NFS", "INTERNET-D", "nfs.example", "ASCII", "/x", "/export"},
		{"AFTP", "INTERNET-D", "ftp.example", "ASCII", "/pub/dir/x.tar", "BINARY"},
		{"AFTP", "INTERNET-D", "ftp.example(2121)", "ASCII", "/pub/README", "TEXT"},
		{"GOPHER", "INTERNET-D", "gopher.example(7070)", "ASCII", "/docs/one.txt", "TEXT"},
		{"GOPHER", "INTERNET-D", "gopher.example", "ASCII", "1/menu"},
		{"WAIS", "INTERNET-D", "wais.example(8210)", "ASCII", "db"},
		{"WAIS", "INTERNET-D", "wais.example", "ASCII", "db/TEXT/12/x"},
	}})
	c := &fetch.Client{Options: fetch.Options{prospero.OptResolve: "1"}}
	_, got, err := get(t, c, e.url(root+"/pub/multi"))
	if err != nil {
		t.Fatal(err)
	}
	want := "# NFS: not supported\n" +
		"ftp://ftp.example/pub/dir/x.tar;type=i\n" +
		"ftp://ftp.example:2121/pub/README;type=a\n" +
		"gopher://gopher.example:7070/0/docs/one.txt\n" +
		"gopher://gopher.example/11/menu\n" +
		"wais://wais.example:8210/db\n" +
		"wais://wais.example/db/TEXT/12/x\n"
	if string(got) != want {
		t.Errorf("resolved:\n%s\nwant:\n%s", got, want)
	}
}

func TestTelnetPrinted(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	_, got, err := get(t, nil, e.url(root+"/pub/session"))
	if err != nil || !strings.HasPrefix(string(got), "telnet://library.example:2323/") || !strings.Contains(string(got), "login: guest") {
		t.Errorf("telnet: %q %v", got, err)
	}
	// With the option it is handed to the Client (which has no telnet
	// fetcher here).
	_, _, err = get(t, &fetch.Client{Options: fetch.Options{prospero.OptTelnet: "1"}}, e.url(root+"/pub/session"))
	if fetch.KindOf(err) != fetch.ErrUnsupported || !strings.Contains(err.Error(), "telnet") {
		t.Errorf("telnet followed: %v", err)
	}
	_, _, err = get(t, nil, e.url(root+"/pub/nfs-only"))
	if fetch.KindOf(err) != fetch.ErrUnsupported || !strings.Contains(err.Error(), "NFS") {
		t.Errorf("NFS only: %v", err)
	}
}

func TestLocal(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/local.txt"
	if err := os.WriteFile(path, []byte("local file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &prosperotest.Server{Root: dir, Objects: map[string]*prosperotest.Object{
		path: {Methods: [][]string{{"LOCAL", "", "", "", ""}}},
	}}
	e := start(t, s)
	res, got, err := get(t, nil, e.url(path))
	if err != nil || string(got) != "local file\n" || res.EffectiveURL != "file://"+path {
		t.Errorf("LOCAL: %q %v %+v", got, err, res)
	}

	// A gateway's name filled into LOCAL's empty path is no file here, nor
	// is a path that does not exist: the next method is used.
	aftp := []string{"AFTP", "INTERNET-D", "ftp.example", "ASCII", "/pub/ftpfile.txt", "TEXT"}
	s.Set(dir+"/gone.txt", &prosperotest.Object{Methods: [][]string{{"LOCAL", "", "", "", ""}, aftp}})
	gw := start(t, &prosperotest.Server{Root: "AFTP", Objects: map[string]*prosperotest.Object{
		"AFTP/pub/ftpfile.txt": {Methods: [][]string{{"LOCAL", "", "", "", ""}, aftp}},
	}})
	c := &fetch.Client{Options: fetch.Options{prospero.OptResolve: "1"}}
	for _, u := range []string{gw.url("AFTP/pub/ftpfile.txt"), e.url(dir + "/gone.txt")} {
		name := u[strings.Index(u[len("prospero://"):], "/")+len("prospero://")+1:]
		_, got, err = get(t, c, u)
		want := "# LOCAL: no file \"" + name + "\" on this machine\nftp://ftp.example/pub/ftpfile.txt;type=a\n"
		if err != nil || string(got) != want {
			t.Errorf("LOCAL of %s: %q, %v; want %q", name, got, err, want)
		}
	}
}

func TestQueueWait(t *testing.T) {
	e := start(t, &prosperotest.Server{Waits: 2, WaitSecs: 2})
	var v bytes.Buffer
	_, got, err := get(t, &fetch.Client{Verbose: &v}, e.url(root+"/pub/hello.txt"))
	if err != nil || !bytes.Equal(got, hello) {
		t.Fatalf("%q %v", got, err)
	}
	if !strings.Contains(v.String(), "queued") || !strings.Contains(v.String(), "position 2") {
		t.Errorf("queue replies not shown:\n%s", v.String())
	}
}

func TestMultiPacketRequest(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	long := root + "/pub/" + strings.Repeat("x", 3000) + "/with ' quote"
	_, _, err := get(t, nil, e.url(strings.ReplaceAll(long, " ", "%20")))
	if fetch.KindOf(err) != fetch.ErrNotFound {
		t.Fatalf("long name: %v", err)
	}
	msgs := e.srv.Messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0], prospero.Quote(long)) {
		t.Fatalf("server got %d messages", len(msgs))
	}
	var seqs []int
	for _, p := range e.srv.Packets() {
		h, data, err := ardp.Parse(p)
		if err != nil || h.Seq == 0 {
			continue
		}
		seqs = append(seqs, int(h.Seq))
		if h.Seq < h.Total && len(data) != ardp.DataLen {
			t.Errorf("packet %d/%d carries %d bytes", h.Seq, h.Total, len(data))
		}
	}
	if len(seqs) < 3 {
		t.Errorf("request packets %v", seqs)
	}

	// 25 packets: more than the window of 16, so the rest goes out only
	// after the server's ACK of the first 16.
	longer := root + "/" + strings.Repeat("y", 30000)
	_, _, err = get(t, nil, e.url(longer))
	if fetch.KindOf(err) != fetch.ErrNotFound {
		t.Fatalf("longer name: %v", err)
	}
	msgs = e.srv.Messages()
	if len(msgs) != 2 || !strings.Contains(msgs[1], prospero.Quote(longer)) {
		t.Fatalf("server got %d messages", len(msgs))
	}
}

func TestRefusedBeforeSending(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	for _, u := range []string{
		e.url(root + "/pub/a%0D%0AGET-OBJECT-INFO"),
		e.url(root + "/pub/a%00b"),
		e.url(root + "/pub/a;OBJECT-VERSION=1%0A"),
	} {
		_, _, err := get(t, nil, u)
		if fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("%s: %v", u, err)
		}
	}
	// A direct caller of the Fetcher is refused too.
	if n := len(e.srv.Packets()); n != 0 {
		t.Errorf("%d packets reached the server", n)
	}
}

// ---- hostile servers ----

func TestHostile(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode prosperotest.Hostile
		hso  string
		kind fetch.Kind
	}{
		{"HugeTotal", prosperotest.HugeTotal, "/pub/big.bin", fetch.ErrTimeout},
		{"PastTotal", prosperotest.PastTotal, "/pub/big.bin", fetch.ErrProtocol},
		{"EndlessWait", prosperotest.EndlessWait, "/pub/hello.txt", fetch.ErrTimeout},
		{"RedirectLoop", prosperotest.RedirectLoop, "/pub/hello.txt", fetch.ErrTooManyRedirects},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := start(t, &prosperotest.Server{Hostile: tc.mode, WaitSecs: 1})
			const limit = 2 * time.Second
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			begin := time.Now()
			res, err := (&fetch.Client{}).Open(ctx, e.url(root+tc.hso))
			if err == nil {
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			if took := time.Since(begin); took > limit+time.Second {
				t.Errorf("took %v, past the %v deadline", took, limit)
			}
			if fetch.KindOf(err) != tc.kind {
				t.Errorf("%v (kind %d), want kind %d", err, fetch.KindOf(err), tc.kind)
			}
		})
	}
}

func TestSpoofedReplies(t *testing.T) {
	e := start(t, &prosperotest.Server{Hostile: prosperotest.Spoof})
	_, got, err := get(t, nil, e.url(root+"/pub/hello.txt"))
	if err != nil || !bytes.Equal(got, hello) {
		t.Fatalf("with forged packets: %q %v", got, err)
	}
}

// TestNoServer: nothing listens; the deadline wins, and so does the
// connect timeout.
func TestNoServer(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String() // bound, never read: silent
	defer pc.Close()
	begin := time.Now()
	_, _, err = get(t, &fetch.Client{ConnectTimeout: 300 * time.Millisecond}, "prospero://"+addr+"/x")
	if fetch.KindOf(err) != fetch.ErrTimeout || time.Since(begin) > 2*time.Second {
		t.Errorf("silent server: %v after %v", err, time.Since(begin))
	}
}

// TestConformance runs the shared suite against the in-tree server: a
// silent UDP socket for Stall, a server that claims more packets than it
// sends for StallBody, one whose CONTENTS reply ends inside the data for
// Early.
func TestConformance(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	stall, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stall.Close()
	huge := start(t, &prosperotest.Server{Hostile: prosperotest.HugeTotal})
	cut := start(t, &prosperotest.Server{Hostile: prosperotest.Truncated})
	fetchtest.Run(t, fetchtest.Suite{
		New:         prospero.New,
		Early:       cut.url(root + "/pub/big.bin"),
		Known:       e.url(root + "/pub/all.bin"),
		KnownBody:   allBytes,
		Missing:     e.url(root + "/pub/missing"),
		MissingKind: fetch.ErrNotFound,
		Dir:         e.url(root + "/pub/docs"),
		DirNames:    []string{"one.txt"},
		Stall:       "prospero://" + stall.LocalAddr().String() + "/x",
		StallBody:   huge.url(root + "/pub/big.bin"),
		Inject:      e.url(root + "/pub/x%0D%0ALIST"),
		Received:    func() int { return len(e.srv.Packets()) },
	})
}

// ---- through a lossy relay ----

func TestLossyRelay(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	relay := prosperotest.NewRelay(e.addr, 14)
	le := &env{srv: e.srv, addr: relay.Start(t)}
	testContents(t, le)
	testDirectory(t, le)
	_, _, err := get(t, nil, le.url(root+"/pub/nope"))
	if fetch.KindOf(err) != fetch.ErrNotFound {
		t.Errorf("NOT-FOUND through the relay: %v", err)
	}
	// FORWARDED to a server that is also behind a lossy relay.
	second := start(t, &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/moved.txt": {Contents: big},
	}})
	relay2 := prosperotest.NewRelay(second.addr, 15)
	raddr := relay2.Start(t)
	e.srv.Set(root+"/moved.txt", &prosperotest.Object{Forward: strings.Replace(raddr, ":", "(", 1) + ")"})
	_, got, err := get(t, nil, le.url(root+"/moved.txt"))
	if err != nil || !bytes.Equal(got, big) {
		t.Errorf("FORWARDED through relays: %d bytes, %v", len(got), err)
	}
	if relay.Dropped() == 0 {
		t.Error("the relay dropped nothing")
	}
	t.Logf("relay dropped %d datagrams", relay.Dropped())
}

// ---- the golden exchanges (live ISI server traffic) ----

type exchange struct{ c2s, s2c []byte }

func goldenExchanges(t *testing.T) []exchange {
	f, err := os.Open("testdata/golden-exchanges.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var xs []exchange
	var cur *[]byte
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "=== exchange":
			xs = append(xs, exchange{})
		case strings.HasPrefix(l, "C->S"):
			cur = &xs[len(xs)-1].c2s
		case strings.HasPrefix(l, "S->C"):
			cur = &xs[len(xs)-1].s2c
		case strings.HasPrefix(l, "  text:"):
		case strings.HasPrefix(l, "  ") && cur != nil:
			b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(l), " ", ""))
			if err != nil {
				t.Fatal(err)
			}
			*cur = append(*cur, b...)
		}
	}
	if len(xs) != 3 {
		t.Fatalf("%d golden exchanges", len(xs))
	}
	return xs
}

// withCID puts cid into a packet's header (octets 1-2).
func withCID(p []byte, cid uint16) []byte {
	q := append([]byte(nil), p...)
	q[1], q[2] = byte(cid>>8), byte(cid)
	return q
}

// goldenTree is the recorded server's tree.
func goldenTree() map[string]*prosperotest.Object {
	return map[string]*prosperotest.Object{
		root:                       {Dir: true},
		root + "/pub":              {Dir: true},
		root + "/pub/hello.txt":    {Contents: hello},
		root + "/pub/docs":         {Dir: true},
		root + "/pub/docs/one.txt": {Contents: []byte("One document\n")},
	}
}

// TestGoldenRequests: urlget's requests are the recorded bytes (but for
// the connection id).
func TestGoldenRequests(t *testing.T) {
	xs := goldenExchanges(t)
	e := start(t, &prosperotest.Server{Objects: goldenTree()})
	c := &fetch.Client{User: "tester", UserAgent: "urlget-golden"}
	if _, _, err := get(t, c, e.url(root+"/pub/hello.txt")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := get(t, c, e.url(root+"/pub/docs")); err != nil {
		t.Fatal(err)
	}
	var reqs [][]byte
	for _, p := range e.srv.Packets() {
		if h, _, err := ardp.Parse(p); err == nil && h.Seq != 0 {
			reqs = append(reqs, p)
		}
	}
	// hello.txt: #ALL then CONTENTS; docs: #ALL then DIRECTORY+LIST.
	if len(reqs) != 4 {
		t.Fatalf("%d request packets", len(reqs))
	}
	pairs := []struct {
		got  []byte
		want []byte
	}{{reqs[0], xs[0].c2s}, {reqs[1], xs[2].c2s}, {reqs[3], xs[1].c2s}}
	for i, p := range pairs {
		cid := uint16(p.got[1])<<8 | uint16(p.got[2])
		if want := withCID(p.want, cid); !bytes.Equal(p.got, want) {
			t.Errorf("request %d:\n got %q\nwant %q", i, p.got, want)
		}
	}
}

// TestGoldenReplies: the test server answers the recorded requests with
// the recorded replies, byte for byte.
func TestGoldenReplies(t *testing.T) {
	xs := goldenExchanges(t)
	e := start(t, &prosperotest.Server{Objects: goldenTree()})
	conn, err := net.Dial("udp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	buf := make([]byte, 2048)
	for i, x := range xs {
		cid := uint16(0x4000 + i)
		if _, err := conn.Write(withCID(x.c2s, cid)); err != nil {
			t.Fatal(err)
		}
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		want := withCID(x.s2c, cid)
		// The recorded server's port was 21525.
		got := bytes.ReplaceAll(buf[:n], []byte(e.srv.Host()), []byte("127.0.0.1(21525)"))
		if !bytes.Equal(got, want) {
			t.Errorf("exchange %d:\n got %q\nwant %q", i, got, want)
		}
	}
}

func TestCancelMidTransfer(t *testing.T) {
	e := start(t, &prosperotest.Server{Hostile: prosperotest.HugeTotal})
	ctx, cancel := context.WithCancel(context.Background())
	res, err := (&fetch.Client{}).Open(ctx, e.url(root+"/pub/big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	time.AfterFunc(100*time.Millisecond, cancel)
	begin := time.Now()
	_, err = io.Copy(io.Discard, res.Body)
	if fetch.KindOf(err) != fetch.ErrAborted || time.Since(begin) > 2*time.Second {
		t.Errorf("cancel: %v after %v", err, time.Since(begin))
	}
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		t.Errorf("untyped error %T", err)
	}
}

// BenchmarkContents fetches 200 KB by PROSPERO-CONTENTS (161 packets,
// ten windows) from the in-tree server on loopback.
func BenchmarkContents(b *testing.B) {
	s := &prosperotest.Server{Objects: tree()}
	addr, err := s.Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	url := "prospero://" + addr + "/" + root + "/pub/big.bin"
	c := &fetch.Client{}
	b.SetBytes(int64(len(big)))
	for b.Loop() {
		res, err := c.Open(context.Background(), url)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil || n != int64(len(big)) {
			b.Fatal(n, err)
		}
	}
}

// TestContentsSmallReads reads the data a byte at a time and in odd
// sizes: the unquoting keeps its state across Reads.
func TestContentsSmallReads(t *testing.T) {
	e := start(t, &prosperotest.Server{})
	quotes := bytes.Repeat([]byte("''a' b'"), 500)
	e.srv.Set(root+"/pub/quotes", &prosperotest.Object{Contents: quotes})
	for name, want := range map[string][]byte{"all.bin": allBytes, "quotes": quotes} {
		for _, wrap := range []func(io.Reader) io.Reader{iotest.OneByteReader, iotest.HalfReader} {
			res, err := (&fetch.Client{}).Open(ctxT(t, 30*time.Second), e.url(root+"/pub/"+name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(wrap(res.Body))
			res.Body.Close()
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %v, %d bytes (equal prefix %d)", name, err, len(got), commonPrefix(got, want))
			}
		}
	}
}

// TestNoServerLongRequest: nobody listens, and the request takes several
// packets. The refusal of the first packet comes back on the socket as the
// second is written: that write is refused, and it is a reason to wait for
// the retransmission timer as for a one-packet request (exit 28), not a
// failure to connect (7).
func TestNoServerLongRequest(t *testing.T) {
	s := &prosperotest.Server{Objects: tree()}
	addr := s.Start(t)
	s.Close() // the port is closed: every datagram is refused
	long := root + "/" + strings.Repeat("long-name/", 300) + "x"
	for _, name := range []string{root + "/pub/hello.txt", long} {
		_, _, err := get(t, &fetch.Client{ConnectTimeout: 300 * time.Millisecond}, "prospero://"+addr+"/"+name)
		if fetch.KindOf(err) != fetch.ErrTimeout {
			t.Errorf("%d-byte name: %v, want a timeout", len(name), err)
		}
	}
}

// TestContentsSize: the data must be the size the SIZE attribute states:
// fewer or more bytes are ErrPartial (curl's 18), as an FTP file checked
// against its SIZE; a resumed fetch is checked the same way.
func TestContentsSize(t *testing.T) {
	objs := tree()
	objs[root+"/pub/short.txt"] = &prosperotest.Object{Contents: hello, Size: strconv.Itoa(len(hello)+5) + " bytes"}
	objs[root+"/pub/long.txt"] = &prosperotest.Object{Contents: hello, Size: strconv.Itoa(len(hello)-2) + " bytes"}
	e := start(t, &prosperotest.Server{Objects: objs})
	for _, tc := range []struct{ name, msg string }{
		{"short.txt", "5 bytes remaining to read (SIZE attribute"},
		{"long.txt", "2 bytes more than the server stated (SIZE attribute"},
	} {
		_, _, err := get(t, nil, e.url(root+"/pub/"+tc.name))
		if fetch.KindOf(err) != fetch.ErrPartial || fetch.ExitCode(err) != 18 || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v (exit %d), want ErrPartial saying %q", tc.name, err, fetch.ExitCode(err), tc.msg)
		}
		u, perr := urlparse.Parse(e.url(root + "/pub/" + tc.name))
		if perr != nil {
			t.Fatal(perr)
		}
		_, _, err = fetchtest.Read((&fetch.Client{}).Do(ctxT(t, 30*time.Second), &fetch.Request{URL: &u, Offset: 3}))
		if fetch.KindOf(err) != fetch.ErrPartial {
			t.Errorf("%s resumed: %v, want ErrPartial", tc.name, err)
		}
	}
	if _, got, err := get(t, nil, e.url(root+"/pub/hello.txt")); err != nil || !bytes.Equal(got, hello) {
		t.Errorf("hello.txt: %v", err)
	}
}
