package testserver

import (
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// NginxConfig describes an nginx test server.
type NginxConfig struct {
	// Root is the document root (required). Directories get an autoindex.
	Root string
	// Extra is inserted into the server block: locations and the like, e.g.
	//	location = /old { return 301 /new.txt; }
	//	location /slow/ { limit_rate 64k; }
	Extra string
	// HTTPExtra is inserted into the http block, before the server block.
	HTTPExtra string
	// Protected, when set, is a location prefix ("/private/") whose
	// files want a Basic login (auth_basic, realm NginxRealm): NginxUser
	// with NginxPassword, from an htpasswd file written in Dir.
	Protected string
	// Dir holds the generated config, pid file, logs and temp directories.
	// StartNginx defaults it to t.TempDir(); LaunchNginx to a new temporary
	// directory that Stop removes.
	Dir string
	// Binary is the nginx program (default: "nginx" looked up with LookPath).
	Binary string
}

// NginxServer is a running nginx.
type NginxServer struct {
	Addr      string // 127.0.0.1:PORT
	URL       string // http://127.0.0.1:PORT
	Dir       string // NginxConfig.Dir
	Conf      string // the generated nginx.conf
	ErrorLog  string
	AccessLog string // one line per request, format: see AccessLogFormat
	Process   *Process

	removeDir bool
}

// The login NginxConfig.Protected wants.
const (
	NginxUser     = "webuser"
	NginxPassword = "w3b secret"
	NginxRealm    = "Protected area"
)

// AccessLogFormat is the access log's line format: client address, request
// line, status, body bytes sent, Range header and User-Agent.
const AccessLogFormat = `$remote_addr "$request" $status $body_bytes_sent "$http_range" "$http_user_agent"`

// Nginx starts nginx serving root on 127.0.0.1 for the rest of the test and
// returns its address ("127.0.0.1:PORT"). The test is skipped (failed with
// CI set) if nginx is not installed.
func Nginx(t testing.TB, root string) (addr string) {
	t.Helper()
	return StartNginx(t, NginxConfig{Root: root}).Addr
}

// StartNginx is Nginx with a full config; see NginxConfig.
func StartNginx(t testing.TB, cfg NginxConfig) *NginxServer {
	t.Helper()
	if cfg.Binary == "" {
		cfg.Binary = Require(t, "nginx")
	}
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	s, err := LaunchNginx(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Process.cleanup(t) })
	return s
}

// LaunchNginx starts nginx outside a test; the caller must call Stop.
func LaunchNginx(cfg NginxConfig) (*NginxServer, error) {
	if cfg.Root == "" {
		return nil, errors.New("testserver: NginxConfig.Root is empty")
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("testserver: nginx root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("testserver: nginx root %s is not a directory", root)
	}
	cfg.Root = root
	if strings.Contains(root, "$") || strings.Contains(cfg.Dir, "$") {
		return nil, fmt.Errorf("testserver: nginx cannot take a path with '$' (it would read a variable): %q, %q", root, cfg.Dir)
	}
	if cfg.Binary == "" {
		cfg.Binary = "nginx"
	}
	bin, err := LookPath(cfg.Binary)
	if err != nil {
		return nil, fmt.Errorf("testserver: %w", err)
	}
	info, err := nginxBuildInfo(bin)
	if err != nil {
		return nil, err
	}
	s := &NginxServer{}
	if cfg.Dir == "" {
		if cfg.Dir, err = os.MkdirTemp("", "testserver-nginx-"); err != nil {
			return nil, err
		}
		s.removeDir = true
	}
	if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
		return nil, err
	}
	s.Dir = cfg.Dir
	s.Conf = filepath.Join(cfg.Dir, "nginx.conf")
	s.ErrorLog = filepath.Join(cfg.Dir, "error.log")
	s.AccessLog = filepath.Join(cfg.Dir, "access.log")
	for _, d := range info.tempDirs {
		if err := os.MkdirAll(filepath.Join(cfg.Dir, "tmp", d), 0o700); err != nil {
			return nil, err
		}
	}
	if cfg.Protected != "" {
		// {SHA}: base64 of the password's SHA-1, one of the htpasswd
		// schemes nginx reads.
		sum := sha1.Sum([]byte(NginxPassword))
		line := NginxUser + ":{SHA}" + base64.StdEncoding.EncodeToString(sum[:]) + "\n"
		if err := os.WriteFile(filepath.Join(cfg.Dir, "htpasswd"), []byte(line), 0o644); err != nil {
			return nil, err
		}
	}
	opt := Options{Name: "nginx", LogFiles: []string{s.ErrorLog}}
	p, err := LaunchOnFreePort(opt, func(port int) (*exec.Cmd, string, error) {
		s.Addr = fmt.Sprintf("127.0.0.1:%d", port)
		conf := NginxConf(cfg, port, os.Geteuid() == 0, info.tempDirs)
		if err := os.WriteFile(s.Conf, []byte(conf), 0o600); err != nil {
			return nil, "", err
		}
		args := []string{"-p", cfg.Dir + "/", "-c", s.Conf}
		if info.hasE {
			args = append(args, "-e", s.ErrorLog)
		}
		return exec.Command(bin, args...), s.Addr, nil
	})
	if err != nil {
		if s.removeDir {
			os.RemoveAll(cfg.Dir)
		}
		return nil, err
	}
	s.Process = p
	s.URL = "http://" + s.Addr
	return s, nil
}

// Stop stops nginx (see Process.Stop), and removes Dir if LaunchNginx made it.
func (s *NginxServer) Stop() error {
	err := s.Process.Stop()
	if s.removeDir {
		os.RemoveAll(s.Dir)
	}
	return err
}

// Requests returns the access log's lines so far. nginx writes a request's
// line just after sending the response, so a client may have to poll.
func (s *NginxServer) Requests() ([]string, error) {
	data, err := os.ReadFile(s.AccessLog)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"), nil
}

// NginxConf returns the nginx.conf for cfg listening on 127.0.0.1:port.
// nginx runs as one foreground process (daemon off, master_process off), so
// that its PID is the whole server; as root it is told "user root", so it
// can read any root. tempDirs are the *_temp_path directories to set under
// cfg.Dir/tmp.
func NginxConf(cfg NginxConfig, port int, asRoot bool, tempDirs []string) string {
	q := nginxQuote
	dir := cfg.Dir
	var b strings.Builder
	fmt.Fprintf(&b, "# generated by github.com/urlget/urlget/internal/testserver\n")
	fmt.Fprintf(&b, "daemon off;\nmaster_process off;\nworker_processes 1;\n")
	if asRoot {
		fmt.Fprintf(&b, "user root root;\n")
	}
	fmt.Fprintf(&b, "pid %s;\n", q(filepath.Join(dir, "nginx.pid")))
	fmt.Fprintf(&b, "error_log %s info;\n", q(filepath.Join(dir, "error.log")))
	fmt.Fprintf(&b, "events {\n    worker_connections 1024;\n}\n")
	fmt.Fprintf(&b, "http {\n")
	fmt.Fprintf(&b, "    types {\n")
	for _, t := range mimeTypes {
		fmt.Fprintf(&b, "        %s;\n", t)
	}
	fmt.Fprintf(&b, "    }\n    default_type application/octet-stream;\n")
	fmt.Fprintf(&b, "    log_format testserver '%s';\n", AccessLogFormat)
	fmt.Fprintf(&b, "    access_log %s testserver;\n", q(filepath.Join(dir, "access.log")))
	for _, d := range tempDirs {
		fmt.Fprintf(&b, "    %s_temp_path %s;\n", d, q(filepath.Join(dir, "tmp", d)))
	}
	fmt.Fprintf(&b, "    sendfile on;\n    tcp_nopush on;\n    keepalive_timeout 10s;\n")
	if cfg.HTTPExtra != "" {
		fmt.Fprintf(&b, "%s\n", cfg.HTTPExtra)
	}
	fmt.Fprintf(&b, "    server {\n")
	fmt.Fprintf(&b, "        listen 127.0.0.1:%d;\n", port)
	fmt.Fprintf(&b, "        server_name localhost;\n")
	fmt.Fprintf(&b, "        root %s;\n", q(cfg.Root))
	fmt.Fprintf(&b, "        autoindex on;\n")
	if cfg.Protected != "" {
		fmt.Fprintf(&b, "        location %s {\n            auth_basic %s;\n            auth_basic_user_file %s;\n        }\n",
			q(cfg.Protected), q(NginxRealm), q(filepath.Join(dir, "htpasswd")))
	}
	if cfg.Extra != "" {
		fmt.Fprintf(&b, "%s\n", cfg.Extra)
	}
	fmt.Fprintf(&b, "    }\n}\n")
	return b.String()
}

// mimeTypes is a small fixed types map, so that tests do not depend on the
// system's /etc/nginx/mime.types.
var mimeTypes = []string{
	"text/html html htm",
	"text/plain txt",
	"text/css css",
	"application/json json",
	"image/png png",
	"image/gif gif",
	"image/jpeg jpg jpeg",
	"application/gzip gz",
	"application/x-tar tar",
	"application/zip zip",
}

// nginxQuote quotes a string for nginx.conf. A '$' cannot be escaped
// (LaunchNginx refuses paths with one).
func nginxQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

type nginxInfo struct {
	hasE     bool     // -e (error log at startup) exists: nginx ≥ 1.19.5
	tempDirs []string // client_body and the proxy modules built in
}

var (
	nginxInfoMu    sync.Mutex
	nginxInfoCache = map[string]nginxInfo{}
)

// nginxBuildInfo reads `nginx -V` once per binary.
func nginxBuildInfo(bin string) (nginxInfo, error) {
	nginxInfoMu.Lock()
	defer nginxInfoMu.Unlock()
	if info, ok := nginxInfoCache[bin]; ok {
		return info, nil
	}
	out, err := exec.Command(bin, "-V").CombinedOutput()
	if err != nil {
		return nginxInfo{}, fmt.Errorf("testserver: %s -V: %v\n%s", bin, err, out)
	}
	info := parseNginxV(string(out))
	nginxInfoCache[bin] = info
	return info, nil
}

var nginxVersionRE = regexp.MustCompile(`nginx/(\d+)\.(\d+)\.(\d+)`)

// parseNginxV reads the version and the modules left out from `nginx -V`.
func parseNginxV(v string) nginxInfo {
	var info nginxInfo
	if m := nginxVersionRE.FindStringSubmatch(v); m != nil {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		c, _ := strconv.Atoi(m[3])
		info.hasE = a > 1 || a == 1 && (b > 19 || b == 19 && c >= 5)
	}
	info.tempDirs = []string{"client_body"}
	for _, m := range []string{"proxy", "fastcgi", "uwsgi", "scgi"} {
		if !strings.Contains(v, "--without-http_"+m+"_module") {
			info.tempDirs = append(info.tempDirs, m)
		}
	}
	return info
}
