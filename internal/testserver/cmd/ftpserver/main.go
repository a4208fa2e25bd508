// Command ftpserver runs one of the test harness's FTP servers in the
// foreground, for benchmarks and manual testing:
//
//	ftpserver [-dir STATEDIR] [-file PATH]... vsftpd|pure-ftpd|proftpd
//
// It starts the server on 127.0.0.1 with a free port and the harness's
// fixtures (see testserver.FTPFixtures), links (or copies) each -file into
// the anonymous root's pub/, prints "URL ftp://127.0.0.1:PORT", "PID n" and
// "ANON DIR" on stdout once the port answers, and runs until SIGINT or
// SIGTERM, or until its parent goes away; then it stops the server by PID
// and exits. It must run as root.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/urlget/urlget/internal/testserver"
)

type files []string

func (f *files) String() string     { return fmt.Sprint(*f) }
func (f *files) Set(s string) error { *f = append(*f, s); return nil }

func main() {
	dir := flag.String("dir", "", "directory for config, logs and fixtures (default: a new temporary one, removed at exit)")
	var extra files
	flag.Var(&extra, "file", "a file to serve as pub/NAME (repeatable)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: ftpserver [-dir STATEDIR] [-file PATH]... vsftpd|pure-ftpd|proftpd")
		os.Exit(2)
	}
	os.Exit(run(testserver.FTPKind(flag.Arg(0)), *dir, extra))
}

func run(kind testserver.FTPKind, dir string, extra []string) int {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	if dir == "" {
		d, err := os.MkdirTemp("", "ftpserver-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "ftpserver:", err)
			return 1
		}
		defer os.RemoveAll(d)
		dir = d
	}
	s, err := testserver.LaunchFTP(kind, dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ftpserver:", err)
		return 1
	}
	defer s.Stop()
	for _, f := range extra {
		if err := place(f, filepath.Join(s.Anon, "pub", filepath.Base(f))); err != nil {
			fmt.Fprintln(os.Stderr, "ftpserver:", err)
			return 1
		}
	}
	fmt.Printf("URL %s\nPID %d\nANON %s\n", s.URL, s.Process.PID, s.Anon)
	os.Stdout.Sync()
	parent := os.Getppid()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-sig:
			return 0
		case <-tick.C:
			if s.Process.Exited() {
				fmt.Fprintf(os.Stderr, "ftpserver: %s exited by itself: %v\n%s\n", kind, s.Process.WaitErr(), s.Process.Logs())
				return 1
			}
			if os.Getppid() != parent {
				return 0
			}
		}
	}
}

// place hard-links src to dst, or copies it across file systems.
func place(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return os.Chmod(dst, 0o644)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
