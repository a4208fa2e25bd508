package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/fetch/telnet/telnettest"
	"github.com/urlget/urlget/internal/testserver"
)

// curl's output and transfer options that its test suite uses (issue
// #40), each beside curl: -J, --no-clobber/--clobber, --remove-on-error,
// --fail-early, --form-string, -m and --socks5.

// filesIn lists dir's entries with their contents.
func filesIn(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		m[e.Name()] = string(b)
	}
	return m
}

// runBoth runs curl then urlget with args, each with --output-dir a
// directory of its own that setup fills first; it gives both exit codes
// and the files each directory holds after.
func runBoth(t *testing.T, curl string, setup func(dir string), args ...string) (ucode, ccode int, ufiles, cfiles map[string]string) {
	t.Helper()
	cdir, udir := t.TempDir(), t.TempDir()
	if setup != nil {
		setup(cdir)
		setup(udir)
	}
	cmd := exec.Command(curl, append([]string{"-s", "--output-dir", cdir}, args...)...)
	cmd.Dir = cdir
	if err := cmd.Run(); err != nil {
		ccode = err.(*exec.ExitError).ExitCode()
	}
	ucode, _, _ = runOut(t, append([]string{"-s", "--output-dir", udir}, args...)...)
	return ucode, ccode, filesIn(t, udir), filesIn(t, cdir)
}

// runClient runs client ("curl": the curl binary, else urlget in the
// test's process) with args, and gives its exit code and stdout.
func runClient(t *testing.T, curl, client string, args ...string) (int, string) {
	t.Helper()
	if client != "curl" {
		code, out, _ := runOut(t, args...)
		return code, out
	}
	out, err := exec.Command(curl, args...).Output()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("curl: %v", err)
	}
	return 0, string(out)
}

func write(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRemoteHeaderNameBesideCurl: -J names a -O file as the reply's
// Content-Disposition does, its directory part dropped, and does not
// replace a file of that name (exit 23; --no-clobber: NAME.1) unless
// --clobber; without a file name there the URL's stays, and an empty one
// is refused (23).
func TestRemoteHeaderNameBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	reply := func(disp string) {
		rec.setAnswer(func([]byte) string {
			h := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n"
			if disp != "" {
				h += "Content-Disposition: " + disp + "\r\n"
			}
			return h + "\r\nbody\n"
		})
	}
	url := "http://" + rec.addr + "/dir/fromurl.txt"
	existing := func(dir string) { write(t, filepath.Join(dir, "served.txt"), "old\n") }
	for _, tc := range []struct {
		disp  string
		setup func(string)
		args  []string
		code  int
		want  map[string]string
	}{
		{`attachment; filename="served.txt"`, nil, []string{"-J", "-O", url}, 0, map[string]string{"served.txt": "body\n"}},
		{`attachment; filename="../../up/served.txt"`, nil, []string{"-OJ", url}, 0, map[string]string{"served.txt": "body\n"}},
		{`attachment; filename="served.txt"`, existing, []string{"-J", "-O", url}, 23, map[string]string{"served.txt": "old\n"}},
		{`attachment; filename="served.txt"`, existing, []string{"-J", "--no-clobber", "-O", url}, 0, map[string]string{"served.txt": "old\n", "served.txt.1": "body\n"}},
		{`attachment; filename="served.txt"`, existing, []string{"-J", "--clobber", "-O", url}, 0, map[string]string{"served.txt": "body\n"}},
		{"", nil, []string{"-J", "-O", url}, 0, map[string]string{"fromurl.txt": "body\n"}},
		{`inline`, nil, []string{"-J", "-O", url}, 0, map[string]string{"fromurl.txt": "body\n"}},
		{`attachment; filename=""`, nil, []string{"--remote-header-name", "-O", url}, 23, map[string]string{}},
	} {
		reply(tc.disp)
		ucode, ccode, ufiles, cfiles := runBoth(t, curl, tc.setup, tc.args...)
		if ucode != tc.code || ccode != tc.code {
			t.Errorf("%s %q: urlget exit %d, curl %d; want %d", tc.disp, tc.args, ucode, ccode, tc.code)
		}
		if !mapsEqual(ufiles, tc.want) || !mapsEqual(cfiles, tc.want) {
			t.Errorf("%s %q: urlget wrote %q, curl %q; want %q", tc.disp, tc.args, ufiles, cfiles, tc.want)
		}
	}
	if code, _, stderr := runOut(t, "-J", "-O", "-C", "-", url); code != 2 || !strings.Contains(stderr, "-C -") {
		t.Errorf("-J -C -: exit %d %q, want a usage error", code, stderr)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestNoClobberBesideCurl: --no-clobber writes NAME.1 (then NAME.2 …)
// beside an existing -o file, leaving it as it is; with NAME.1 to
// NAME.100 taken nothing is written (exit 23); a later --clobber undoes
// it.
func TestNoClobberBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	rec.setAnswer(func([]byte) string {
		return "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnew\n"
	})
	url := "http://" + rec.addr + "/f"
	one := func(dir string) { write(t, filepath.Join(dir, "out"), "old\n") }
	two := func(dir string) { one(dir); write(t, filepath.Join(dir, "out.1"), "old1\n") }
	full := func(dir string) {
		one(dir)
		for i := 1; i <= 100; i++ {
			write(t, filepath.Join(dir, "out."+strconv.Itoa(i)), "x")
		}
	}
	for _, tc := range []struct {
		setup func(string)
		args  []string
		code  int
		want  map[string]string
	}{
		{one, []string{"--no-clobber", "-o", "out", url}, 0, map[string]string{"out": "old\n", "out.1": "new\n"}},
		{two, []string{"--no-clobber", "-o", "out", url}, 0, map[string]string{"out": "old\n", "out.1": "old1\n", "out.2": "new\n"}},
		{one, []string{"--no-clobber", "--clobber", "-o", "out", url}, 0, map[string]string{"out": "new\n"}},
		{nil, []string{"--no-clobber", "-o", "out", url}, 0, map[string]string{"out": "new\n"}},
	} {
		ucode, ccode, ufiles, cfiles := runBoth(t, curl, tc.setup, tc.args...)
		if ucode != tc.code || ccode != tc.code {
			t.Errorf("%q: urlget exit %d, curl %d; want %d", tc.args, ucode, ccode, tc.code)
		}
		if !mapsEqual(ufiles, tc.want) || !mapsEqual(cfiles, tc.want) {
			t.Errorf("%q: urlget left %q, curl %q; want %q", tc.args, ufiles, cfiles, tc.want)
		}
	}
	// A symbolic link is a name taken: NAME.1 goes beside it, the file it
	// names stays as it is.
	elsewhere := t.TempDir()
	linked := func(dir string) {
		target := filepath.Join(elsewhere, filepath.Base(dir))
		write(t, target, "target\n")
		if err := os.Symlink(target, filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
	}
	if ucode, ccode, ufiles, cfiles := runBoth(t, curl, linked, "--no-clobber", "-o", "out", url); ucode != 0 || ccode != 0 ||
		ufiles["out.1"] != "new\n" || cfiles["out.1"] != "new\n" {
		t.Errorf("--no-clobber over a link: urlget exit %d %q, curl %d %q", ucode, ufiles, ccode, cfiles)
	}
	if got := filesIn(t, elsewhere); len(got) != 2 || slices.ContainsFunc(slices.Collect(maps.Values(got)), func(v string) bool { return v != "target\n" }) {
		t.Errorf("--no-clobber over a link changed the files it names: %q", got)
	}
	ucode, ccode, ufiles, _ := runBoth(t, curl, full, "--no-clobber", "-o", "out", url)
	if ucode != 23 || ccode != 23 {
		t.Errorf("all 100 names taken: urlget exit %d, curl %d; want 23", ucode, ccode)
	}
	if len(ufiles) != 101 || ufiles["out"] != "old\n" || ufiles["out.100"] != "x" || ufiles["out.part"] != "" {
		t.Errorf("all 100 names taken: urlget left %d files (out %q)", len(ufiles), ufiles["out"])
	}
}

// TestRemoveOnErrorBesideCurl: a transfer cut short keeps its bytes for a
// resume, but with --remove-on-error nothing of it stays, as with curl.
func TestRemoveOnErrorBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	cut := fetchtest.CloseEarly(t, "\r\n\r\n", []byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789"))
	url := "http://" + cut.Addr + "/cut"
	ucode, ccode, ufiles, cfiles := runBoth(t, curl, nil, "--remove-on-error", "-o", "out", url)
	if ucode != 18 || ccode != 18 {
		t.Errorf("--remove-on-error: urlget exit %d, curl %d; want 18", ucode, ccode)
	}
	if len(ufiles) != 0 || len(cfiles) != 0 {
		t.Errorf("--remove-on-error: urlget left %q, curl %q; want nothing", ufiles, cfiles)
	}
	ucode, _, ufiles, _ = runBoth(t, curl, nil, "-o", "out", url)
	if ucode != 18 || ufiles["out.part"] != "0123456789" {
		t.Errorf("without it: urlget exit %d, left %q; want 18 and out.part kept", ucode, ufiles)
	}
}

// TestFailEarlyBesideCurl: --fail-early stops at the first transfer that
// fails (its exit code is the status); without it the next URL is still
// fetched. (Then curl's status is the last transfer's, urlget's the last
// failure's: a difference README lists.)
func TestFailEarlyBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	ok := "http://" + rec.addr + "/second"
	for _, tc := range []struct {
		args []string
		sent int // requests each client makes to the second URL
	}{
		{[]string{"--fail-early", refused, ok}, 0},
		{[]string{refused, ok}, 1},
		{[]string{"--fail-early", "--no-fail-early", refused, ok}, 1},
	} {
		ucode, ccode, _ := exitBesideCurl(t, curl, append([]string{"-s", "-o", os.DevNull, "-o", os.DevNull}, tc.args...)...)
		reqs := rec.take()
		if tc.sent == 0 && (ucode != 7 || ccode != 7) || ucode != 7 || len(reqs) != 2*tc.sent {
			t.Errorf("%q: urlget exit %d, curl %d; %d requests to the second URL, want %d each", tc.args, ucode, ccode, len(reqs), tc.sent)
		}
	}
}

// TestFormStringBesideCurl: --form-string sends its value as it is ("@"
// and "<" read no file, ";type=" is text), in order with -F's parts.
func TestFormStringBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	args := []string{"-s", "-F", "a=1;type=text/x", "--form-string", "b=@/etc/passwd;type=x", "--form-string", "c=<nofile", "-F", "d=4", "http://" + rec.addr + "/form"}
	creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, args, "")
	if len(creqs) != 1 || len(ureqs) != 1 {
		t.Fatalf("curl sent %d requests, urlget %d", len(creqs), len(ureqs))
	}
	c, u := comparableRequest(creqs[0]), comparableRequest(ureqs[0])
	if c != u {
		t.Errorf("requests differ:\nurlget %q\ncurl   %q", u, c)
	}
	if strings.Contains(u, "root:") || !strings.Contains(u, "\r\n\r\n@/etc/passwd;type=x\r\n") {
		t.Errorf("--form-string value not sent as it is: %q", u)
	}
}

// TestMaxTimeShortBesideCurl: -m is --max-time: a server that never
// answers ends the transfer with 28.
func TestMaxTimeShortBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	silent := fetchtest.NewServer(t, func(c net.Conn) {
		defer c.Close()
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var b [1]byte
		for {
			if _, err := c.Read(b[:]); err != nil {
				return
			}
		}
	})
	ucode, ccode, uerr := exitBesideCurl(t, curl, "-s", "-S", "-m", "0.3", "http://"+silent.Addr+"/")
	if ucode != 28 || ccode != 28 {
		t.Errorf("-m 0.3: urlget exit %d (%s), curl %d; want 28", ucode, strings.TrimSpace(uerr), ccode)
	}
}

// TestSocks5FlagsBesideCurl: --socks5 HOST:PORT is -x socks5://HOST:PORT
// (the name resolved here: the proxy is asked for an address), and
// --socks5-hostname asks the proxy for the name.
func TestSocks5FlagsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	_, port, _ := net.SplitHostPort(rec.addr)
	var asked atomic.Int32
	proxy := fetchtest.NewSOCKS5(t, false, func(string) string { asked.Add(1); return rec.addr })
	for _, tc := range []struct {
		flag, url, want string
	}{
		{"--socks5", "http://127.0.0.1:" + port + "/a", "127.0.0.1:" + port},
		{"--socks5-hostname", "http://origin.invalid:" + port + "/b", "origin.invalid:" + port},
	} {
		before := len(proxy.Asked())
		ucode, ccode, uerr := exitBesideCurl(t, curl, "-s", "-S", "-o", os.DevNull, tc.flag, proxy.Addr, tc.url)
		got := proxy.Asked()[before:]
		if ucode != 0 || ccode != 0 || !slices.Equal(got, []string{tc.want, tc.want}) {
			t.Errorf("%s: urlget exit %d (%s), curl %d; the proxy was asked for %q, want %q twice", tc.flag, ucode, strings.TrimSpace(uerr), ccode, got, tc.want)
		}
	}
	rec.take()
}

// TestProxyTunnelBesideCurl: with -p every connection goes through the
// proxy's CONNECT tunnel — an http request (sent in origin form, as to the
// server itself), an ftp control and data connection — where without it
// the proxy is sent the request.
func TestProxyTunnelBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	proxy := fetchtest.NewProxy(t, nil)
	url := "http://" + rec.addr + "/tunnelled?q=1"
	seen := 0
	for _, client := range []string{"curl", "urlget"} {
		code, _ := runClient(t, curl, client, "-s", "-p", "-x", "http://"+proxy.Addr, "-o", os.DevNull, url)
		reqs := proxy.Requests()[seen:]
		seen += len(reqs)
		got := rec.take()
		if code != 0 || len(reqs) != 1 || reqs[0].Line != "CONNECT "+rec.addr+" HTTP/1.1" {
			t.Errorf("%s -p: exit %d, the proxy was asked %q", client, code, reqs)
		}
		if len(got) != 1 || !strings.HasPrefix(string(got[0]), "GET /tunnelled?q=1 HTTP/1.1\r\n") || strings.Contains(string(got[0]), "Proxy-Connection") {
			t.Errorf("%s -p: the server got %q, want an origin-form GET", client, got)
		}
	}

	refusing := fetchtest.CloseEarly(t, "\r\n\r\n", []byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"))
	ucode, ccode, uerr := exitBesideCurl(t, curl, "-s", "-S", "-p", "-x", "http://"+refusing.Addr, url)
	if ucode != 56 || ccode != 56 || !strings.Contains(uerr, "403 Forbidden") {
		t.Errorf("a refused tunnel: urlget exit %d (%s), curl %d; want 56", ucode, strings.TrimSpace(uerr), ccode)
	}

	ftp := newFTPServer(t)
	furl := "ftp://" + ftp.Addr + "/pub/hello.bin"
	seen = len(proxy.Requests())
	for _, client := range []string{"curl", "urlget"} {
		code, out := runClient(t, curl, client, "-s", "-p", "-x", "http://"+proxy.Addr, furl)
		reqs := proxy.Requests()[seen:]
		seen += len(reqs)
		if code != 0 || out != "hello\r\nworld\n" {
			t.Errorf("%s -p ftp: exit %d, got %q", client, code, out)
		}
		if len(reqs) != 2 || reqs[0].Line != "CONNECT "+ftp.Addr+" HTTP/1.1" || !strings.HasPrefix(reqs[1].Line, "CONNECT 127.0.0.1:") {
			t.Errorf("%s -p ftp: the proxy was asked %q, want the control then the data connection", client, reqs)
		}
	}
}

// TestUploadPerURLBesideCurl: the Nth -T is the Nth URL's, as -o is: with
// one -T and two URLs the first is a PUT of the file, the second a GET;
// two -T upload one file each.
func TestUploadPerURLBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	write(t, a, "first\n")
	write(t, b, "second\n")
	base := "http://" + rec.addr
	for _, tc := range []struct {
		args []string
		want []string // each request's line and body
	}{
		{[]string{"-T", a, base + "/one", base + "/two"}, []string{"PUT /one HTTP/1.1 first\n", "GET /two HTTP/1.1 "}},
		{[]string{"-T", a, "-T", b, base + "/up/", base + "/two"}, []string{"PUT /up/a.txt HTTP/1.1 first\n", "PUT /two HTTP/1.1 second\n"}},
	} {
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, append([]string{"-s", "-o", os.DevNull, "-o", os.DevNull}, tc.args...), "")
		for who, reqs := range map[string][][]byte{"curl": creqs, "urlget": ureqs} {
			var got []string
			for _, r := range reqs {
				head, body, _ := strings.Cut(string(r), "\r\n\r\n")
				line, _, _ := strings.Cut(head, "\r\n")
				got = append(got, line+" "+body)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s %q: sent %q, want %q", who, tc.args, got, tc.want)
			}
		}
	}
}

// TestRedirectWithoutLengthBesideCurl: with -L a redirect whose body only
// the server's close would end (Connection: close, no length) is followed
// at once, as curl does, though the server keeps the connection open.
func TestRedirectWithoutLengthBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	srv := fetchtest.NewServer(t, func(c net.Conn) {
		defer c.Close()
		buf := make([]byte, 4096)
		n, _ := c.Read(buf)
		if strings.HasPrefix(string(buf[:n]), "GET /next ") {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nnext\n")
			return
		}
		io.WriteString(c, "HTTP/1.1 301 Moved\r\nLocation: /next\r\nConnection: close\r\n\r\nmoved, but this connection stays open")
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		for {
			if _, err := c.Read(buf); err != nil {
				return
			}
		}
	})
	url := "http://" + srv.Addr + "/first"
	cmd := exec.Command(curl, "-s", "-L", "-m", "10", url)
	cout, err := cmd.Output()
	if err != nil {
		t.Fatalf("curl: %v", err)
	}
	code, uout, uerr := runOut(t, "-s", "-S", "-L", "-m", "10", url)
	if code != 0 || uout != "next\n" || string(cout) != uout {
		// Waiting for the body would end with -m's 28.
		t.Errorf("urlget exit %d %q (%s), curl %q; want next", code, uout, strings.TrimSpace(uerr), cout)
	}
}

// TestHeaderLimitsBesideCurl: a reply's header line over 100 KiB is
// curl's 27, a head over 300 KiB its 56; below both it is read.
func TestHeaderLimitsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	url := "http://" + rec.addr + "/big"
	for _, tc := range []struct {
		name string
		head string
		code int
	}{
		{"a 99 KiB line", "X-Big: " + strings.Repeat("a", 99<<10) + "\r\n", 0},
		{"a 101 KiB line", "X-Big: " + strings.Repeat("a", 101<<10) + "\r\n", 27},
		{"120 lines of 1 KiB", strings.Repeat("X-H: "+strings.Repeat("b", 1<<10)+"\r\n", 120), 0},
		{"310 lines of 1 KiB", strings.Repeat("X-H: "+strings.Repeat("b", 1<<10)+"\r\n", 310), 56},
		{"a 101 KiB body line", "", 0},
	} {
		body := "ok\n"
		if tc.head == "" {
			body = strings.Repeat("c", 101<<10) + "\n"
		}
		rec.setAnswer(func([]byte) string {
			return "HTTP/1.1 200 OK\r\n" + tc.head + "Content-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + body
		})
		ucode, ccode, uerr := exitBesideCurl(t, curl, "-s", "-S", "-o", os.DevNull, url)
		if ucode != tc.code || ccode != tc.code {
			t.Errorf("%s: urlget exit %d (%s), curl %d; want %d", tc.name, ucode, strings.TrimSpace(uerr), ccode, tc.code)
		}
	}
	rec.take()
}

// TestTelnetUploadBesideCurl: -T FILE to a telnet URL types the file's
// lines into the session, as curl sends it; the URL gets no file name.
func TestTelnetUploadBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	sh := &telnettest.Shell{}
	s := telnettest.Start(t, sh.Handle)
	script := filepath.Join(t.TempDir(), "script")
	write(t, script, "echo typed\nexit\n")
	url := s.URL("") // "telnet://HOST:PORT/"
	for _, client := range []string{"curl", "urlget"} {
		code, out := runClient(t, curl, client, "-s", "-m", "10", "-T", script, url)
		got := sh.Last().Lines
		if code != 0 || len(got) < 2 || got[0] != "echo typed" || got[1] != "exit" || !strings.Contains(out, "typed") {
			t.Errorf("%s -T: exit %d, the server read %q, output %q", client, code, got, out)
		}
	}
}

// socks4Server is a SOCKS4/4a proxy for TestSocks4BesideCurl: it records
// each request (the user id, and the address or the 4a name asked for) and
// connects every one to target.
func socks4Server(t *testing.T, target string, asked chan<- string) *fetchtest.Server {
	return fetchtest.NewServer(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		head := make([]byte, 8)
		if _, err := io.ReadFull(br, head); err != nil || head[0] != 4 || head[1] != 1 {
			return
		}
		user, _ := br.ReadString(0)
		dst := net.IP(head[4:8]).String()
		if head[4] == 0 && head[5] == 0 && head[6] == 0 && head[7] != 0 {
			dst, _ = br.ReadString(0)
			dst = strings.TrimSuffix(dst, "\x00")
		}
		asked <- fmt.Sprintf("%s@%s:%d", strings.TrimSuffix(user, "\x00"), dst, int(head[2])<<8|int(head[3]))
		up, err := net.Dial("tcp", target)
		if err != nil {
			c.Write([]byte{0, 91, 0, 0, 0, 0, 0, 0})
			return
		}
		defer up.Close()
		c.Write([]byte{0, 90, 0, 0, 0, 0, 0, 0})
		go io.Copy(up, br)
		io.Copy(c, up)
	})
}

// TestSocks4BesideCurl: --socks4 resolves the name here and sends the
// proxy an IPv4 address, --socks4a sends the name; the proxy URL's user
// is the user id.
func TestSocks4BesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	_, port, _ := net.SplitHostPort(rec.addr)
	asked := make(chan string, 8)
	proxy := socks4Server(t, rec.addr, asked)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--socks4", proxy.Addr, "http://127.0.0.1:" + port + "/a"}, "@127.0.0.1:" + port},
		{[]string{"--socks4a", proxy.Addr, "http://origin.invalid:" + port + "/b"}, "@origin.invalid:" + port},
		{[]string{"-x", "socks4a://joe@" + proxy.Addr, "http://origin.invalid:" + port + "/c"}, "joe@origin.invalid:" + port},
	} {
		ucode, ccode, uerr := exitBesideCurl(t, curl, append([]string{"-s", "-S", "-o", os.DevNull}, tc.args...)...)
		var got []string
		for len(asked) > 0 {
			got = append(got, <-asked)
		}
		if ucode != 0 || ccode != 0 || !slices.Equal(got, []string{tc.want, tc.want}) {
			t.Errorf("%q: urlget exit %d (%s), curl %d; the proxy was asked %q, want %q twice", tc.args, ucode, strings.TrimSpace(uerr), ccode, got, tc.want)
		}
	}
	rec.take()
}

// TestFormEscapeBesideCurl: a quote in a -F name or file name is %22 (as
// browsers write it), and with --form-escape \" (a backslash \\), as
// curl 7.88 writes them.
func TestFormEscapeBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	dir := t.TempDir()
	file := filepath.Join(dir, `a"b\c.txt`)
	write(t, file, "x\n")
	for _, esc := range [][]string{nil, {"--form-escape"}} {
		args := append(append([]string{"-s"}, esc...), "-F", `q"u\ote=v`, "-F", "f=@"+file, "http://"+rec.addr+"/form")
		creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, args, "")
		if len(creqs) != 1 || len(ureqs) != 1 {
			t.Fatalf("%q: curl sent %d requests, urlget %d", args, len(creqs), len(ureqs))
		}
		c, u := comparableRequest(creqs[0]), comparableRequest(ureqs[0])
		want := `name="q%22u\ote"`
		if esc != nil {
			want = `name="q\"u\\ote"`
		}
		if c != u || !strings.Contains(u, want) {
			t.Errorf("%q: requests differ or lack %s:\nurlget %q\ncurl   %q", args, want, u, c)
		}
	}
}

// TestFTPRepliesAsReceivedBesideCurl: -D writes an ftp server's replies
// as they came, a line ended by a bare LF so ended, as curl writes them.
func TestFTPRepliesAsReceivedBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s := newFTPServer(t)
	s.Configure(func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			if verb != "SIZE" {
				return false
			}
			ss.Raw([]byte("213-bare\n213 13\n"))
			return true
		}
	})
	url := "ftp://" + s.Addr + "/pub/hello.bin"
	dir := t.TempDir()
	cfile, ufile := filepath.Join(dir, "c"), filepath.Join(dir, "u")
	if code, _ := runClient(t, curl, "curl", "-s", "-D", cfile, "-o", os.DevNull, url); code != 0 {
		t.Fatalf("curl: exit %d", code)
	}
	if code, _ := runClient(t, curl, "urlget", "-s", "-D", ufile, "-o", os.DevNull, url); code != 0 {
		t.Fatalf("urlget: exit %d", code)
	}
	port := regexp.MustCompile(`\(\|\|\|[0-9]+\|\)`) // each run's own EPSV port
	cb, _ := os.ReadFile(cfile)
	ub, _ := os.ReadFile(ufile)
	c, u := port.ReplaceAllString(string(cb), "(|||P|)"), port.ReplaceAllString(string(ub), "(|||P|)")
	if !strings.Contains(u, "213-bare\n213 13\n") || u != c {
		t.Errorf("-D wrote\n%q\ncurl\n%q", u, c)
	}
}
