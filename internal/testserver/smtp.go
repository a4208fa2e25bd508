package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SMTPConfig describes an OpenSMTPD test server.
type SMTPConfig struct {
	// Dir holds the generated smtpd.conf, its tables and the maildir;
	// StartOpenSMTPD defaults it to t.TempDir().
	Dir string
	// CertFile and KeyFile (PEM), when set, make the server offer
	// STARTTLS; with User set it then offers AUTH (PLAIN, LOGIN) over TLS.
	CertFile, KeyFile string
	User, Password    string
	// Deliver is the system user owning the maildir (OpenSMTPD refuses to
	// deliver as root); default "nobody".
	Deliver string
}

// SMTPServer is a running OpenSMTPD that takes mail for any address from
// 127.0.0.1 and delivers every message, one copy per recipient, into the
// maildir Maildir.
type SMTPServer struct {
	Addr    string // "127.0.0.1:PORT"
	Port    int
	Dir     string
	Maildir string
	Process *Process
}

// StartOpenSMTPD starts OpenSMTPD (`smtpd -d -f DIR/smtpd.conf`) on a free
// port of 127.0.0.1 for the rest of the test. The test is skipped (failed
// with CI set) when smtpd is not installed (Debian package opensmtpd). It
// needs root, as smtpd does.
func StartOpenSMTPD(t testing.TB, cfg SMTPConfig) *SMTPServer {
	t.Helper()
	smtpd := Require(t, "smtpd")
	if os.Geteuid() != 0 {
		msg := "OpenSMTPD tests need root (smtpd drops privileges itself)"
		if InCI() {
			t.Fatal(msg + ", and CI is set")
		}
		t.Skip(msg)
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
		// the delivery user must reach the maildir
		if err := os.Chmod(filepath.Dir(cfg.Dir), 0o711); err != nil {
			t.Fatal(err)
		}
		os.Chmod(cfg.Dir, 0o711)
	}
	if cfg.Deliver == "" {
		cfg.Deliver = "nobody"
	}
	s := &SMTPServer{Dir: cfg.Dir, Maildir: filepath.Join(cfg.Dir, "box")}
	if err := smtpLayout(cfg, s.Maildir); err != nil {
		t.Fatalf("testserver: OpenSMTPD: %v", err)
	}
	conf := filepath.Join(cfg.Dir, "smtpd.conf")
	s.Process = StartOnFreePort(t, Options{Name: "smtpd"}, func(port int) (*exec.Cmd, string, error) {
		if err := os.WriteFile(conf, []byte(OpenSMTPDConf(cfg, s.Maildir, port)), 0o600); err != nil {
			return nil, "", err
		}
		if out, err := exec.Command(smtpd, "-n", "-f", conf).CombinedOutput(); err != nil {
			return nil, "", fmt.Errorf("smtpd -n: %v: %s", err, out)
		}
		s.Port = port
		return exec.Command(smtpd, "-d", "-f", conf), fmt.Sprintf("127.0.0.1:%d", port), nil
	})
	s.Addr = s.Process.Addr
	return s
}

// OpenSMTPDConf is the smtpd.conf of a test server on 127.0.0.1:port.
func OpenSMTPDConf(cfg SMTPConfig, maildir string, port int) string {
	var b strings.Builder
	listen := fmt.Sprintf("listen on 127.0.0.1 port %d", port)
	if cfg.CertFile != "" {
		fmt.Fprintf(&b, "pki localhost cert %q\npki localhost key %q\n", cfg.CertFile, cfg.KeyFile)
		listen += " tls pki localhost"
		if cfg.User != "" {
			fmt.Fprintf(&b, "table creds file:%s\n", filepath.Join(cfg.Dir, "creds"))
			listen += " auth-optional <creds>"
		}
	}
	fmt.Fprintf(&b, "table vusers file:%s\n", filepath.Join(cfg.Dir, "vusers"))
	b.WriteString(listen + "\n")
	fmt.Fprintf(&b, "action \"box\" maildir %q virtual <vusers>\n", maildir)
	b.WriteString("match from any for any action \"box\"\n")
	return b.String()
}

// smtpLayout writes the tables and makes the maildir.
func smtpLayout(cfg SMTPConfig, maildir string) error {
	u, err := user.Lookup(cfg.Deliver)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.MkdirAll(maildir, 0o700); err != nil {
		return err
	}
	if err := os.Chown(maildir, uid, gid); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cfg.Dir, "vusers"), []byte("@ "+cfg.Deliver+"\n"), 0o644); err != nil {
		return err
	}
	if cfg.User != "" {
		hash, err := cryptPassword(cfg.Password)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(cfg.Dir, "creds"), []byte(cfg.User+" "+hash+"\n"), 0o600); err != nil {
			return err
		}
	}
	if cfg.KeyFile != "" {
		os.Chmod(cfg.KeyFile, 0o600) // smtpd refuses a key others can read
	}
	return nil
}

// Messages are the messages in the maildir's new/ directory, oldest
// first (maildir names start with the delivery time).
func (s *SMTPServer) Messages() ([][]byte, error) {
	dir := filepath.Join(s.Maildir, "new")
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	out := make([][]byte, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// WaitMessages waits up to timeout for at least n messages in the maildir
// (delivery is asynchronous) and returns them all.
func (s *SMTPServer) WaitMessages(n int, timeout time.Duration) ([][]byte, error) {
	deadline := time.Now().Add(timeout)
	for {
		m, err := s.Messages()
		if err != nil || len(m) >= n {
			return m, err
		}
		if time.Now().After(deadline) {
			return m, fmt.Errorf("testserver: OpenSMTPD: %d messages in %s after %v, want %d\n%s", len(m), s.Maildir, timeout, n, s.Process.Logs())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Clear removes the delivered messages.
func (s *SMTPServer) Clear() error {
	dir := filepath.Join(s.Maildir, "new")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
