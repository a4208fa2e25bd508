// Command testserver runs one of the test harness's servers in the
// foreground, for benchmarks and manual testing:
//
//	testserver nginx -root DIR [-dir STATEDIR] [-extra 'location … { … }']
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
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "nginx":
		os.Exit(runNginx(os.Args[2:]))
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: testserver nginx -root DIR [-dir STATEDIR] [-extra DIRECTIVES]")
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
	// Catch the signals before starting, so that one arriving during the
	// start still stops the server and removes its directory.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	s, err := testserver.LaunchNginx(testserver.NginxConfig{Root: *root, Dir: *dir, Extra: *extra})
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		return 1
	}
	fmt.Printf("URL %s\nPID %d\n", s.URL, s.Process.PID)
	os.Stdout.Sync()
	reason := waitForEnd(s.Process, sig)
	err = s.Stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testserver:", err)
		return 1
	}
	if reason != "" {
		fmt.Fprintf(os.Stderr, "testserver: %s\n%s\n", reason, s.Process.Logs())
		return 1
	}
	return 0
}

// waitForEnd waits for a signal to stop, the parent to go away, or the server
// to exit by itself; it returns "" for the first, else what happened.
func waitForEnd(p *testserver.Process, sig <-chan os.Signal) string {
	parent := os.Getppid()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-sig:
			return ""
		case <-tick.C:
			if p.Exited() {
				return fmt.Sprintf("%s (pid %d) exited by itself: %v", p.Name, p.PID, p.WaitErr())
			}
			if os.Getppid() != parent {
				return "" // orphaned: our parent is gone, nobody will stop us
			}
		}
	}
}
