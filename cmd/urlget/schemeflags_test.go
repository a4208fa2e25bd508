package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/nntp"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/internal/testserver"
)

// rawGopher sends selector CRLF to addr and returns the whole reply.
func rawGopher(t *testing.T, addr, selector string) []byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, selector+"\r\n"); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGopherMenusOnPygopherd checks the CLI's menu presentations on a real
// server: to a file or a pipe the server's bytes, as curl writes them (and
// --raw), readable to a terminal or with --readable, and --json-lines.
func TestGopherMenusOnPygopherd(t *testing.T) {
	s := testserver.Pygopherd(t)
	menuURL := "gopher://" + s.Addr + "/1/"
	wire := rawGopher(t, s.Addr, "")

	for _, args := range [][]string{{"--raw", menuURL}, {menuURL}} {
		raw := runCLI(t, nil, args...)
		if raw.code != 0 || raw.stdout != string(wire) {
			t.Fatalf("%q: exit %d, stderr %q\ngot  %q\nwant %q", args, raw.code, raw.stderr, raw.stdout, wire)
		}
	}
	if curl, err := exec.LookPath("curl"); err == nil {
		out, err := exec.Command(curl, "-s", menuURL).Output()
		if err != nil || string(out) != string(wire) {
			t.Errorf("curl wrote %q (%v), want the server's bytes %q", out, err, wire)
		}
	}

	onTerminal := runCLIWith(t, nil, func(c *fetchCmd) { c.isTerminal = func(w io.Writer) bool { return w == c.e.stdout } }, menuURL)
	readable := runCLI(t, nil, "--readable", menuURL)
	if onTerminal.stdout != readable.stdout {
		t.Errorf("to a terminal:\n%q\nwant the readable form (--readable)\n%q", onTerminal.stdout, readable.stdout)
	}
	var want bytes.Buffer
	u, _ := parseFetchURL(menuURL)
	if err := gopher.RenderFrom(&want, bytes.NewReader(wire), gopher.Readable, &u); err != nil {
		t.Fatal(err)
	}
	if readable.code != 0 || readable.stdout != want.String() {
		t.Fatalf("readable: exit %d, stderr %q\ngot  %q\nwant %q", readable.code, readable.stderr, readable.stdout, want.String())
	}
	helloURL := "gopher://" + s.Addr + "/0/hello.txt"
	if !strings.Contains(readable.stdout, helloURL) {
		t.Errorf("readable menu does not show %s:\n%s", helloURL, readable.stdout)
	}

	js := runCLI(t, nil, "--json-lines", menuURL)
	if js.code != 0 {
		t.Fatalf("--json-lines: exit %d, stderr %q", js.code, js.stderr)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSuffix(js.stdout, "\n"), "\n") {
		var item struct{ Type, Selector, URL string }
		if err := json.Unmarshal([]byte(line), &item); err != nil {
			t.Fatalf("--json-lines line %q: %v", line, err)
		}
		if item.Selector == "/hello.txt" {
			found = item.Type == "0" && item.URL == helloURL
		}
	}
	if !found {
		t.Errorf("--json-lines has no type 0 item /hello.txt with URL %s:\n%s", helloURL, js.stdout)
	}
}

// TestGopherSearchFlag checks that -d supplies a type 7 search string, and
// that without it (and without a terminal) urlget says one is needed.
func TestGopherSearchFlag(t *testing.T) {
	s := testserver.Pygopherd(t)
	searchURL := "gopher://" + s.Addr + "/7/cgi-bin/search.cgi"
	r := runCLI(t, nil, "--raw", "-d", "doc", searchURL)
	want := rawGopher(t, s.Addr, "/cgi-bin/search.cgi\tdoc")
	if r.code != 0 || r.stdout != string(want) {
		t.Fatalf("-d doc: exit %d, stderr %q\ngot  %q\nwant %q", r.code, r.stderr, r.stdout, want)
	}
	if !strings.Contains(r.stdout, "/docs/one.txt") {
		t.Errorf("search results lack /docs/one.txt: %q", r.stdout)
	}
	r = runCLI(t, nil, searchURL)
	if r.code != 3 || !strings.Contains(r.stderr, "search") {
		t.Errorf("no search string: exit %d, stderr %q; want 3 naming the search", r.code, r.stderr)
	}
}

// TestNewsFlags checks --nntp-server, --body, --json-lines and --max-articles.
func TestNewsFlags(t *testing.T) {
	s := (&nntptest.Server{Groups: nntptest.Sample()}).Start(t)

	r := runCLI(t, nil, "--nntp-server", s.Addr, "--body", "news:dots@example.net")
	if want := ".leading dot\n..two leading dots\n.\nafter a lone dot line\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("--body: exit %d, stderr %q\ngot  %q\nwant %q", r.code, r.stderr, r.stdout, want)
	}

	r = runCLI(t, nil, "--nntp-server", s.Addr, "--json-lines", "--max-articles", "2", "news:local.test")
	if r.code != 0 {
		t.Fatalf("--json-lines: exit %d, stderr %q", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("--max-articles 2 gave %d lines:\n%s", len(lines), r.stdout)
	}
	var last struct {
		Number  int64
		Subject string
		URL     string
	}
	if err := json.Unmarshal([]byte(lines[1]), &last); err != nil {
		t.Fatalf("%q: %v", lines[1], err)
	}
	if last.Number != 5 || last.URL != "nntp://"+s.Addr+"/local.test/5" {
		t.Errorf("newest article %+v, want number 5 at nntp://%s/local.test/5", last, s.Addr)
	}

	t.Setenv("NNTPSERVER", "")
	r = runCLI(t, nil, "news:local.test")
	if r.code != 3 || !strings.Contains(r.stderr, "--nntp-server") {
		t.Errorf("no server: exit %d, stderr %q; want 3 naming --nntp-server", r.code, r.stderr)
	}
}

// TestSchemeOptions checks that every scheme flag reaches the fetcher as
// its Request.Options key, and --ask-answer - reads answers from stdin.
func TestSchemeOptions(t *testing.T) {
	var got map[string]string
	rec := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		got = maps.Clone(req.Options)
		if got[fetch.OptAsSent] != "1" && got[fetch.OptRaw] == "" {
			t.Errorf("%s: no %s: stdout is no terminal (and no --raw)", req.URL, fetch.OptAsSent)
		}
		delete(got, fetch.OptAsSent) // the Downloader's, for a pipe
		if len(got) == 0 {
			got = nil
		}
		return &fetch.Resource{Meta: fetch.Meta{Size: 0}, Body: io.NopCloser(strings.NewReader(""))}, nil
	})
	run := func(stdin string, args ...string) {
		t.Helper()
		got = nil
		var stdout, stderr bytes.Buffer
		code := runFetchWith(env{args: args, stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr}, func(c *fetchCmd) {
			c.client.Fetchers = fetchtest.Given(map[string]fetch.Fetcher{"gopher": rec, "news": rec, "ftp": rec})
		})
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	run("", "-d", "a b", "--gopher-allow-port", "--gopher-text", "rfc1436", "--raw", "--ask-answer", "x", "--ask-answer", "2", "gopher://h/7/s")
	want := map[string]string{gopher.OptSearch: "a b", gopher.OptAllowPort: "1", gopher.OptText: "rfc1436", gopher.OptRaw: "1", gopher.OptAsk: "x\n2"}
	if !maps.Equal(got, want) {
		t.Errorf("gopher options %v, want %v", got, want)
	}
	run("first\r\nsecond\n", "--ask-answer", "-", "gopher://h/0/form")
	if got[gopher.OptAsk] != "first\nsecond" {
		t.Errorf("--ask-answer - gave %q", got[gopher.OptAsk])
	}
	run("", "--nntp-server", "n:1119", "--max-articles", "7", "--describe", "--body", "--article-head", "--ssl-reqd", "news:g")
	want = map[string]string{nntp.OptServer: "n:1119", nntp.OptMaxArticles: "7", nntp.OptDescribe: "1", nntp.OptBody: "1", nntp.OptHead: "1", nntp.OptSSL: "required"}
	if !maps.Equal(got, want) {
		t.Errorf("news options %v, want %v", got, want)
	}
	run("", "--ftp-method", "nocwd", "--ftp-pasv-trust", "-P", "-", "--disable-epsv", "--disable-eprt", "-l", "--ftp-mlsd",
		"--ftp-no-reuse", "--ftp-email", "me@x", "--ftp-account", "acct", "-B", "-R", "ftp://h/d/")
	want = map[string]string{ftp.OptMethod: "nocwd", ftp.OptPasvTrust: "1", ftp.OptPort: "-", ftp.OptEPSV: "0", ftp.OptEPRT: "0",
		ftp.OptListOnly: "1", ftp.OptMLSD: "1", ftp.OptReuse: "0", ftp.OptEmail: "me@x", ftp.OptAccount: "acct", ftp.OptType: "a", ftp.OptMDTM: "1"}
	if !maps.Equal(got, want) {
		t.Errorf("ftp options %v, want %v", got, want)
	}
	run("", "--ftp-pasv-trust", "--ftp-skip-pasv-ip", "ftp://h/f")
	if want := (map[string]string{ftp.OptPasvTrust: "0"}); !maps.Equal(got, want) {
		t.Errorf("--ftp-skip-pasv-ip after --ftp-pasv-trust: options %v, want %v", got, want)
	}
	run("", "gopher://h/1/")
	if got != nil {
		t.Errorf("no scheme flags gave options %v", got)
	}
}

// Every option a fetch package declares is a flag of the fetch command,
// its value is checked by its kind, and a flag that means nothing for the
// URLs given is a warning, not silence.
func TestSchemeFlagsFromRegistry(t *testing.T) {
	fs := newFetchFlags(env{stderr: io.Discard}, &fetchOpts{})
	for _, o := range fetch.RegisteredOptions() {
		f := fs.Lookup(o.FlagName())
		if f == nil {
			t.Errorf("option %s has no --%s flag", o.Key, o.FlagName())
			continue
		}
		if f.Shorthand != o.Short {
			t.Errorf("--%s: short flag %q, declared %q", o.FlagName(), f.Shorthand, o.Short)
		}
		if got := cli.Topics(f); !slices.Equal(got, o.Schemes) {
			t.Errorf("--%s: schemes %q, declared %q", o.FlagName(), got, o.Schemes)
		}
		if o.Kind != fetch.Bool && f.Value.Type() != o.Arg {
			t.Errorf("--%s: placeholder %q, declared %q", o.FlagName(), f.Value.Type(), o.Arg)
		}
		if o.Arg != "" && strings.Contains(f.Usage, o.Arg+":") {
			t.Errorf("--%s: help %q repeats its placeholder", o.FlagName(), f.Usage)
		}
	}
	rec := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: 0}, Body: io.NopCloser(strings.NewReader(""))}, nil
	})
	run := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := runFetchWith(env{args: args, stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr}, func(c *fetchCmd) {
			c.client.Fetchers = fetchtest.Given(map[string]fetch.Fetcher{"gopher": rec, "news": rec, "ftp": rec})
		})
		return code, stderr.String()
	}
	if code, stderr := run("--max-articles", "many", "news:g"); code != fetchExitUsage || !strings.Contains(stderr, "--max-articles") {
		t.Errorf("--max-articles many: exit %d, %q", code, stderr)
	}
	code, stderr := run("--ftp-mlsd", "--gopher-allow-port", "gopher://h/1/")
	if code != 0 || !strings.Contains(stderr, "--ftp-mlsd applies to ftp, ftps URLs only") || strings.Contains(stderr, "gopher-allow-port") {
		t.Errorf("--ftp-mlsd for a gopher URL: exit %d, stderr %q", code, stderr)
	}
}
