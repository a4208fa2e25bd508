package testserver

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// FTP servers: vsftpd (installed from Debian), and pure-ftpd and ProFTPD,
// which conflict with vsftpd's package (all three provide ftp-server) and
// are therefore unpacked from their .debs into FTPOptDir by scripts/test.
// Each runs in the foreground on 127.0.0.1 with a config generated into a
// directory of its own, serving the fixtures of FTPFixtures: an anonymous
// tree, and the home of the local user FTPUser (password FTPPassword),
// created if missing. All three need root (chroot, PAM or shadow logins,
// and a mount namespace for pure-ftpd).

// FTPKind names an FTP server.
type FTPKind string

const (
	Vsftpd   FTPKind = "vsftpd"
	PureFTPd FTPKind = "pure-ftpd"
	ProFTPD  FTPKind = "proftpd"
)

// OnEachFTP runs f as a subtest, named after the server, on each FTP
// server of FTPKinds, started for it (StartFTP).
func OnEachFTP(t *testing.T, f func(t *testing.T, s *FTPServer)) {
	t.Helper()
	for _, kind := range FTPKinds {
		t.Run(string(kind), func(t *testing.T) { f(t, StartFTP(t, kind)) })
	}
}

// FTPKinds lists every FTP server the harness runs.
var FTPKinds = []FTPKind{Vsftpd, PureFTPd, ProFTPD}

// The local FTP user the servers log in.
const (
	FTPUser     = "urlget"
	FTPPassword = "secret"
)

// FTPServer is a running FTP server.
type FTPServer struct {
	Kind FTPKind
	Addr string // 127.0.0.1:PORT
	Host string // 127.0.0.1
	Port int
	URL  string // ftp://127.0.0.1:PORT
	Dir  string // config, logs, fixtures
	Anon string // the anonymous root (fixtures), as seen on the host
	Home string // FTPUser's login directory, as seen on the host
	// Log is the server's own log. vsftpd's (log_ftp_protocol=YES) has
	// every command and reply: see Commands. pure-ftpd logs to syslog:
	// its Log is the transfer log.
	Log     string
	XferLog string
	Process *Process
	// Extra lines end the server's config (vsftpd only: StartFTPConf).
	Extra []string
}

// FTPCacheDir holds the unpacked pure-ftpd and ProFTPD (opt/) and their
// .debs (debs/): $URLGET_TEST_CACHE, default /var/cache/urlget-test.
func FTPCacheDir() string {
	if d := os.Getenv("URLGET_TEST_CACHE"); d != "" {
		return d
	}
	return "/var/cache/urlget-test"
}

// FTPOptDir is where scripts/test unpacks pure-ftpd and proftpd-core.
func FTPOptDir() string { return filepath.Join(FTPCacheDir(), "opt") }

// FTPBinary is the program for kind.
func FTPBinary(kind FTPKind) string {
	switch kind {
	case PureFTPd:
		return filepath.Join(FTPOptDir(), "usr/sbin/pure-ftpd")
	case ProFTPD:
		return filepath.Join(FTPOptDir(), "usr/sbin/proftpd")
	}
	return "vsftpd"
}

// StartFTP starts an FTP server of this kind for the rest of the test. The
// test is skipped (failed with CI set) when the server is not installed or
// the test does not run as root.
func StartFTP(t testing.TB, kind FTPKind) *FTPServer {
	t.Helper()
	return StartFTPConf(t, kind)
}

// StartFTPConf is StartFTP with lines added to the server's config, as
// "cmds_denied=SIZE" for a vsftpd without SIZE (vsftpd only).
func StartFTPConf(t testing.TB, kind FTPKind, extra ...string) *FTPServer {
	t.Helper()
	Require(t, FTPBinary(kind))
	RequireRoot(t, string(kind)+" needs root (chroot, local logins, mount namespaces)")
	if len(extra) > 0 && kind != Vsftpd {
		t.Fatalf("testserver: config lines for %s are not supported", kind)
	}
	dir := t.TempDir()
	s, err := launchFTP(kind, dir, extra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Process.cleanup(t) })
	return s
}

// LaunchFTP starts an FTP server outside a test, with dir for its config,
// logs and fixtures; the caller must call Stop.
func LaunchFTP(kind FTPKind, dir string) (*FTPServer, error) { return launchFTP(kind, dir, nil) }

func launchFTP(kind FTPKind, dir string, extra []string) (*FTPServer, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := EnsureFTPUser(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// Every directory above the fixtures must be searchable by the
	// servers' unprivileged processes (ftp, urlget): t.TempDir makes 0700
	// directories.
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return nil, err
		}
		if fi.Mode().Perm()&0o011 != 0o011 {
			if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
				return nil, err
			}
		}
	}
	s := &FTPServer{Kind: kind, Dir: dir, Host: "127.0.0.1", Extra: extra,
		Anon: filepath.Join(dir, "anon"), Home: filepath.Join(dir, "home"),
		Log: filepath.Join(dir, string(kind)+".log"), XferLog: filepath.Join(dir, "xfer.log")}
	if err := FTPFixtures(s.Anon, s.Home); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		return nil, err
	}
	bin, err := LookPath(FTPBinary(kind))
	if err != nil {
		return nil, fmt.Errorf("testserver: %w", err)
	}
	opt := Options{Name: string(kind), LogFiles: []string{s.Log}}
	if kind == PureFTPd {
		// pure-ftpd logs to syslog; only its transfer log is a file.
		s.Log = s.XferLog
		opt.LogFiles = []string{s.XferLog}
		if err := os.WriteFile(s.XferLog, nil, 0o644); err != nil {
			return nil, err
		}
	}
	p, err := LaunchOnFreePort(opt, func(port int) (*exec.Cmd, string, error) {
		s.Port = port
		s.Addr = fmt.Sprintf("127.0.0.1:%d", port)
		switch kind {
		case Vsftpd:
			return s.vsftpdCmd(bin)
		case PureFTPd:
			return s.pureCmd(bin)
		case ProFTPD:
			return s.proftpdCmd(bin)
		}
		return nil, "", fmt.Errorf("testserver: unknown FTP server %q", kind)
	})
	if err != nil {
		return nil, err
	}
	s.Process = p
	s.URL = "ftp://" + s.Addr
	return s, nil
}

// Stop stops the server (see Process.Stop).
func (s *FTPServer) Stop() error { return s.Process.Stop() }

// VsftpdConf returns vsftpd.conf for s. Anonymous users are chrooted to
// Anon (read only); FTPUser logs in to Home, not chrooted, and may write.
// Every command and reply is logged to s.Log (log_ftp_protocol), and
// transfers too.
func (s *FTPServer) VsftpdConf() string {
	return strings.Join([]string{
		"listen=YES",
		"listen_ipv6=NO",
		"listen_address=127.0.0.1",
		"listen_port=" + strconv.Itoa(s.Port),
		"background=NO",
		"anonymous_enable=YES",
		"anon_root=" + s.Anon,
		"no_anon_password=NO",
		"anon_upload_enable=NO",
		"anon_mkdir_write_enable=NO",
		"local_enable=YES",
		"write_enable=YES",
		"local_root=" + s.Home,
		"chroot_local_user=NO",
		"local_umask=022",
		"userlist_enable=NO",
		"pam_service_name=vsftpd",
		"secure_chroot_dir=" + filepath.Join(s.Dir, "empty"),
		"seccomp_sandbox=NO",
		"pasv_enable=YES",
		"port_enable=YES",
		"connect_from_port_20=NO",
		"ascii_download_enable=YES",
		"ascii_upload_enable=YES",
		"use_localtime=NO",
		"delay_failed_login=0",
		"delay_successful_login=0",
		"max_login_fails=100",
		"xferlog_enable=YES",
		"xferlog_std_format=NO",
		"log_ftp_protocol=YES",
		"vsftpd_log_file=" + s.Log,
		"dual_log_enable=YES",
		"xferlog_file=" + s.XferLog,
		"syslog_enable=NO",
		"ftpd_banner=urlget test vsftpd",
	}, "\n") + "\n" + strings.Join(append(s.Extra, ""), "\n")
}

func (s *FTPServer) vsftpdCmd(bin string) (*exec.Cmd, string, error) {
	conf := filepath.Join(s.Dir, "vsftpd.conf")
	if err := os.WriteFile(conf, []byte(s.VsftpdConf()), 0o600); err != nil {
		return nil, "", err
	}
	return exec.Command(bin, conf), s.Addr, nil
}

// pure-ftpd always serves the ftp user's home to anonymous users and the
// passwd home to local users (Debian's build ignores FTP_ANON_DIR), so it
// runs in a private mount namespace where Anon is bind-mounted over the
// ftp user's home and Home over FTPUser's.
func (s *FTPServer) pureCmd(bin string) (*exec.Cmd, string, error) {
	ftpHome, err := homeOf("ftp")
	if err != nil {
		return nil, "", err
	}
	userHome, err := homeOf(FTPUser)
	if err != nil {
		return nil, "", err
	}
	for _, d := range []string{ftpHome, userHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, "", err
		}
	}
	cmd, err := inMountNamespace([]bindMount{{s.Anon, ftpHome}, {s.Home, userHome}},
		bin,
		"-S", "127.0.0.1,"+strconv.Itoa(s.Port),
		"-l", "unix",
		"-i", // anonymous users cannot upload
		"-H", // no reverse DNS
		"-4", // IPv4 only
		"-g", filepath.Join(s.Dir, "pure-ftpd.pid"),
		"-O", "clf:"+s.XferLog,
	)
	return cmd, s.Addr, err
}

// ProFTPDConf returns proftpd.conf for s.
func (s *FTPServer) ProFTPDConf() string {
	q := strconv.Quote
	return strings.Join([]string{
		`ServerName "urlget test proftpd"`,
		"ServerType standalone",
		"DefaultServer on",
		"Port " + strconv.Itoa(s.Port),
		"DefaultAddress 127.0.0.1",
		"SocketBindTight on",
		"UseIPv6 off",
		"Umask 022",
		"MaxInstances 30",
		"User nobody",
		"Group nogroup",
		"ScoreboardFile " + q(filepath.Join(s.Dir, "proftpd.scoreboard")),
		"PidFile " + q(filepath.Join(s.Dir, "proftpd.pid")),
		"SystemLog " + q(s.Log),
		"TransferLog " + q(s.XferLog),
		"ControlsEngine off",
		"DelayEngine off",
		"LangEngine off",
		"UseReverseDNS off",
		"WtmpLog off",
		"RequireValidShell off",
		"AuthPAM off",
		"AuthOrder mod_auth_unix.c",
		"AllowOverwrite on",
		"AllowStoreRestart on",
		"DefaultChdir " + q(s.Home) + " " + FTPUser,
		"<Anonymous " + q(s.Anon) + ">",
		"  User ftp",
		"  Group nogroup",
		"  UserAlias anonymous ftp",
		"  RequireValidShell off",
		"  <Limit WRITE>",
		"    DenyAll",
		"  </Limit>",
		"</Anonymous>",
		"",
	}, "\n")
}

func (s *FTPServer) proftpdCmd(bin string) (*exec.Cmd, string, error) {
	conf := filepath.Join(s.Dir, "proftpd.conf")
	if err := os.WriteFile(conf, []byte(s.ProFTPDConf()), 0o644); err != nil {
		return nil, "", err
	}
	cmd := exec.Command(bin, "-n", "-q", "-c", conf)
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+filepath.Join(FTPOptDir(), "usr/lib/x86_64-linux-gnu"))
	// Check the config first, for a clear error.
	check := exec.Command(bin, "-t", "-c", conf)
	check.Env = cmd.Env
	if out, err := check.CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("testserver: proftpd -t: %v\n%s", err, out)
	}
	return cmd, s.Addr, nil
}

func homeOf(name string) (string, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return "", fmt.Errorf("testserver: user %s: %w", name, err)
	}
	return u.HomeDir, nil
}

// EnsureFTPUser creates the local user FTPUser with password FTPPassword
// and a login shell (PAM's pam_shells wants one) when it does not exist.
func EnsureFTPUser() error { return EnsureUser(FTPUser, FTPPassword) }

// FTP fixtures, relative to the anonymous root (FTPFixtureFiles) and to
// FTPUser's home (FTPHomeFiles). Directories: pub/empty, and the home's
// upload/, owned by FTPUser. pub/link-to-hello is a symlink to hello.txt.
var (
	// FTPHello mixes CRLF and LF line ends.
	FTPHello = []byte("hello\r\nworld\nand CRLF again\r\n")
	// FTPBinaryData holds every byte value, CR, LF and NUL among them.
	FTPBinaryData = func() []byte {
		b := make([]byte, 300_001)
		for i := range b {
			b[i] = byte(i*31 + i/251)
		}
		return b
	}()
	FTPFixtureFiles = map[string][]byte{
		"readme.txt":                        []byte("urlget FTP fixture root\n"),
		"pub/hello.txt":                     FTPHello,
		"pub/binary.bin":                    FTPBinaryData,
		"pub/1mb.txt":                       bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 16384),
		"pub/a/b/c/deep.txt":                []byte("deep down\n"),
		"pub/dir with spaces/file name.txt": []byte("spaces\n"),
		"pub/semi;colon.txt":                []byte("semicolon\n"),
		"pub/100%.txt":                      []byte("percent\n"),
	}
	FTPHomeFiles = map[string][]byte{
		"private.txt": []byte("for urlget's eyes only\n"),
	}
)

// FTPFixtures writes the fixtures: anon (root-owned, read-only to the
// servers' users) and home (FTPUser's, with a writable upload/).
func FTPFixtures(anon, home string) error {
	write := func(root string, files map[string][]byte) error {
		for rel, data := range files {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	if err := write(anon, FTPFixtureFiles); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(anon, "pub/empty"), 0o755); err != nil {
		return err
	}
	if err := os.Symlink("hello.txt", filepath.Join(anon, "pub/link-to-hello")); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	if err := write(home, FTPHomeFiles); err != nil {
		return err
	}
	up := filepath.Join(home, "upload")
	if err := os.MkdirAll(up, 0o755); err != nil {
		return err
	}
	for _, d := range []string{anon, home} {
		if err := os.Chmod(d, 0o755); err != nil {
			return err
		}
	}
	if u, err := user.Lookup(FTPUser); err == nil {
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(up, uid, gid); err != nil {
			return err
		}
	}
	return nil
}

// FTPCommand is one command line a vsftpd session received, from its
// protocol log.
type FTPCommand struct {
	PID  int    // the session's process
	Line string // as logged: vsftpd shows PASS as "PASS <password>"
}

var vsftpdCommandRE = regexp.MustCompile(`\[pid (\d+)\] (?:\[[^\]]*\] )?FTP command: Client "[^"]*", "(.*)"$`)

// Commands returns the commands vsftpd logged so far, in order (vsftpd
// only: it logs a command when it reads it, before it replies).
func (s *FTPServer) Commands() ([]FTPCommand, error) {
	if s.Kind != Vsftpd {
		return nil, fmt.Errorf("testserver: %s does not log commands", s.Kind)
	}
	data, err := os.ReadFile(s.Log)
	if err != nil {
		return nil, err
	}
	var out []FTPCommand
	for _, l := range strings.Split(string(data), "\n") {
		if m := vsftpdCommandRE.FindStringSubmatch(l); m != nil {
			pid, _ := strconv.Atoi(m[1])
			out = append(out, FTPCommand{PID: pid, Line: m[2]})
		}
	}
	return out, nil
}

// CommandLines returns the command lines logged since the first n
// commands (Commands()[n:]), on every session.
func (s *FTPServer) CommandLines(n int) ([]string, error) {
	cmds, err := s.Commands()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cmds[min(n, len(cmds)):] {
		out = append(out, c.Line)
	}
	return out, nil
}
