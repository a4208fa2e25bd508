package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// TestFTPQuoteBesideCurl runs -Q/--quote and --ftp-create-dirs with curl
// and urlget on the same vsftpd and pure-ftpd: the same exit codes, the
// same files on both sides and, on vsftpd (which logs every command), the
// same commands in the same order — but for the ones each client places
// as it likes (login, PWD, EPSV/PASV, QUIT).
func TestFTPQuoteBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	local := filepath.Join(t.TempDir(), "up.txt")
	if err := os.WriteFile(local, []byte("uploaded\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	private := testserver.FTPHomeFiles["private.txt"]
	cases := []struct {
		name string
		args []string // WHO stands for "curl" or "urlget"
		code int
		// remote is a file below the FTP home that must then hold
		// upload's bytes (WHO replaced); out, the output file's bytes.
		remote string
		out    []byte
	}{
		{name: "before, after CWD, after, ignored",
			args: []string{"-Q", "NOOP", "-Q", "+HELP", "-Q", "-STAT", "-Q", "*BOGUS x", "-o", "OUT", "URL/upload/q.txt"},
			out:  []byte("in a directory\n")}, // the first NOOP goes before CWD upload
		{name: "refused before", args: []string{"-Q", "BOGUS", "-o", "OUT", "URL/private.txt"}, code: 21},
		{name: "refused after CWD", args: []string{"-Q", "+BOGUS", "-o", "OUT", "URL/private.txt"}, code: 21},
		{name: "ignored after", args: []string{"-Q", "-*BOGUS", "-Q", "-NOOP", "-o", "OUT", "URL/private.txt"}, out: private},
		{name: "refused after", args: []string{"-Q", "-BOGUS", "-o", "OUT", "URL/private.txt"}, code: 21},
		{name: "listing", args: []string{"-Q", "+NOOP", "-Q", "-NOOP", "-o", "OUT", "URL/upload/"}},
		{name: "upload, create dirs",
			args:   []string{"--ftp-create-dirs", "-Q", "+NOOP", "-Q", "-MDTM f.txt", "-T", local, "URL/upload/WHO/a/b/f.txt"},
			remote: "upload/WHO/a/b/f.txt"},
		{name: "upload, dirs missing", args: []string{"-T", local, "URL/upload/WHO/c/f.txt"}, code: 9},
		{name: "upload, MKD refused", args: []string{"--ftp-create-dirs", "-T", local, "URL/WHO-root/f.txt"}, code: 9},
		{name: "rename after upload",
			args:   []string{"-Q", "-RNFR f.tmp", "-Q", "-RNTO f.txt", "-T", local, "URL/upload/WHO/f.tmp"},
			remote: "upload/WHO/f.txt"},
	}
	for _, kind := range []testserver.FTPKind{testserver.Vsftpd, testserver.PureFTPd} {
		s := testserver.StartFTP(t, kind)
		base := "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr
		upload := filepath.Join(s.Home, "upload")
		if err := os.WriteFile(filepath.Join(upload, "q.txt"), []byte("in a directory\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, who := range []string{"curl", "urlget"} {
			os.MkdirAll(filepath.Join(upload, who), 0o755)
			os.Chown(filepath.Join(upload, who), uidOf(t, upload), -1)
		}
		for _, tc := range cases {
			var sent [2][]string
			for i, who := range []string{"curl", "urlget"} {
				out := filepath.Join(t.TempDir(), "out")
				var args []string
				for _, a := range tc.args {
					a = strings.ReplaceAll(a, "URL", base)
					a = strings.ReplaceAll(a, "WHO", who)
					if a == "OUT" {
						a = out
					}
					args = append(args, a)
				}
				var before []testserver.FTPCommand
				if kind == testserver.Vsftpd {
					before, _ = s.Commands()
				}
				code := 0
				if who == "curl" {
					cmd := exec.Command(curl, append([]string{"-sS"}, args...)...)
					if msg, err := cmd.CombinedOutput(); err != nil {
						code = cmd.ProcessState.ExitCode()
						t.Logf("%s %s: curl: %s", kind, tc.name, strings.TrimSpace(string(msg)))
					}
				} else {
					r := runCLI(t, nil, append([]string{"-sS"}, args...)...)
					code = r.code
					if code != 0 {
						t.Logf("%s %s: urlget: %s", kind, tc.name, strings.TrimSpace(r.stderr))
					}
				}
				if code != tc.code {
					t.Errorf("%s %s: %s exit %d, want %d", kind, tc.name, who, code, tc.code)
				}
				if tc.out != nil {
					if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, tc.out) {
						t.Errorf("%s %s: %s wrote %q (%v), want %q", kind, tc.name, who, got, err, tc.out)
					}
				}
				if tc.remote != "" {
					p := filepath.Join(s.Home, strings.ReplaceAll(tc.remote, "WHO", who))
					if got, err := os.ReadFile(p); err != nil || string(got) != "uploaded\n" {
						t.Errorf("%s %s: %s: remote %s holds %q (%v)", kind, tc.name, who, p, got, err)
					}
				}
				if kind == testserver.Vsftpd {
					after, _ := s.Commands()
					sent[i] = comparable(after[len(before):], who)
				}
			}
			if kind == testserver.Vsftpd && strings.Join(sent[0], "|") != strings.Join(sent[1], "|") {
				t.Errorf("%s %s: the server received\ncurl:   %q\nurlget: %q", kind, tc.name, sent[0], sent[1])
			}
		}
	}
}

// comparable are the command lines two FTP clients must send alike: all
// but the login, PWD, the data connection's setup and QUIT, with the
// client's own name (in upload paths) made "WHO".
func comparable(cmds []testserver.FTPCommand, who string) []string {
	var out []string
	for _, c := range cmds {
		verb, _, _ := strings.Cut(c.Line, " ")
		switch strings.ToUpper(verb) {
		case "USER", "PASS", "PWD", "EPSV", "PASV", "QUIT", "SYST":
			continue
		}
		if c.Line == "TYPE A" {
			continue // a listing: curl sends it, urlget need not on a new connection (ASCII is the default)
		}
		out = append(out, strings.ReplaceAll(c.Line, who, "WHO"))
	}
	return out
}

// TestFTPQuoteLineBreaks: a -Q command holding CR or NUL is refused before
// anything is sent (exit 3, the fetch rule for every value that goes on the
// wire), and one holding LF is a usage error (exit 2): it would be two
// commands.
func TestFTPQuoteLineBreaks(t *testing.T) {
	s := newFTPServer(t)
	url := "ftp://" + s.Addr + "/pub/hello.bin"
	for _, tc := range []struct {
		cmd  string
		code int
	}{{"NOOP\r", 3}, {"NO\x00OP", 3}, {"NOOP\nDELE hello.bin", 2}, {"-NOOP\r\nDELE hello.bin", 2}, {"+", 3}} {
		r := runCLI(t, nil, "-sS", "-Q", tc.cmd, "-o", filepath.Join(t.TempDir(), "out"), url)
		if r.code != tc.code {
			t.Errorf("-Q %q: exit %d, want %d (%s)", tc.cmd, r.code, tc.code, r.stderr)
		}
	}
	if n := s.Conns(); n != 0 {
		t.Errorf("%d connections made, want none", n)
	}
	r := runCLI(t, nil, "-sS", "-Q", "NOOP", "-Q", "-NOOP", "-o", filepath.Join(t.TempDir(), "out"), url)
	if r.code != 0 || s.Conns() != 1 {
		t.Errorf("-Q NOOP: exit %d, %d connections (%s)", r.code, s.Conns(), r.stderr)
	}
}
