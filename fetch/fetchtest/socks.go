package fetchtest

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
)

// SOCKS5 is a minimal SOCKS5 proxy for tests (RFC 1928 CONNECT, with RFC
// 1929 username/password when NeedAuth): it records the address each
// client asks for, and connects there — or to Route(asked) when Route is
// set (for names that do not resolve, or to send everything to one
// server).
type SOCKS5 struct {
	*Server
	needAuth bool
	route    func(asked string) string

	mu     sync.Mutex
	asked  []string
	logins []string
}

// NewSOCKS5 starts a SOCKS5 proxy on 127.0.0.1, closed by t.Cleanup. With
// needAuth it insists on a username/password login; route, when not nil,
// chooses the address to connect to for the one asked.
func NewSOCKS5(t testing.TB, needAuth bool, route func(asked string) string) *SOCKS5 {
	t.Helper()
	s := &SOCKS5{needAuth: needAuth, route: route}
	s.Server = NewServer(t, s.serve)
	return s
}

// Asked lists the addresses ("host:port") clients asked for, in order.
func (s *SOCKS5) Asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.asked...)
}

// Logins lists the "user:password" logins clients sent, in order.
func (s *SOCKS5) Logins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.logins...)
}

// readString reads a SOCKS length-prefixed string.
func readString(r io.Reader) (string, error) {
	var l [1]byte
	if _, err := io.ReadFull(r, l[:]); err != nil {
		return "", err
	}
	b := make([]byte, l[0])
	_, err := io.ReadFull(r, b)
	return string(b), err
}

func (s *SOCKS5) serve(c net.Conn) {
	r := bufio.NewReader(c)
	hdr := make([]byte, 2)
	if _, err := io.ReadFull(r, hdr); err != nil || hdr[0] != 5 {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return
	}
	if s.needAuth {
		if !contains(methods, 2) {
			c.Write([]byte{5, 0xff})
			return
		}
		c.Write([]byte{5, 2})
		var v [1]byte
		if _, err := io.ReadFull(r, v[:]); err != nil {
			return
		}
		user, err1 := readString(r)
		pass, err2 := readString(r)
		if err1 != nil || err2 != nil {
			return
		}
		s.mu.Lock()
		s.logins = append(s.logins, user+":"+pass)
		s.mu.Unlock()
		c.Write([]byte{1, 0})
	} else {
		c.Write([]byte{5, 0})
	}
	req := make([]byte, 4)
	if _, err := io.ReadFull(r, req); err != nil || req[1] != 1 {
		return
	}
	var host string
	switch req[3] {
	case 1, 4:
		ip := make([]byte, 4)
		if req[3] == 4 {
			ip = make([]byte, 16)
		}
		if _, err := io.ReadFull(r, ip); err != nil {
			return
		}
		host = net.IP(ip).String()
	case 3:
		name, err := readString(r)
		if err != nil {
			return
		}
		host = name
	default:
		return
	}
	var port [2]byte
	if _, err := io.ReadFull(r, port[:]); err != nil {
		return
	}
	asked := net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port[:]))))
	s.mu.Lock()
	s.asked = append(s.asked, asked)
	s.mu.Unlock()
	target := asked
	if s.route != nil {
		target = s.route(asked)
	}
	up, err := net.Dial("tcp", target)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer up.Close()
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	go func() {
		io.Copy(up, r)
		if tc, ok := up.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
	}()
	io.Copy(c, up)
}

func contains(b []byte, x byte) bool {
	for _, c := range b {
		if c == x {
			return true
		}
	}
	return false
}
