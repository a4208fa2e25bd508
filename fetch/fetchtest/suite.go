// Package fetchtest is the conformance suite that every urlget scheme's
// tests run against a live server, the small raw TCP servers (Stall,
// CloseEarly) that give it the failures real servers do not produce on
// demand, and an HTTP proxy (Proxy) for the proxy and gateway paths.
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
//		StallBody:   …, Early: …, Inject: …,
//		Cannot: map[fetchtest.Case]string{
//			fetchtest.CaseDir: "HTTP has no listing format",
//		},
//	})
//
// Known and KnownBody are required. Every other case (Missing, Dir, Stall,
// StallBody, Early, Inject) is given by its field, or listed in
// Suite.Cannot with the reason the scheme cannot offer it: a case neither
// given nor listed fails the run, and the list is printed with the results
// (one "fetchtest: … cannot: …" line on stdout, and t.Log), so nothing is
// skipped silently. The suite checks behaviour the Client promises for
// every scheme: byte-exact bodies (through Read and through io.Copy's
// WriteTo path), HEAD, resume, typed errors (*fetch.Error: ErrAborted on a
// cancel, ErrTimeout past a deadline) that come promptly even while a Read
// is blocked, ErrPartial for a body cut short, and URLs with CR, LF or NUL
// in a decoded field refused before any connection is made — by the Client,
// and by the scheme's Fetcher called directly, without the Client.
package fetchtest

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// promptly. StallBodyBytes, when more than 0, is how many bytes of
	// body the server sends before it stalls: they must be read before
	// the cancel (a reader is never held back for bytes that are not
	// coming, however it tunes the connection).
	StallBody      string
	StallBodyBytes int
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

	// New builds the scheme's Fetcher for the cases run against it
	// directly (nil: the Client's Fetchers, then the registry, by the
	// scheme of Known).
	New func(fetch.Config) fetch.Fetcher

	// Cannot lists the cases this scheme does not offer, each with the
	// reason (rclone's pattern: an explicit list per backend). A case
	// listed here must have its field empty.
	Cannot map[Case]string
}

type optionalCase struct {
	c    Case
	url  string
	test func(*testing.T)
}

// Case names an optional case of the suite, for Suite.Cannot.
type Case string

// The optional cases.
const (
	CaseMissing   Case = "Missing"
	CaseDir       Case = "Dir"
	CaseStall     Case = "Stall"
	CaseStallBody Case = "StallBody"
	CaseEarly     Case = "Early"
	CaseInject    Case = "Inject"
)

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
	optional := []optionalCase{
		{CaseMissing, s.Missing, s.testMissing},
		{CaseDir, s.Dir, s.testDir},
		{CaseStall, s.Stall, s.testStall},
		{CaseStallBody, s.StallBody, s.testStallBody},
		{CaseEarly, s.Early, s.testEarly},
		{CaseInject, s.Inject, s.testInject},
	}
	var cannot []string
	for _, o := range optional {
		why, listed := s.Cannot[o.c]
		switch {
		case o.url != "" && listed:
			t.Errorf("fetchtest: case %s is given and also listed in Suite.Cannot (%q)", o.c, why)
		case o.url != "":
			t.Run(string(o.c), o.test)
		case !listed || strings.TrimSpace(why) == "":
			t.Errorf("fetchtest: case %s is neither given nor listed with a reason in Suite.Cannot", o.c)
		default:
			cannot = append(cannot, string(o.c)+" ("+why+")")
		}
	}
	for c := range s.Cannot {
		if !slices.ContainsFunc(optional, func(o optionalCase) bool { return o.c == c }) {
			t.Errorf("fetchtest: Suite.Cannot lists %q, which is no case of the suite", c)
		}
	}
	if len(cannot) > 0 {
		line := fmt.Sprintf("fetchtest: %s cannot: %s", t.Name(), strings.Join(cannot, "; "))
		t.Log(line)
		fmt.Println(line)
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
	wantTyped(t, "Open with a cancelled context", err, fetch.ErrAborted)
	if n := dials.Load(); n != 0 {
		t.Errorf("Open with a cancelled context dialled %d times", n)
	}
	// The Fetcher alone, too.
	f, req, dials := s.direct(t, s.Known)
	res, err = f.Open(ctx, req)
	if err == nil {
		res.Body.Close()
		t.Fatal("the Fetcher's Open with a cancelled context succeeded")
	}
	if k := fetch.KindOf(err); k != fetch.ErrAborted {
		t.Errorf("the Fetcher's Open with a cancelled context: %v: kind %d, want ErrAborted", err, k)
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("the Fetcher's Open with a cancelled context dialled %d times", n)
	}
}

// wantTyped checks that err is a *fetch.Error of kind k.
func wantTyped(t *testing.T, what string, err error, k fetch.Kind) {
	t.Helper()
	var fe *fetch.Error
	switch {
	case !errors.As(err, &fe):
		t.Errorf("%s: %v: a %T, want a *fetch.Error of kind %d (exit %d)", what, err, err, k, k.ExitCode())
	case fe.Kind != k:
		t.Errorf("%s: %v: kind %d (exit %d), want kind %d (exit %d)", what, err, fe.Kind, fe.Kind.ExitCode(), k, k.ExitCode())
	}
}

// direct is the scheme's Fetcher (Suite.New, the Client's, or the
// registry's), built as the Client would build it (TLS and Options from the
// Suite's client) but with a dialer that counts connections, and a Request
// for rawURL as the Client would hand it over (credentials from the URL).
// The URL is parsed but not checked: that is what a direct call is for.
func (s *Suite) direct(t *testing.T, rawURL string) (fetch.Fetcher, *fetch.Request, *atomic.Int64) {
	t.Helper()
	u, err := parse(rawURL)
	if err != nil {
		t.Fatalf("fetchtest: %q does not parse: %v", rawURL, err)
	}
	c, dials := s.client()
	build := s.New
	if build == nil {
		build = c.Fetchers[u.Scheme]
	}
	if build == nil {
		sc, ok := fetch.LookupScheme(u.Scheme)
		if !ok {
			t.Fatalf("fetchtest: no Fetcher for %s (set Suite.New, or import the scheme's package)", u.Scheme)
		}
		build = sc.New
	}
	cfg := fetch.Config{Dialer: c.Dialer, TLS: &tls.Config{}, UserAgent: "fetchtest"}
	if c.TLS != nil {
		cfg.TLS = c.TLS.Clone()
	}
	cfg.TLS.InsecureSkipVerify = cfg.TLS.InsecureSkipVerify || c.Insecure
	req := &fetch.Request{URL: u, Options: c.Options, User: u.User, Password: u.Password, HasPassword: u.HasPassword}
	return build(cfg), req, dials
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
	wantTyped(t, "stalled fetch", err, fetch.ErrTimeout)
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
	var got atomic.Int64
	go func() {
		_, err := io.Copy(countWriter{&got}, res.Body)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the body of a stalled reply ended before the cancel: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	for end := time.Now().Add(slack); got.Load() < int64(s.StallBodyBytes); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d bytes of the %d a stalled server sent were read after %v", got.Load(), s.StallBodyBytes, slack)
		}
	}
	cancel()
	select {
	case err := <-done:
		wantTyped(t, "Read after cancel", err, fetch.ErrAborted)
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

// testInject opens Inject through the Client, then with the scheme's
// Fetcher directly: each must refuse it with ErrMalformed before any
// connection, so that a Fetcher used without the Client (or a Client
// whose check has a hole) still sends nothing smuggled.
func (s *Suite) testInject(t *testing.T) {
	c, dials := s.client()
	s.refused(t, "Open", dials, func() (*fetch.Resource, error) { return c.Open(testCtx(t), s.Inject) })
	f, req, dials := s.direct(t, s.Inject)
	s.refused(t, "the Fetcher's Open", dials, func() (*fetch.Resource, error) { return f.Open(testCtx(t), req) })
}

func (s *Suite) refused(t *testing.T, what string, dials *atomic.Int64, open func() (*fetch.Resource, error)) {
	t.Helper()
	before := 0
	if s.Received != nil {
		before = s.Received()
	}
	res, err := open()
	if err == nil {
		res.Body.Close()
		t.Errorf("%s(%q) succeeded: a CR/LF/NUL in a decoded field was not refused", what, s.Inject)
	} else if k := fetch.KindOf(err); k != fetch.ErrMalformed {
		t.Errorf("%s(%q): %v: kind %d (exit %d), want ErrMalformed (3)", what, s.Inject, err, k, k.ExitCode())
	}
	if n := dials.Load(); n != 0 {
		t.Errorf("%s(%q) dialled %d connections", what, s.Inject, n)
	}
	if s.Received != nil {
		// Give a connection that slipped through time to arrive.
		time.Sleep(50 * time.Millisecond)
		if after := s.Received(); after != before {
			t.Errorf("the server received %d requests/connections from %s(%q)", after-before, what, s.Inject)
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

// countWriter counts what is written to it, and discards it.
type countWriter struct{ n *atomic.Int64 }

func (w countWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return len(p), nil
}
