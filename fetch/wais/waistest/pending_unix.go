//go:build unix && !aix

package waistest

import (
	"net"
	"syscall"
)

// pending tells whether bytes wait unread on c's socket (peeked, not
// read): a request sent ahead of the reply being written.
func pending(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var b [1]byte
	var n int
	rc.Read(func(fd uintptr) bool {
		n, _, _ = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true
	})
	return n > 0
}
