//go:build !unix

package fetch

import "syscall"

// reuseAddr does nothing where SO_REUSEADDR means something else.
func reuseAddr(network, address string, c syscall.RawConn) error { return nil }
