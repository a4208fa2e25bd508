package fetchtest

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Read reads a result whole, for a test that wants the body as bytes: it
// takes what Client.Open, Client.Do or a Fetcher's Open returned, reads the
// body to its end and closes it. An error from the open is returned as it
// is, with no Resource.
//
//	res, body, err := fetchtest.Read(c.Open(ctx, url))
func Read(res *fetch.Resource, err error) (*fetch.Resource, []byte, error) {
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// WantKind fails the test now unless err is a *fetch.Error (or wraps one)
// of kind k.
func WantKind(t testing.TB, err error, k fetch.Kind) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want kind %d (exit %d)", k, k.ExitCode())
	}
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *fetch.Error", err, err)
	}
	if fe.Kind != k {
		t.Fatalf("error %q: kind %d (exit %d), want kind %d (exit %d)", err, fe.Kind, fe.Kind.ExitCode(), k, k.ExitCode())
	}
}

// Pattern is n bytes that do not repeat in any short period (xorshift), so
// that a body cut, shifted or spliced anywhere differs from it.
func Pattern(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// ReadFile is the file's contents; a file that cannot be read fails the
// test now.
func ReadFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// DirNames lists the names in dir, sorted: what a test looks at to see
// that nothing was left or made there.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// ClearProxyEnv keeps the environment's proxies out of a test: it unsets
// all_proxy, no_proxy and the <scheme>_proxy of every scheme (registered,
// or one the tests name), in lower and upper case, until the test ends.
// Like t.Setenv, it cannot be used in a parallel test.
func ClearProxyEnv(t *testing.T) {
	names := []string{"all_proxy", "no_proxy", "http_proxy", "https_proxy", "ftp_proxy", "gopher_proxy", "gophers_proxy",
		"news_proxy", "nntp_proxy", "nntps_proxy", "wais_proxy", "prospero_proxy", "telnet_proxy"}
	for _, s := range fetch.Schemes() {
		names = append(names, s+"_proxy")
	}
	for _, k := range names {
		for _, name := range []string{k, strings.ToUpper(k)} {
			t.Setenv(name, "")
			os.Unsetenv(name)
		}
	}
}

// Given is Client.Fetchers for Fetchers built already: each scheme gets its
// Fetcher as it is, whatever the Client's configuration.
func Given(fs map[string]fetch.Fetcher) map[string]func(fetch.Config) fetch.Fetcher {
	m := make(map[string]func(fetch.Config) fetch.Fetcher, len(fs))
	for s, f := range fs {
		if f != nil {
			m[s] = func(fetch.Config) fetch.Fetcher { return f }
		} else {
			m[s] = nil
		}
	}
	return m
}

// WriteFile writes data to the file p, making its directories, and gives
// it the modification time mtime: a local copy as an earlier run left it.
func WriteFile(t testing.TB, p, data string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// ReadHead reads a request or reply head from br, up to the empty line that
// ends it, and returns its lines without their line ends (the start line
// first). An error means the connection ended before the head did.
func ReadHead(br *bufio.Reader) ([]string, error) {
	var lines []string
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return lines, err
		}
		l = strings.TrimRight(l, "\r\n")
		if l == "" {
			return lines, nil
		}
		lines = append(lines, l)
	}
}

// HeadField is the value of the first field called name (any case) among
// the lines ReadHead returned, and whether there is one.
func HeadField(lines []string, name string) (string, bool) {
	for _, l := range lines[min(1, len(lines)):] {
		if n, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(n, name) {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
