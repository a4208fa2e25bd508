//go:build linux

package testserver

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z'
}

// waitGone waits up to 2 s for pid to stop being alive (an orphan killed
// with its group is reaped by init asynchronously).
func waitGone(pid int) bool {
	for range 100 {
		if !alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func get(t *testing.T, url string) (int, http.Header, []byte) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	return resp.StatusCode, resp.Header, body
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNginxServesFiles(t *testing.T) {
	root := t.TempDir()
	bin := make([]byte, 3<<20+17)
	rand.Read(bin)
	writeFile(t, filepath.Join(root, "data.bin"), bin)
	writeFile(t, filepath.Join(root, "hello.txt"), []byte("Hello, nginx.\n"))
	writeFile(t, filepath.Join(root, "sub dir", "x.txt"), []byte("x\n"))

	addr := Nginx(t, root)
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		t.Errorf("addr = %q, want 127.0.0.1:PORT", addr)
	}

	code, h, body := get(t, "http://"+addr+"/data.bin")
	if code != 200 || !bytes.Equal(body, bin) {
		t.Errorf("data.bin: status %d, %d bytes, equal=%v; want 200 and the %d bytes written", code, len(body), bytes.Equal(body, bin), len(bin))
	}
	if ct := h.Get("Content-Type"); ct != "application/octet-stream" {
		t.Errorf("data.bin Content-Type = %q", ct)
	}
	code, h, body = get(t, "http://"+addr+"/hello.txt")
	if code != 200 || string(body) != "Hello, nginx.\n" || h.Get("Content-Type") != "text/plain" {
		t.Errorf("hello.txt: %d %q %q", code, h.Get("Content-Type"), body)
	}
	code, _, body = get(t, "http://"+addr+"/")
	if code != 200 || !bytes.Contains(body, []byte(`href="hello.txt"`)) || !bytes.Contains(body, []byte(`href="sub%20dir/"`)) {
		t.Errorf("autoindex of /: %d\n%s", code, body)
	}
	code, _, body = get(t, "http://"+addr+"/sub%20dir/x.txt")
	if code != 200 || string(body) != "x\n" {
		t.Errorf("sub dir/x.txt: %d %q", code, body)
	}
	if code, _, _ = get(t, "http://"+addr+"/missing"); code != 404 {
		t.Errorf("missing: status %d, want 404", code)
	}
}

func TestNginxExtraAndLogs(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "new.txt"), []byte("new\n"))
	s := StartNginx(t, NginxConfig{
		Root: root,
		Extra: `        location = /old { return 301 /new.txt; }
        location = /teapot { return 418 "short and stout\n"; }`,
	})
	code, h, _ := get(t, s.URL+"/old")
	if code != 301 || !strings.HasSuffix(h.Get("Location"), "/new.txt") {
		t.Errorf("/old: %d Location %q; want 301 to /new.txt", code, h.Get("Location"))
	}
	code, _, body := get(t, s.URL+"/teapot")
	if code != 418 || string(body) != "short and stout\n" {
		t.Errorf("/teapot: %d %q", code, body)
	}
	// nginx writes the access log line (unbuffered) just after the response
	// has gone out, so the client can be a little ahead of it.
	var lines []string
	for range 100 {
		var err error
		if lines, err = s.Requests(); err != nil {
			t.Fatal(err)
		}
		if len(lines) >= 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(lines) != 2 || !strings.Contains(lines[0], `"GET /old HTTP/1.1" 301`) || !strings.Contains(lines[1], `"GET /teapot HTTP/1.1" 418`) {
		t.Errorf("access log:\n%s", strings.Join(lines, "\n"))
	}
	for _, f := range []string{s.Conf, s.ErrorLog, filepath.Join(s.Dir, "nginx.pid")} {
		if !strings.HasPrefix(f, s.Dir) {
			t.Errorf("%s is outside the server's directory %s", f, s.Dir)
		}
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	if pid, err := os.ReadFile(filepath.Join(s.Dir, "nginx.pid")); err != nil || strings.TrimSpace(string(pid)) != strconv.Itoa(s.Process.PID) {
		t.Errorf("nginx.pid = %q (%v), want the PID we started, %d", pid, err, s.Process.PID)
	}
}

func TestNginxCleanupStopsIt(t *testing.T) {
	Require(t, "nginx")
	var pid int
	var addr string
	t.Run("server", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, "a.txt"), []byte("a"))
		s := StartNginx(t, NginxConfig{Root: root})
		pid, addr = s.Process.PID, s.Addr
		if !alive(pid) {
			t.Fatalf("nginx pid %d is not running", pid)
		}
		if g, ok := processGroup(pid); !ok || g != pid {
			t.Errorf("nginx's process group = %d, want its own, %d", g, pid)
		}
		if code, _, body := get(t, s.URL+"/a.txt"); code != 200 || string(body) != "a" {
			t.Errorf("a.txt: %d %q", code, body)
		}
	})
	if pid == 0 {
		t.Fatal("the subtest did not start nginx")
	}
	if alive(pid) {
		t.Errorf("nginx pid %d still runs after the test's cleanup", pid)
	}
	if m := groupMembers(pid); len(m) > 0 {
		t.Errorf("processes left in nginx's group %d: %v", pid, m)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still answers after cleanup", addr)
	}
}

func TestStopGraceful(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	addr := FreeAddr(t)
	p, err := Launch(helperCmd("listen", addr, "HELPER_CHILD_PIDFILE="+pidfile), addr, Options{Name: "helper"})
	if err != nil {
		t.Fatal(err)
	}
	child := readPid(t, pidfile)
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if p.Killed() || time.Since(start) > 2*time.Second {
		t.Errorf("a server that obeys SIGTERM was killed (%v) or took %v", p.Killed(), time.Since(start))
	}
	if alive(p.PID) {
		t.Errorf("pid %d alive after Stop", p.PID)
	}
	if !waitGone(child) {
		t.Errorf("the server's child %d, in its process group, outlived Stop", child)
	}
	if !strings.Contains(p.Output(), "helper: listening on "+addr) {
		t.Errorf("output not captured: %q", p.Output())
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	pidfile := filepath.Join(t.TempDir(), "child.pid")
	addr := FreeAddr(t)
	const grace = 300 * time.Millisecond
	p, err := Launch(helperCmd("ignore-term", addr, "HELPER_CHILD_PIDFILE="+pidfile), addr, Options{StopTimeout: grace})
	if err != nil {
		t.Fatal(err)
	}
	child := readPid(t, pidfile)
	start := time.Now()
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < grace {
		t.Errorf("Stop took %v, less than the grace period %v given to a server ignoring SIGTERM", took, grace)
	}
	if !p.Killed() {
		t.Error("Killed() = false for a server that ignores SIGTERM")
	}
	if alive(p.PID) || !waitGone(child) {
		t.Errorf("alive after Stop: server %d %v, child %d %v", p.PID, alive(p.PID), child, alive(child))
	}
	var ee *exec.ExitError
	if err := p.WaitErr(); !errors.As(err, &ee) || !strings.Contains(ee.String(), "killed") {
		t.Errorf("WaitErr = %v, want killed", err)
	}
}

func TestTerminateOption(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	addr := FreeAddr(t)
	called := false
	p, err := Launch(helperCmd("ignore-term", addr), addr, Options{
		Terminate: func(p *Process) error { called = true; return p.Cmd.Process.Kill() },
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if !called || p.Killed() {
		t.Errorf("Terminate called = %v, Killed = %v; want true, false", called, p.Killed())
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	for range 250 {
		if data, err := os.ReadFile(file); err == nil && len(data) > 0 {
			pid, err := strconv.Atoi(string(data))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

func TestLaunchEarlyExit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	addr := FreeAddr(t)
	logf := filepath.Join(t.TempDir(), "server.log")
	writeFile(t, logf, []byte("a line from the log file\n"))
	_, err := Launch(helperCmd("exit-early", addr), addr, Options{LogFiles: []string{logf}})
	if err == nil {
		t.Fatal("Launch succeeded for a server that exits at once")
	}
	for _, want := range []string{"exited before answering", "helper: boom, cannot start", "a line from the log file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if errors.Is(err, ErrAddrInUse) {
		t.Errorf("error is ErrAddrInUse: %v", err)
	}
}

func TestLaunchPortTaken(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	taken := l.Addr().String()

	// The server cannot bind: it says so and exits.
	_, err = Launch(helperCmd("listen", taken), taken, Options{})
	if !errors.Is(err, ErrAddrInUse) {
		t.Errorf("server failing to bind: err = %v, want ErrAddrInUse", err)
	}
	// The server does not listen at all, but someone else answers there: not
	// mistaken for the server being ready.
	_, err = Launch(helperCmd("no-listen", taken), taken, Options{StartTimeout: 500 * time.Millisecond})
	if !errors.Is(err, ErrAddrInUse) {
		t.Errorf("port answered by a stranger: err = %v, want ErrAddrInUse", err)
	}
	// LaunchOnFreePort gets the taken port first, then a free one.
	var calls []int
	p, err := LaunchOnFreePort(Options{}, func(port int) (*exec.Cmd, string, error) {
		calls = append(calls, port)
		a := fmt.Sprintf("127.0.0.1:%d", port)
		if len(calls) == 1 {
			a = taken
		}
		return helperCmd("listen", a), a, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if len(calls) != 2 || p.Addr == taken {
		t.Errorf("calls %v, addr %s; want a retry on a second port", calls, p.Addr)
	}
	c, err := net.Dial("tcp", p.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if b, _ := io.ReadAll(c); string(b) != "hello\n" {
		t.Errorf("server said %q", b)
	}
}

func TestPickPortDistinct(t *testing.T) {
	seen := map[int]bool{}
	for range 200 {
		p, err := PickPort()
		if err != nil {
			t.Fatal(err)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
}

func TestWaitPortTimeout(t *testing.T) {
	addr := FreeAddr(t) // nobody listens
	start := time.Now()
	if err := WaitPort(addr, 200*time.Millisecond); err == nil {
		t.Fatalf("WaitPort(%s) succeeded with nobody listening", addr)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 3*time.Second {
		t.Errorf("WaitPort returned after %v", d)
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 10}
	io.WriteString(b, "0123456789")
	if b.String() != "0123456789" {
		t.Errorf("%q", b.String())
	}
	io.WriteString(b, "abc")
	if got := b.String(); got != "[… 3 bytes dropped …]\n3456789abc" {
		t.Errorf("%q", got)
	}
}

func TestNginxConf(t *testing.T) {
	cfg := NginxConfig{Root: `/srv/a "b"`, Dir: "/tmp/d", Extra: "        location /x { }", HTTPExtra: "    limit_rate 1k;"}
	all := []string{"client_body", "proxy"}
	conf := NginxConf(cfg, 41234, true, all)
	for _, want := range []string{
		"daemon off;", "master_process off;", "user root root;",
		"listen 127.0.0.1:41234;", `root "/srv/a \"b\"";`, "autoindex on;",
		`pid "/tmp/d/nginx.pid";`, `error_log "/tmp/d/error.log" info;`, `access_log "/tmp/d/access.log" testserver;`,
		`client_body_temp_path "/tmp/d/tmp/client_body";`, `proxy_temp_path "/tmp/d/tmp/proxy";`,
		"location /x { }", "limit_rate 1k;",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("config lacks %q:\n%s", want, conf)
		}
	}
	if strings.Index(conf, "limit_rate") > strings.Index(conf, "server {") {
		t.Error("HTTPExtra is not before the server block")
	}
	if strings.Count(conf, "{") != strings.Count(conf, "}") {
		t.Errorf("unbalanced braces:\n%s", conf)
	}
	if conf := NginxConf(cfg, 1, false, all); strings.Contains(conf, "user ") {
		t.Errorf("non-root config has a user directive:\n%s", conf)
	}
}

func TestParseNginxV(t *testing.T) {
	i := parseNginxV("nginx version: nginx/1.22.1\nconfigure arguments: --with-debug")
	if !i.hasE || strings.Join(i.tempDirs, ",") != "client_body,proxy,fastcgi,uwsgi,scgi" {
		t.Errorf("1.22.1: %+v", i)
	}
	i = parseNginxV("nginx version: nginx/1.19.4\nconfigure arguments: --without-http_uwsgi_module --without-http_scgi_module")
	if i.hasE || strings.Join(i.tempDirs, ",") != "client_body,proxy,fastcgi" {
		t.Errorf("1.19.4: %+v", i)
	}
	if i := parseNginxV("nginx version: nginx/1.19.5"); !i.hasE {
		t.Errorf("1.19.5: %+v", i)
	}
}

func TestLaunchNginxRejects(t *testing.T) {
	if _, err := LaunchNginx(NginxConfig{}); err == nil {
		t.Error("no root: no error")
	}
	if _, err := LaunchNginx(NginxConfig{Root: filepath.Join(t.TempDir(), "nope")}); err == nil {
		t.Error("missing root: no error")
	}
}
