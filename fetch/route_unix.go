//go:build unix

package fetch

import "syscall"

// reuseAddr sets SO_REUSEADDR, so that a local port the last connection
// from it left in TIME_WAIT can be bound again (--local-port), as curl's
// can.
func reuseAddr(network, address string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1)
	})
	if err != nil {
		return err
	}
	return serr
}
