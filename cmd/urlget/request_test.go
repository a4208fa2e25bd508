package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// recorder is an in-tree HTTP server that keeps every request as the bytes
// it received (head and body, chunked bodies as sent) and answers each with
// a small reply that sets a cookie; a request for /to/NNN is answered with
// redirect status NNN to /done.
type recorder struct {
	addr string
	mu   sync.Mutex
	reqs [][]byte
	// answer, when set, may answer a request instead: its reply, or "" for
	// the usual one.
	answer func(raw []byte) string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	l := fetchtest.NewServer(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		var raw bytes.Buffer
		length, chunked := 0, false
		for {
			line, err := br.ReadString('\n')
			raw.WriteString(line)
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
			name, val, _ := strings.Cut(line, ":")
			val = strings.TrimSpace(val)
			switch strings.ToLower(name) {
			case "content-length":
				length, _ = strconv.Atoi(val)
			case "transfer-encoding":
				chunked = strings.EqualFold(val, "chunked")
			case "expect":
				io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n")
			}
		}
		if chunked {
			for {
				line, err := br.ReadString('\n')
				raw.WriteString(line)
				if err != nil {
					return
				}
				n, _ := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
				if _, err := io.CopyN(&raw, br, n+2); err != nil {
					return
				}
				if n == 0 {
					break
				}
			}
		} else if _, err := io.CopyN(&raw, br, int64(length)); err != nil {
			return
		}
		r.mu.Lock()
		r.reqs = append(r.reqs, raw.Bytes())
		answer := r.answer
		r.mu.Unlock()
		if answer != nil {
			if reply := answer(raw.Bytes()); reply != "" {
				io.WriteString(c, reply)
				return
			}
		}
		if _, status, ok := strings.Cut(strings.Fields(raw.String())[1], "/to/"); ok {
			io.WriteString(c, "HTTP/1.1 "+status+" Moved\r\nLocation: /done\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: got=yes; Path=/\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
	})
	r.addr = l.Addr
	return r
}

// take returns the requests received since the last call.
func (r *recorder) take() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs = nil
	return out
}

var boundaryRE = regexp.MustCompile(`-{20,}[0-9a-zA-Z]{8,}`)

// comparableRequest is a recorded request without what is allowed to
// differ: the User-Agent line, the multipart boundary. Header fields are
// compared as a set: net/http writes them in its own order (sorted), curl
// in its own (a known, documented difference).
func comparableRequest(b []byte) string {
	head, body, _ := strings.Cut(string(b), "\r\n\r\n")
	lines := strings.Split(head, "\r\n")
	var fields []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(strings.ToLower(l), "user-agent:") {
			continue
		}
		// net/http writes an empty field "Name: ", curl "Name:".
		fields = append(fields, strings.TrimSuffix(l, " "))
	}
	slices.Sort(fields)
	s := lines[0] + "\r\n" + strings.Join(fields, "\r\n") + "\r\n\r\n" + body
	return boundaryRE.ReplaceAllString(s, "BOUNDARY")
}

// TestRequestFlagsBesideCurl sends the same request flags with curl and
// urlget to the recorder and compares the requests received.
func TestRequestFlagsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	base := "http://" + rec.addr
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dataFile := write("data.txt", "a=1\r\nb=2\n")
	upFile := write("up.txt", "uploaded bytes\n")
	hdrFile := write("headers.txt", "X-One: 1\nX-Two: two\n")
	cookieFile := write("cookies.txt", "# Netscape HTTP Cookie File\n"+strings.Split(rec.addr, ":")[0]+"\tFALSE\t/\tFALSE\t0\tsession\tabc\n")
	host := strings.Split(rec.addr, ":")[0]
	junkCookies := write("junk-cookies.txt", "HTTP/1.1 200 OK\n"+host+"\tFALSE\t/\tFALSE\t0\t\ttwo\ttabs\n")
	cases := []struct {
		name  string
		args  []string
		stdin string
	}{
		{"-d", []string{"-d", "name=value", base + "/form"}, ""},
		{"-d twice", []string{"-d", "a=1", "-d", "b=2", base + "/form"}, ""},
		{"-d @file", []string{"-d", "@" + dataFile, base + "/form"}, ""},
		{"-d @-", []string{"-d", "@-", base + "/form"}, "from stdin\n"},
		{"-d @missing", []string{"-d", "@" + filepath.Join(dir, "missing"), base + "/form"}, ""},
		{"--data-binary @missing", []string{"--data-binary", "@" + filepath.Join(dir, "missing"), "-d", "x=1", base + "/form"}, ""},
		{"--data-binary @file", []string{"--data-binary", "@" + dataFile, base + "/form"}, ""},
		{"--data-raw", []string{"--data-raw", "@not-a-file", base + "/form"}, ""},
		{"--data-urlencode", []string{"--data-urlencode", "q=a b&c/é", "--data-urlencode", "=x y", "--data-urlencode", "plain text", base + "/form"}, ""},
		{"--data-urlencode @file", []string{"--data-urlencode", "f@" + dataFile, base + "/form"}, ""},
		{"-G", []string{"-G", "-d", "q=1", "-d", "r=2", base + "/search"}, ""},
		{"-G with query", []string{"-G", "--data-urlencode", "q=a b", base + "/search?x=0"}, ""},
		{"--url-query", []string{"--url-query", "a=b c&d", "--url-query", "+k=%41a/b?c", "--url-query", "=é~", "--url-query", "", "--url-query", "plain", base + "/q?x=1"}, ""},
		{"--url-query empty first", []string{"--url-query", "", "--url-query", "a", base + "/q"}, ""},
		{"--url-query empty alone", []string{"--url-query", "", base + "/q"}, ""},
		{"-G after ?", []string{"-G", "-d", "a=1", base + "/q?"}, ""},
		{"--url-query @file", []string{"--url-query", "f@" + dataFile, "--url-query", "@-", base + "/q?"}, "from stdin\n"},
		{"--url-query -d", []string{"--url-query", "a=1", "-d", "b=2", base + "/post"}, ""},
		{"-X", []string{"-X", "DELETE", base + "/item/1"}, ""},
		{"-X with -d", []string{"-X", "PATCH", "-d", "x=1", base + "/item/1"}, ""},
		{"-H", []string{"-H", "X-Custom: yes", "-H", "accept: text/html", base + "/h"}, ""},
		{"-H remove", []string{"-H", "Accept:", base + "/h"}, ""},
		{"-H empty", []string{"-H", "X-Empty;", base + "/h"}, ""},
		{"-H @file", []string{"-H", "@" + hdrFile, base + "/h"}, ""},
		{"-H Content-Type", []string{"-H", "Content-Type: application/json", "-d", `{"a":1}`, base + "/json"}, ""},
		{"-H Host", []string{"-H", "Host: example.org", base + "/h"}, ""},
		{"-e", []string{"-e", "http://example.org/from", base + "/r"}, ""},
		{"-F", []string{"-F", "name=value", "-F", "file=@" + upFile, "-F", "text=<" + upFile, base + "/upload"}, ""},
		{"-F type", []string{"-F", "file=@" + upFile + ";type=application/x-thing;filename=other.bin", base + "/upload"}, ""},
		{"-F quoted", []string{"-F", `file=@"` + write("a;b,c.txt", "semi\n") + `";type=mo/foo;filename="f\\a\"k;e,r"`, "-F", `t=" \\v;type=\"x\" "; type=text/foo; charset=utf-8 ; filename=param_b`, base + "/upload"}, ""},
		{"-F files", []string{"-F", "file=@" + upFile + "," + upFile + ";type=magic/content," + dataFile, base + "/upload"}, ""},
		{"-F type params", []string{"-F", "f=@" + upFile + ";filename=/dev/null;type=text/x-null;format=x-curl", "-F", "v= spaced ;type=a/b", base + "/upload"}, ""},
		{"-F @- stdin", []string{"-F", "f=@-;filename=in.txt", "-F", "g=1", base + "/upload"}, "from stdin\n"},
		{"-F type by filename", []string{"-F", "f=@" + upFile + ";filename=x.png", "-F", "g=@" + upFile + ";filename=noext", "-F", "t=v;filename=t.html", base + "/upload"}, ""},
		{"-F =", []string{"-F", "=", "-F", "x=1;unknown=2", base + "/upload"}, ""},
		{"-T file", []string{"-T", upFile, base + "/put/"}, ""},
		{"-T - chunked", []string{"-T", "-", base + "/put/stdin"}, "streamed\n"},
		{"-T -X POST", []string{"-T", upFile, "-X", "POST", base + "/post"}, ""},
		{"-b string", []string{"-b", "a=1; b=2", base + "/c"}, ""},
		{"-b file", []string{"-b", cookieFile, base + "/c"}, ""},
		{"-b file, lines skipped", []string{"-b", junkCookies, base + "/c"}, ""},
		{"-i", []string{"-i", base + "/i"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			creqs, ureqs, cout, uout := sendBesideCurl(t, curl, rec, append([]string{"-s"}, tc.args...), tc.stdin)
			if len(creqs) != 1 || len(ureqs) != 1 {
				t.Fatalf("curl sent %d requests, urlget %d", len(creqs), len(ureqs))
			}
			if c, u := comparableRequest(creqs[0]), comparableRequest(ureqs[0]); c != u {
				t.Errorf("requests differ:\nurlget %q\ncurl   %q", u, c)
			}
			// -i prints the header fields as received, like curl.
			if c, u := cout, uout; c != u {
				t.Errorf("stdout differs:\nurlget %q\ncurl   %q", u, c)
			}
		})
	}
}

// TestRedirectAfterPostBesideCurl: with -L, the request after a 301, 302 or
// 303 is a GET without the body (unless --post30x), and after a 307 or 308
// the same request again, body included, as curl sends them; an upload's
// PUT goes again with its body after a 301 or 302, and as a GET after a
// 303.
func TestRedirectAfterPostBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	base := "http://" + rec.addr
	upFile := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(upFile, []byte("uploaded bytes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{"-d", "a=b", base + "/to/301"},
		{"-d", "a=b", base + "/to/302"},
		{"-d", "a=b", base + "/to/303"},
		{"-d", "a=b", base + "/to/307"},
		{"-d", "a=b", base + "/to/308"},
		{"--post301", "-d", "a=b", base + "/to/301"},
		{"--post302", "-d", "a=b", base + "/to/302"},
		{"--post303", "-d", "a=b", base + "/to/303"},
		{"-F", "f=@" + upFile, base + "/to/307"},
		{"-F", "f=@" + upFile, base + "/to/302"},
		{"-T", upFile, base + "/to/307"},
		{"-T", upFile, base + "/to/301"}, // a PUT keeps its body (curl's test 1051)
		{"-T", upFile, base + "/to/302"},
		{"-T", upFile, base + "/to/303"}, // and turns into a GET (curl's test 1524)
		{"-H", "Content-Type: text/plain", "-d", "a=b", base + "/to/303"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args[:len(args)-1], " ")+" "+path.Base(args[len(args)-1]), func(t *testing.T) {
			args := append([]string{"-s", "-L"}, args...)
			if out, err := exec.Command(curl, args...).CombinedOutput(); err != nil {
				t.Fatalf("curl: %v %s", err, out)
			}
			creqs := rec.take()
			var uout, uerr bytes.Buffer
			if code := run(env{args: args, stdin: strings.NewReader(""), stdout: &uout, stderr: &uerr}); code != 0 {
				t.Fatalf("urlget exit %d: %s", code, uerr.String())
			}
			ureqs := rec.take()
			if len(creqs) != 2 || len(ureqs) != 2 {
				t.Fatalf("curl sent %d requests, urlget %d", len(creqs), len(ureqs))
			}
			for i := range creqs {
				if c, u := comparableRequest(creqs[i]), comparableRequest(ureqs[i]); c != u {
					t.Errorf("request %d differs:\nurlget %q\ncurl   %q", i+1, u, c)
				}
			}
			if uout.String() != "ok\n" {
				t.Errorf("stdout %q, want the page redirected to", uout.String())
			}
		})
	}

	// -v says what became of the body.
	var out, errb bytes.Buffer
	run(env{args: []string{"-L", "-v", "-d", "a=b", base + "/to/302"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	if !strings.Contains(errb.String(), "* Switching to GET after a 302: the body is not sent again\n") {
		t.Errorf("-v after a 302:\n%s", errb.String())
	}
	// A body read from a pipe cannot be sent again.
	rec.take()
	out.Reset()
	errb.Reset()
	code := run(env{args: []string{"-s", "-S", "-L", "-T", "-", base + "/to/307"}, stdin: strings.NewReader("piped\n"), stdout: &out, stderr: &errb})
	if want := "urlget: (65) cannot send the body again after a 307 redirect: it was read from a pipe\n"; code != 65 || errb.String() != want {
		t.Errorf("-T - after a 307: exit %d %q, want 65 %q", code, errb.String(), want)
	}
	if n := len(rec.take()); n != 1 {
		t.Errorf("%d requests sent, want 1", n)
	}
}

// TestLocationSlashesBesideCurl: a Location with one or three slashes
// after "http:" names the host after them, as curl takes it (curl's tests
// 1141 and 1142); four are no URL, curl's exit 3, nothing sent after,
// and -i shows the reply that gave it.
func TestLocationSlashesBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	for _, tc := range []struct {
		loc  string
		code int
	}{
		{"http:/foo.example.com/want/2", 0},
		{"http:///foo.example.com/want/2", 0},
		{"http:////foo.example.com/want/2", 3},
	} {
		rec.setAnswer(func(raw []byte) string {
			if bytes.Contains(raw, []byte("/want/1 ")) {
				return "HTTP/1.1 302 Moved\r\nLocation: " + tc.loc + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
			}
			return ""
		})
		args := []string{"-s", "-i", "-L", "-x", "http://" + rec.addr, "http://" + rec.addr + "/want/1"}
		ccode, cout := runClient(t, curl, "curl", args...)
		creqs := rec.take()
		ucode, uout := runClient(t, curl, "urlget", args...)
		ureqs := rec.take()
		if ccode != tc.code || ucode != tc.code || cout != uout {
			t.Errorf("%s: urlget exit %d %q, curl %d %q; want exit %d", tc.loc, ucode, uout, ccode, cout, tc.code)
		}
		if len(creqs) != len(ureqs) {
			t.Fatalf("%s: curl sent %d requests, urlget %d", tc.loc, len(creqs), len(ureqs))
		}
		for i := range creqs {
			if c, u := comparableRequest(creqs[i]), comparableRequest(ureqs[i]); c != u {
				t.Errorf("%s: request %d differs:\nurlget %q\ncurl   %q", tc.loc, i+1, u, c)
			}
		}
	}
	rec.setAnswer(nil)
}

// TestCookieJarBesideCurl: the cookie file urlget writes (-c) is one curl
// reads (-b), and the other way round.
func TestCookieJarBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	base := "http://" + rec.addr
	dir := t.TempDir()
	ujar, cjar := filepath.Join(dir, "u.jar"), filepath.Join(dir, "c.jar")
	var out, errb bytes.Buffer
	if code := run(env{args: []string{"-s", "-c", ujar, base + "/set"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != 0 {
		t.Fatalf("urlget -c: exit %d %s", code, errb.String())
	}
	if err := exec.Command(curl, "-s", "-o", "/dev/null", "-c", cjar, base+"/set").Run(); err != nil {
		t.Fatal(err)
	}
	rec.take()
	if err := exec.Command(curl, "-s", "-o", "/dev/null", "-b", ujar, base+"/again").Run(); err != nil {
		t.Fatal(err)
	}
	if code := run(env{args: []string{"-s", "-b", cjar, base + "/again"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != 0 {
		t.Fatalf("urlget -b: exit %d %s", code, errb.String())
	}
	reqs := rec.take()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, who := range []string{"curl reading urlget's jar", "urlget reading curl's jar"} {
		if !bytes.Contains(reqs[i], []byte("\r\nCookie: got=yes\r\n")) {
			t.Errorf("%s sent %q", who, reqs[i])
		}
	}
}

// TestConfigBesideCurl: a -K file in curl's syntax gives urlget the same
// request as curl; ~/.urlgetrc is read first, and not with -q.
func TestConfigBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "conf")
	os.WriteFile(conf, []byte("# a comment\n"+
		"  header = \"X-Quoted: a \\\"b\\\" c\"\n"+
		"-H \"X-Short: 1\"\n"+
		"data-urlencode: \"q=two words\"\n"+
		"request PUT\n"+
		"referer=http://example.org/\n"+
		"no-such-option-anywhere 1\n"+
		"silent\n"+
		"url = \"http://"+rec.addr+"/from-config\"\n"), 0o644)
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", "")
	cmd := exec.Command(curl, "-q", "-K", conf)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(env{args: []string{"-K", conf}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != 0 {
		t.Fatalf("urlget -K: exit %d %s", code, errb.String())
	}
	reqs := rec.take()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if c, u := comparableRequest(reqs[0]), comparableRequest(reqs[1]); c != u {
		t.Errorf("requests differ:\nurlget %q\ncurl   %q", u, c)
	}
	os.WriteFile(filepath.Join(dir, ".urlgetrc"), []byte("header \"X-From-Rc: 1\"\nsilent\n"), 0o644)
	for _, args := range [][]string{{"http://" + rec.addr + "/rc"}, {"-q", "http://" + rec.addr + "/rc"}} {
		out.Reset()
		errb.Reset()
		if code := run(env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != 0 {
			t.Fatalf("%q: exit %d %s", args, code, errb.String())
		}
	}
	reqs = rec.take()
	if len(reqs) != 2 || !bytes.Contains(reqs[0], []byte("X-From-Rc: 1")) || bytes.Contains(reqs[1], []byte("X-From-Rc")) {
		t.Errorf("~/.urlgetrc then -q: %q", reqs)
	}
	if code := run(env{args: []string{"-q", "-K", filepath.Join(dir, "missing"), "http://x/"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != fetchExitUsage {
		t.Errorf("-K missing: exit %d", code)
	}
}

// The request flags' parts that need no curl: the cookie file both ways
// (--data-urlencode forms: fetch's TestURLEncodeData; the multipart body:
// fetch's TestForm).
func TestRequestPartsShort(t *testing.T) {
	dir := t.TempDir()

	rec := newRecorder(t)
	jar := filepath.Join(dir, "jar")
	os.WriteFile(jar, []byte("# Netscape HTTP Cookie File\n#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\told\tv1\n127.0.0.1\tFALSE\t/other\tFALSE\t0\telsewhere\tv2\n127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tv3\n"), 0o644)
	r2 := runWithStdin(t, "", nil, "-q", "-s", "-b", jar, "-b", "extra=1", "-c", jar, "http://"+rec.addr+"/a", "http://"+rec.addr+"/b")
	reqs := rec.take()
	if r2.code != 0 || len(reqs) != 2 {
		t.Fatalf("exit %d %q, %d requests", r2.code, r2.stderr, len(reqs))
	}
	if !bytes.Contains(reqs[0], []byte("\r\nCookie: old=v1; extra=1\r\n")) || !bytes.Contains(reqs[1], []byte("\r\nCookie: got=yes; old=v1; extra=1\r\n")) { // curl: the newer first
		t.Errorf("cookies sent:\n%q\n%q", reqs[0], reqs[1])
	}
	saved, _ := os.ReadFile(jar)
	for _, line := range []string{"#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\told\tv1\n", "127.0.0.1\tFALSE\t/other\tFALSE\t0\telsewhere\tv2\n", "127.0.0.1\tFALSE\t/\tFALSE\t0\tgot\tyes\n"} {
		if !strings.Contains(string(saved), line) {
			t.Errorf("-c file lacks %q:\n%s", line, saved)
		}
	}
	if strings.Contains(string(saved), "expired") || strings.Contains(string(saved), "extra") {
		t.Errorf("-c file keeps an expired or a -b text cookie:\n%s", saved)
	}
}

// TestHeaderLinesRefused: a -H line that is no field, or whose name holds
// spaces (a leading one would be an obs-fold a server joins to the field
// before it), is exit 3 before anything is sent (curl skips the first and
// sends the second: a listed difference, curl's test 1147).
func TestHeaderLinesRefused(t *testing.T) {
	rec := newRecorder(t)
	file := filepath.Join(t.TempDir(), "heads.txt")
	if err := os.WriteFile(file, []byte("One: 1\nno-colon\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"no-colon", " And A Funny One : wohoo", "@" + file} {
		code, _, stderr := runOut(t, "-sS", "-H", h, "http://"+rec.addr+"/h")
		if code != 3 || !strings.HasPrefix(stderr, "urlget: (3) -H/--header ") {
			t.Errorf("-H %q: exit %d %q, want 3", h, code, stderr)
		}
	}
	if n := len(rec.take()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}
