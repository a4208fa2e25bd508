package fetch

import (
	"crypto/tls"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// BulkReadSize is the chunk ReadToEnd asks the kernel to gather.
const BulkReadSize = 256 << 10

// ReadToEnd tunes c for a connection that is read until the server closes
// it (an ftp data connection): the reader is woken only once BulkReadSize
// bytes are waiting, or the connection ends, instead of for every segment
// that arrives. That cuts the wake-ups of a large transfer about fourfold
// (on Linux, SO_RCVLOWAT; elsewhere it does nothing). Never use it where a
// reply ends before the connection does: a short reply would then wait for
// the read deadline (LowWater is for those).
//
// Over TLS it does nothing either: there the end is a close_notify record,
// which a server may send while it keeps the connection open until ours
// comes back (stunnel and socat in front of an inetd-style server do), and
// a reader held back until BulkReadSize bytes or the close would never be
// woken for those few bytes.
//
// The reader's wake-ups saved can cost a server on the same machine more:
// until the mark is reached the kernel acks each segment at once, on the
// CPU that delivered it, the server's (over loopback the sender's CPU does
// the receiver's TCP work). Where the server writes in small pieces and is
// the slow stage (gopher servers: 4 KiB writes), a reader woken as bytes
// come is faster. ftp servers send with sendfile (vsftpd, ProFTPD) or in
// 128 KiB writes (pure-ftpd): there the mark is as fast or faster.
//
// It returns c's LowWater (nil where it does nothing), with the mark
// raised and the receive buffer set (NewLowWater). Read c through its
// Read with BulkReadSize: a slow server's bytes then still come as they
// arrive (LowWaterWait), not once BulkReadSize of them have gathered. The
// mark stays raised between Reads, for a copy that splices from c.
func ReadToEnd(c net.Conn) *LowWater {
	l := NewLowWater(c)
	if l != nil {
		l.set(BulkReadSize)
	}
	return l
}

// lowatConn is the socket under c's wrappers whose low-water mark a
// reader of c may raise, and c unwrapped, or nil: none, TLS (see
// ReadToEnd), or a system without SO_RCVLOWAT.
func lowatConn(c net.Conn) (syscall.RawConn, net.Conn) {
	if !lowatWorks {
		return nil, nil
	}
	if _, tls := ConnLayer[*tls.Conn](c); tls {
		return nil, nil
	}
	sc, ok := ConnLayer[syscall.Conn](c)
	if !ok {
		return nil, nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil, nil
	}
	return rc, sc.(net.Conn)
}

// LowWaterWait bounds how long a LowWater's Read waits for its mark: a
// Read that has waited that long (twice, at worst) has the mark dropped to
// one byte, and the bytes waiting (or the next to come) wake it. A slow
// server's bytes still arrive steadily, not in lumps of BulkReadSize: the
// progress meter and the low-speed watch (Client.LowSpeedLimit) see them,
// this late at most.
const LowWaterWait = 20 * time.Millisecond

// LowWaterBuffer is the receive buffer NewLowWater gives its connection
// (as the ftp fetcher gives its data connections). Raising the mark of a
// connection whose buffer the kernel still sizes itself would clamp its
// receive window to the mark (Linux), and the server would then send in
// lockstep with our reads: slower than without a mark.
const LowWaterBuffer = 4 << 20

// A LowWater raises the receive low-water mark of a plain TCP connection
// that carries replies of known length and may carry more after them (an
// HTTP/1.1 body on a kept-alive connection), one Read at a time: the
// caller says how many bytes its reader is sure to get, and the kernel
// wakes the reader once that many (at most BulkReadSize) are waiting, or
// the connection ends, or about LowWaterWait has passed. A nil *LowWater
// reads without a mark: TLS (see ReadToEnd), no socket, no SO_RCVLOWAT.
//
// The mark is never left raised: the caller's last Read before the
// connection is used again (for the next reply's head) asks for 1. A
// LowWater assumes the mark is 1 when it is made.
type LowWater struct {
	rc   syscall.RawConn
	mu   sync.Mutex
	mark int // as set on the socket: mu held

	// The watch runs every LowWaterWait while raised Reads go on (a timer
	// set for each Read would wake the Go scheduler's poller for each).
	born     time.Time    // the clock since reads from
	since    atomic.Int64 // when the Read under way began, from born (+1); 0: none
	watching atomic.Bool  // watch is set
	watch    *time.Timer
}

// NewLowWater is c's LowWater, or nil when its mark cannot be raised. It
// sets c's receive buffer to LowWaterBuffer.
func NewLowWater(c net.Conn) *LowWater {
	rc, nc := lowatConn(c)
	if rc == nil {
		return nil
	}
	if b, ok := nc.(interface{ SetReadBuffer(int) error }); ok {
		b.SetReadBuffer(LowWaterBuffer)
	}
	l := &LowWater{rc: rc, mark: 1, born: time.Now()}
	l.watch = time.AfterFunc(time.Hour, l.tick)
	l.watch.Stop()
	return l
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
	l.since.Store(int64(time.Since(l.born)) + 1)
	if l.watching.CompareAndSwap(false, true) {
		l.watch.Reset(LowWaterWait)
	}
	k, err := r.Read(p)
	l.since.Store(0)
	return k, err
}

// tick is the watch: a Read waiting LowWaterWait or more has the mark
// dropped to 1, which wakes it if any byte is waiting (Linux checks at
// once). With no Read under way the watch stops; the next raised Read
// sets it again.
func (l *LowWater) tick() {
	s := l.since.Load()
	if s == 0 {
		l.watching.Store(false)
		// A Read that began meanwhile saw the watch set: set it for it.
		if l.since.Load() == 0 || !l.watching.CompareAndSwap(false, true) {
			return
		}
	} else if time.Duration(int64(time.Since(l.born))+1-s) >= LowWaterWait {
		l.set(1)
	}
	l.watch.Reset(LowWaterWait)
}

func (l *LowWater) set(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mark != n {
		setLowat(l.rc, n)
		l.mark = n
	}
}
