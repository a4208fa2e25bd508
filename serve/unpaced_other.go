//go:build !linux

package serve

import "net"

// unpace does nothing here: only Linux paces within TCP (see its Linux
// version).
func unpace(net.Conn) {}
