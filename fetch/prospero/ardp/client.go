package ardp

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"net"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Defaults of the ISI client (ARDP_DEFAULT_TIMEOUT, ARDP_DEFAULT_RETRY,
// ARDP_BACKOFF) and this client's own bounds.
const (
	DefaultTimeout      = 4 * time.Second
	DefaultRetries      = 3
	DefaultMaxRedirects = 4
	// DefaultMaxWait caps one "wait N seconds" from the server.
	DefaultMaxWait = 15 * time.Minute
	// DefaultMaxWaits is how many wait replies in a row, without data in
	// between, the client accepts before it gives up.
	DefaultMaxWaits = 32
	// MaxRequest bounds a request message (the server keeps at most 20
	// partial requests; nothing urlget sends comes near this).
	MaxRequest = 64 * DataLen
)

// Config tunes a transaction. The zero value gives the ISI defaults.
type Config struct {
	// Timeout is the first retransmission timeout; it doubles on each
	// retry. Retries is the number of retransmissions before giving up
	// (-1: none).
	Timeout time.Duration
	Retries int
	// FirstReply, when > 0, bounds the wait for the server's first packet,
	// retransmissions included: the connect timeout of a datagram protocol.
	FirstReply time.Duration
	// Window, when > 0 and not DefaultWindow, asks the server for that
	// reply window (flag 0x08 on the first request packet; at most
	// MaxWindow).
	Window int
	// MaxRedirects bounds the server's "send it there instead" replies.
	MaxRedirects int
	// MaxWait and MaxWaits bound the server's wait replies (see the
	// Default constants); WaitUnit is how long one second of the server's
	// wait lasts (tests shorten it; 0 means a second).
	MaxWait  time.Duration
	MaxWaits int
	WaitUnit time.Duration

	// Dial opens the UDP socket for one server address ("ip:port" or
	// "host:port"). It must return a connected socket, so that only
	// datagrams from that address are read. nil: net.Dialer.
	Dial func(ctx context.Context, addr string) (net.Conn, error)
	// Verbose, when non-nil, receives one line per event worth telling
	// (waits, queue positions, redirects, retransmissions).
	Verbose func(line string)
}

func (c *Config) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Config) retries() int {
	switch {
	case c.Retries < 0:
		return 0
	case c.Retries == 0:
		return DefaultRetries
	}
	return c.Retries
}

func (c *Config) maxRedirects() int {
	if c.MaxRedirects > 0 {
		return c.MaxRedirects
	}
	return DefaultMaxRedirects
}

func (c *Config) waitFor(secs uint16) time.Duration {
	unit := c.WaitUnit
	if unit <= 0 {
		unit = time.Second
	}
	w := time.Duration(secs) * unit
	limit := c.MaxWait
	if limit <= 0 {
		limit = DefaultMaxWait
	}
	return min(w, limit)
}

func (c *Config) maxWaits() int {
	if c.MaxWaits > 0 {
		return c.MaxWaits
	}
	return DefaultMaxWaits
}

func (c *Config) logf(format string, args ...any) {
	if c.Verbose != nil {
		c.Verbose(fmt.Sprintf(format, args...))
	}
}

var (
	cidMu   sync.Mutex
	nextCID uint16
)

// NewCID returns a connection id: a random start, then one more per
// request, never 0 (ardp_next_cid).
func NewCID() uint16 {
	cidMu.Lock()
	defer cidMu.Unlock()
	if nextCID == 0 {
		var b [2]byte
		rand.Read(b[:])
		nextCID = binary.BigEndian.Uint16(b[:])
	}
	nextCID++
	if nextCID == 0 {
		nextCID = 1
	}
	return nextCID
}

// Reply is the message a server sends back for one request, read in order
// as its packets arrive. Reading it drives the protocol: acknowledgements,
// retransmissions and waits happen inside Read. Close it when done: an
// unfinished transaction is cancelled at the server.
type Reply struct {
	ctx  context.Context
	cfg  *Config
	addr string // the server address now in use
	cid  uint16
	conn net.Conn
	stop func() bool

	req      [][]byte // request packets, header included
	reqAcked int      // the server has our packets 1..reqAcked

	delivered  int // packets handed to Read
	total      int // 0 until known
	ahead      map[int][]byte
	ackPending bool
	cur        []byte // the rest of the packet being read
	done       bool
	heard      bool // a packet came from the server
	redirects  int
	waits      int
	buf        []byte
	started    time.Time
	err        error
}

// Send starts a transaction: it opens a socket to addr, sends msg as one
// ARDP message with connection id cid (NewCID when 0) and returns the
// reply, whose Read waits for it. The transaction lives until the Reply is
// read to the end or closed, or ctx ends.
func Send(ctx context.Context, cfg *Config, addr string, cid uint16, msg []byte) (*Reply, error) {
	if cfg == nil {
		cfg = &Config{}
	}
	if len(msg) > MaxRequest {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ardp: request of " + strconv.Itoa(len(msg)) + " bytes is too long"}
	}
	if cid == 0 {
		cid = NewCID()
	}
	r := &Reply{ctx: ctx, cfg: cfg, cid: cid, addr: addr, buf: make([]byte, 2048), started: time.Now()}
	parts := Split(msg)
	for i, p := range parts {
		h := Header{Len: 9, CID: cid, Seq: uint16(i + 1), Total: uint16(len(parts))}
		if i == 0 && cfg.Window > 0 && cfg.Window != DefaultWindow {
			h.Flags |= FlagWindow
			h.Window = uint16(min(cfg.Window, MaxWindow))
		}
		r.req = append(r.req, h.Append(nil, p))
	}
	if err := r.open(addr); err != nil {
		return nil, err
	}
	if err := r.sendRequest(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// CID is the transaction's connection id.
func (r *Reply) CID() uint16 { return r.cid }

// Addr is the server address the transaction ended up with (after
// redirects).
func (r *Reply) Addr() string { return r.addr }

func (r *Reply) open(addr string) error {
	dial := r.cfg.Dial
	if dial == nil {
		dial = func(ctx context.Context, addr string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "udp", addr)
		}
	}
	conn, err := dial(r.ctx, addr)
	if err != nil {
		return err
	}
	r.conn, r.addr = conn, addr
	// Wake a blocked read when the context ends.
	r.stop = context.AfterFunc(r.ctx, func() { conn.SetReadDeadline(time.Unix(1, 0)) })
	return nil
}

func (r *Reply) closeConn() {
	if r.conn != nil {
		r.stop()
		r.conn.Close()
		r.conn = nil
	}
}

// sendRequest sends the request packets the server has not acknowledged,
// as many as the window allows.
func (r *Reply) sendRequest() error {
	end := min(len(r.req), r.reqAcked+DefaultWindow)
	for _, p := range r.req[r.reqAcked:end] {
		if err := r.write(p); err != nil {
			return err
		}
	}
	return nil
}

// write sends one packet. A refused write is the ICMP "port unreachable"
// of an earlier packet, reported on this connected socket: like a refused
// read, it says that nobody listens there yet, and the retransmission
// timer decides, as for a request of one packet.
func (r *Reply) write(p []byte) error {
	if _, err := r.conn.Write(p); err != nil && !isRefused(err) {
		return r.netError(err)
	}
	return nil
}

// sendAck acknowledges the reply packets received in order.
func (r *Reply) sendAck() error {
	r.ackPending = false
	h := Header{Len: 9, CID: r.cid, Seq: 0, Total: 0, RcvdThru: uint16(r.rcvdThru())}
	return r.write(h.Append(nil, nil))
}

// rcvdThru is the highest packet number up to which every packet came.
func (r *Reply) rcvdThru() int {
	n := r.delivered
	for {
		if _, ok := r.ahead[n+1]; !ok {
			return n
		}
		n++
	}
}

func (r *Reply) netError(err error) error {
	if r.ctx.Err() != nil {
		return fetch.ContextError(r.ctx)
	}
	return &fetch.Error{Kind: fetch.ErrConnect, Msg: "ardp: " + r.addr, Err: err}
}

// Read reads the reply message, in order.
func (r *Reply) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		if d, ok := r.ahead[r.delivered+1]; ok {
			delete(r.ahead, r.delivered+1)
			r.delivered++
			r.cur = d
			continue
		}
		if r.total > 0 && r.delivered >= r.total {
			if !r.done {
				r.done = true
				if r.ackPending && r.conn != nil {
					r.sendAck() // best effort: the message is complete
				}
				r.closeConn()
			}
			return 0, io.EOF
		}
		if err := r.receive(); err != nil {
			r.err = err
			r.closeConn()
			return 0, err
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// receive waits for the next reply packet that brings the message on,
// retransmitting and acknowledging as it goes.
func (r *Reply) receive() error {
	if r.ackPending {
		if err := r.sendAck(); err != nil {
			return err
		}
	}
	rto := r.cfg.timeout()
	tries := 0
	deadline := time.Now().Add(rto)
	for {
		if r.ctx.Err() != nil {
			return fetch.ContextError(r.ctx)
		}
		dl := deadline
		if d, ok := r.ctx.Deadline(); ok && d.Before(dl) {
			dl = d
		}
		if fr := r.cfg.FirstReply; fr > 0 && !r.heard {
			if d := r.started.Add(fr); d.Before(dl) {
				dl = d
			}
		}
		r.conn.SetReadDeadline(dl)
		n, err := r.conn.Read(r.buf)
		if err != nil {
			if r.ctx.Err() != nil {
				return fetch.ContextError(r.ctx)
			}
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				// A connected UDP socket reports ICMP port unreachable
				// as a read error: nobody listens there (yet). Wait for
				// the retransmission timer like the ISI client.
				if !isRefused(err) {
					return r.netError(err)
				}
				if fetch.Sleep(r.ctx, min(rto/4, time.Until(deadline))) != nil {
					return fetch.ContextError(r.ctx)
				}
				if time.Now().Before(deadline) {
					continue
				}
			}
			if fr := r.cfg.FirstReply; fr > 0 && !r.heard && !time.Now().Before(r.started.Add(fr)) {
				return &fetch.Error{Kind: fetch.ErrTimeout, Msg: "ardp: no reply from " + r.addr + " within " + fr.String()}
			}
			if time.Now().Before(deadline) {
				continue
			}
			tries++
			if tries > r.cfg.retries() {
				return &fetch.Error{Kind: fetch.ErrTimeout,
					Msg: fmt.Sprintf("ardp: no reply from %s after %d retransmissions", r.addr, tries-1)}
			}
			rto *= 2
			deadline = time.Now().Add(rto)
			r.cfg.logf("* ARDP: retransmitting to %s (try %d, next timeout %s)", r.addr, tries+1, rto)
			switch {
			case r.rcvdThru() > 0:
				err = r.sendAck()
			case r.reqAcked >= len(r.req):
				// The server has the whole request but none of its reply
				// came: a resent request packet makes it send the reply
				// again (an ACK through 0 would be ignored).
				err = r.write(r.req[len(r.req)-1])
			default:
				err = r.sendRequest()
			}
			if err != nil {
				return err
			}
			continue
		}
		progress, wait, err := r.packet(r.buf[:n])
		if err != nil {
			return err
		}
		if wait > 0 {
			r.waits++
			if r.waits > r.cfg.maxWaits() {
				return &fetch.Error{Kind: fetch.ErrTimeout,
					Msg: fmt.Sprintf("ardp: %s asked to wait %d times without answering", r.addr, r.waits-1)}
			}
			tries = 0
			deadline = time.Now().Add(wait)
			continue
		}
		if progress {
			r.waits = 0
			return nil
		}
	}
}

// isRefused tells a connection-refused read error (ICMP port unreachable).
func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// packet handles one datagram from the server. progress: the next packet
// of the message may now be readable. wait: the server asked us to hold off.
func (r *Reply) packet(pkt []byte) (progress bool, wait time.Duration, err error) {
	h, data, perr := Parse(pkt)
	if perr != nil || h.Len < 3 {
		return false, 0, nil // unreadable, or without a connection id: not ours
	}
	if h.CID != r.cid && h.CID != bits.ReverseBytes16(r.cid) {
		// Another transaction's. The ISI server sends retransmissions
		// with the id byte-swapped on little-endian hosts: accept that.
		return false, 0, nil
	}
	r.heard = true
	if h.Len >= 9 && int(h.RcvdThru) > r.reqAcked && int(h.RcvdThru) <= len(r.req) {
		r.reqAcked = int(h.RcvdThru)
		if r.reqAcked < len(r.req) {
			if err := r.sendRequest(); err != nil {
				return false, 0, err
			}
		}
	}
	switch h.Option {
	case OptCancel:
		return false, 0, &fetch.Error{Kind: fetch.ErrConnect, Msg: "ardp: " + r.addr + " refused the request"}
	case OptRedirect, OptRedirectNote:
		return r.redirect(h)
	case OptQueueReply:
		switch {
		case h.HasQueuePos && h.HasQueueSec:
			r.cfg.logf("* ARDP: queued at %s: position %d, about %d s", r.addr, h.QueuePos, h.QueueSecs)
		case h.HasQueuePos:
			r.cfg.logf("* ARDP: queued at %s: position %d", r.addr, h.QueuePos)
		case h.HasQueueSec:
			r.cfg.logf("* ARDP: queued at %s: about %d s", r.addr, h.QueueSecs)
		}
	}
	if h.Seq == 0 {
		if h.Wait > 0 {
			w := r.cfg.waitFor(h.Wait)
			r.cfg.logf("* ARDP: %s asks to wait %d s", r.addr, h.Wait)
			return false, w, nil
		}
		return false, 0, nil // an acknowledgement of our request
	}
	seq := int(h.Seq)
	if h.Total != 0 {
		t := int(h.Total)
		switch {
		case r.total == 0:
			if t < r.rcvdThru() {
				return false, 0, r.protocol("total of %d packets, but %d already came", t, r.rcvdThru())
			}
			for s := range r.ahead {
				if s > t {
					return false, 0, r.protocol("packet %d came, past the total of %d", s, t)
				}
			}
			r.total = t
		case t != r.total:
			return false, 0, r.protocol("the total changed from %d to %d packets", r.total, t)
		}
	}
	if r.total > 0 && seq > r.total {
		return false, 0, r.protocol("packet %d past the message's total of %d", seq, r.total)
	}
	if h.Flags&FlagPleaseAck != 0 {
		r.ackPending = true
	}
	if seq <= r.delivered || r.ahead[seq] != nil {
		return false, 0, nil // a duplicate
	}
	if seq > r.delivered+MaxWindow {
		return false, 0, nil // beyond any window: the server will send it again
	}
	if h.Flags&FlagSeqCtl != 0 {
		data = nil
	}
	if r.ahead == nil {
		r.ahead = make(map[int][]byte)
	}
	r.ahead[seq] = append(make([]byte, 0, len(data)+1), data...) // never nil: present
	return seq == r.delivered+1, 0, nil
}

func (r *Reply) protocol(format string, args ...any) error {
	return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ardp: " + r.addr + ": " + fmt.Sprintf(format, args...)}
}

// redirect moves the transaction to the address the server names.
func (r *Reply) redirect(h Header) (bool, time.Duration, error) {
	r.redirects++
	if r.redirects > r.cfg.maxRedirects() {
		return false, 0, &fetch.Error{Kind: fetch.ErrTooManyRedirects,
			Msg: fmt.Sprintf("ardp: more than %d redirects (last from %s)", r.cfg.maxRedirects(), r.addr)}
	}
	to := h.Redirect.String()
	if !h.Redirect.IsValid() || h.Redirect.Port() == 0 || h.Redirect.Addr().IsUnspecified() {
		return false, 0, r.protocol("redirect to an invalid address %s", to)
	}
	r.cfg.logf("* ARDP: %s redirects to %s", r.addr, to)
	r.closeConn()
	r.reqAcked, r.delivered, r.total, r.ahead, r.ackPending, r.heard = 0, 0, 0, nil, false, false
	if err := r.open(to); err != nil {
		return false, 0, err
	}
	if err := r.sendRequest(); err != nil {
		return false, 0, err
	}
	return false, 0, nil
}

// Close ends the transaction; before the end of the reply it sends the
// server a cancel.
func (r *Reply) Close() error {
	if r.conn != nil && !r.done {
		h := Header{Len: 13, CID: r.cid, Option: OptCancel}
		h.Seq, h.Total = 0, 0
		r.conn.Write(h.Append(nil, nil))
	}
	r.done = true
	r.closeConn()
	if r.err == nil {
		r.err = io.ErrClosedPipe
	}
	return nil
}

// ReadMessage reads the whole reply, at most limit bytes (more is
// ErrTooLarge), and closes it.
func ReadMessage(r *Reply, limit int) ([]byte, error) {
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limit {
		return nil, &fetch.Error{Kind: fetch.ErrTooLarge, Msg: fmt.Sprintf("ardp: reply from %s longer than %d bytes", r.addr, limit)}
	}
	return b, nil
}
