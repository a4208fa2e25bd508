//go:build !linux

package fetch

import "net"

func setLowat(net.Conn, int) {}
