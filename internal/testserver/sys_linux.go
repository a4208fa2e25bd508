package testserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// setupProcAttr makes the command the leader of a new process group, unless
// the caller already chose a group or session, and gives it SIGKILL as its
// parent-death signal unless the caller chose another. It reports whether the
// process will lead its own group (PGID == PID).
func setupProcAttr(cmd *exec.Cmd) bool {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	if a.Pdeathsig == 0 {
		a.Pdeathsig = syscall.SIGKILL
	}
	switch {
	case a.Setsid:
		return true // a new session is a new group too
	case a.Setpgid:
		return a.Pgid == 0
	case a.Foreground:
		return false
	}
	a.Setpgid = true
	return true
}

// waitNoReap blocks until process pid has exited but leaves it a zombie
// (waitid with WNOWAIT), so that its PID — and the group ID equal to it —
// cannot be reused until it is reaped. It reports false if that failed, and
// the caller must wait the ordinary way.
func waitNoReap(pid int) bool {
	const (
		pPID    = 1
		wExited = 4
		wNowait = 0x1000000
	)
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), wExited|wNowait, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		return e == 0
	}
}

// killGroup sends SIGKILL to every process of group pgid.
func killGroup(pgid int) {
	if pgid > 1 {
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// ownsListener reports whether a TCP socket listening on port, in the network
// namespace of process pid, belongs to pid or to a process of group pgid
// (pgid 0: pid alone). known is false when that cannot be told: no such
// listener in that namespace (the address is reached some other way), or
// some process's descriptors are unreadable.
func ownsListener(pid, pgid, port int) (owned, known bool) {
	inodes := map[string]bool{}
	read := false
	for _, f := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, f))
		if err != nil {
			continue
		}
		read = true
		lines := strings.Split(string(data), "\n")
		for _, line := range lines[1:] {
			fields := strings.Fields(line)
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			i := strings.LastIndexByte(fields[1], ':')
			if i < 0 {
				continue
			}
			if p, err := strconv.ParseUint(fields[1][i+1:], 16, 16); err == nil && int(p) == port {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
	}
	if !read {
		// The process is gone (reaped before its exit was noticed): it
		// owns nothing, and that is known.
		return false, true
	}
	if len(inodes) == 0 {
		return false, false
	}
	pids := []int{pid}
	if pgid > 0 {
		pids = append(pids, groupMembers(pgid)...)
	}
	complete := true
	for _, q := range pids {
		dir := fmt.Sprintf("/proc/%d/fd", q)
		ents, err := os.ReadDir(dir)
		if err != nil {
			// Another user's process might hold the socket; a zombie, a
			// process exiting (its descriptors gone) or gone holds none.
			if errors.Is(err, fs.ErrPermission) {
				if st, ok := processState(q); ok && st != 'Z' {
					complete = false
				}
			}
			continue
		}
		for _, e := range ents {
			if link, err := os.Readlink(dir + "/" + e.Name()); err == nil && inodes[link] {
				return true, true
			}
		}
	}
	return false, complete
}

// groupMembers lists the PIDs of the processes in group pgid.
func groupMembers(pgid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, ok := processGroup(pid); ok && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processGroup reads the process group of pid from /proc/PID/stat.
func processGroup(pid int) (int, bool) {
	f := statFields(pid)
	if len(f) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(f[2])
	return g, err == nil
}

// processState reads the state letter of pid (R, S, D, Z, …).
func processState(pid int) (byte, bool) {
	f := statFields(pid)
	if len(f) < 1 || f[0] == "" {
		return 0, false
	}
	return f[0][0], true
}

// statFields returns the fields of /proc/PID/stat after "pid (comm)":
// state, ppid, pgrp, …; nil if unreadable.
func statFields(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	// comm may contain spaces and parentheses: cut at the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// unacked is how many bytes written to c its peer has not acknowledged yet
// (SIOCOUTQ); 0 when it cannot tell.
func unacked(c syscall.Conn) int {
	rc, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	rc.Control(func(fd uintptr) {
		var v int32
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCOUTQ, uintptr(unsafe.Pointer(&v))); e == 0 {
			n = int(v)
		}
	})
	return n
}
