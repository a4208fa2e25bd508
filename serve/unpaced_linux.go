package serve

import (
	"net"
	"net/netip"

	"golang.org/x/sys/unix"
)

// pacedCC are the congestion controls that pace their sends themselves
// (Linux's internal pacing, with a timer, where no fq qdisc paces).
var pacedCC = map[string]bool{"bbr": true, "bbr2": true, "bbr3": true}

// unpace has a client connection from this machine (both ends loopback)
// sent without pacing: where the system's congestion control paces
// (BBR), each send on loopback, which has no link to pace for, goes
// through the pacing timer, and the gateway's second loopback hop cost
// it about a third more CPU (bench/serve.sh). Such a connection is
// switched to reno, which every Linux allows any program; any other
// connection, and a control that does not pace, is left as it is.
func unpace(c net.Conn) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil || !ap.Addr().Unmap().IsLoopback() {
		return
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return
	}
	rc.Control(func(fd uintptr) {
		cc, err := unix.GetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION)
		if err != nil || !pacedCC[cc] {
			return
		}
		// A failure leaves the pacing: only slower.
		unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, "reno")
	})
}
