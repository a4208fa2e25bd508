package main

// Issue 16 "Found": each item has a test here (or beside the code it
// concerns, named in the comment) that failed before the fix.

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/fetch/mailto/smtptest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
)

func runWithStdin(t *testing.T, stdin string, setup func(*fetchCmd), args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := runFetchWith(env{args: args, stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr}, setup)
	return cliResult{code, stdout.String(), stderr.String()}
}

// Found 1: -d to an http URL was silently dropped (a GET, exit 0); -H, -X,
// -i, -e and --data-* were unknown flags (exit 2).
func TestFoundDataIsPosted(t *testing.T) {
	rec := newRecorder(t)
	r := runWithStdin(t, "", nil, "-q", "-s", "-d", "a=b", "http://"+rec.addr+"/f")
	reqs := rec.take()
	if r.code != 0 || len(reqs) != 1 || !strings.HasPrefix(string(reqs[0]), "POST /f HTTP/1.1\r\n") || !strings.HasSuffix(string(reqs[0]), "\r\n\r\na=b") {
		t.Fatalf("-d a=b: exit %d, request %q", r.code, reqs)
	}
	r = runWithStdin(t, "", nil, "-q", "-s", "-H", "X-A: 1", "-X", "PUT", "-i", "-e", "http://r/", "--data-raw", "x", "--data-binary", "y", "--data-urlencode", "z=a b", "http://"+rec.addr+"/g")
	reqs = rec.take()
	if r.code != 0 || len(reqs) != 1 || !strings.HasPrefix(string(reqs[0]), "PUT /g HTTP/1.1\r\n") || !strings.Contains(string(reqs[0]), "\r\nX-A: 1\r\n") ||
		!strings.Contains(string(reqs[0]), "\r\nReferer: http://r/\r\n") || !strings.HasSuffix(string(reqs[0]), "x&y&z=a+b") {
		t.Fatalf("curl's request flags: exit %d %q, request %q", r.code, r.stderr, reqs)
	}
	if !strings.HasPrefix(r.stdout, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(r.stdout, "\r\n\r\nok\n") {
		t.Errorf("-i output %q", r.stdout)
	}
	// A flag that means nothing for the URL is a warning, never silence.
	gs := gophertest.Start(t, &gophertest.Site{Items: map[string]*gophertest.Item{"/f": {Type: '0', Data: []byte("text\n")}}})
	r = runWithStdin(t, "", nil, "-q", "-d", "x", gs.URL("7/s%09words"))
	if !strings.Contains(r.stderr, "holds its search words already: the data is not sent") {
		t.Errorf("-d for a search with its words: %q", r.stderr)
	}
	r = runWithStdin(t, "", nil, "-q", "-d", "a=b", "-i", gs.URL("0/f"))
	if r.code != 0 || !strings.Contains(r.stderr, "-d/--data: "+gs.URL("0/f")+" is not a gopher search (type 7)") ||
		!strings.Contains(r.stderr, "-i/--include applies to http, https URLs only") {
		t.Errorf("-d and -i for a gopher document: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Found 2: -T - failed ("open -: no such file or directory"), and an upload
// drew no meter.
func TestFoundUploadFromStdin(t *testing.T) {
	rec := newRecorder(t)
	r := runWithStdin(t, "from stdin\n", func(c *fetchCmd) {
		c.isTerminal = func(w io.Writer) bool { return w != c.e.stdout }
	}, "-q", "-T", "-", "http://"+rec.addr+"/up")
	reqs := rec.take()
	if r.code != 0 || len(reqs) != 1 || !strings.HasPrefix(string(reqs[0]), "PUT /up HTTP/1.1\r\n") ||
		!strings.Contains(string(reqs[0]), "Transfer-Encoding: chunked\r\n") || !strings.HasSuffix(string(reqs[0]), "b\r\nfrom stdin\n\r\n0\r\n\r\n") {
		t.Fatalf("-T -: exit %d %q, request %q", r.code, r.stderr, reqs)
	}
	if !strings.Contains(r.stderr, "11 B") {
		t.Errorf("no upload meter: %q", r.stderr)
	}
	s := newFTPServer(t)
	r = runWithStdin(t, "ftp bytes\n", nil, "-q", "-T", "-", "ftp://urlget:secret@"+s.Addr+"/upload/in.txt")
	if got := string(s.File("/home/urlget/upload/in.txt")); r.code != 0 || got != "ftp bytes\n" {
		t.Errorf("-T - to ftp: exit %d %q, stored %q", r.code, r.stderr, got)
	}
}

// Found 6: one message per error, without Go's wording; -w
// %{response_code} carries an FTP reply; --json-lines --raw is refused.
func TestFoundMessages(t *testing.T) {
	r := runCLI(t, nil, "-q", "http://127.0.0.1:1/")
	if want := "urlget: (7) could not connect to 127.0.0.1:1: connection refused\n"; r.stderr != want {
		t.Errorf("refused: %q, want %q", r.stderr, want)
	}
	gs := gophertest.Start(t, &gophertest.Site{Items: map[string]*gophertest.Item{}})
	r = runCLI(t, nil, "-q", gs.URL("7/search"))
	if r.code != 3 || strings.Count(r.stderr, "search") > 3 || strings.Contains(r.stderr, "it needs a search string") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("type 7 without words: exit %d %q", r.code, r.stderr)
	}
	r = runCLI(t, nil, "-q", "gopher://127.0.0.1:25/0x")
	if strings.Count(r.stderr, "gopher-allow-port") != 1 {
		t.Errorf("refused port: %q", r.stderr)
	}
	s := newFTPServer(t)
	r = runCLI(t, nil, "-q", "-s", "-w", "%{response_code} %{http_code}", "ftp://"+s.Addr+"/pub/missing.bin")
	if r.code != 78 || r.stdout != "550 550" {
		t.Errorf("-w for an FTP 550: exit %d, %q", r.code, r.stdout)
	}
	r = runCLI(t, nil, "-q", "--json-lines", "--raw", "gopher://h/1/")
	if r.code != fetchExitUsage || !strings.Contains(r.stderr, "--json-lines and --raw") {
		t.Errorf("--json-lines --raw: exit %d %q", r.code, r.stderr)
	}
}

// -w %{response_code} carries the SMTP reply that refused a mail.
func TestFoundSMTPResponseCode(t *testing.T) {
	srv := (&smtptest.Server{Refuse: map[string]string{"no@example.org": "550 5.1.1 no such user"}}).Start(t)
	r := runMail(t, "", "-q", "-s", "-w", "%{response_code}", "--mail-from", "me@example.net", "--smtp-server", srv.Addr, "mailto:no@example.org")
	if r.code != 55 || r.stdout != "550" {
		t.Errorf("refused recipient: exit %d, -w %q", r.code, r.stdout)
	}
}

// Found 5: ftp://host/pub (a directory without its slash) exited 78 after
// "RETR pub: 550"; now CWD pub is tried and the directory listed, and -v
// says so.
func TestFoundFTPDirectoryWithoutSlash(t *testing.T) {
	s := newFTPServer(t)
	r := runCLI(t, nil, "-q", "-v", "ftp://"+s.Addr+"/pub")
	if r.code != 0 || !strings.Contains(r.stdout, "hello.bin") || !strings.Contains(r.stdout, "sub") ||
		!strings.Contains(r.stderr, "a directory (its URL lacks the trailing \"/\"): listing it") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "-q", "-s", "--json-lines", "ftp://"+s.Addr+"/pub")
	if r.code != 0 || !strings.Contains(r.stdout, `"url":"ftp://`+s.Addr+`/pub/hello.bin"`) {
		t.Errorf("--json-lines: exit %d, %q", r.code, r.stdout)
	}
	// A missing file is still not found.
	if r = runCLI(t, nil, "-q", "-s", "ftp://"+s.Addr+"/pub/nothing"); r.code != 78 {
		t.Errorf("missing: exit %d", r.code)
	}
}

// -w %{response_code} carries the NNTP reply that refused a group.
func TestFoundNNTPResponseCode(t *testing.T) {
	s := (&nntptest.Server{Groups: nntptest.Sample()}).Start(t)
	r := runCLI(t, nil, "-q", "-s", "-w", "%{response_code}", "nntp://"+s.Addr+"/no.such.group")
	if r.code != 78 || r.stdout != "411" {
		t.Errorf("no such group: exit %d, -w %q", r.code, r.stdout)
	}
}
