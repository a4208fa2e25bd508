//go:build !linux

package testserver

import (
	"os/exec"
	"syscall"
)

// Elsewhere than Linux the harness is degraded: no new process group, no
// parent-death signal, no check of who owns the listening socket.

func setupProcAttr(cmd *exec.Cmd) bool              { return false }
func waitNoReap(pid int) bool                       { return false }
func killGroup(pgid int)                            {}
func ownsListener(pid, pgid, port int) (bool, bool) { return false, false }
func groupMembers(pgid int) []int                   { return nil }

func unacked(c syscall.Conn) int { return 0 }
