// Package fetchtest is the conformance suite that every urlget scheme's
// tests run against a live server, and the small raw TCP servers (Stall,
// CloseEarly) that give it the failures real servers do not produce on
// demand.
//
// A scheme's test describes what its server offers in a Suite and calls
// Run:
//
//	fetchtest.Run(t, fetchtest.Suite{
//		Known:       "http://" + addr + "/hello.txt",
//		KnownBody:   []byte("hello\n"),
//		Missing:     "http://" + addr + "/nope",
//		MissingKind: fetch.ErrHTTP,
//		Stall:       "http://" + fetchtest.Stall(t, "\r\n\r\n", nil).Addr + "/",
//	})
//
// Every field but Known and KnownBody is optional; the subtest for an
// empty field is skipped. The suite checks behaviour the Client promises
// for every scheme: byte-exact bodies (through Read and through io.Copy's
// WriteTo path), HEAD, resume, typed errors, timeouts and cancellation that
// are prompt even while a Read is blocked, ErrPartial for a body cut short,
// and URLs with CR, LF or NUL in a decoded field refused before any
// connection is made.
package fetchtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Suite describes one scheme's server for Run.
type Suite struct {
	// Client is the client to test with (nil: a zero fetch.Client, using
	// the registry). Run works on copies; it sets Fail on them (a missing
	// HTTP resource is then an error) and wraps their Dialer to count
	// connections.
	Client *fetch.Client

	// Known is a URL whose body is exactly KnownBody. It is fetched whole,
	// with HEAD, and resumed from the middle.
	Known     string
	KnownBody []byte

	// Missing is a URL the server does not have; fetching it must fail
	// with MissingKind.
	Missing     string
	MissingKind fetch.Kind

	// Dir is a URL of a listing: Meta.Dir must be set and Entries must
	// yield at least one parsed entry, and every name in DirNames.
	Dir      string
	DirNames []string

	// Stall is a URL on a server that accepts the connection and never
	// answers (see Stall): with a context timeout, the fetch must fail
	// with ErrTimeout within a few seconds of it.
	Stall string
	// StallBody is a URL on a server that sends the start of a reply and
	// then nothing (Stall with a reply): Open must succeed, and cancelling
	// the context while a Read is blocked must make it return ErrAborted
	// promptly.
	StallBody string
	// Early is a URL on a server that closes the connection before the
	// whole body is sent (see CloseEarly): reading must fail with
	// ErrPartial, never end with io.EOF.
	Early string

	// Inject is a URL whose decoded fields hold CR and LF (or, for file,
	// NUL) meant to smuggle a command to the server: it must fail with
	// ErrMalformed before any connection is made. Received, when set,
	// reports what the server has received (requests or connections): it
	// must not change.
	Inject   string
	Received func() int

	// Timeout is the context timeout for Stall (default 300ms).
	Timeout time.Duration
}

// slack is how much longer than asked a timeout or cancellation may take.
const slack = 5 * time.Second

// Run runs the conformance suite as subtests of t.
func Run(t *testing.T, s Suite) {
	t.Helper()
	if s.Known == "" {
		t.Fatal("fetchtest: Suite.Known is required")
	}
	t.Run("Fetch", func(t *testing.T) { s.testFetch(t) })
	t.Run("Copy", func(t *testing.T) { s.testCopy(t) })
	t.Run("Head", func(t *testing.T) { s.testHead(t) })
	t.Run("Resume", func(t *testing.T) { s.testResume(t) })
	t.Run("Cancelled", func(t *testing.T) { s.testCancelled(t) })
	t.Run("Missing", func(t *testing.T) { skipIf(t, s.Missing); s.testMissing(t) })
	t.Run("Dir", func(t *testing.T) { skipIf(t, s.Dir); s.testDir(t) })
	t.Run("Stall", func(t *testing.T) { skipIf(t, s.Stall); s.testStall(t) })
	t.Run("StallBody", func(t *testing.T) { skipIf(t, s.StallBody); s.testStallBody(t) })
	t.Run("Early", func(t *testing.T) { skipIf(t, s.Early); s.testEarly(t) })
	t.Run("Inject", func(t *testing.T) { skipIf(t, s.Inject); s.testInject(t) })
}

func skipIf(t *testing.T, url string) {
	if url == "" {
		t.Skip("not offered by this scheme's Suite")
	}
}

// client returns a copy of the Suite's client with Fail set and a dialer
// that counts connections.
func (s *Suite) client() (*fetch.Client, *atomic.Int64) {
	var c fetch.Client
	if s.Client != nil {
		c = *s.Client
	}
	c.Fail = true
	cd := &countingDialer{base: c.Dialer}
	if cd.base == nil {
		cd.base = &net.Dialer{}
	}
	c.Dialer = cd
	return &c, &cd.n
}

type countingDialer struct {
	base fetch.Dialer
	n    atomic.Int64
}

func (d *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.n.Add(1)
	return d.base.DialContext(ctx, network, addr)
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func (s *Suite) testFetch(t *testing.T) {
	c, _ := s.client()
	res, err := c.Open(testCtx(t), s.Known)
	if err != nil {
		t.Fatalf("Open(%s): %v", s.Known, err)
	}
	defer res.Body.Close()
	got, err := io.ReadAll(onlyReader{res.Body})
	if err != nil {
		t.Fatalf("reading %s: %v", s.Known, err)
	}
	sameBytes(t, "body", got, s.KnownBody)
	if res.Size != -1 && res.Size != int64(len(s.KnownBody)) {
		t.Errorf("Meta.Size = %d, want %d or -1", res.Size, len(s.KnownBody))
	}
	if res.Offset != 0 {
		t.Errorf("Meta.Offset = %d, want 0", res.Offset)
	}
	if res.Dir {
		t.Errorf("Meta.Dir set for a file")
	}
	if res.EffectiveURL == "" {
		t.Errorf("Meta.EffectiveURL empty")
	}
	// After the end, Read keeps saying io.EOF.
	if n, err := res.Body.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Errorf("Read after the end = %d, %v; want 0, io.EOF", n, err)
	}
	if err := res.Body.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// onlyReader hides WriterTo, so that io.ReadAll exercises Read.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func (s *Suite) testCopy(t *testing.T) {
	c, _ := s.client()
	// To a buffer (WriteTo into a ReaderFrom), then to a file (where the
	// kernel's copy paths apply).
	res, err := c.Open(testCtx(t), s.Known)
	if err != nil {
		t.Fatalf("Open(%s): %v", s.Known, err)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, res.Body)
	res.Body.Close()
	if err != nil {
		t.Fatalf("io.Copy: %v", err)
	}
	if n != int64(len(s.KnownBody)) {
		t.Errorf("io.Copy returned %d, want %d", n, len(s.KnownBody))
	}
	sameBytes(t, "copied body", buf.Bytes(), s.KnownBody)

	res, err = c.Open(testCtx(t), s.Known)
	if err != nil {
		t.Fatalf("Open(%s): %v", s.Known, err)
	}
	name := filepath.Join(t.TempDir(), "out")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(f, res.Body)
	res.Body.Close()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("io.Copy to a file: %v", err)
	}
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	sameBytes(t, "body copied to a file", got, s.KnownBody)
}

func (s *Suite) testHead(t *testing.T) {
	c, _ := s.client()
	u, err := parse(s.Known)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Do(testCtx(t), &fetch.Request{URL: u, Head: true})
	if err != nil {
		t.Fatalf("Do(HEAD %s): %v", s.Known, err)
	}
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the HEAD body: %v", err)
	}
	if len(got) != 0 {
		t.Errorf("HEAD body has %d bytes, want none", len(got))
	}
	if res.Size != -1 && res.Size != int64(len(s.KnownBody)) {
		t.Errorf("HEAD Meta.Size = %d, want %d or -1", res.Size, len(s.KnownBody))
	}
}

func (s *Suite) testResume(t *testing.T) {
	if len(s.KnownBody) < 2 {
		t.Skip("KnownBody too short to resume in the middle")
	}
	c, _ := s.client()
	u, err := parse(s.Known)
	if err != nil {
		t.Fatal(err)
	}
	off := int64(len(s.KnownBody) / 2)
	res, err := c.Do(testCtx(t), &fetch.Request{URL: u, Offset: off})
	if err != nil {
		t.Fatalf("Do(%s, Offset %d): %v", s.Known, off, err)
	}
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the resumed body: %v", err)
	}
	switch res.Offset {
	case off:
		sameBytes(t, "resumed body", got, s.KnownBody[off:])
	case 0: // the scheme cannot resume: the whole resource, said so
		sameBytes(t, "body sent whole instead of resumed", got, s.KnownBody)
	default:
		t.Errorf("resumed at Offset %d: Meta.Offset = %d, want %d (resumed) or 0 (whole)", off, res.Offset, off)
	}
}

func (s *Suite) testCancelled(t *testing.T) {
	c, dials := s.client()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := c.Open(ctx, s.Known)
	if err == nil {
		res.Body.Close()
		t.Fatal("Open with a cancelled context succeeded")
	}
	if k := fetch.KindOf(err); k != fetch.ErrAborted && !errors.Is(err, context.Canceled) {
		t.Errorf("Open with a cancelled context: %v (kind %d), want ErrAborted", err, k)
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("Open with a cancelled context dialled %d times", n)
	}
}

func (s *Suite) testMissing(t *testing.T) {
	c, _ := s.client()
	res, err := c.Open(testCtx(t), s.Missing)
	if err == nil {
		res.Body.Close()
		t.Fatalf("Open(%s) succeeded, want kind %d", s.Missing, s.MissingKind)
	}
	if k := fetch.KindOf(err); k != s.MissingKind {
		t.Errorf("Open(%s): %v: kind %d (exit %d), want kind %d (exit %d)",
			s.Missing, err, k, k.ExitCode(), s.MissingKind, s.MissingKind.ExitCode())
	}
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		t.Errorf("Open(%s) error %T is not a *fetch.Error", s.Missing, err)
	}
}

func (s *Suite) testDir(t *testing.T) {
	c, _ := s.client()
	res, err := c.Open(testCtx(t), s.Dir)
	if err != nil {
		t.Fatalf("Open(%s): %v", s.Dir, err)
	}
	defer res.Body.Close()
	if !res.Dir {
		t.Errorf("Meta.Dir not set for %s", s.Dir)
	}
	if res.Listing == nil {
		t.Fatalf("no Listing for %s", s.Dir)
	}
	names := map[string]bool{}
	parsed := 0
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatalf("Entries: %v", err)
		}
		if e.Unparsed {
			continue
		}
		parsed++
		if e.Name == "" {
			t.Errorf("parsed entry without a name: %q", e.Raw)
		}
		names[e.Name] = true
	}
	if parsed == 0 {
		t.Errorf("listing of %s has no parsed entry", s.Dir)
	}
	for _, n := range s.DirNames {
		if !names[n] {
			t.Errorf("listing of %s lacks %q", s.Dir, n)
		}
	}
}

func (s *Suite) testStall(t *testing.T) {
	c, _ := s.client()
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 300 * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	err := readAll(c, ctx, s.Stall)
	took := time.Since(start)
	if err == nil {
		t.Fatalf("fetching %s from a stalled server succeeded", s.Stall)
	}
	if k := fetch.KindOf(err); k != fetch.ErrTimeout {
		t.Errorf("stalled fetch: %v: kind %d (exit %d), want ErrTimeout (28)", err, k, k.ExitCode())
	}
	if took > timeout+slack {
		t.Errorf("stalled fetch took %v with a %v timeout", took, timeout)
	}
}

// readAll opens url and reads its body, returning the first error.
func readAll(c *fetch.Client, ctx context.Context, url string) error {
	res, err := c.Open(ctx, url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	_, err = io.Copy(io.Discard, res.Body)
	return err
}

func (s *Suite) testStallBody(t *testing.T) {
	c, _ := s.client()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := c.Open(ctx, s.StallBody)
	if err != nil {
		t.Fatalf("Open(%s): %v", s.StallBody, err)
	}
	defer res.Body.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, res.Body)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the body of a stalled reply ended before the cancel: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if k := fetch.KindOf(err); k != fetch.ErrAborted {
			t.Errorf("Read after cancel: %v: kind %d, want ErrAborted", err, k)
		}
	case <-time.After(slack):
		t.Fatal("a Read blocked on a stalled server did not return after the context was cancelled")
	}
}

func (s *Suite) testEarly(t *testing.T) {
	c, _ := s.client()
	err := readAll(c, testCtx(t), s.Early)
	if err == nil {
		t.Fatalf("a body cut short by the server (%s) read without error", s.Early)
	}
	if k := fetch.KindOf(err); k != fetch.ErrPartial {
		t.Errorf("body cut short: %v: kind %d (exit %d), want ErrPartial (18)", err, k, k.ExitCode())
	}
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		t.Errorf("body cut short: error %T is not a *fetch.Error", err)
	}
}

func (s *Suite) testInject(t *testing.T) {
	c, dials := s.client()
	before := 0
	if s.Received != nil {
		before = s.Received()
	}
	res, err := c.Open(testCtx(t), s.Inject)
	if err == nil {
		res.Body.Close()
		t.Fatalf("Open(%q) succeeded: a CR/LF/NUL in a decoded field was not refused", s.Inject)
	}
	if k := fetch.KindOf(err); k != fetch.ErrMalformed {
		t.Errorf("Open(%q): %v: kind %d (exit %d), want ErrMalformed (3)", s.Inject, err, k, k.ExitCode())
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("Open(%q) dialled %d connections before refusing", s.Inject, n)
	}
	if s.Received != nil {
		// Give a connection that slipped through time to arrive.
		time.Sleep(50 * time.Millisecond)
		if after := s.Received(); after != before {
			t.Errorf("the server received %d requests/connections from Open(%q)", after-before, s.Inject)
		}
	}
}

// sameBytes reports the first difference without dumping large bodies.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s: %d bytes, want %d; first difference at byte %d%s", what, len(got), len(want), i, context3(got, want, i))
}

func context3(got, want []byte, i int) string {
	g, w := got[i:min(len(got), i+16)], want[i:min(len(want), i+16)]
	return fmt.Sprintf(" (got %q, want %q)", g, w)
}

func parse(s string) (*urlparse.URL, error) {
	u, err := urlparse.Parse(s)
	if err != nil {
		return nil, err
	}
	return &u, nil
}
