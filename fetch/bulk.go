package fetch

import (
	"crypto/tls"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// BulkReadSize is the chunk ReadToEnd asks the kernel to gather.
const BulkReadSize = 256 << 10

// ReadToEnd tunes c for a connection that is read until the server closes
// it (an ftp data connection, a gopher item without a length): the reader
// is woken only once BulkReadSize bytes are waiting, or the connection
// ends, instead of for every segment that arrives. That cuts the wake-ups
// of a large transfer about fourfold (on Linux, SO_RCVLOWAT; elsewhere it
// does nothing). Never use it where a reply ends before the connection
// does: a short reply would then wait for the read deadline (LowWater is
// for those).
//
// Over TLS it does nothing either: there the end is a close_notify record,
// which a server may send while it keeps the connection open until ours
// comes back (stunnel and socat in front of an inetd-style server do), and
// a reader held back until BulkReadSize bytes or the close would never be
// woken for those few bytes.
func ReadToEnd(c net.Conn) {
	if rc := lowatConn(c); rc != nil {
		setLowat(rc, BulkReadSize)
	}
}

// lowatConn is the socket under c's wrappers whose low-water mark a
// reader of c may raise, or nil: none, TLS (see ReadToEnd), or a system
// without SO_RCVLOWAT.
func lowatConn(c net.Conn) syscall.RawConn {
	if !lowatWorks {
		return nil
	}
	for {
		if _, ok := c.(*tls.Conn); ok {
			return nil
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		c = u.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return rc
}

// LowWaterWait bounds how long a LowWater's Read waits for its mark: past
// it the mark drops to one byte, and the bytes waiting (or the next to
// come) wake the reader. A slow server's bytes still arrive steadily,
// not in lumps of BulkReadSize: the progress meter and the low-speed
// watch (Client.LowSpeedLimit) see them, at most this late.
const LowWaterWait = 20 * time.Millisecond

// A LowWater raises the receive low-water mark of a plain TCP connection
// that carries replies of known length and may carry more after them (an
// HTTP/1.1 body on a kept-alive connection), one Read at a time: the
// caller says how many bytes its reader is sure to get, and the kernel
// wakes the reader once that many (at most BulkReadSize) are waiting, or
// the connection ends, or LowWaterWait has passed. A nil *LowWater reads
// without a mark: TLS (see ReadToEnd), no socket, no SO_RCVLOWAT.
//
// The mark is never left raised: the caller's last Read before the
// connection is used again (for the next reply's head) asks for 1. A
// LowWater assumes the mark is 1 when it is made.
type LowWater struct {
	rc   syscall.RawConn
	mu   sync.Mutex
	mark int // as set on the socket: mu held
	wait *time.Timer
}

// NewLowWater is c's LowWater, or nil when its mark cannot be raised.
func NewLowWater(c net.Conn) *LowWater {
	rc := lowatConn(c)
	if rc == nil {
		return nil
	}
	return &LowWater{rc: rc, mark: 1}
}

// Read reads r, whose bytes come from the connection (through buffers
// that read it only when empty), into p, the mark set to n: n is at most
// the number of bytes still due on the connection for this reply and not
// yet taken from it, so that the kernel never waits for bytes that will
// not come (n < 1 is 1; n > BulkReadSize is BulkReadSize).
func (l *LowWater) Read(r io.Reader, p []byte, n int) (int, error) {
	if l == nil {
		return r.Read(p)
	}
	n = max(1, min(n, BulkReadSize))
	l.set(n)
	if n == 1 {
		return r.Read(p)
	}
	if l.wait == nil {
		l.wait = time.AfterFunc(LowWaterWait, l.drop)
	} else {
		l.wait.Reset(LowWaterWait)
	}
	k, err := r.Read(p)
	// A drop already under way only lowers the mark of the next Read.
	l.wait.Stop()
	return k, err
}

// drop is the wait's end: the mark to 1, which wakes a reader if any byte
// is waiting (Linux checks at once).
func (l *LowWater) drop() { l.set(1) }

func (l *LowWater) set(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mark != n {
		setLowat(l.rc, n)
		l.mark = n
	}
}
