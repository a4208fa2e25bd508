// Command testserver runs one of the test harness's servers in the
// foreground, for benchmarks and manual testing:
//
//	testserver nginx -root DIR [-dir STATEDIR] [-extra 'location … { … }']
//	testserver squid [-dir STATEDIR] [-extra DIRECTIVES]
//	testserver wais -size BYTES [-delay DURATION] [-file PATH]
//
// squid runs Squid (an HTTP proxy with an ftp gateway) for loopback
// clients; its URL line is the proxy's URL.
//
// wais serves one document of BYTES pseudo-random bytes (written to PATH
// too, to compare with) through the in-tree WAIS server, which behaves
// like freeWAIS-sf (one request at a time), waiting DURATION before every
// reply; its URL line is the document's URL.
//
// It starts the server on 127.0.0.1 with a free port, prints one line
// "URL http://127.0.0.1:PORT" (and "PID n" for the server) on stdout once the
// port answers, and then runs until SIGINT or SIGTERM, or until its parent
// process goes away; then it stops the server by PID (SIGTERM, up to 5 s,
// SIGKILL) and exits. Stop it with: kill -TERM <testserver's PID>.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urlget/urlget/fetch/wais/waistest"
	"github.com/urlget/urlget/internal/testserver"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "nginx":
		os.Exit(runNginx(os.Args[2:]))
	case "squid":
		os.Exit(runSquid(os.Args[2:]))
	case "wais":
		os.Exit(runWAIS(os.Args[2:]))
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: testserver nginx -root DIR [-dir STATEDIR] [-extra DIRECTIVES]")
	fmt.Fprintln(os.Stderr, "       testserver squid [-dir STATEDIR] [-extra DIRECTIVES]")
	fmt.Fprintln(os.Stderr, "       testserver wais -size BYTES [-delay DURATION] [-file PATH]")
	os.Exit(2)
}

func runNginx(args []string) int {
	fs := flag.NewFlagSet("testserver nginx", flag.ExitOnError)
	root := fs.String("root", "", "document root (required)")
	dir := fs.String("dir", "", "directory for config, logs, temp files (default: a new temporary one, removed at exit)")
	extra := fs.String("extra", "", "directives inserted into the server block")
	fs.Parse(args)
	if *root == "" || fs.NArg() != 0 {
		usage()
	}
	return runProcess(func() (string, *testserver.Process, func() error, error) {
		s, err := testserver.LaunchNginx(testserver.NginxConfig{Root: *root, Dir: *dir, Extra: *extra})
		if err != nil {
			return "", nil, nil, err
		}
		return s.URL, s.Process, s.Stop, nil
	})
}

func runSquid(args []string) int {
	fs := flag.NewFlagSet("testserver squid", flag.ExitOnError)
	dir := fs.String("dir", "", "directory for squid.conf, logs, pid file (default: a new temporary one, removed at exit)")
	extra := fs.String("extra", "", "directives appended to squid.conf")
	fs.Parse(args)
	if fs.NArg() != 0 {
		usage()
	}
	return runProcess(func() (string, *testserver.Process, func() error, error) {
		s, err := testserver.LaunchSquid(testserver.SquidConfig{Dir: *dir, Extra: *extra})
		if err != nil {
			return "", nil, nil, err
		}
		return s.URL, s.Process, s.Stop, nil
	})
}

// runProcess starts a server with launch (its URL, its process and how to
// stop it), prints the URL and PID lines and runs until told to end (see
// waitForEnd); then it stops the server.
func runProcess(launch func() (string, *testserver.Process, func() error, error)) int {
	// Catch the signals before starting, so that one arriving during the
	// start still stops the server and removes its directory.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	url, p, stop, err := launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		return 1
	}
	fmt.Printf("URL %s\nPID %d\n", url, p.PID)
	os.Stdout.Sync()
	reason := waitForEnd(sig, func() string {
		if p.Exited() {
			return fmt.Sprintf("%s (pid %d) exited by itself: %v", p.Name, p.PID, p.WaitErr())
		}
		return ""
	})
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		return 1
	}
	if reason != "" {
		fmt.Fprintf(os.Stderr, "testserver: %s\n%s\n", reason, p.Logs())
		return 1
	}
	return 0
}

func runWAIS(args []string) int {
	fs := flag.NewFlagSet("testserver wais", flag.ExitOnError)
	size := fs.Int("size", 0, "the document's size in bytes (required)")
	delay := fs.Duration("delay", 0, "service time before every reply")
	file := fs.String("file", "", "write the document's bytes to this file too")
	fs.Parse(args)
	if *size <= 0 || fs.NArg() != 0 {
		usage()
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	doc := &waistest.Doc{Name: "doc.bin", Type: "BINARY", Data: waistest.Bytes(*size, 1)}
	if *file != "" {
		if err := os.WriteFile(*file, doc.Data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "testserver:", err)
			return 1
		}
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		return 1
	}
	s := waistest.New(ln, waistest.Config{DBs: []*waistest.DB{{Name: "bench", Docs: []*waistest.Doc{doc}}}, Delay: *delay})
	defer s.Close()
	fmt.Printf("URL %s\n", s.DocURL("bench", doc, true))
	os.Stdout.Sync()
	waitForEnd(sig, nil)
	return 0
}

// waitForEnd waits for a signal to stop, the parent to go away, or the server
// to exit by itself (exited, when set, tells why, "" while it runs); it
// returns "" for the first two, else what happened.
func waitForEnd(sig <-chan os.Signal, exited func() string) string {
	parent := os.Getppid()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-sig:
			return ""
		case <-tick.C:
			if exited != nil {
				if why := exited(); why != "" {
					return why
				}
			}
			if os.Getppid() != parent {
				return "" // orphaned: our parent is gone, nobody will stop us
			}
		}
	}
}
