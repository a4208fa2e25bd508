package testserver

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a toy server, so that the process handling can
// be tested without any real server installed.

const helperEnv = "TESTSERVER_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode, os.Getenv("HELPER_ADDR"), os.Getenv("HELPER_CHILD_PIDFILE")))
	}
	os.Exit(m.Run())
}

// helperCmd returns a command that runs this test binary as a toy server.
func helperCmd(mode, addr string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "HELPER_ADDR="+addr)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func helperMain(mode, addr, childPidfile string) int {
	switch mode {
	case "exit-early":
		fmt.Fprintln(os.Stderr, "helper: boom, cannot start")
		return 3
	case "no-listen":
		time.Sleep(time.Minute)
		return 0
	case "listen", "ignore-term":
		if mode == "ignore-term" {
			signal.Ignore(syscall.SIGTERM)
		}
		if childPidfile != "" {
			// A child in the same process group, that outlives us unless the
			// group is killed.
			c := exec.Command("sleep", "300")
			if err := c.Start(); err != nil {
				fmt.Fprintln(os.Stderr, "helper:", err)
				return 1
			}
			os.WriteFile(childPidfile, []byte(fmt.Sprint(c.Process.Pid)), 0o600)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
		fmt.Println("helper: listening on", addr)
		for {
			c, err := l.Accept()
			if err != nil {
				return 1
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}
	fmt.Fprintln(os.Stderr, "helper: unknown mode", mode)
	return 2
}
