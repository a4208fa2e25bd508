package ftp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urlget/urlget/fetch"
)

// dataConn is a data connection being set up: connected already (passive)
// or waiting for the server to connect (active).
type dataConn struct {
	conn net.Conn     // passive: connected before the transfer command
	ln   net.Listener // active: the server connects here after the 1xx reply
	stop func() bool  // ends the context watch on ln
}

func (d *dataConn) close() {
	if d.conn != nil {
		d.conn.Close()
	}
	if d.ln != nil {
		d.ln.Close()
	}
	if d.stop != nil {
		d.stop()
	}
}

// openData prepares a data connection for the transfer command cmd:
// active mode (EPRT/PORT) once SetActive named an address, else passive
// (PRET cmd when asked for, then EPSV, then PASV).
func (c *Conn) openData(ctx context.Context, cmd Command) (*dataConn, error) {
	if c.active != "" {
		return c.openActive(ctx)
	}
	if err := c.Pret(cmd); err != nil {
		return nil, err
	}
	dc, err := c.OpenPassive(ctx)
	if err != nil {
		return nil, err
	}
	return &dataConn{conn: dc}, nil
}

// ParseEPSV reads the port of "229 text (|||port|)": any delimiter, the
// same four times.
func ParseEPSV(line string) (int, bool) {
	i := strings.IndexByte(line, '(')
	j := strings.LastIndexByte(line, ')')
	if i < 0 || j < i+6 {
		return 0, false
	}
	s := line[i+1 : j]
	d := s[0]
	if d < 33 || d > 126 || len(s) < 5 || s[1] != d || s[2] != d || s[len(s)-1] != d {
		return 0, false
	}
	p, err := strconv.Atoi(s[3 : len(s)-1])
	if err != nil || p < 1 || p > 65535 {
		return 0, false
	}
	return p, true
}

// ParsePASV reads "227 text (h1,h2,h3,h4,p1,p2)", with or without the
// parentheses: the first run of six comma-separated numbers.
func ParsePASV(line string) (net.IP, int, bool) {
	text := line
	if len(text) > 4 {
		text = text[4:]
	}
	for i := 0; i < len(text); i++ {
		if text[i] < '0' || text[i] > '9' || i > 0 && text[i-1] >= '0' && text[i-1] <= '9' {
			continue
		}
		var n [6]int
		k, j := 0, i
		for k < 6 {
			start := j
			for j < len(text) && text[j] >= '0' && text[j] <= '9' && j-start < 4 {
				j++
			}
			if j == start {
				break
			}
			v, _ := strconv.Atoi(text[start:j])
			if v > 255 {
				break
			}
			n[k] = v
			k++
			if k < 6 {
				if j >= len(text) || text[j] != ',' {
					break
				}
				j++
			}
		}
		if k == 6 {
			p := n[4]<<8 | n[5]
			if p == 0 {
				return nil, 0, false
			}
			return net.IPv4(byte(n[0]), byte(n[1]), byte(n[2]), byte(n[3])), p, true
		}
	}
	return nil, 0, false
}

// openActive listens on the address SetActive (ftp-port) names and tells
// the server with EPRT (RFC 2428), or PORT when EPRT is refused (IPv4
// only). An address that is not this host's (the one a NAT shows) is
// told the server while the listening is on the control connection's
// local address, as curl does.
func (c *Conn) openActive(ctx context.Context) (*dataConn, error) {
	ip, low, high, err := activeAddr(ctx, c.active, c.localIP)
	if err != nil {
		return nil, err
	}
	ln, err := listenRange(ip, low, high)
	if err != nil && errors.Is(err, syscall.EADDRNOTAVAIL) && c.localIP != nil && (ip.To4() == nil) == (c.localIP.To4() == nil) {
		// Not an address of this host: the one a NAT in front of it
		// shows the server. Listen on the control connection's local
		// address and tell the server the one given, as curl does.
		ln, err = listenRange(c.localIP, low, high)
	}
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrConnect, Msg: "ftp: active mode: cannot listen on " + ip.String(), Err: err}
	}
	d := &dataConn{ln: ln}
	d.stop = context.AfterFunc(ctx, func() { ln.Close() })
	port := ln.Addr().(*net.TCPAddr).Port
	v4 := ip.To4()
	sent := false
	if !c.noEPRT || v4 == nil {
		fam := "1"
		if v4 == nil {
			fam = "2"
		}
		arg := "|" + fam + "|" + ip.String() + "|" + strconv.Itoa(port) + "|"
		r, err := c.cmd("EPRT", arg, true)
		if err != nil {
			d.close()
			return nil, ioError(ctx, fetch.ErrProtocol, "EPRT", err)
		}
		switch {
		case r.Positive():
			sent = true
		case v4 == nil:
			d.close()
			return nil, RefusedError("EPRT", arg, r)
		default:
			c.noEPRT = true
		}
	}
	if !sent {
		arg := fmt.Sprintf("%d,%d,%d,%d,%d,%d", v4[0], v4[1], v4[2], v4[3], port>>8, port&0xff)
		r, err := c.cmd("PORT", arg, true)
		if err != nil {
			d.close()
			return nil, ioError(ctx, fetch.ErrProtocol, "PORT", err)
		}
		if !r.Positive() {
			d.close()
			return nil, RefusedError("PORT", arg, r)
		}
	}
	return d, nil
}

// listenRange listens on ip, on the first free port from low to high (0:
// any).
func listenRange(ip net.IP, low, high int) (ln net.Listener, err error) {
	for p := low; ; p++ {
		ln, err = net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(p)))
		if err == nil || p >= high {
			return ln, err
		}
	}
}

// activeAddr resolves an ftp-port value: "-" (the control connection's
// local address), an IP address, an interface name or a host name, each
// optionally followed by ":PORT" or ":LOW-HIGH" (an IPv6 address then in
// brackets).
func activeAddr(ctx context.Context, spec string, local net.IP) (ip net.IP, low, high int, err error) {
	bad := func(msg string) (net.IP, int, int, error) {
		return nil, 0, 0, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "ftp-port " + strconv.Quote(spec) + ": " + msg}
	}
	host, ports := spec, ""
	switch {
	case strings.HasPrefix(spec, "["):
		end := strings.IndexByte(spec, ']')
		if end < 0 {
			return bad("missing ]")
		}
		host, ports = spec[1:end], strings.TrimPrefix(spec[end+1:], ":")
	case strings.Count(spec, ":") == 1:
		host, ports, _ = strings.Cut(spec, ":")
	}
	if ports != "" {
		a, b, isRange := strings.Cut(ports, "-")
		if low, err = strconv.Atoi(a); err != nil || low < 1 || low > 65535 {
			return bad("bad port")
		}
		high = low
		if isRange {
			if high, err = strconv.Atoi(b); err != nil || high < low || high > 65535 {
				return bad("bad port range")
			}
		}
	}
	switch {
	case host == "-" || host == "":
		ip = local
	case net.ParseIP(host) != nil:
		ip = net.ParseIP(host)
	default:
		if ifi, e := net.InterfaceByName(host); e == nil {
			addrs, _ := ifi.Addrs()
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok && (ip == nil || ip.To4() == nil && n.IP.To4() != nil) {
					ip = n.IP
				}
			}
			if ip == nil {
				return bad("interface has no address")
			}
		} else {
			ips, e := net.DefaultResolver.LookupIP(ctx, "ip", host)
			if e != nil || len(ips) == 0 {
				return nil, 0, 0, &fetch.Error{Kind: fetch.ErrResolve, Msg: "ftp-port: could not resolve " + host, Err: e}
			}
			ip = ips[0]
		}
	}
	if ip == nil {
		return bad("no local address known")
	}
	return ip, low, high, nil
}

// accept waits for the server's data connection in active mode, at most
// timeout. A connection from any address but the control connection's peer
// is closed and the wait goes on (someone else racing for the port).
func (d *dataConn) accept(ctx context.Context, c *Conn, timeout time.Duration) (net.Conn, error) {
	if tl, ok := d.ln.(*net.TCPListener); ok && timeout > 0 {
		tl.SetDeadline(time.Now().Add(timeout))
	}
	for {
		nc, err := d.ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil, fetch.ContextError(ctx)
			}
			if fetch.KindOf(err) == fetch.ErrTimeout {
				return nil, &fetch.Error{Kind: fetch.ErrTimeout, Msg: "ftp: the server did not connect for the data transfer within " + timeout.String(), Err: err}
			}
			return nil, &fetch.Error{Kind: fetch.ErrConnect, Msg: "ftp: active data connection", Err: err}
		}
		if c.remoteIP != nil {
			if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok && !ta.IP.Equal(c.remoteIP) {
				nc.Close()
				continue
			}
		}
		d.ln.Close()
		d.stop()
		stop := context.AfterFunc(ctx, func() { nc.Close() })
		return &watched{Conn: nc, stop: stop}, nil
	}
}

// acceptWatching is accept while the control connection is watched too:
// a server that cannot connect says so there (425 after its 150, curl's
// test 1206; 421, 1207), and waiting for its connection until the timeout
// would hide why. Such a reply is read and is ErrAccept (curl's 10), the
// session in step. A positive reply (the transfer's end, sent just after
// the server connected) is left for the transfer to read.
func (d *dataConn) acceptWatching(ctx context.Context, c *Conn, timeout time.Duration) (net.Conn, error) {
	type accepted struct {
		nc  net.Conn
		err error
	}
	done := make(chan accepted, 1)
	go func() {
		nc, err := d.accept(ctx, c, timeout)
		done <- accepted{nc, err}
	}()
	defer c.raw.SetReadDeadline(time.Time{})
	for {
		select {
		case a := <-done:
			return a.nc, a.err
		default:
		}
		c.raw.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		b, err := c.br.Peek(1)
		switch {
		case err == nil && (b[0] == '4' || b[0] == '5'):
			c.raw.SetReadDeadline(time.Time{})
			r, rerr := c.readReply()
			d.close() // ends the accept
			if a := <-done; a.nc != nil {
				a.nc.Close()
			}
			if rerr != nil {
				return nil, ioError(ctx, fetch.ErrProtocol, "waiting for the data connection", rerr)
			}
			// A 421 here is the server's word on this transfer (curl
			// reads it so, and sends QUIT); a 500 OOPS is not.
			if r.code == 421 {
				c.gone, c.broken = false, false
			}
			return nil, replyError(fetch.ErrAccept, "ftp: the server could not connect for the data", c.lastVerb, r)
		case err == nil:
			a := <-done
			return a.nc, a.err
		case fetch.KindOf(err) != fetch.ErrTimeout:
			// The control connection failed: the accept ends with it.
			d.close()
			if a := <-done; a.nc != nil {
				a.nc.Close()
			}
			c.broken = true
			return nil, ioError(ctx, fetch.ErrProtocol, "waiting for the data connection", err)
		}
	}
}

// watched is an accepted data connection closed when the context is done.
type watched struct {
	net.Conn
	stop func() bool
	once sync.Once
}

func (w *watched) Close() error {
	w.once.Do(func() { w.stop() })
	return w.Conn.Close()
}
