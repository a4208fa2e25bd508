package fetch

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"

	"github.com/urlget/urlget/urlparse"
)

// SOCKS4 (and its 4a extension, which hands the proxy the name) is what
// curl's --socks4 and --socks4a speak; golang.org/x/net/proxy has SOCKS5
// only. The protocol: one request (version 4, CONNECT, the port, an IPv4
// address — 0.0.0.1 and the name after the user id for 4a —, the user id),
// one 8-byte reply whose second byte is 90 when the proxy has connected.

// isSOCKS reports whether p is a SOCKS proxy, which the Dialer goes
// through for every scheme.
func isSOCKS(p *urlparse.URL) bool {
	switch p.Scheme {
	case "socks5", "socks5h", "socks4", "socks4a":
		return true
	}
	return false
}

// socks4Granted is the reply code of a tunnel made.
const socks4Granted = 90

// dialSOCKS4 connects to addr ("host:port", an IPv4 address unless p is
// socks4a://) through the SOCKS4 proxy p, reached with d; the proxy URL's
// user is the user id sent. Once the proxy is reached, a failure is
// ErrProxy (curl's 97).
func dialSOCKS4(ctx context.Context, d Dialer, p *urlparse.URL, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 {
		return nil, errors.New("bad port " + portStr)
	}
	req := []byte{4, 1, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint16(req[2:], uint16(port))
	ip := net.ParseIP(host)
	switch {
	case ip != nil && ip.To4() != nil:
		copy(req[4:], ip.To4())
		req = append(append(req, p.User...), 0)
	case ip != nil:
		return nil, &Error{Kind: ErrProxy, Msg: "a SOCKS4 proxy cannot reach the IPv6 address " + host}
	case p.Scheme != "socks4a":
		return nil, &Error{Kind: ErrResolve, Msg: "could not resolve host: " + host + " (for the SOCKS4 proxy)"}
	default:
		req[7] = 1 // 0.0.0.1: the name follows
		req = append(append(req, p.User...), 0)
		req = append(append(req, host...), 0)
	}
	c, err := d.DialContext(ctx, "tcp", hostPort(p, defaultProxyPort))
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	reply := make([]byte, 8)
	if _, err = c.Write(req); err == nil {
		_, err = io.ReadFull(c, reply)
	}
	switch {
	case err != nil:
		c.Close()
		return nil, &Error{Kind: ErrProxy, Msg: "the SOCKS4 proxy did not answer", Err: err}
	case reply[1] != socks4Granted:
		c.Close()
		return nil, &Error{Kind: ErrProxy, Msg: "the SOCKS4 proxy refused the connection (code " + strconv.Itoa(int(reply[1])) + ")"}
	}
	return c, nil
}
