//go:build linux

package testserver

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFTPFixtures(t *testing.T) {
	dir := t.TempDir()
	anon, home := filepath.Join(dir, "anon"), filepath.Join(dir, "home")
	if err := FTPFixtures(anon, home); err != nil {
		t.Fatal(err)
	}
	for rel, want := range FTPFixtureFiles {
		got, err := os.ReadFile(filepath.Join(anon, rel))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, %v", rel, len(got), err)
		}
	}
	if target, err := os.Readlink(filepath.Join(anon, "pub/link-to-hello")); err != nil || target != "hello.txt" {
		t.Errorf("link: %q %v", target, err)
	}
	if fi, err := os.Stat(filepath.Join(anon, "pub/empty")); err != nil || !fi.IsDir() {
		t.Errorf("pub/empty: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(home, "upload")); err != nil || !fi.IsDir() {
		t.Errorf("upload: %v", err)
	}
	if !bytes.Contains(FTPHello, []byte("\r\n")) || !bytes.Contains(bytes.ReplaceAll(FTPHello, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("hello.txt must mix CRLF and LF")
	}
	for _, b := range []byte{0, '\r', '\n', 0xff} {
		if !bytes.Contains(FTPBinaryData, []byte{b}) {
			t.Errorf("binary.bin lacks byte %#x", b)
		}
	}
	// Running twice (a restart) is fine.
	if err := FTPFixtures(anon, home); err != nil {
		t.Errorf("second run: %v", err)
	}
}

func TestVsftpdConf(t *testing.T) {
	s := &FTPServer{Port: 4021, Dir: "/d", Anon: "/d/anon", Home: "/d/home", Log: "/d/vsftpd.log", XferLog: "/d/xfer.log"}
	conf := s.VsftpdConf()
	for _, want := range []string{
		"listen_address=127.0.0.1\n", "listen_port=4021\n", "background=NO\n",
		"anon_root=/d/anon\n", "local_root=/d/home\n", "log_ftp_protocol=YES\n",
		"vsftpd_log_file=/d/vsftpd.log\n", "xferlog_std_format=NO\n", "secure_chroot_dir=/d/empty\n",
		"seccomp_sandbox=NO\n", "anon_upload_enable=NO\n",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("vsftpd.conf lacks %q", want)
		}
	}
	p := s.ProFTPDConf()
	for _, want := range []string{"Port 4021\n", `<Anonymous "/d/anon">`, `DefaultChdir "/d/home" urlget`, "SocketBindTight on\n", "DenyAll"} {
		if !strings.Contains(p, want) {
			t.Errorf("proftpd.conf lacks %q", want)
		}
	}
}

func TestVsftpdCommandsParse(t *testing.T) {
	dir := t.TempDir()
	s := &FTPServer{Kind: Vsftpd, Log: filepath.Join(dir, "v.log")}
	log := `Sat Nov 21 08:50:52 2026 [pid 17999] CONNECT: Client "127.0.0.1"
Sat Nov 21 08:50:52 2026 [pid 17999] FTP response: Client "127.0.0.1", "220 urlget test vsftpd"
Sat Nov 21 08:50:52 2026 [pid 17999] FTP command: Client "127.0.0.1", "USER anonymous"
Sat Nov 21 08:50:52 2026 [pid 17999] [anonymous] FTP command: Client "127.0.0.1", "PASS <password>"
Sat Nov 21 08:50:52 2026 [pid 18001] [ftp] FTP command: Client "127.0.0.1", "CWD"
Sat Nov 21 08:50:52 2026 [pid 18001] [ftp] FTP response: Client "127.0.0.1", "257 "/pub" is the current directory"
Sat Nov 21 08:50:52 2026 [pid 18001] [ftp] FTP command: Client "127.0.0.1", "RETR a "quoted" name"
`
	if err := os.WriteFile(s.Log, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, err := s.Commands()
	if err != nil {
		t.Fatal(err)
	}
	want := []FTPCommand{{17999, "USER anonymous"}, {17999, "PASS <password>"}, {18001, "CWD"}, {18001, `RETR a "quoted" name`}}
	if len(cmds) != len(want) {
		t.Fatalf("%+v", cmds)
	}
	for i := range want {
		if cmds[i] != want[i] {
			t.Errorf("command %d: %+v, want %+v", i, cmds[i], want[i])
		}
	}
	lines, _ := s.CommandLines(3)
	if len(lines) != 1 || lines[0] != `RETR a "quoted" name` {
		t.Errorf("CommandLines(3) = %q", lines)
	}
	if _, err := (&FTPServer{Kind: ProFTPD}).Commands(); err == nil {
		t.Error("Commands on proftpd should fail")
	}
}

// TestFTPServers starts each server and logs in anonymously and as
// FTPUser, over the raw protocol.
func TestFTPServers(t *testing.T) {
	for _, kind := range FTPKinds {
		t.Run(string(kind), func(t *testing.T) {
			s := StartFTP(t, kind)
			for _, login := range [][2]string{{"anonymous", "test@example.org"}, {FTPUser, FTPPassword}} {
				c, err := net.DialTimeout("tcp", s.Addr, 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				br := bufio.NewReader(c)
				reply := func() string {
					var last string
					for {
						l, err := br.ReadString('\n')
						if err != nil {
							t.Fatalf("%s: reading a reply: %v", kind, err)
						}
						last = l
						if len(l) >= 4 && l[3] == ' ' {
							return strings.TrimRight(last, "\r\n")
						}
					}
				}
				if r := reply(); !strings.HasPrefix(r, "220") {
					t.Fatalf("greeting %q", r)
				}
				c.Write([]byte("USER " + login[0] + "\r\n"))
				r := reply()
				if strings.HasPrefix(r, "331") {
					c.Write([]byte("PASS " + login[1] + "\r\n"))
					r = reply()
				}
				if !strings.HasPrefix(r, "230") {
					t.Errorf("%s login as %s: %q", kind, login[0], r)
				}
				c.Write([]byte("QUIT\r\n"))
				reply()
				c.Close()
			}
			if kind == Vsftpd {
				cmds, err := s.Commands()
				if err != nil || len(cmds) != 6 || cmds[0].Line != "USER anonymous" || cmds[4].Line != "PASS <password>" {
					t.Errorf("vsftpd log: %+v %v", cmds, err)
				}
			}
		})
	}
}
