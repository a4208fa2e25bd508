package fetch

import (
	"net"
	"syscall"
)

func setLowat(c net.Conn, n int) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		// A failure leaves the default (wake on any data): only slower.
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n)
	})
}
