package testserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// GopherConfig describes a gopher test server: pygopherd or gophernicus.
type GopherConfig struct {
	// Root is the document root. When empty, Dir/root is made and filled
	// with GopherFixtures.
	Root string
	// Dir holds the generated config, pid file and wrapper script.
	// StartPygopherd and StartGophernicus default it to t.TempDir();
	// the Launch functions to a new temporary directory that Stop removes.
	Dir string
	// TLS serves gophers (gopher inside TLS) with CertFile and KeyFile
	// (PEM): pygopherd then answers both plain and TLS on the same port (it
	// looks at the first byte); gophernicus, which has no TLS of its own,
	// gets socat's OPENSSL-LISTEN in front of it and answers only TLS.
	TLS      bool
	CertFile string
	KeyFile  string
	// Admin is pygopherd's Gopher+ administrator (default "Fixture Admin
	// <admin@example.net>").
	Admin string
}

// GopherServer is a running pygopherd or gophernicus.
type GopherServer struct {
	Kind    string // "pygopherd" or "gophernicus"
	Host    string // "127.0.0.1"
	Port    int
	Addr    string // "127.0.0.1:PORT"
	Root    string
	Dir     string
	TLS     bool
	Process *Process

	removeDir bool
}

// URL returns scheme://127.0.0.1:PORT/ followed by rest ("gopher" or, for a
// TLS server, "gophers").
func (s *GopherServer) URL(rest string) string {
	scheme := "gopher"
	if s.TLS && s.Kind == "gophernicus" {
		scheme = "gophers"
	}
	return scheme + "://" + s.Addr + "/" + rest
}

// Stop stops the server (see Process.Stop) and removes Dir if a Launch
// function made it.
func (s *GopherServer) Stop() error {
	err := s.Process.Stop()
	if s.removeDir {
		os.RemoveAll(s.Dir)
	}
	return err
}

// The fixtures GopherFixtures writes, for tests to compare with.
const (
	GopherHello         = "Hello, gopher world!\nSecond line.\n"
	GopherHelloAbstract = "A short abstract for hello.txt"
	// GopherDots has a lone "." line (a terminator to a naive client), a
	// line beginning with ".." (dot-stuffed to a naive client) and one
	// beginning with ".".
	GopherDots   = "first line\n.\n..two dots\n.leading dot\nlast line\n"
	GopherSpaces = "a file whose name has spaces\n"
	GopherOne    = "one\n"
	GopherTwo    = "two\n"
	GopherAbout  = "<html><head><title>About</title></head><body><p>About this gopher server.</p></body></html>\n"
	// GopherAsk is the +ASK form of form.txt (pygopherd serves it from
	// form.txt.ask).
	GopherAsk  = "Ask: Your name?\tAnonymous\nChoose: Favourite colour?\tred\tgreen\tblue\n"
	GopherForm = "A form: fetch it with ? to be asked.\n"
	// GopherMenu is menu/gophermap, a Bucktooth-style map (selectors
	// without host and port get the server's own).
	GopherMenu = "iWelcome to the fixture menu\tfake\t(NULL)\t0\n" +
		"0Hello\t/hello.txt\n" +
		"1Docs\t/docs\n" +
		"7Search the docs\t/cgi-bin/search.cgi\n" +
		"9Binary\t/binary.bin\n" +
		"hExample\tURL:http://example.com/\n"
)

// GopherBinary is binary.bin: the bytes 0 to 255, four times.
func GopherBinary() []byte {
	b := make([]byte, 1024)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// gopherSearchCGI is cgi-bin/search.cgi, the type 7 search: both servers
// run it with the query in $SEARCHREQUEST (gophernicus also sets
// $QUERY_STRING). It lists the docs whose path contains the query.
const gopherSearchCGI = `#!/bin/sh
q=${SEARCHREQUEST-$QUERY_STRING}
host=${SERVER_NAME:-127.0.0.1}
port=${SERVER_PORT:-70}
printf 'iSearch results for "%s"\tfake\t(NULL)\t0\r\n' "$q"
for f in docs/one.txt docs/two.txt; do
	case "$f" in
	*"$q"*) printf '0%s\t/%s\t%s\t%s\r\n' "$f" "$f" "$host" "$port" ;;
	esac
done
printf '.\r\n'
`

// GopherFixtures writes the standard gopher fixtures into root (made if
// needed), readable by everyone (gophernicus runs as nobody):
//
//	hello.txt, hello.txt.abstract   GopherHello; pygopherd's +ABSTRACT
//	about.html                      GopherAbout (type h)
//	binary.bin                      GopherBinary()
//	dots.txt                        GopherDots
//	name with spaces.txt            GopherSpaces
//	docs/one.txt, docs/two.txt      GopherOne, GopherTwo
//	menu/gophermap                  GopherMenu: i, 0, 1, 7, 9 and h URL: items
//	cgi-bin/search.cgi              the type 7 search
//	form.txt, form.txt.ask          GopherForm; pygopherd's +ASK form GopherAsk
func GopherFixtures(root string) error {
	files := []struct {
		name string
		data string
		mode os.FileMode
	}{
		{"hello.txt", GopherHello, 0o644},
		{"hello.txt.abstract", GopherHelloAbstract + "\n", 0o644},
		{"about.html", GopherAbout, 0o644},
		{"binary.bin", string(GopherBinary()), 0o644},
		{"dots.txt", GopherDots, 0o644},
		{"name with spaces.txt", GopherSpaces, 0o644},
		{"docs/one.txt", GopherOne, 0o644},
		{"docs/two.txt", GopherTwo, 0o644},
		{"menu/gophermap", GopherMenu, 0o644},
		{"cgi-bin/search.cgi", gopherSearchCGI, 0o755},
		{"form.txt", GopherForm, 0o644},
		{"form.txt.ask", GopherAsk, 0o644},
	}
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.data), f.mode); err != nil {
			return err
		}
		if err := os.Chmod(p, f.mode); err != nil { // whatever the umask
			return err
		}
	}
	return filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			err = os.Chmod(p, 0o755)
		}
		return err
	})
}

// Pygopherd starts pygopherd with the standard fixtures for the rest of the
// test. The test is skipped (failed with CI set) if pygopherd is missing.
func Pygopherd(t testing.TB) *GopherServer {
	t.Helper()
	return StartPygopherd(t, GopherConfig{})
}

// Gophernicus starts gophernicus with the standard fixtures for the rest of
// the test, under socat as nobody. The test is skipped (failed with CI set)
// if gophernicus or socat is missing.
func Gophernicus(t testing.TB) *GopherServer {
	t.Helper()
	return StartGophernicus(t, GopherConfig{})
}

// StartPygopherd is Pygopherd with a config; see GopherConfig.
func StartPygopherd(t testing.TB, cfg GopherConfig) *GopherServer {
	t.Helper()
	Require(t, "pygopherd")
	pyTest(t)
	cfg.Dir = testDir(t, cfg.Dir)
	s, err := LaunchPygopherd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Process.cleanup(t) })
	return s
}

// StartGophernicus is Gophernicus with a config; see GopherConfig.
func StartGophernicus(t testing.TB, cfg GopherConfig) *GopherServer {
	t.Helper()
	Require(t, "gophernicus")
	Require(t, "socat")
	cfg.Dir = testDir(t, cfg.Dir)
	s, err := LaunchGophernicus(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Process.cleanup(t) })
	return s
}

// pyTest fails or skips when /usr/bin/python3 is missing (pygopherd's
// Debian script runs with it).
func pyTest(t testing.TB) {
	t.Helper()
	Require(t, "/usr/bin/python3")
}

// testDir returns dir, or a new t.TempDir(), opened up so that a server
// running as nobody can reach files in it: t.TempDir's parent is private
// (0700), and so would be a path through it.
func testDir(t testing.TB, dir string) string {
	t.Helper()
	if dir != "" {
		return dir
	}
	dir = t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// prepareGopher fills in Dir and Root, writing the fixtures when Root is
// empty.
func prepareGopher(kind string, cfg *GopherConfig, s *GopherServer) error {
	var err error
	if cfg.Dir == "" {
		if cfg.Dir, err = os.MkdirTemp("", "testserver-"+kind+"-"); err != nil {
			return err
		}
		if err := os.Chmod(cfg.Dir, 0o755); err != nil {
			os.RemoveAll(cfg.Dir)
			return err
		}
		s.removeDir = true
	}
	if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
		return err
	}
	s.Dir = cfg.Dir
	if cfg.Root == "" {
		cfg.Root = filepath.Join(cfg.Dir, "root")
		if err := GopherFixtures(cfg.Root); err != nil {
			return fmt.Errorf("testserver: gopher fixtures: %w", err)
		}
	}
	if cfg.Root, err = filepath.Abs(cfg.Root); err != nil {
		return err
	}
	if fi, err := os.Stat(cfg.Root); err != nil {
		return fmt.Errorf("testserver: %s root: %w", kind, err)
	} else if !fi.IsDir() {
		return fmt.Errorf("testserver: %s root %s is not a directory", kind, cfg.Root)
	}
	s.Root = cfg.Root
	if cfg.TLS && (cfg.CertFile == "" || cfg.KeyFile == "") {
		return errors.New("testserver: GopherConfig.TLS needs CertFile and KeyFile")
	}
	s.TLS = cfg.TLS
	s.Kind = kind
	s.Host = "127.0.0.1"
	return nil
}

// LaunchPygopherd starts pygopherd outside a test; the caller must call
// Stop. It runs in the foreground ("detach = no") with a generated config
// (based on Debian's defaults) in Dir, logging to its stdout, as nobody,
// without chroot, with scriptexec.ExecHandler added so that an executable
// file is a type 7 search, and "servername = 127.0.0.1" so that menus name
// the address it listens on.
func LaunchPygopherd(cfg GopherConfig) (*GopherServer, error) {
	s := &GopherServer{}
	if err := prepareGopher("pygopherd", &cfg, s); err != nil {
		return nil, err
	}
	bin, err := LookPath("pygopherd")
	if err != nil {
		return nil, fmt.Errorf("testserver: %w", err)
	}
	py, err := LookPath("/usr/bin/python3")
	if err != nil {
		return nil, fmt.Errorf("testserver: %w", err)
	}
	conf := filepath.Join(cfg.Dir, "pygopherd.conf")
	p, err := LaunchOnFreePort(Options{Name: "pygopherd"}, func(port int) (*exec.Cmd, string, error) {
		s.Port = port
		s.Addr = "127.0.0.1:" + strconv.Itoa(port)
		if err := os.WriteFile(conf, []byte(pygopherdConf(cfg, port, os.Geteuid() == 0)), 0o644); err != nil {
			return nil, "", err
		}
		// The Debian script is Python run by /usr/bin/python3; the python3
		// on PATH may be another one without pygopherd's modules.
		return exec.Command(py, bin, conf), s.Addr, nil
	})
	if err != nil {
		if s.removeDir {
			os.RemoveAll(cfg.Dir)
		}
		return nil, err
	}
	s.Process = p
	return s, nil
}

// pygopherdConf is the configuration: Debian's pygopherd.conf defaults
// with the settings a test needs.
func pygopherdConf(cfg GopherConfig, port int, root bool) string {
	admin := cfg.Admin
	if admin == "" {
		admin = "Fixture Admin <admin@example.net>"
	}
	var sec strings.Builder
	if root {
		sec.WriteString("setuid = nobody\nsetgid = nogroup\n")
	}
	if cfg.TLS {
		fmt.Fprintf(&sec, "enable_tls = yes\ntls_certfile = %s\ntls_keyfile = %s\n", cfg.CertFile, cfg.KeyFile)
	} else {
		sec.WriteString("enable_tls = no\n")
	}
	return `[pygopherd]
interface = 127.0.0.1
port = ` + strconv.Itoa(port) + `
servername = 127.0.0.1
detach = no
pidfile = ` + filepath.Join(cfg.Dir, "pygopherd.pid") + `
servertype = ForkingTCPServer
timeout = 60
abstract_headers = on
abstract_entries = always
tracebacks = yes
usechroot = no
` + sec.String() + `root = ` + cfg.Root + `
mimetypes = ./conf/mime.types:/etc/pygopherd/mime.types:/etc/mime.types
encoding = list(mimetypes.encodings_map.items()) + \
          list({'.bz2' : 'bzip2',
           '.tal': 'tal.TALFileHandler'
          }.items())

[logger]
logmethod = file
priority = LOG_INFO
facility = LOG_LOCAL3

[GopherEntry]
defaultmimetype = text/plain
mapping = [['text/html', 'h'],
        ['text/.+', '0'],
        ['application/mac-binhex40', '4'],
        ['audio/.+', 's'],
        ['image/gif', 'g'],
        ['image/.+', 'I'],
        ['application/gopher-menu', '1'],
        ['application/gopher\\+-menu', '1'],
        ['multipart/mixed', 'M'],
        ['application/.+', '9'],
        ['.*', '0']
        ]
eaexts = {'.abstract' : 'ABSTRACT',
          '.keywords' : 'KEYWORDS',
          '.ask' : 'ASK',
          '.3d' : '3D'}

[handlers.HandlerMultiplexer]
handlers = [scriptexec.ExecHandler,
            url.HTMLURLHandler, gophermap.BuckGophermapHandler,
            mbox.MaildirFolderHandler, mbox.MaildirMessageHandler,
            UMN.UMNDirHandler, html.HTMLFileTitleHandler,
            mbox.MBoxMessageHandler, mbox.MBoxFolderHandler,
            file.FileHandler]

[handlers.file.CompressedFileHandler]
decompressors = {}
decompresspatt = .*

[handlers.dir.DirHandler]
ignorepatt = /.cap$|/lost\+found$|/lib$|/bin$|/etc$|/dev$|~$|/\.cache|/\.forward$|/\.message$|/\.hushlogin$|/\.kermrc$|/\.notar$|/\.where$|/veronica.ctl$|/robots.txt$|/nohup.out$|/gophermap$|\.abstract$|\.keyboards$|\.ask|\.3d$|~$
cachetime = 0
cachefile = .cache.pygopherd.dir

[handlers.UMN.UMNDirHandler]
extstrip = nonencoded

[handlers.ZIP.ZIPHandler]
enabled = false
pattern = \.zip$

[protocols.ProtocolMultiplexer]
protocols = [wap.WAPProtocol, gemini.GeminiProtocol,
             http.HTTPProtocol, http.HTTPSProtocol,
             spartan.SpartanProtocol,
             gopherp.GopherPlusProtocol, gopherp.SecureGopherPlusProtocol,
             rfc1436.GopherProtocol, rfc1436.SecureGopherProtocol]

[protocols.gopherp.GopherPlusProtocol]
admin = ` + admin + `

[protocols.http.HTTPProtocol]
iconmapping = {'h' : 'text.gif',
            '0' : 'text.gif',
            '4' : 'binhex.gif',
            's' : 'sound1.gif',
            'g' : 'image3.gif',
            'I' : 'image3.gif',
            'M' : 'text.gif',
            '9' : 'binary.gif',
            '1' : 'folder.gif',
            '7' : 'folder.gif',
            'i' : 'blank.gif'}
pagetopper = Welcome to Gopherspace!

[protocols.wap.WAPProtocol]
waptop = /wap

[protocols.gemini.GeminiProtocol]
footer = => https://www.github.com/michael-lazar/pygopherd Generated by PyGopherd

[protocols.gemini.SpartanProtocol]
footer = => https://www.github.com/michael-lazar/pygopherd Generated by PyGopherd
`
}

// LaunchGophernicus starts gophernicus outside a test; the caller must call
// Stop. gophernicus is an inetd-style server: socat listens on 127.0.0.1
// and runs it for every connection (as nobody when run as root: gophernicus
// refuses to run as root), through a wrapper script in Dir. With TLS, socat
// terminates TLS (OPENSSL-LISTEN) in front of it.
func LaunchGophernicus(cfg GopherConfig) (*GopherServer, error) {
	s := &GopherServer{}
	if err := prepareGopher("gophernicus", &cfg, s); err != nil {
		return nil, err
	}
	bin, err := LookPath("gophernicus")
	if err != nil {
		return nil, fmt.Errorf("testserver: %w", err)
	}
	socat, err := LookPath("socat")
	if err != nil {
		return nil, fmt.Errorf("testserver: %w", err)
	}
	for _, p := range []string{cfg.Dir, cfg.CertFile, cfg.KeyFile} {
		// socat's address syntax gives these bytes a meaning.
		if strings.ContainsAny(p, ",:!\"' \\{}[]%") {
			return nil, fmt.Errorf("testserver: gophernicus: socat cannot take the path %q", p)
		}
	}
	wrapper := filepath.Join(cfg.Dir, "gophernicus.sh")
	p, err := LaunchOnFreePort(Options{Name: "gophernicus (socat)"}, func(port int) (*exec.Cmd, string, error) {
		s.Port = port
		s.Addr = "127.0.0.1:" + strconv.Itoa(port)
		// -nm: no shared memory. gophernicus keeps its sessions in one
		// System V segment for the whole machine, and once a client has
		// made 4,096 requests or moved 4 GiB within 30 minutes (a few
		// runs of the suite from 127.0.0.1 do), it sleeps 4 s before every
		// reply: a test run must not depend on the runs before it.
		script := "#!/bin/sh\nexec " + shQuote(bin) + " -h 127.0.0.1 -p " + strconv.Itoa(port) +
			" -r " + shQuote(cfg.Root) + " -nv -ns -nm\n"
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			return nil, "", err
		}
		if err := os.Chmod(wrapper, 0o755); err != nil {
			return nil, "", err
		}
		listen := "TCP-LISTEN:" + strconv.Itoa(port) + ",bind=127.0.0.1,fork,reuseaddr"
		if cfg.TLS {
			listen = "OPENSSL-LISTEN:" + strconv.Itoa(port) + ",bind=127.0.0.1,fork,reuseaddr,verify=0,cert=" +
				cfg.CertFile + ",key=" + cfg.KeyFile
		}
		exe := "EXEC:" + wrapper
		if !cfg.TLS {
			// The socket itself becomes gophernicus's stdin and stdout;
			// with TLS socat has to relay (nofork is refused there).
			exe += ",nofork"
		}
		if os.Geteuid() == 0 {
			exe += ",su=nobody"
		}
		return exec.Command(socat, listen, exe), s.Addr, nil
	})
	if err != nil {
		if s.removeDir {
			os.RemoveAll(cfg.Dir)
		}
		return nil, err
	}
	s.Process = p
	return s, nil
}

// shQuote quotes s for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
