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

// SMTPServer is a running OpenSMTPD or Exim that takes mail for any address from
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
	RequireRoot(t, "OpenSMTPD tests need root (smtpd drops privileges itself)")
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	if err := reachable(cfg.Dir); err != nil {
		t.Fatal(err)
	}
	if cfg.Deliver == "" {
		cfg.Deliver = "nobody"
	}
	s := &SMTPServer{Dir: cfg.Dir, Maildir: filepath.Join(cfg.Dir, "box")}
	if err := smtpLayout(cfg, s.Maildir); err != nil {
		t.Fatalf("testserver: OpenSMTPD: %v", err)
	}
	// smtpd looks up the name of every client with its own resolver
	// (libasr), which asks the machine's DNS server before /etc/hosts.
	// The tests must not send a query off the machine: smtpd runs with a
	// resolv.conf of its own, bind-mounted in a private mount namespace,
	// that tells libasr to use /etc/hosts alone.
	resolv := filepath.Join(cfg.Dir, "resolv.conf")
	if err := os.WriteFile(resolv, []byte("lookup file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// smtpd's queue (/var/spool/smtpd) and control socket
	// (/var/run/smtpd.sock) are fixed paths: with two instances at once (two
	// tests, or two test runs) one delivers what the other queued, into its
	// own maildir, or refuses to start ("control socket already
	// listening"). Each instance gets a spool and a /run of its own,
	// bind-mounted over the fixed paths; smtpd makes the directories
	// inside the spool and wants it root's, mode 0711.
	spool, run := filepath.Join(cfg.Dir, "spool"), filepath.Join(cfg.Dir, "run")
	for _, d := range []string{spool, run} {
		if err := os.Mkdir(d, 0o711); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o711); err != nil { // past the umask
			t.Fatal(err)
		}
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
		cmd, err := inMountNamespace([]bindMount{{run, "/run"}, {resolv, "/etc/resolv.conf"}, {spool, "/var/spool/smtpd"}}, smtpd, "-d", "-f", conf)
		return cmd, fmt.Sprintf("127.0.0.1:%d", port), err
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

// reachable makes dir, and lets every user through it and through its
// parents below the temporary directory (t.TempDir makes them 0700), so
// that a server that has given up root reaches its files.
func reachable(dir string) error {
	if err := os.MkdirAll(dir, 0o711); err != nil {
		return err
	}
	tmp := filepath.Clean(os.TempDir())
	for d := filepath.Clean(dir); strings.HasPrefix(d, tmp+string(filepath.Separator)); d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return err
		}
		if err := os.Chmod(d, st.Mode().Perm()|0o111); err != nil {
			return err
		}
	}
	return nil
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

// EximBinary is Exim as scripts/test unpacks it (exim4-daemon-light
// conflicts with opensmtpd, both being the system's MTA): in FTPOptDir.
func EximBinary() string { return filepath.Join(FTPOptDir(), "usr/sbin/exim4") }

// StartExim starts Exim (`exim4 -C DIR/exim.conf -bdf -oX PORT`) on a free
// port of 127.0.0.1 for the rest of the test, delivering every message,
// one copy per recipient, into the maildir Maildir. With CertFile and
// KeyFile it offers STARTTLS (GnuTLS), and with User AUTH PLAIN and LOGIN
// over TLS only; it offers SIZE, 8BITMIME and SMTPUTF8. Exim runs with an
// untrusted -C file, so it gives up root for cfg.Deliver (default nobody),
// which owns its spool, logs, key and maildir. Skipped (failed with CI
// set) when Exim is not unpacked or the test is not root.
func StartExim(t testing.TB, cfg SMTPConfig) *SMTPServer {
	t.Helper()
	exim := Require(t, EximBinary())
	RequireRoot(t, "Exim tests need root")
	// Debian's exim4 looks up its compiled-in user Debian-exim by name
	// before it reads a configuration. exim4-base's maintainer script
	// creates that account; an unpacked exim4-daemon-light has none.
	if _, err := ensureAccount("Debian-exim", "--system", "--user-group", "--no-create-home",
		"--home-dir", "/var/spool/exim4", "--shell", "/usr/sbin/nologin"); err != nil {
		t.Fatalf("testserver: Exim: %v", err)
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	if cfg.Deliver == "" {
		cfg.Deliver = "nobody"
	}
	if err := reachable(cfg.Dir); err != nil {
		t.Fatal(err)
	}
	u, err := user.Lookup(cfg.Deliver)
	if err != nil {
		t.Fatalf("testserver: Exim: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	s := &SMTPServer{Dir: cfg.Dir, Maildir: filepath.Join(cfg.Dir, "box")}
	for _, d := range []string{s.Maildir, filepath.Join(cfg.Dir, "spool"), filepath.Join(cfg.Dir, "log")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.KeyFile != "" {
		if err := os.Chown(cfg.KeyFile, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	conf := filepath.Join(cfg.Dir, "exim.conf")
	s.Process = StartOnFreePort(t, Options{Name: "exim", LogFiles: []string{filepath.Join(cfg.Dir, "log", "mainlog"), filepath.Join(cfg.Dir, "log", "paniclog")}},
		func(port int) (*exec.Cmd, string, error) {
			if err := os.WriteFile(conf, []byte(EximConf(cfg, exim, s.Maildir, port, u.Username)), 0o644); err != nil {
				return nil, "", err
			}
			s.Port = port
			return exec.Command(exim, "-C", conf, "-bdf", "-oX", strconv.Itoa(port)), fmt.Sprintf("127.0.0.1:%d", port), nil
		})
	s.Addr = s.Process.Addr
	return s
}

// EximConf is the configuration of a test Exim on 127.0.0.1:port.
func EximConf(cfg SMTPConfig, exim, maildir string, port int, deliver string) string {
	var b strings.Builder
	group := "nogroup"
	if u, err := user.Lookup(deliver); err == nil {
		if g, err := user.LookupGroupId(u.Gid); err == nil {
			group = g.Name
		}
	}
	// No lookup of the client's name, by its address (host_lookup) or
	// because its EHLO is our own address literal (helo_lookup_domains):
	// Exim asks DNS directly, and the tests send no query off the machine.
	fmt.Fprintf(&b, `exim_path = %s
exim_user = %s
exim_group = %s
primary_hostname = exim.test
qualify_domain = exim.test
spool_directory = %s
log_file_path = %s
pid_file_path = %s
local_interfaces = 127.0.0.1
daemon_smtp_ports = %d
host_lookup =
helo_lookup_domains =
rfc1413_hosts =
never_users =
smtputf8_advertise_hosts = *
acl_smtp_rcpt = acl_rcpt
`, exim, deliver, group, filepath.Join(cfg.Dir, "spool"), filepath.Join(cfg.Dir, "log", "%slog"),
		filepath.Join(cfg.Dir, "exim.pid"), port)
	if cfg.CertFile != "" {
		fmt.Fprintf(&b, "tls_advertise_hosts = *\ntls_certificate = %s\ntls_privatekey = %s\n", cfg.CertFile, cfg.KeyFile)
	} else {
		b.WriteString("tls_advertise_hosts =\n")
	}
	b.WriteString("auth_advertise_hosts = ${if def:tls_in_cipher {*}{}}\n")
	fmt.Fprintf(&b, `begin acl
acl_rcpt:
  deny local_parts = refuse-me
       message = no such user
  accept
begin routers
all:
  driver = accept
  transport = box
begin transports
box:
  driver = appendfile
  directory = %s
  maildir_format
  delivery_date_add
  envelope_to_add
  return_path_add
  user = %s
`, maildir, deliver)
	if cfg.User != "" {
		fmt.Fprintf(&b, `begin authenticators
plain:
  driver = plaintext
  public_name = PLAIN
  server_prompts = :
  server_condition = ${if and {{eq{$auth2}{%[1]s}}{eq{$auth3}{%[2]s}}}}
  server_set_id = $auth2
login:
  driver = plaintext
  public_name = LOGIN
  server_prompts = Username:: : Password::
  server_condition = ${if and {{eq{$auth1}{%[1]s}}{eq{$auth2}{%[2]s}}}}
  server_set_id = $auth1
`, cfg.User, cfg.Password)
	}
	return b.String()
}
