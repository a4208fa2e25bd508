package fetch

import (
	"crypto/tls"
	"net"
)

// BulkReadSize is the chunk ReadToEnd asks the kernel to gather.
const BulkReadSize = 256 << 10

// ReadToEnd tunes c for a connection that is read until the server closes
// it (an ftp data connection, a gopher item without a length): the reader
// is woken only once BulkReadSize bytes are waiting, or the connection
// ends, instead of for every segment that arrives. That cuts the wake-ups
// of a large transfer about fourfold (on Linux, SO_RCVLOWAT; elsewhere it
// does nothing). Never use it where a reply ends before the connection
// does: a short reply would then wait for the read deadline.
//
// Over TLS it does nothing either: there the end is a close_notify record,
// which a server may send while it keeps the connection open until ours
// comes back (stunnel and socat in front of an inetd-style server do), and
// a reader held back until BulkReadSize bytes or the close would never be
// woken for those few bytes.
func ReadToEnd(c net.Conn) {
	for {
		if _, ok := c.(*tls.Conn); ok {
			return
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = u.NetConn()
	}
	setLowat(c, BulkReadSize)
}
