package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/fetch/mailto/smtptest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/internal/testserver"
)

// TestNoGoWording: the messages of a --max-time, a name that does not
// resolve, a refused rlogin connection and a closed stdout pipe are ours
// (curl's where curl has one), never Go's sentences.
func TestNoGoWording(t *testing.T) {
	t.Run("max-time", func(t *testing.T) {
		// 10 bytes of 100, then nothing: --max-time says what arrived of what.
		s := fetchtest.NewServer(t, func(c net.Conn) {
			defer c.Close()
			buf := make([]byte, 4096)
			c.Read(buf)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
			c.Read(buf) // until the client closes
		})
		var out, errb bytes.Buffer
		code := run(env{args: []string{"-sS", "--max-time", "0.5", "http://" + s.Addr + "/"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
		want := "urlget: (28) operation timed out after 500 milliseconds with 10 out of 100 bytes received\n"
		if code != 28 || errb.String() != want {
			t.Errorf("exit %d %q, want 28 %q", code, errb.String(), want)
		}
	})
	t.Run("flag values", func(t *testing.T) {
		// pflag's own Values (int, bool) said strconv's sentences.
		for _, c := range []struct{ args, want string }{
			{"--retry abc http://h/", `urlget: --retry: want a whole number, not "abc" (try 'urlget --help')`},
			{"--insecure=maybe http://h/", `urlget: -k/--insecure: want true or false, not "maybe" (try 'urlget --help')`},
			{"mirror -P x gopher://h/ d", `urlget: mirror: -P/--parallel: want a whole number, not "x" (try 'urlget mirror --help')`},
			{"serve --max-total q", `urlget: serve: --max-total: want a whole number, not "q" (try 'urlget serve --help')`},
			{"url --strict=x a", `urlget: url: --strict: want true or false, not "x" (try 'urlget url --help')`},
			{"-w @/nonexistent/f http://h/", `urlget: -w/--write-out @/nonexistent/f: no such file or directory (try 'urlget --help')`},
		} {
			var out, errb bytes.Buffer
			code := run(env{args: strings.Fields(c.args), stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
			if code != 2 || errb.String() != c.want+"\n" {
				t.Errorf("%s: exit %d %q, want 2 %q", c.args, code, errb.String(), c.want)
			}
		}
	})
	t.Run("resolve", func(t *testing.T) {
		// What Go's resolver gives for a name that does not exist; no
		// query is sent.
		stub := urlDialer(func(ctx context.Context, network, addr string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nonexistent.invalid", Server: "10.0.0.53:53", IsNotFound: true}}
		})
		var out, errb bytes.Buffer
		code := runFetchWith(env{args: []string{"-sS", "http://nonexistent.invalid/"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb},
			func(c *fetchCmd) { c.client.Dialer = stub })
		if want := "urlget: (6) could not resolve host: nonexistent.invalid\n"; code != 6 || errb.String() != want {
			t.Errorf("exit %d %q, want 6 %q", code, errb.String(), want)
		}
	})
	t.Run("rlogin refused", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("rlogin binds a reserved port: root only")
		}
		addr := testserver.FreeAddr(t) // nothing listens there
		var out, errb bytes.Buffer
		code := run(env{args: []string{"-sS", "rlogin://joe@" + addr + "/"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
		if want := "urlget: (7) rlogin: could not connect to " + addr + ": connection refused\n"; code != 7 || errb.String() != want {
			t.Errorf("exit %d %q, want 7 %q", code, errb.String(), want)
		}
	})
	t.Run("closed pipe", func(t *testing.T) {
		s := fetchtest.NewServer(t, func(c net.Conn) {
			defer c.Close()
			buf := make([]byte, 4096)
			c.Read(buf)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(1<<20)+"\r\n\r\n")
			c.Write(make([]byte, 1<<20))
		})
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close() // the reader went away, as head(1) does
		defer w.Close()
		var errb bytes.Buffer
		code := run(env{args: []string{"http://" + s.Addr + "/", "http://" + s.Addr + "/again"}, stdin: strings.NewReader(""), stdout: w, stderr: &errb})
		if code != 23 || errb.String() != "" {
			t.Errorf("exit %d %q, want 23 and nothing said", code, errb.String())
		}
	})
}

// TestBinaryToTerminalRefused: binary data bound for a terminal without
// -o is refused as curl refuses it (exit 23, nothing written); -o - prints
// it, text passes, and a pipe gets everything.
func TestBinaryToTerminalRefused(t *testing.T) {
	bin := []byte("\x00\x01\x02binary\xff")
	g := gophertest.Start(t, &gophertest.Site{Items: map[string]*gophertest.Item{
		"file.bin": {Type: '9', Data: bin},
		"t.txt":    {Type: '0', Data: []byte("text\r\n")},
	}})
	terminal := func(c *fetchCmd) { c.isTerminal = func(io.Writer) bool { return true } }
	r := runCLIWith(t, nil, terminal, g.URL("9file.bin"))
	want := "urlget: (23) binary output can mess up your terminal: use -o - (--output -) to print it anyway, or -o FILE to save it\n"
	if r.code != 23 || r.stdout != "" || r.stderr != want {
		t.Errorf("binary to a terminal: %+v, want 23 %q", r, want)
	}
	if r := runCLIWith(t, nil, terminal, "-o", "-", g.URL("9file.bin")); r.code != 0 || r.stdout != string(bin) {
		t.Errorf("-o -: %+v", r)
	}
	if r := runCLIWith(t, nil, terminal, g.URL("0t.txt")); r.code != 0 || r.stdout != "text\n" {
		t.Errorf("text to a terminal: %+v", r)
	}
	if r := runCLI(t, nil, g.URL("9file.bin")); r.code != 0 || r.stdout != string(bin) {
		t.Errorf("binary to a pipe: %+v", r)
	}
}

// TestMIDServerAndWarnings: --nntp-server is what a mid: URL is fetched
// from, so it draws no "ignored" warning; without a server the message
// talks about mid:; every warning begins "urlget: warning: " (mailto's
// too).
func TestMIDServerAndWarnings(t *testing.T) {
	t.Setenv("NNTPSERVER", "")
	s := (&nntptest.Server{Groups: nntptest.Sample()}).Start(t)
	r := runCLI(t, nil, "--nntp-server", s.Addr, "mid:known-1@example.net")
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, "Subject: Known article one\n") {
		t.Errorf("mid: with --nntp-server: %+v", r)
	}
	r = runCLI(t, nil, "mid:known-1@example.net")
	want := "urlget: (3) mid: a mid: URL is fetched from a news server: give one with --nntp-server HOST[:PORT] or set NNTPSERVER=HOST[:PORT]\n"
	if r.code != 3 || r.stderr != want {
		t.Errorf("mid: without a server: %d %q, want 3 %q", r.code, r.stderr, want)
	}
	// A flag for another scheme, and mailto's own warnings: one prefix.
	srv := (&smtptest.Server{}).Start(t)
	r = runMail(t, "", "--ftp-mlsd", "--mail-from", "me@example.net", "--smtp-server", srv.Addr, "mailto:a@example.org?x-evil=1")
	for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
		if !strings.HasPrefix(line, "urlget: warning: ") {
			t.Errorf("warning line %q", line)
		}
	}
	if !strings.Contains(r.stderr, "urlget: warning: mailto: header field \"x-evil\" ignored: ") {
		t.Errorf("mailto warnings: %q", r.stderr)
	}
}
