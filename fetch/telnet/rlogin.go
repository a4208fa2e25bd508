package telnet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os/user"
	"strconv"
	"sync"
	"syscall"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// RloginFetcher opens rlogin sessions (RFC 1282). It sends Request.Body.
// The zero value is ready to use.
type RloginFetcher struct {
	Config fetch.Config // the verbose log and the terminal
}

// NewRlogin is the rlogin Fetcher for cfg (fetch.Scheme.New).
func NewRlogin(cfg fetch.Config) fetch.Fetcher { return &RloginFetcher{Config: cfg} }

// SendsBody reports that an rlogin session sends Request.Body.
func (*RloginFetcher) SendsBody(*urlparse.URL) bool { return true }

// rlogin's control bytes, sent by the server as TCP urgent data.
const (
	rlFlush   = 0x02 // discard output up to the mark
	rlRaw     = 0x10 // stop local flow control
	rlCooked  = 0x20 // resume local flow control
	rlWindow  = 0x80 // send window-size messages from now on
	rlPortMin = 512  // the reserved source ports rresvport uses
	rlPortMax = 1023
)

// Open connects from a reserved port, sends the four handshake strings and
// returns the session.
func (f *RloginFetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	p, err := prepare(&f.Config, req, "rlogin")
	if err != nil {
		return nil, err
	}
	local := "nobody"
	if me, err := user.Current(); err == nil && me.Username != "" {
		local = me.Username
	}
	remote := req.User
	if remote == "" {
		remote = local
	}
	nc, err := dialReserved(ctx, fetch.Destination(f.Config.Dialer, p.addr)) // --connect-to, --resolve
	if err != nil {
		return nil, err
	}
	if req.Head {
		nc.Close()
		return &fetch.Resource{Meta: fetch.Meta{Size: -1}}, nil
	}
	hs := make([]byte, 0, 64)
	hs = append(hs, 0)
	hs = append(hs, local...)
	hs = append(hs, 0)
	hs = append(hs, remote...)
	hs = append(hs, 0)
	hs = append(hs, p.ttype+"/38400"...)
	hs = append(hs, 0)
	s := &rloginSession{nc: nc, verbose: f.Config.Verbose, terminal: p.term != nil, cols: p.cols, rows: p.rows}
	s.logf("> (handshake) %q %q %q", local, remote, p.ttype+"/38400")
	if _, err := nc.Write(hs); err != nil {
		nc.Close()
		return nil, &fetch.Error{Kind: fetch.ErrConnect, Msg: "rlogin: sending the handshake", Err: err}
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	var first [1]byte
	_, err = io.ReadFull(nc, first[:])
	if err == nil && first[0] != 0 {
		// An error message, to the end of its line.
		msg := make([]byte, 0, 128)
		var b [1]byte
		for len(msg) < 256 {
			if _, e := nc.Read(b[:]); e != nil || b[0] == '\n' {
				break
			}
			msg = append(msg, b[0])
		}
		err = &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "rlogin: the server refused: " + fetch.SanitizeLine(string(bytes.TrimLeft(msg, "\x01")), 200)}
	}
	stop()
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return nil, fetch.ContextError(ctx)
		}
		var fe *fetch.Error
		if !errors.As(err, &fe) {
			err = &fetch.Error{Kind: fetch.ErrProtocol, Msg: "rlogin: no answer to the handshake", Err: err}
		}
		return nil, err
	}
	s.ctl = ctl{
		name:  "rlogin",
		nc:    nc,
		logf:  s.logf,
		write: func(b []byte, flush bool) error { return s.write(b) },
		flush: func() {},
	}
	s.start(ctx, req, p, s)
	return &fetch.Resource{Meta: fetch.Meta{Size: -1}, Body: s}, nil
}

// dialReserved connects to addr from a source port below 1024, as RFC 1282
// requires (the server trusts the client's user name only from one). Only
// root (or CAP_NET_BIND_SERVICE) may bind one; without it the error says
// so (ErrConnect). The connection does not go through a SOCKS proxy, which
// could not keep the port.
func dialReserved(ctx context.Context, addr string) (net.Conn, error) {
	var last error
	for port := rlPortMax; port >= rlPortMin; port-- {
		d := net.Dialer{LocalAddr: &net.TCPAddr{Port: port}}
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return nc, nil
		}
		if ctx.Err() != nil {
			return nil, fetch.ContextError(ctx)
		}
		last = err
		switch {
		case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
			return nil, &fetch.Error{Kind: fetch.ErrConnect,
				Msg: "rlogin needs a source port below 1024, which only root may bind: run urlget as root (or give it CAP_NET_BIND_SERVICE)"}
		case errors.Is(err, syscall.EADDRINUSE), errors.Is(err, syscall.EADDRNOTAVAIL):
			continue
		}
		k := fetch.KindOf(err)
		if k == fetch.ErrOther {
			k = fetch.ErrConnect
		}
		return nil, &fetch.Error{Kind: k, Msg: "rlogin: could not connect to " + addr, Err: fetch.NetCause(err)}
	}
	return nil, &fetch.Error{Kind: fetch.ErrConnect, Msg: "rlogin: every source port from 512 to 1023 is in use", Err: last}
}

// rloginSession is an rlogin session: Body and Session.
type rloginSession struct {
	ctl
	nc       net.Conn
	verbose  io.Writer
	terminal bool

	wmu        sync.Mutex
	vmu        sync.Mutex
	mu         sync.Mutex
	cols, rows int
	window     bool // the server asked for window sizes (0x80)

	pendingCR bool // script mode: CR LF becomes LF
}

func (s *rloginSession) logf(format string, a ...any) {
	if s.verbose != nil {
		s.vmu.Lock()
		defer s.vmu.Unlock()
		fetch.Logf(s.verbose, format, a...)
	}
}

func (s *rloginSession) write(b []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := s.nc.Write(b)
	return err
}

// Read returns what the server sends. Urgent bytes (the control bytes) are
// taken out of band before each read; a script sees LF for CR LF.
func (s *rloginSession) Read(p []byte) (int, error) {
	for {
		n, err := s.read(p)
		if n > 0 && !s.terminal {
			n = s.crlf(p[:n])
		}
		if n > 0 {
			s.sawData(p[:n])
			return n, s.loginErr()
		}
		if err != nil {
			if err == io.EOF && s.pendingCR {
				s.pendingCR = false
				p[0] = '\r'
				return 1, nil
			}
			if err != io.EOF && !errors.Is(err, net.ErrClosed) {
				err = &fetch.Error{Kind: fetch.KindOf(err), Msg: "rlogin: reading from the server", Err: err}
			}
			return 0, err
		}
	}
}

// crlf turns CR LF into LF in place, holding a CR that ends the chunk.
func (s *rloginSession) crlf(p []byte) int {
	out := p[:0]
	for _, b := range p {
		if s.pendingCR {
			s.pendingCR = false
			if b != '\n' {
				out = append(out, '\r')
			}
		}
		if b == '\r' {
			s.pendingCR = true
			continue
		}
		out = append(out, b)
	}
	return len(out)
}

// read reads from the socket, first taking any urgent byte waiting.
func (s *rloginSession) read(p []byte) (int, error) {
	sc, ok := s.nc.(syscall.Conn)
	if !ok {
		return s.nc.Read(p)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return s.nc.Read(p)
	}
	var n int
	var rerr error
	var oob []byte
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		if k, _, e := syscall.Recvfrom(int(fd), b[:], syscall.MSG_OOB|syscall.MSG_DONTWAIT); e == nil && k == 1 {
			oob = append(oob, b[0])
		}
		n, rerr = syscall.Read(int(fd), p)
		if rerr == syscall.EAGAIN {
			return len(oob) > 0 // wait, unless there is a control byte to act on
		}
		return true
	})
	for _, b := range oob {
		s.control(b)
	}
	if err != nil {
		return 0, err
	}
	if rerr == syscall.EAGAIN {
		return 0, nil
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// control acts on an urgent byte from the server.
func (s *rloginSession) control(b byte) {
	s.logf("< (urgent) 0x%02x", b)
	if b&rlWindow != 0 {
		s.mu.Lock()
		s.window = true
		cols, rows := s.cols, s.rows
		s.mu.Unlock()
		if cols > 0 && rows > 0 {
			s.sendWindow(cols, rows)
		}
	}
	// rlFlush, rlRaw and rlCooked concern a local terminal's flow control
	// and buffered output: the terminal here is raw already.
}

// sendWindow sends the window-change message: 0xFF 0xFF "ss", then rows,
// columns, x and y pixels, 16 bits each in network order.
func (s *rloginSession) sendWindow(cols, rows int) error {
	cols, rows = min(max(cols, 0), 65535), min(max(rows, 0), 65535)
	s.logf("> (window) %dx%d", cols, rows)
	return s.write([]byte{0xff, 0xff, 's', 's', byte(rows >> 8), byte(rows), byte(cols >> 8), byte(cols), 0, 0, 0, 0})
}

// SetWindowSize sends the new size once the server has asked for sizes.
func (s *rloginSession) SetWindowSize(cols, rows int) error {
	s.mu.Lock()
	s.cols, s.rows = cols, rows
	on := s.window
	s.mu.Unlock()
	if on {
		return s.sendWindow(cols, rows)
	}
	return nil
}

// RemoteEcho is always true: the remote pty echoes.
func (s *rloginSession) RemoteEcho() bool { return true }

// Send: rlogin has no commands in band.
func (s *rloginSession) Send(name string) error {
	return errors.New("rlogin has no protocol commands (" + strconv.Quote(name) + ")")
}

// Commands is empty for rlogin.
func (s *rloginSession) Commands() [][2]string { return nil }

// Close ends the session.
func (s *rloginSession) Close() error { return s.ctl.Close() }
