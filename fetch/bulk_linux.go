package fetch

import "syscall"

const lowatWorks = true

// setLowat sets the socket's SO_RCVLOWAT.
func setLowat(rc syscall.RawConn, n int) {
	rc.Control(func(fd uintptr) {
		// A failure leaves the default (wake on any data): only slower.
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n)
	})
}
