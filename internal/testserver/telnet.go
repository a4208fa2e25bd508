package testserver

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// SessionServer is a running telnetd or rlogind behind socat.
type SessionServer struct {
	Addr    string // "127.0.0.1:PORT"
	Port    int
	Process *Process
}

// TelnetdConfig chooses how inetutils-telnetd starts a session.
type TelnetdConfig struct {
	// Login runs /bin/login (a user and password are asked); otherwise
	// telnetd runs /bin/sh on the pty at once (-E /bin/sh).
	Login bool
}

// StartTelnetd starts inetutils-telnetd on 127.0.0.1 for the rest of the
// test: socat listens and runs "telnetd -h" for every connection (-h: no
// host banner). It runs as root (telnetd and login need it); the test is
// skipped (failed with CI set) when telnetd or socat is missing or not
// root.
func StartTelnetd(t testing.TB, cfg TelnetdConfig) *SessionServer {
	t.Helper()
	bin := Require(t, "telnetd")
	socat := Require(t, "socat")
	requireRoot(t, "telnetd")
	args := bin + " -h"
	if !cfg.Login {
		args += " -E /bin/sh"
	}
	return startSocat(t, "telnetd", socat, args)
}

// StartRlogind starts in.rlogind (rsh-redone-server) behind socat on
// 127.0.0.1 for the rest of the test. Clients must connect from a port
// below 1024 and be trusted by the remote user's ~/.rhosts (see
// TrustAllRhosts).
func StartRlogind(t testing.TB) *SessionServer {
	t.Helper()
	bin := Require(t, "in.rlogind")
	socat := Require(t, "socat")
	requireRoot(t, "in.rlogind")
	return startSocat(t, "in.rlogind", socat, bin)
}

func startSocat(t testing.TB, name, socat, exe string) *SessionServer {
	t.Helper()
	s := &SessionServer{}
	s.Process = StartOnFreePort(t, Options{Name: name + " (socat)"}, func(port int) (*exec.Cmd, string, error) {
		s.Port = port
		s.Addr = "127.0.0.1:" + strconv.Itoa(port)
		return exec.Command(socat, "TCP-LISTEN:"+strconv.Itoa(port)+",bind=127.0.0.1,fork,reuseaddr", "EXEC:"+exe+",nofork"), s.Addr, nil
	})
	return s
}

func requireRoot(t testing.TB, what string) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if InCI() {
		t.Fatalf("%s needs root, and CI is set", what)
	}
	t.Skipf("%s needs root: run the integration tests as root", what)
}

// The throwaway account the telnet (/bin/login) and rlogin tests log in
// as; EnsureUser creates it.
const (
	SessionUser     = "urlget-tn"
	SessionPassword = "tn-s3cret"
)

// EnsureUser creates a local account with a home and /bin/sh, and sets its
// password, unless it exists. Only root can.
func EnsureUser(name, password string) error {
	created, err := ensureAccount(name, "-m", "-s", "/bin/sh")
	if err != nil || !created {
		return err
	}
	cmd := exec.Command("chpasswd")
	cmd.Stdin = strings.NewReader(name + ":" + password + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("testserver: chpasswd: %v\n%s", err, out)
	}
	return nil
}

// ensureAccount creates the account name with useradd and these options
// unless it exists; created says whether this call made it.
func ensureAccount(name string, useradd ...string) (created bool, err error) {
	if _, err := user.Lookup(name); err == nil {
		return false, nil
	}
	if os.Geteuid() != 0 {
		return false, fmt.Errorf("testserver: user %s does not exist, and only root can create it", name)
	}
	if out, err := exec.Command("useradd", append(useradd, name)...).CombinedOutput(); err != nil {
		// Another test binary may have created it meanwhile.
		if _, lerr := user.Lookup(name); lerr == nil {
			return false, nil
		}
		return false, fmt.Errorf("testserver: useradd %s: %v\n%s", name, err, out)
	}
	return true, nil
}

// TrustAllRhosts writes "+ +" to name's ~/.rhosts (mode 600, owned by
// name): rlogind then lets anyone in as name without a password. For a
// throwaway test account only.
func TrustAllRhosts(name string) error {
	u, err := user.Lookup(name)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	p := filepath.Join(u.HomeDir, ".rhosts")
	if err := os.WriteFile(p, []byte("+ +\n"), 0o600); err != nil {
		return err
	}
	if err := os.Chmod(p, 0o600); err != nil {
		return err
	}
	return os.Chown(p, uid, gid)
}
