package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

// nginxTime is the modification time of nginxFixture's files.
var nginxTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// TestOutFlagsBesideCurl: -r, -D -, --fail-with-body, -z, --etag-save,
// --etag-compare and -N beside curl on nginx: same stdout, files and exit
// status.
func TestOutFlagsBesideCurl(t *testing.T) {
	s, files := nginxFixture(t)
	curl := testserver.Require(t, "curl")
	base := s.URL
	whole := func(dir string) { os.WriteFile(filepath.Join(dir, "out"), []byte("old copy\n"), 0o644) }
	ref := func(at time.Time) func(string) {
		return func(dir string) {
			whole(dir)
			p := filepath.Join(dir, "ref")
			os.WriteFile(p, nil, 0o644)
			os.Chtimes(p, at, at)
		}
	}
	froot := t.TempDir()
	for _, name := range []string{"small.txt", "big.bin"} {
		os.WriteFile(filepath.Join(froot, name), files[name], 0o644)
		os.Chtimes(filepath.Join(froot, name), nginxTime, nginxTime)
	}
	etag := fmt.Sprintf("\"%x-%x\"", nginxTime.Unix(), len(files["small.txt"]))
	etagFile := func(tag string) func(string) {
		return func(dir string) {
			whole(dir)
			os.WriteFile(filepath.Join(dir, "etag"), []byte(tag+"\n"), 0o644)
		}
	}
	cases := []sideCase{
		{name: "-r 0-9", args: []string{"-r", "0-9", base + "/big.bin"}},
		{name: "-r START- -o", args: []string{"-r", "3000000-", "-o", "out", base + "/big.bin"}},
		{name: "-r -LAST -o", args: []string{"-r", "-500", "-o", "out", base + "/big.bin"}},
		{name: "-r past the end", args: []string{"-r", "100-200", base + "/small.txt"}},
		{name: "-r N", args: []string{"-r", "5", base + "/small.txt"}},
		{name: "-r -D -", args: []string{"-r", "2-4", "-D", "-", base + "/small.txt"}, normalize: dropDate},
		{name: "-D - -L", args: []string{"-L", "-D", "-", base + "/hop1"}, normalize: dropDate},
		{name: "-D - -o", args: []string{"-D", "-", "-o", "out", base + "/small.txt"}, normalize: dropDate},
		{name: "--fail-with-body", args: []string{"--fail-with-body", base + "/missing"}, code: 22},
		{name: "--fail-with-body -o", args: []string{"--fail-with-body", "-o", "out", base + "/missing"}, prep: whole, code: 22},
		{name: "--fail-with-body ok", args: []string{"--fail-with-body", "-o", "out", base + "/small.txt"}},
		{name: "-f and --fail-with-body", args: []string{"-f", "--fail-with-body", base + "/small.txt"}, code: 2},
		{name: "-z older", args: []string{"-z", "Sun, 06 Nov 1994 08:49:37 GMT", "-o", "out", base + "/small.txt"}, prep: whole},
		{name: "-z newer", args: []string{"-z", "20240912 15:05:58 -0700", "-o", "out", base + "/small.txt"}, prep: whole},
		{name: "-z newer -w", args: []string{"-z", "1 Jan 2030", "-w", "%{http_code} %{size_download}", base + "/small.txt"}},
		{name: "-z older -w", args: []string{"-z", "1 Jan 2001", "-w", "%{http_code} %{size_download}", base + "/small.txt"}},
		{name: "-z newer, no file", args: []string{"-z", "1 Jan 2030", "-o", "out", base + "/small.txt"}},
		{name: "-z equal (304)", args: []string{"-z", "ref", "-o", "out", base + "/small.txt"}, prep: ref(nginxTime)},
		{name: "-z file older", args: []string{"-z", "ref", "-o", "out", base + "/small.txt"}, prep: ref(nginxTime.Add(-time.Hour))},
		{name: "-z -older (412)", args: []string{"-z", "-06-Nov-94 08:49:37", base + "/small.txt"}},
		{name: "-z -newer", args: []string{"-z", "-Sun Nov  6 08:49:37 2044", base + "/small.txt"}},
		{name: "-z neither", args: []string{"-z", "no-such-file", base + "/small.txt"}},
		{name: "--etag-save", args: []string{"--etag-save", "etag", "-o", "out", base + "/small.txt"}},
		{name: "--etag-save none", args: []string{"--etag-save", "etag", base + "/old"}},
		{name: "--etag-compare same", args: []string{"--etag-compare", "etag", "-o", "out", base + "/small.txt"}, prep: etagFile(etag)},
		{name: "--etag-compare other", args: []string{"--etag-compare", "etag", "-o", "out", base + "/small.txt"}, prep: etagFile(`"other"`)},
		{name: "--etag-compare and save", args: []string{"--etag-compare", "etag", "--etag-save", "etag", "-o", "out", base + "/small.txt"}, prep: etagFile(`"other"`)},
		{name: "--etag-compare missing", args: []string{"--etag-compare", "nofile", base + "/small.txt"}, code: 26},
		{name: "--etag-compare missing, and save", args: []string{"--etag-compare", "nofile", "--etag-save", "nofile", "-o", "out", base + "/small.txt"}},
		{name: "-N", args: []string{"-N", base + "/small.txt"}},
		{name: "file -r", args: []string{"-r", "10-19", "file://" + froot + "/big.bin"}},
		{name: "file -r -LAST -o", args: []string{"-r", "-7", "-o", "out", "file://" + froot + "/small.txt"}},
		{name: "file -r past the end", args: []string{"-r", "50-60", "file://" + froot + "/small.txt"}, code: 36},
		{name: "file -D -", args: []string{"-D", "-", "file://" + froot + "/small.txt"}},
		{name: "file -i", args: []string{"-i", "file://" + froot + "/small.txt"}},
		{name: "file -r -D -", args: []string{"-r", "2-4", "-D", "-", "file://" + froot + "/small.txt"}},
		{name: "file -w headers", args: []string{"-o", "/dev/null", "-w", "%{num_headers} [%header{content-length}] %{header_json}", "file://" + froot + "/small.txt"}},
		{name: "file -D FILE", args: []string{"-D", "h", "-o", "out", "file://" + froot + "/small.txt"}},
		{name: "file -z newer", args: []string{"-z", "1 Jan 2030", "-o", "out", "file://" + froot + "/small.txt"}, prep: whole},
	}
	runSideBySide(t, curl, cases)
}

// TestRangeRequestBesideCurl: the Range field sent for each form of -r,
// several ranges included, is curl's.
func TestRangeRequestBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	base := "http://" + rec.addr
	for _, args := range [][]string{
		{"-r", "0-499", base + "/r"},
		{"-r", "500-", base + "/r"},
		{"-r", "-500", base + "/r"},
		{"-r", "0-1,5-9,-3", base + "/r"},
		{"-r", "0-9", "-I", base + "/r"},
		{"-z", "Sun, 06 Nov 1994 08:49:37 GMT", base + "/r"},
		{"-z", "-Sun, 06 Nov 1994 08:49:37 GMT", base + "/r"},
		{"-z", "19941106 08:49:37 +0100", base + "/r"},
	} {
		t.Run(strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
			creqs, ureqs, _, _ := sendBesideCurl(t, curl, rec, append([]string{"-s"}, args...), "")
			if len(creqs) != 1 || len(ureqs) != 1 {
				t.Fatalf("curl sent %d requests, urlget %d", len(creqs), len(ureqs))
			}
			if c, u := comparableRequest(creqs[0]), comparableRequest(ureqs[0]); c != u {
				t.Errorf("requests differ:\nurlget %q\ncurl   %q", u, c)
			}
		})
	}
}

// TestDumpHeaderFileBesideCurl: -D FILE holds what curl's holds (but for
// the Date fields), for a redirect followed and for ftp.
func TestDumpHeaderFileBesideCurl(t *testing.T) {
	s, _ := nginxFixture(t)
	curl := testserver.Require(t, "curl")
	for _, url := range []string{s.URL + "/hop1", s.URL + "/missing"} {
		got := map[string]string{}
		for _, who := range []string{"curl", "urlget"} {
			dir := t.TempDir()
			args := []string{"-s", "-L", "-D", filepath.Join(dir, "h"), "-o", filepath.Join(dir, "out"), url}
			runWho(t, curl, who, args)
			b, err := os.ReadFile(filepath.Join(dir, "h"))
			if err != nil {
				t.Fatalf("%s: %v", who, err)
			}
			got[who] = dropDate(string(b))
		}
		if got["curl"] != got["urlget"] || !strings.Contains(got["curl"], "HTTP/1.1") {
			t.Errorf("%s: -D files differ:\nurlget %q\ncurl   %q", url, got["urlget"], got["curl"])
		}
	}
}

// runWho runs curl or urlget (in-process) with args and returns the exit
// status.
func runWho(t *testing.T, curl, who string, args []string) int {
	t.Helper()
	if who == "curl" {
		err := exec.Command(curl, args...).Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	}
	var out, errb bytes.Buffer
	return run(env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
}

// TestFTPRangeBesideCurl: -r on vsftpd: the same bytes, files and exit
// status as curl, and the same commands of the transfer (SIZE, REST, RETR,
// ABOR, QUIT; the order of EPSV and TYPE is each client's own).
func TestFTPRangeBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s := testserver.StartFTP(t, testserver.Vsftpd)
	url := s.URL + "/pub/binary.bin"
	for _, tc := range []struct {
		args []string
		code int
		// curlABOR: curl sends an ABOR, with no transfer to abort, after
		// refusing a -LAST range over the size; urlget does not.
		curlABOR bool
	}{
		{[]string{"-r", "0-99"}, 0, false},
		{[]string{"-r", "300000-"}, 0, false},
		{[]string{"-r", "-10"}, 0, false},
		{[]string{"-r", "1000-1999"}, 0, false},
		{[]string{"-r", "0-999999"}, 0, false},
		{[]string{"-r", "400000-"}, 36, false},
		{[]string{"-r", "-400000"}, 36, true},
		{[]string{"-z", "1 Jan 2030"}, 0, false},
		{[]string{"-z", "1 Jan 2000"}, 0, false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			outs := map[string][]byte{}
			cmds := map[string]string{}
			for _, who := range []string{"curl", "urlget"} {
				dir := t.TempDir()
				before, _ := s.CommandLines(0)
				args := append([]string{"-s", "-o", filepath.Join(dir, "out")}, tc.args...)
				if code := runWho(t, curl, who, append(args, url)); code != tc.code {
					t.Errorf("%s: exit %d, want %d", who, code, tc.code)
				}
				outs[who], _ = os.ReadFile(filepath.Join(dir, "out"))
				// The session's QUIT may reach the log after the client
				// has exited.
				var after []string
				for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					after, _ = s.CommandLines(len(before))
					if len(after) > 0 && after[len(after)-1] == "QUIT" || time.Now().After(deadline) {
						break
					}
				}
				var keep []string
				for _, c := range after {
					if v, _, _ := strings.Cut(c, " "); strings.Contains(" SIZE MDTM REST RETR ABOR QUIT ", " "+v+" ") {
						keep = append(keep, c)
					}
				}
				cmds[who] = strings.Join(keep, "|")
			}
			if !bytes.Equal(outs["curl"], outs["urlget"]) {
				t.Errorf("output differs: urlget %d bytes, curl %d", len(outs["urlget"]), len(outs["curl"]))
			}
			if tc.curlABOR {
				cmds["curl"] = strings.Replace(cmds["curl"], "|ABOR", "", 1)
			}
			if cmds["curl"] != cmds["urlget"] {
				t.Errorf("commands differ:\nurlget %s\ncurl   %s", cmds["urlget"], cmds["curl"])
			}
		})
	}
}

// TestXattrBesideCurl: --xattr records the same attributes as curl's (the
// URL without its credentials, the type); where the file system has none,
// both still succeed.
func TestXattrBesideCurl(t *testing.T) {
	s, _ := nginxFixture(t)
	curl := testserver.Require(t, "curl")
	url := strings.Replace(s.URL, "://", "://someone:secret@", 1) + "/small.txt"
	dir := t.TempDir()
	if err := syscall.Setxattr(dir, "user.probe", []byte("x"), 0); err != nil {
		t.Logf("no user xattrs on %s (%v): only the exit status is compared", dir, err)
	}
	got := map[string]string{}
	for _, who := range []string{"curl", "urlget"} {
		out := filepath.Join(dir, who)
		if code := runWho(t, curl, who, []string{"-s", "--xattr", "-o", out, url}); code != 0 {
			t.Fatalf("%s: exit %d", who, code)
		}
		for _, a := range []string{"user.mime_type", "user.xdg.origin.url"} {
			buf := make([]byte, 1024)
			n, err := syscall.Getxattr(out, a, buf)
			if err == nil {
				got[who] += a + "=" + string(buf[:n]) + "\n"
			}
		}
	}
	if got["curl"] != got["urlget"] {
		t.Errorf("attributes differ:\nurlget %q\ncurl   %q", got["urlget"], got["curl"])
	}
	if err := syscall.Setxattr(dir, "user.probe", []byte("x"), 0); err == nil && !strings.Contains(got["urlget"], "user.xdg.origin.url=http://127.0.0.1") {
		t.Errorf("urlget set %q", got["urlget"])
	}
}

// TestStderrFlag: --stderr FILE takes the messages, --stderr - sends them
// to stdout.
func TestStderrFlag(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "err")
	var out, errb bytes.Buffer
	code := run(env{args: []string{"--stderr", file, "http://127.0.0.1:1/"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	b, _ := os.ReadFile(file)
	if code != 7 || errb.Len() != 0 || !strings.Contains(string(b), "(7)") {
		t.Errorf("--stderr FILE: exit %d, stderr %q, file %q", code, errb.String(), b)
	}
	out.Reset()
	code = run(env{args: []string{"--stderr", "-", "http://127.0.0.1:1/"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	if code != 7 || errb.Len() != 0 || !strings.Contains(out.String(), "(7)") {
		t.Errorf("--stderr -: exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
}

// TestFTPDumpHeaderBesideCurl: -D for ftp holds the server's replies, as
// curl's does. urlget sends EPSV after TYPE and SIZE, curl before: the
// lines are compared as a set, the passive port masked.
func TestFTPDumpHeaderBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	s := testserver.StartFTP(t, testserver.Vsftpd)
	port := regexp.MustCompile(`\(\|\|\|\d+\|\)`)
	got := map[string]string{}
	for _, who := range []string{"curl", "urlget"} {
		dir := t.TempDir()
		h := filepath.Join(dir, "h")
		if code := runWho(t, curl, who, []string{"-s", "-D", h, "-o", filepath.Join(dir, "out"), s.URL + "/pub/hello.txt"}); code != 0 {
			t.Fatalf("%s: exit %d", who, code)
		}
		b, _ := os.ReadFile(h)
		lines := strings.SplitAfter(port.ReplaceAllString(string(b), "(|||PORT|)"), "\r\n")
		slices.Sort(lines)
		got[who] = strings.Join(lines, "")
	}
	if got["curl"] != got["urlget"] || !strings.Contains(got["urlget"], "226 ") {
		t.Errorf("-D files differ:\nurlget %q\ncurl   %q", got["urlget"], got["curl"])
	}
}

// TestGopherTimeCondition: -z on gopher compares the Gopher+ Mod-Date
// (pygopherd); a server without one (gophernicus) sends the item as
// usual. curl ignores -z for gopher, so there is no side-by-side here.
func TestGopherTimeCondition(t *testing.T) {
	s := testserver.Pygopherd(t)
	fi, err := os.Stat(filepath.Join(s.Root, "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	hello, _ := os.ReadFile(filepath.Join(s.Root, "hello.txt"))
	day := 24 * time.Hour
	date := func(t time.Time) string { return t.UTC().Format(http.TimeFormat) }
	url := s.URL("0/hello.txt")
	for _, tc := range []struct {
		cond string
		sent bool
	}{
		{date(fi.ModTime().Add(day)), false},
		{date(fi.ModTime().Add(-day)), true},
		{"-" + date(fi.ModTime().Add(-day)), false},
		{"-" + date(fi.ModTime().Add(day)), true},
	} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		os.WriteFile(out, []byte("old copy\n"), 0o644)
		r := runCLI(t, nil, "-z", tc.cond, "-o", out, url)
		got, _ := os.ReadFile(out)
		want := []byte("old copy\n")
		if tc.sent {
			want = hello
		}
		if r.code != 0 || !bytes.Equal(got, want) {
			t.Errorf("-z %q: exit %d (%s), out %q, want %q", tc.cond, r.code, r.stderr, got, want)
		}
	}
	g := testserver.Gophernicus(t)
	r := runCLI(t, nil, "-z", date(time.Now().Add(day)), g.URL("0/hello.txt"))
	if r.code != 0 || r.stdout == "" {
		t.Errorf("gophernicus -z: exit %d, stdout %q, stderr %q: want the item", r.code, r.stdout, r.stderr)
	}
}

// TestRangeRetried: a -r transfer cut by resets and retried gives the
// range exactly, into a file and to stdout (where the retry skips what an
// earlier attempt wrote).
func TestRangeRetried(t *testing.T) {
	if testing.Short() {
		t.Skip("real servers")
	}
	data := bigData(8)[:4<<20]
	s := nginxServing(t, map[string][]byte{"f.bin": data})
	want := data[1000:4000000]
	for _, toFile := range []bool{true, false} {
		p := testserver.StartFaultProxy(t, s.Addr, testserver.ResetPlan(uint64(len(data))+3, 3, 200<<10, 1<<20))
		out := filepath.Join(t.TempDir(), "out")
		args := []string{"-sS", "--retry", "10", "--retry-delay", "0.01", "-r", "1000-3999999", "http://" + p.Addr() + "/f.bin"}
		if toFile {
			args = append(args, "-o", out)
		}
		r := runQuiet(t, args...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		if toFile {
			sameFile(t, "-r -o", out, want)
		} else if !bytes.Equal([]byte(r.stdout), want) {
			t.Errorf("-r to stdout: %d bytes, want the %d of the range", len(r.stdout), len(want))
		}
		if p.Struck() < 2 {
			t.Errorf("%d resets struck, want at least 2", p.Struck())
		}
	}
}
