package ftptest

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"
)

// Hooks that make the server misbehave. Each takes over the commands it
// names and leaves the others to the server. Combine them with Chain.

// Chain runs hooks in order until one handles the command.
func Chain(hooks ...Hook) Hook {
	return func(s *Session, verb, arg string) bool {
		for _, h := range hooks {
			if h(s, verb, arg) {
				return true
			}
		}
		return false
	}
}

// Silent accepts connections and never says anything.
func Silent() Hook {
	return func(s *Session, verb, _ string) bool {
		if verb == "(connect)" {
			s.Hold()
			return true
		}
		return false
	}
}

// EndlessReply answers verb ("(connect)" for the greeting) with a
// multi-line reply that never ends: "230-" lines until the client goes
// away or the server closes.
func EndlessReply(verb string, code int) Hook {
	return func(s *Session, v, _ string) bool {
		if v != verb {
			return false
		}
		line := []byte(fmt.Sprintf("%d-%s\r\n", code, strings.Repeat("and more ", 8)))
		for {
			select {
			case <-s.srv.loop.Done():
				return true
			default:
			}
			if s.Raw(line) != nil {
				s.conn.Close()
				return true
			}
		}
	}
}

// HugeLine answers verb with one reply line of n bytes (then CRLF).
func HugeLine(verb string, code, n int) Hook {
	return func(s *Session, v, _ string) bool {
		if v != verb {
			return false
		}
		chunk := []byte(strings.Repeat("x", 64<<10))
		s.Raw([]byte(fmt.Sprintf("%d ", code)))
		for sent := 0; sent < n; sent += len(chunk) {
			if s.Raw(chunk[:min(len(chunk), n-sent)]) != nil {
				return true
			}
		}
		s.Raw([]byte("\r\n"))
		return true
	}
}

// DeadPassive answers EPSV and PASV with a port nobody listens on: the
// data connection can never open.
func DeadPassive() Hook {
	return func(s *Session, v, _ string) bool {
		if v != "EPSV" && v != "PASV" {
			return false
		}
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			s.Reply(425, "cannot listen")
			return true
		}
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if v == "EPSV" {
			s.Reply(229, fmt.Sprintf("Entering Extended Passive Mode (|||%d|)", p))
		} else {
			s.Reply(227, fmt.Sprintf("Entering Passive Mode (127,0,0,1,%d,%d)", p>>8, p&0xff))
		}
		return true
	}
}

// NeverConnect answers RETR with 150 and then never opens the data
// connection (active mode: the client waits for a connection that does not
// come).
func NeverConnect() Hook {
	return func(s *Session, v, _ string) bool {
		if v != "RETR" {
			return false
		}
		s.Reply(150, "Opening data connection")
		s.Hold()
		return true
	}
}

// ShortData answers RETR of name (the argument as sent) with 150, sends
// the first n bytes of data, closes the data connection, and replies final
// ("" sends no final reply and holds the control connection).
func ShortData(name string, data []byte, n int, final string) Hook {
	return ShortDataSaying(name, data, n, "Opening data connection", final)
}

// ShortDataSaying is ShortData with opening as the 150 reply's text
// ("Opening BINARY mode data connection for f (N bytes)." as vsftpd's).
func ShortDataSaying(name string, data []byte, n int, opening, final string) Hook {
	return func(s *Session, v, arg string) bool {
		if v != "RETR" || arg != name {
			return false
		}
		s.Reply(150, opening)
		dc, err := s.OpenData()
		if err != nil {
			s.Reply(425, "no data connection")
			return true
		}
		dc.Write(data[:n])
		dc.Close()
		if final == "" {
			s.Hold()
			return true
		}
		s.Raw([]byte(final + "\r\n"))
		return true
	}
}

// StallData answers RETR of name with 150, sends the first n bytes, and
// then holds the data connection open without sending more.
func StallData(name string, data []byte, n int) Hook {
	return func(s *Session, v, arg string) bool {
		if v != "RETR" || arg != name {
			return false
		}
		s.Reply(150, "Opening data connection")
		dc, err := s.OpenData()
		if err != nil {
			s.Reply(425, "no data connection")
			return true
		}
		dc.Write(data[:n])
		go func() {
			select {
			case <-s.srv.loop.Done():
			case <-time.After(time.Minute):
			}
			dc.Close()
		}()
		io.Copy(io.Discard, dc)
		return true
	}
}

// Reply answers verb with the given raw reply (CRLF added), without
// running it.
func Reply(verb, reply string) Hook {
	return func(s *Session, v, _ string) bool {
		if v != verb {
			return false
		}
		s.Raw([]byte(reply + "\r\n"))
		return true
	}
}

// ListingLines answers LIST (and NLST, MLSD) with these lines exactly,
// CRLF added: for hostile names.
func ListingLines(lines ...string) Hook {
	return func(s *Session, v, _ string) bool {
		if v != "LIST" && v != "NLST" && v != "MLSD" {
			return false
		}
		s.Reply(150, "Here comes the listing")
		dc, err := s.OpenData()
		if err != nil {
			s.Reply(425, "no data connection")
			return true
		}
		for _, l := range lines {
			io.WriteString(dc, l+"\r\n")
		}
		dc.Close()
		s.Reply(226, "Directory send OK")
		return true
	}
}

// EOFEndsData answers RETR as the server would, but takes the client's
// end of the data connection (its FIN, a half-close) as the end of the
// transfer, as curl's test server does (its sockfilt: "Client
// disconnect"): the data are sent in chunks, a little apart, and sending
// stops once the client's end has come; the final reply is 226 all the same.
func EOFEndsData() Hook {
	return func(s *Session, v, arg string) bool {
		if v != "RETR" {
			return false
		}
		n := s.lookup(s.Resolve(arg))
		if n == nil || n.dir {
			return false
		}
		s.Reply(150, "Opening data connection")
		dc, err := s.OpenData()
		if err != nil {
			s.Reply(425, "Failed to establish connection")
			return true
		}
		gone := make(chan struct{})
		go func() {
			io.Copy(io.Discard, dc)
			close(gone)
		}()
		data := n.data
		for len(data) > 0 {
			select {
			case <-gone:
				data = nil
				continue
			case <-time.After(20 * time.Millisecond):
			}
			k := min(len(data), 4)
			if _, err := dc.Write(data[:k]); err != nil {
				break
			}
			data = data[k:]
		}
		dc.Close()
		s.Reply(226, "Transfer complete")
		return true
	}
}

// Oops answers the first n commands verb (on any connection) as vsftpd
// does when its privileged helper died under load — "500 OOPS:
// priv_sock_get_int" — and closes the control connection; later ones are
// left to the server. A verb "" takes any command but USER and PASS.
func Oops(verb string, n int) Hook {
	var mu sync.Mutex
	left := n
	return func(s *Session, v, _ string) bool {
		if v == "(connect)" || verb == "" && (v == "USER" || v == "PASS") || verb != "" && v != verb {
			return false
		}
		mu.Lock()
		take := left > 0
		if take {
			left--
		}
		mu.Unlock()
		if !take {
			return false
		}
		s.Raw([]byte("500 OOPS: priv_sock_get_int\r\n"))
		s.conn.Close()
		return true
	}
}
