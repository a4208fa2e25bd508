package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/internal/testserver"
)

func newFTPServer(t *testing.T) *ftptest.Server {
	s := ftptest.New(t)
	s.Configure(func(s *ftptest.Server) {
		s.Users["urlget"] = "secret"
		s.Homes["urlget"] = "/home/urlget"
	})
	mod := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	s.AddFile("/pub/hello.bin", []byte("hello\r\nworld\n"), mod)
	s.AddFile("/pub/sub/deep.bin", []byte("deep\n"), mod)
	s.AddDir("/home/urlget/upload")
	return s
}

// TestFTPUploadCLI checks -T (STOR, the local name appended to a URL that
// ends in "/") and --append (APPE), through the real command path.
func TestFTPUploadCLI(t *testing.T) {
	s := newFTPServer(t)
	dir := t.TempDir()
	local := filepath.Join(dir, "notes 1.txt")
	if err := os.WriteFile(local, []byte("line one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "ftp://urlget:secret@" + s.Addr + "/upload/"
	if r := runCLI(t, nil, "-T", local, base); r.code != 0 {
		t.Fatalf("-T: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := string(s.File("/home/urlget/upload/notes 1.txt")); got != "line one\n" {
		t.Fatalf("stored %q", got)
	}
	if r := runCLI(t, nil, "-T", local, "--append", base+"notes%201.txt"); r.code != 0 {
		t.Fatalf("-T --append: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := string(s.File("/home/urlget/upload/notes 1.txt")); got != "line one\nline one\n" {
		t.Fatalf("after APPE %q", got)
	}
	var verbs []string
	for _, c := range s.Commands() {
		if strings.HasPrefix(c.Line, "STOR ") || strings.HasPrefix(c.Line, "APPE ") {
			verbs = append(verbs, c.Line)
		}
	}
	if want := []string{"STOR notes 1.txt", "APPE notes 1.txt"}; strings.Join(verbs, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q", verbs, want)
	}
	if r := runCLI(t, nil, "-T", local, "gopher://127.0.0.1:1/0x"); r.code != 1 {
		t.Errorf("-T to gopher: exit %d, want 1 (%s)", r.code, r.stderr)
	}
	if r := runCLI(t, nil, "-T", filepath.Join(dir, "missing"), base); r.code != 26 {
		t.Errorf("-T missing file: exit %d, want 26 (%s)", r.code, r.stderr)
	}
}

// TestFTPUploadRetriedAndResumed: an ftp upload goes through the one
// retry loop of every transfer (a 451 to STOR is tried again, the file
// read afresh; stdin is not), and -C N resumes it (APPE of what follows
// byte N).
func TestFTPUploadRetriedAndResumed(t *testing.T) {
	s := newFTPServer(t)
	var stors atomic.Int32
	s.Configure(func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			if verb == "STOR" && (arg == "pipe.bin" || stors.Add(1) == 1) {
				ss.Reply(451, "local error in processing")
				return true
			}
			return false
		}
	})
	local := filepath.Join(t.TempDir(), "up.bin")
	if err := os.WriteFile(local, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := "ftp://urlget:secret@" + s.Addr + "/upload/"
	r := runCLI(t, nil, "--retry", "1", "--retry-delay", "0.01", "-T", local, base+"r.bin")
	if r.code != 0 || !strings.Contains(r.stderr, "Will retry") {
		t.Fatalf("--retry -T: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := string(s.File("/home/urlget/upload/r.bin")); got != "0123456789" || stors.Load() != 2 {
		t.Errorf("after the retry: %q, %d STORs", got, stors.Load())
	}
	// What was read of stdin cannot be sent again: no retry.
	if r := runCLI(t, nil, "--retry", "1", "--retry-delay", "0.01", "-T", "-", base+"pipe.bin"); r.code != 25 || strings.Contains(r.stderr, "Will retry") {
		t.Errorf("--retry -T -: exit %d, stderr %q", r.code, r.stderr)
	}
	s.AddFile("/home/urlget/upload/c.bin", []byte("0123"), time.Now())
	if r := runCLI(t, nil, "-v", "-C", "4", "-T", local, base+"c.bin"); r.code != 0 || !strings.Contains(r.stderr, "* Resuming the upload at byte 4") {
		t.Fatalf("-C 4 -T: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := string(s.File("/home/urlget/upload/c.bin")); got != "0123456789" {
		t.Errorf("-C 4 -T: %q", got)
	}
}

// TestFTPListingsCLI checks that a directory URL prints the server's
// listing as-is, -l asks NLST, and --json-lines prints parsed entries.
func TestFTPListingsCLI(t *testing.T) {
	s := newFTPServer(t)
	u := "ftp://" + s.Addr + "/pub/"
	r := runCLI(t, nil, u)
	if r.code != 0 || !strings.Contains(r.stdout, "hello.bin") || !strings.Contains(r.stdout, "sub") {
		t.Fatalf("LIST: exit %d, stderr %q, out %q", r.code, r.stderr, r.stdout)
	}
	r = runCLI(t, nil, "-l", u)
	if r.code != 0 || r.stdout != "hello.bin\r\nsub\r\n" && r.stdout != "hello.bin\nsub\n" {
		t.Fatalf("-l: exit %d, stderr %q, out %q", r.code, r.stderr, r.stdout)
	}
	r = runCLI(t, nil, "--json-lines", u)
	if r.code != 0 {
		t.Fatalf("--json-lines: exit %d, stderr %q", r.code, r.stderr)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		var e struct {
			Name, Type string
			Size       *int64
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got[e.Name] = e.Type
		if e.Name == "hello.bin" && (e.Size == nil || *e.Size != 13) {
			t.Errorf("hello.bin size %v, want 13", e.Size)
		}
	}
	if got["hello.bin"] != "file" || got["sub"] != "dir" || len(got) != 2 {
		t.Errorf("entries %v, want hello.bin file and sub dir", got)
	}
	// -R asks MDTM and sets the file's time.
	dir := t.TempDir()
	out := filepath.Join(dir, "h")
	if r := runCLI(t, nil, "-R", "-o", out, "ftp://"+s.Addr+"/pub/hello.bin"); r.code != 0 {
		t.Fatalf("-R: exit %d, stderr %q", r.code, r.stderr)
	}
	fi, err := os.Stat(out)
	if err != nil || !fi.ModTime().Equal(time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)) {
		t.Errorf("-R mtime %v (%v), want 2025-03-04 05:06:07 UTC", fi.ModTime(), err)
	}
}

// TestFTPPRETBesideCurl: --ftp-pret sends the same commands as curl's
// (PRET RETR name, PRET LIST, PRET STOR name before EPSV) to a server that
// needs PRET (drftpd's model), and a server that refuses PRET ends both
// with exit 84 and no QUIT (curl's tests 1107 and 1108).
func TestFTPPRETBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	local := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(local, []byte("up\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pret bool // the server needs PRET (else refuses it)
		args func(addr string) []string
		code int
	}{
		{"RETR", true, func(a string) []string { return []string{"-o", os.DevNull, "ftp://" + a + "/pub/hello.bin"} }, 0},
		{"LIST", true, func(a string) []string { return []string{"-o", os.DevNull, "ftp://" + a + "/pub/"} }, 0},
		{"STOR", true, func(a string) []string { return []string{"-T", local, "ftp://urlget:secret@" + a + "/upload/"} }, 0},
		{"refused", false, func(a string) []string { return []string{"-o", os.DevNull, "ftp://" + a + "/pub/hello.bin"} }, 84},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lines [2][]string
			for i, client := range []string{"curl", "urlget"} {
				s := newFTPServer(t)
				s.Configure(func(s *ftptest.Server) { s.NeedPRET = tc.pret })
				code, _ := runClient(t, curl, client, append([]string{"-s", "--ftp-pret"}, tc.args(s.Addr)...)...)
				if code != tc.code {
					t.Errorf("%s: exit %d, want %d", client, code, tc.code)
				}
				lines[i] = s.Lines()
			}
			if strings.Join(lines[1], "\n") != strings.Join(lines[0], "\n") {
				t.Errorf("urlget sent\n\t%s\ncurl\n\t%s", strings.Join(lines[1], "\n\t"), strings.Join(lines[0], "\n\t"))
			}
			if want := "PRET "; !strings.Contains(strings.Join(lines[1], "\n"), want) {
				t.Errorf("no PRET in %q", lines[1])
			}
		})
	}
}

// TestFTPCCCBesideCurl: --ftp-ssl-ccc (and --ftp-ssl-ccc-mode active)
// send the commands curl sends — CCC after PBSZ and PROT, the rest in the
// clear, which the in-tree server reads on the TCP connection — and fetch
// the file; a server without CCC leaves both in TLS, going on (curl's
// test 403).
func TestFTPCCCBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	srvTLS, _ := fetchtest.TLSConfigs(t)
	for _, tc := range []struct {
		name string
		ccc  bool // the server takes CCC
		args []string
	}{
		{"passive", true, []string{"--ftp-ssl-ccc"}},
		{"active", true, []string{"--ftp-ssl-ccc-mode", "active"}},
		{"active, then --ftp-ssl-ccc", true, []string{"--ftp-ssl-ccc-mode", "active", "--ftp-ssl-ccc"}},
		{"refused", false, []string{"--ftp-ssl-ccc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lines [2][]string
			for i, client := range []string{"curl", "urlget"} {
				s := newFTPServer(t)
				s.Configure(func(s *ftptest.Server) { s.TLS, s.CCC = srvTLS, tc.ccc })
				args := append([]string{"-s", "-k", "--ssl-reqd"}, tc.args...)
				code, out := runClient(t, curl, client, append(args, "ftp://"+s.Addr+"/pub/hello.bin")...)
				if code != 0 || out != "hello\r\nworld\n" {
					t.Errorf("%s: exit %d, %q", client, code, out)
				}
				lines[i] = s.Lines()
			}
			if strings.Join(lines[1], "\n") != strings.Join(lines[0], "\n") {
				t.Errorf("urlget sent\n\t%s\ncurl\n\t%s", strings.Join(lines[1], "\n\t"), strings.Join(lines[0], "\n\t"))
			}
		})
	}
}

// TestFTPSessionBesideCurl: the commands of an ftp session are curl's,
// beside curl (issue 40): the anonymous password is curl's address, which
// names no one (PASS ftp@example.com, not $USER@hostname); -C past the
// file's end is exit 36, the session ended with QUIT;
// --ftp-alternative-to-user sends its command when USER is refused;
// --ftp-skip-pasv-ip connects to the control connection's peer whatever
// address PASV names.
func TestFTPSessionBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	refuseAnonymous := func(ss *ftptest.Session, verb, arg string) bool {
		switch {
		case verb == "USER" && arg == "anonymous":
			ss.Reply(530, "We don't like USER commands")
			return true
		case verb == "PASS":
			ss.LogIn()
			ss.Reply(230, "Logged in")
			return true
		}
		return false
	}
	for _, tc := range []struct {
		name string
		conf func(*ftptest.Server)
		args []string
		code int
		want []string // lines urlget must send, in order
	}{
		{"anonymous", nil, nil, 0, []string{"USER anonymous", "PASS ftp@example.com"}},
		{"-C past the end", nil, []string{"-C", "100"}, 36, []string{"SIZE hello.bin", "QUIT"}},
		{"--ftp-alternative-to-user", func(s *ftptest.Server) { s.Hook = refuseAnonymous },
			[]string{"--ftp-alternative-to-user", "USER replacement"}, 0, []string{"USER anonymous", "USER replacement", "PASS ftp@example.com"}},
		{"--ftp-skip-pasv-ip", func(s *ftptest.Server) { s.NoEPSV, s.PASVAddress = true, "127.0.0.2" },
			[]string{"--ftp-skip-pasv-ip"}, 0, []string{"EPSV", "PASV", "RETR hello.bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var lines [2][]string
			for i, client := range []string{"curl", "urlget"} {
				s := newFTPServer(t)
				if tc.conf != nil {
					s.Configure(tc.conf)
				}
				code, _ := runClient(t, curl, client, append(append([]string{"-s", "-o", os.DevNull}, tc.args...), "ftp://"+s.Addr+"/pub/hello.bin")...)
				if code != tc.code {
					t.Errorf("%s: exit %d, want %d", client, code, tc.code)
				}
				lines[i] = s.Lines()
			}
			if strings.Join(lines[1], "\n") != strings.Join(lines[0], "\n") {
				t.Errorf("urlget sent\n\t%s\ncurl\n\t%s", strings.Join(lines[1], "\n\t"), strings.Join(lines[0], "\n\t"))
			}
			if got := slices.DeleteFunc(slices.Clone(lines[1]), func(l string) bool { return !slices.Contains(tc.want, l) }); !slices.Equal(got, tc.want) {
				t.Errorf("urlget sent %q, want %q in that order", lines[1], tc.want)
			}
		})
	}
}
