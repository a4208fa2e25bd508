package main

// -C - on files urlget did not write (issue 37): resumed as curl resumes
// them, never restarted from zero because their modification time is not
// the resource's; a local file larger than the resource left alone (36);
// urlget's own NAME.part, marked as it is created, checked against the
// resource (If-Range) even after a kill -9.

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

// resumeServers serves data as /data.bin from nginx (and, with ranges
// off, /noranges/data.bin) and vsftpd (/pub/data.bin), modified in 2020,
// so that no file a test writes has the resource's modification time.
func resumeServers(t *testing.T, data []byte) (s *testserver.NginxServer, ftp *testserver.FTPServer, root string) {
	t.Helper()
	testserver.Require(t, "nginx")
	root = t.TempDir()
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	ftp = testserver.StartFTP(t, testserver.Vsftpd)
	for _, p := range []string{filepath.Join(root, "data.bin"), filepath.Join(ftp.Anon, "pub", "data.bin")} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
	}
	s = testserver.StartNginx(t, testserver.NginxConfig{Root: root,
		Extra: "        location /noranges/ { max_ranges 0; alias " + root + "/; }\n"})
	return s, ftp, root
}

// TestResumeForeignPartBesideCurl: a partial file that curl or a browser
// wrote (its modification time now, not the resource's) is resumed from
// its end as curl resumes it, over http (206) and ftp (REST); a local file
// larger than the resource is left as it is: exit 36, as curl's over ftp
// (curl exits 0 on the http 416, having written nothing either).
func TestResumeForeignPartBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	data := bigData(37)[:1<<20]
	s, ftp, _ := resumeServers(t, data)
	prefix := func(dir string) { os.WriteFile(filepath.Join(dir, "out"), data[:300000], 0o644) }
	larger := func(dir string) {
		os.WriteFile(filepath.Join(dir, "out"), append(append([]byte{}, data...), "more bytes than the server has"...), 0o644)
	}
	w := []string{"-w", "%{size_download}\n"}
	cases := []sideCase{}
	for _, u := range []struct{ name, url string }{{"http", s.URL + "/data.bin"}, {"ftp", ftp.URL + "/pub/data.bin"}} {
		args := append([]string{"-C", "-", "-o", "out", u.url}, w...)
		cases = append(cases,
			sideCase{name: u.name + " partial written by another", args: args, prep: prefix},
			sideCase{name: u.name + " partial as NAME.part", args: []string{"-C", "-", "-O", u.url}, prep: func(dir string) {
				// A browser's NAME.part (Firefox's name) is resumed too:
				// urlget's own marks it.
				os.WriteFile(filepath.Join(dir, "data.bin.part"), data[:400000], 0o644)
			}},
		)
		// (No -w: curl counts the 416's body as downloaded, urlget's
		// fetcher never reads it.)
		larger := sideCase{name: u.name + " local file larger", args: args[:5], prep: larger, code: 36}
		if u.name == "http" {
			larger.code, larger.ucode = 0, 36
		}
		cases = append(cases, larger)
	}
	// The NAME.part case is urlget's alone (curl knows no NAME.part):
	// urlget must leave data.bin whole and no part.
	var side, own []sideCase
	for _, c := range cases {
		if strings.Contains(c.name, "NAME.part") {
			own = append(own, c)
		} else {
			side = append(side, c)
		}
	}
	runSideBySide(t, curl, side)
	for _, c := range own {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.prep(dir)
			out, stderr, code := urlgetIn(t, dir, append([]string{"-sS", "-w", "%{size_download}"}, c.args...))
			if code != 0 || out != "648576" {
				t.Errorf("exit %d, %s bytes fetched, want 0 and the 648576 after the part: %s", code, out, stderr)
			}
			sameFile(t, c.name, filepath.Join(dir, "data.bin"), data)
			if _, err := os.Stat(filepath.Join(dir, "data.bin.part")); err == nil {
				t.Error("data.bin.part left")
			}
		})
	}
}

// TestResumeSaysWhy: a server that does not resume (nginx max_ranges 0)
// sends the whole resource to a plain Range: exit 33, the file left as it
// is, as curl's "server doesn't seem to support byte ranges" (beside curl);
// a file larger than the resource is left alone with its reason.
func TestResumeSaysWhy(t *testing.T) {
	data := bigData(38)[:200000]
	s, ftp, _ := resumeServers(t, data)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	curl, _ := exec.LookPath("curl")
	for _, prog := range []string{"urlget", curl} {
		if prog == "" {
			continue
		}
		os.WriteFile(out, data[:1000], 0o644)
		args := []string{"--no-progress-meter", "-C", "-", "-o", out, s.URL + "/noranges/data.bin"}
		var code int
		var stderr string
		if prog == curl {
			_, stderr, code = curlIn(t, curl, dir, args)
		} else {
			r := runQuiet(t, args...)
			code, stderr = r.code, r.stderr
			if !strings.Contains(stderr, "cannot resume at byte 1000: the server answered 200 without the range (it does not resume); "+out+" left as it is") {
				t.Errorf("stderr %q: want the reason", stderr)
			}
		}
		if code != 33 {
			t.Errorf("%s: exit %d, want 33: %s", prog, code, stderr)
		}
		sameFile(t, prog+": no ranges", out, data[:1000])
	}
	for _, url := range []string{s.URL + "/data.bin", ftp.URL + "/pub/data.bin"} {
		big := append(append([]byte{}, data...), 'x')
		os.WriteFile(out, big, 0o644)
		r := runQuiet(t, "-sS", "-C", "-", "-o", out, url)
		if r.code != 36 || !strings.Contains(r.stderr, "cannot resume at byte 200001: the resource has 200000 bytes; "+out+" left as it is") {
			t.Errorf("%s: exit %d, stderr %q: want 36 saying why", url, r.code, r.stderr)
		}
		sameFile(t, url+": larger file", out, big)
	}
	// -w tells the reply that refused it, as curl's.
	os.WriteFile(out, append(append([]byte{}, data...), 'x'), 0o644)
	if r := runQuiet(t, "-s", "-C", "-", "-o", out, "-w", "%{http_code}", s.URL+"/data.bin"); r.stdout != "416" {
		t.Errorf("-w %%{http_code} on the refused resume: %q, want 416", r.stdout)
	}
}

// TestResumeOwnPartAfterKill: urlget killed with SIGKILL mid-file (no
// chance to set the part's time) leaves NAME.part marked; -C - resumes it
// (206, the If-Range of the mark matching nginx's Last-Modified) to the
// exact file; when the resource changed meanwhile the mark's If-Range no
// longer matches and the file comes whole, never a mix of two versions.
func TestResumeOwnPartAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary, real servers")
	}
	data := bigData(39)[:16<<20]
	s, _, root := resumeServers(t, data)
	bin := buildBinary(t)
	killed := func(out string) {
		t.Helper()
		cmd := exec.Command(bin, "-sS", "--limit-rate", "2M", "-o", out, s.URL+"/data.bin")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitPart(out+".part", 1<<20)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		part, err := os.ReadFile(out + ".part")
		if err != nil || len(part) == 0 || len(part) >= len(data) || !bytes.Equal(part, data[:len(part)]) {
			t.Fatalf("%s.part has %d bytes (%v), want a prefix", out, len(part), err)
		}
	}
	out := filepath.Join(t.TempDir(), "data.bin")
	killed(out)
	r := runQuiet(t, "-sS", "-w", "%{http_code}", "-C", "-", "-o", out, s.URL+"/data.bin")
	if r.code != 0 || r.stdout != "206" {
		t.Errorf("-C - after kill -9: exit %d, status %s, want 0 and 206 (resumed): %s", r.code, r.stdout, r.stderr)
	}
	sameFile(t, "kill -9, -C -", out, data)

	out = filepath.Join(t.TempDir(), "data.bin")
	killed(out)
	changed := bigData(40)[:len(data)]
	if err := os.WriteFile(filepath.Join(root, "data.bin"), changed, 0o644); err != nil {
		t.Fatal(err)
	}
	r = runQuiet(t, "--no-progress-meter", "-w", "%{http_code}", "-C", "-", "-o", out, s.URL+"/data.bin")
	if r.code != 0 || r.stdout != "200" || !strings.Contains(r.stderr, "it changed since the part was fetched") {
		t.Errorf("-C - after the resource changed: exit %d, status %s, want 0, 200 and a warning: %s", r.code, r.stdout, r.stderr)
	}
	sameFile(t, "changed resource, -C -", out, changed)
}

// TestResumeNotRanged: an http server that answers a resume (-C N) without
// the range — a 200 with the whole resource, an error page, after a
// redirect too — does not resume: exit 33 at once (the reply's body is not
// read: this server keeps the connection open after it, as curl's test
// server does), the file left as it is, and with -i the heads written to
// stdout; beside curl on the same server. A 416 saying the file is whole
// is done (exit 0), except with -f, which fails it (22) as curl's does.
func TestResumeNotRanged(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	replies := map[string]string{
		"/whole":    "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nthe whole resource, and no end to it\n",
		"/gone":     "HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\ngone\n",
		"/moved":    "HTTP/1.1 301 Moved\r\nLocation: /whole\r\nContent-Length: 3\r\n\r\nOK\n",
		"/complete": "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */10\r\nContent-Length: 4\r\n\r\nbad\n",
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					if req.Header.Get("Range") != "bytes=10-" {
						io.WriteString(c, "HTTP/1.1 400 Bad\r\nContent-Length: 0\r\n\r\n")
						continue
					}
					io.WriteString(c, replies[req.URL.Path])
				}
			}()
		}
	}()
	base := "http://" + ln.Addr().String()
	held := []byte("0123456789")
	curl, _ := exec.LookPath("curl")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"200 to a file", []string{"-o", "f", base + "/whole"}, 33, ""},
		{"404 to a file", []string{"-o", "f", base + "/gone"}, 33, ""},
		{"200 to stdout with -i", []string{"-i", base + "/whole"}, 33, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"},
		{"404 to stdout with -i", []string{"-i", base + "/gone"}, 33, "HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\n"},
		{"redirected, -L -i", []string{"-L", "-i", base + "/moved"}, 33, "HTTP/1.1 301 Moved\r\nLocation: /whole\r\nContent-Length: 3\r\n\r\nHTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"},
		{"416, whole already", []string{"-o", "f", base + "/complete"}, 0, ""},
		{"416, whole already, with -f", []string{"-f", "-o", "f", base + "/complete"}, 22, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-s", "-m", "10", "-C", "10"}, tc.args...)
			for _, prog := range []string{"urlget", curl} {
				if prog == "" {
					continue
				}
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "f"), held, 0o644)
				var out, stderr string
				var code int
				if prog == curl {
					out, stderr, code = curlIn(t, curl, dir, args)
				} else {
					out, stderr, code = urlgetIn(t, dir, args)
				}
				if code != tc.code || out != tc.stdout {
					t.Errorf("%s: exit %d, stdout %q, want %d and %q: %s", prog, code, out, tc.code, tc.stdout, stderr)
				}
				sameFile(t, prog, filepath.Join(dir, "f"), held)
				if _, err := os.Stat(filepath.Join(dir, "f.part")); err == nil {
					t.Errorf("%s: f.part made", prog)
				}
			}
		})
	}
}
