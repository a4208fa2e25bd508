// Command benchtool sets up the mirror benchmarks (bench/mirror-ftp.sh,
// bench/mirror-gopher.sh, bench/mirror-http.sh): it writes the trees, runs the servers and the
// delaying proxy in the foreground, and stops what it started (by PID) on
// SIGINT or SIGTERM, or when its parent goes away.
//
//	benchtool ftptree -root DIR [-files 1000] [-dirs 50] [-mib 31]
//	benchtool gophertree -root DIR [-items 2000] [-menus 50] [-size 1024]
//	benchtool vsftpd -root ANON -dir STATE -pasv LOW-HIGH [-pasv-address IP]
//	benchtool gophernicus -root DIR -dir STATE [-host IP]
//	benchtool nginx -root DIR -dir STATE
//	benchtool delayproxy -delay 20ms LISTEN=TARGET...
//
// The servers print "URL …", "PORT n" and "PID n" once they answer; the
// proxy prints "READY". Everything listens on loopback addresses only.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var code int
	switch os.Args[1] {
	case "ftptree":
		code = ftpTree(os.Args[2:])
	case "gophertree":
		code = gopherTree(os.Args[2:])
	case "vsftpd":
		code = vsftpd(os.Args[2:])
	case "gophernicus":
		code = gophernicus(os.Args[2:])
	case "nginx":
		code = nginx(os.Args[2:])
	case "delayproxy":
		code = delayProxy(os.Args[2:])
	default:
		usage()
	}
	os.Exit(code)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: benchtool ftptree|gophertree|vsftpd|gophernicus|nginx|delayproxy [flags] (see the source)")
	os.Exit(2)
}

func fail(format string, a ...any) int {
	fmt.Fprintf(os.Stderr, "benchtool: "+format+"\n", a...)
	return 1
}

// writeFile writes n pseudo-random bytes (seeded: the same tree every
// time), readable by everyone, with a fixed modification time.
func writeFile(p string, n int, rng *rand.Rand, mtime time.Time) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return err
	}
	return os.Chtimes(p, mtime, mtime)
}

// ftpTree writes files in dirs directories (10 top directories, the rest
// below them), sizes spread around the mean so that they add up to about
// mib MiB.
func ftpTree(args []string) int {
	fs := flag.NewFlagSet("ftptree", flag.ExitOnError)
	root := fs.String("root", "", "directory to fill")
	files := fs.Int("files", 1000, "number of files")
	dirs := fs.Int("dirs", 50, "number of directories")
	mib := fs.Float64("mib", 31, "total size in MiB")
	fs.Parse(args)
	if *root == "" || *files < 1 || *dirs < 1 {
		return fail("ftptree: -root, -files and -dirs are needed")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var paths []string
	tops := min(10, *dirs)
	for i := 0; i < *dirs; i++ {
		if i < tops {
			paths = append(paths, fmt.Sprintf("d%02d", i))
		} else {
			paths = append(paths, fmt.Sprintf("d%02d/s%02d", i%tops, i))
		}
	}
	mean := *mib * (1 << 20) / float64(*files)
	total := 0
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for i := 0; i < *files; i++ {
		n := int(mean * (0.2 + 1.6*rng.Float64()))
		p := filepath.Join(*root, paths[i%len(paths)], fmt.Sprintf("f%04d.bin", i))
		if err := writeFile(p, n, rng, mtime); err != nil {
			return fail("%v", err)
		}
		total += n
	}
	fmt.Printf("FILES %d\nDIRS %d\nBYTES %d\n", *files, len(paths), total)
	return 0
}

// gopherTree writes menus directories of items/menus files each (the
// server makes a menu of each directory).
func gopherTree(args []string) int {
	fs := flag.NewFlagSet("gophertree", flag.ExitOnError)
	root := fs.String("root", "", "directory to fill")
	items := fs.Int("items", 2000, "number of documents")
	menus := fs.Int("menus", 50, "number of menus (directories)")
	size := fs.Int("size", 1024, "bytes per document")
	fs.Parse(args)
	if *root == "" || *items < 1 || *menus < 1 {
		return fail("gophertree: -root, -items and -menus are needed")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for i := 0; i < *items; i++ {
		p := filepath.Join(*root, fmt.Sprintf("m%02d", i%*menus), fmt.Sprintf("i%04d.bin", i))
		if err := writeFile(p, *size, rng, mtime); err != nil {
			return fail("%v", err)
		}
	}
	fmt.Printf("ITEMS %d\nMENUS %d\n", *items, *menus)
	return 0
}

// openUp makes dir and its parents searchable by the servers' unprivileged
// users.
func openUp(dir string) {
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			os.Chmod(d, fi.Mode().Perm()|0o005)
		}
	}
}

// wait runs until a signal, the parent's end, or the server's exit.
func wait(p *testserver.Process) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	parent := os.Getppid()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-sig:
			p.Stop()
			return 0
		case <-tick.C:
			if p.Exited() {
				return fail("%s exited by itself\n%s", p.Name, p.Logs())
			}
			if os.Getppid() != parent {
				p.Stop()
				return 0
			}
		}
	}
}

// vsftpd runs vsftpd serving root anonymously with a fixed passive port
// range, announcing pasv-address in PASV replies (the proxy's address).
func vsftpd(args []string) int {
	fs := flag.NewFlagSet("vsftpd", flag.ExitOnError)
	root := fs.String("root", "", "anonymous root")
	dir := fs.String("dir", "", "state directory (config, logs)")
	pasv := fs.String("pasv", "", "passive port range LOW-HIGH")
	pasvAddr := fs.String("pasv-address", "", "address for PASV replies")
	fs.Parse(args)
	lo, hi, ok := parseRange(*pasv)
	if *root == "" || *dir == "" || !ok {
		return fail("vsftpd: -root, -dir and -pasv LOW-HIGH are needed")
	}
	if os.Geteuid() != 0 {
		return fail("vsftpd needs root")
	}
	if err := testserver.EnsureFTPUser(); err != nil {
		return fail("%v", err)
	}
	r, _ := filepath.Abs(*root)
	d, _ := filepath.Abs(*dir)
	s := &testserver.FTPServer{Kind: testserver.Vsftpd, Dir: d, Anon: r, Home: filepath.Join(d, "home"),
		Log: filepath.Join(d, "vsftpd.log"), XferLog: filepath.Join(d, "xfer.log")}
	for _, p := range []string{filepath.Join(d, "empty"), s.Home} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fail("%v", err)
		}
	}
	openUp(r)
	bin, err := testserver.LookPath("vsftpd")
	if err != nil {
		return fail("%v", err)
	}
	p, err := testserver.LaunchOnFreePort(testserver.Options{Name: "vsftpd"}, func(port int) (*exec.Cmd, string, error) {
		s.Port = port
		s.Addr = "127.0.0.1:" + strconv.Itoa(port)
		conf := s.VsftpdConf()
		// The benchmark's settings: a port range the proxy maps, the
		// proxy's address in PASV replies, no protocol log (it would
		// slow vsftpd down), and room for every client's connections.
		conf = strings.ReplaceAll(conf, "log_ftp_protocol=YES", "log_ftp_protocol=NO")
		conf += fmt.Sprintf("pasv_min_port=%d\npasv_max_port=%d\nmax_clients=200\nmax_per_ip=50\n", lo, hi)
		if *pasvAddr != "" {
			conf += "pasv_address=" + *pasvAddr + "\n"
		}
		cf := filepath.Join(d, "vsftpd.conf")
		if err := os.WriteFile(cf, []byte(conf), 0o600); err != nil {
			return nil, "", err
		}
		return exec.Command(bin, cf), s.Addr, nil
	})
	if err != nil {
		return fail("%v", err)
	}
	fmt.Printf("URL ftp://%s\nPORT %d\nPID %d\n", s.Addr, s.Port, p.PID)
	os.Stdout.Sync()
	return wait(p)
}

// gophernicus runs gophernicus under socat on 127.0.0.1, naming host (the
// proxy's address) and its own port in menus.
func gophernicus(args []string) int {
	fs := flag.NewFlagSet("gophernicus", flag.ExitOnError)
	root := fs.String("root", "", "gopher root")
	dir := fs.String("dir", "", "state directory")
	host := fs.String("host", "127.0.0.1", "host name for menus")
	stub := fs.Bool("lsb-stub", false, "run in a private mount namespace where /usr/bin/lsb_release is a one-line stub")
	fs.Parse(args)
	if *root == "" || *dir == "" {
		return fail("gophernicus: -root and -dir are needed")
	}
	bin, err := testserver.LookPath("gophernicus")
	if err != nil {
		return fail("%v", err)
	}
	socat, err := testserver.LookPath("socat")
	if err != nil {
		return fail("%v", err)
	}
	r, _ := filepath.Abs(*root)
	d, _ := filepath.Abs(*dir)
	openUp(r)
	openUp(d)
	var port int
	p, err := testserver.LaunchOnFreePort(testserver.Options{Name: "gophernicus (socat)"}, func(pt int) (*exec.Cmd, string, error) {
		port = pt
		wrapper := filepath.Join(d, "gophernicus.sh")
		// -nm: no shared memory, hence no per-client throttling.
		script := fmt.Sprintf("#!/bin/sh\nexec '%s' -h %s -p %d -r '%s' -nv -ns -nm\n", bin, *host, pt, r)
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			return nil, "", err
		}
		exe := "EXEC:" + wrapper + ",nofork"
		if os.Geteuid() == 0 {
			exe += ",su=nobody"
		}
		listen := fmt.Sprintf("TCP-LISTEN:%d,bind=127.0.0.1,fork,reuseaddr,backlog=256", pt)
		addr := "127.0.0.1:" + strconv.Itoa(pt)
		if !*stub {
			return exec.Command(socat, listen, exe), addr, nil
		}
		// gophernicus runs /usr/bin/lsb_release (a shell script calling
		// getopt, cut, tr…) twice for every request to name the
		// platform in its footer: about 18 ms of CPU a request, which
		// is the server's cost, not the network's. In a private mount
		// namespace a stub stands in for it; the host sees nothing.
		// unshare and sh exec socat: the PID stays the server's.
		stubFile := filepath.Join(d, "lsb_release")
		if err := os.WriteFile(stubFile, []byte("#!/bin/sh\ncase \"$*\" in *-i*) echo Debian;; *) echo 12;; esac\n"), 0o755); err != nil {
			return nil, "", err
		}
		unshare, err := testserver.LookPath("unshare")
		if err != nil {
			return nil, "", err
		}
		mnt := `mount --bind "$1" /usr/bin/lsb_release && shift && exec "$@"`
		return exec.Command(unshare, "-m", "--propagation", "private", "sh", "-c", mnt, "sh", stubFile, socat, listen, exe), addr, nil
	})
	if err != nil {
		return fail("%v", err)
	}
	fmt.Printf("URL gopher://%s:%d\nPORT %d\nPID %d\n", *host, port, port, p.PID)
	os.Stdout.Sync()
	return wait(p)
}

func parseRange(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "-")
	lo, e1 := strconv.Atoi(a)
	hi, e2 := strconv.Atoi(b)
	return lo, hi, ok && e1 == nil && e2 == nil && lo > 0 && hi >= lo && hi < 65536
}

// delayProxy runs the delaying proxy until a signal.
func delayProxy(args []string) int {
	fs := flag.NewFlagSet("delayproxy", flag.ExitOnError)
	delay := fs.Duration("delay", 20*time.Millisecond, "delay each way")
	handshake := fs.Bool("handshake", false, "a new connection costs a round trip (as the TCP handshake)")
	fs.Parse(args)
	var routes []testserver.ProxyRoute
	for _, a := range fs.Args() {
		r, err := testserver.ParseProxyRoute(a)
		if err != nil {
			return fail("%v", err)
		}
		routes = append(routes, r)
	}
	if len(routes) == 0 {
		return fail("delayproxy: no LISTEN=TARGET route")
	}
	launch := testserver.LaunchDelayProxy
	if *handshake {
		launch = testserver.LaunchHandshakeDelayProxy
	}
	p, err := launch(*delay, routes...)
	if err != nil {
		return fail("%v", err)
	}
	defer p.Close()
	fmt.Printf("READY %d addresses\n", len(p.Addrs))
	os.Stdout.Sync()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	parent := os.Getppid()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-sig:
			return 0
		case <-tick.C:
			if os.Getppid() != parent {
				return 0
			}
		}
	}
}

// nginx runs nginx serving root (autoindex on) on 127.0.0.1.
func nginx(args []string) int {
	fs := flag.NewFlagSet("nginx", flag.ExitOnError)
	root := fs.String("root", "", "document root")
	dir := fs.String("dir", "", "state directory (config, logs)")
	fs.Parse(args)
	if *root == "" || *dir == "" {
		return fail("nginx: -root and -dir are needed")
	}
	s, err := testserver.LaunchNginx(testserver.NginxConfig{Root: *root, Dir: *dir})
	if err != nil {
		return fail("%v", err)
	}
	fmt.Printf("URL %s\nPORT %s\nPID %d\n", s.URL, s.Addr[strings.LastIndexByte(s.Addr, ':')+1:], s.Process.PID)
	os.Stdout.Sync()
	return wait(s.Process)
}
