// Package telnettest is an in-tree telnet server for urlget's tests: a small
// well-behaved one (Shell, which negotiates like inetutils-telnetd and runs
// a toy command loop) and hostile ones (a huge subnegotiation, IAC floods,
// WILL/WONT flapping, a trickle), on fetchtest.Serve.
package telnettest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// Telnet codes the server uses.
const (
	IAC  = 255
	DONT = 254
	DO   = 253
	WONT = 252
	WILL = 251
	SB   = 250
	NOP  = 241
	SE   = 240

	BINARY     = 0
	ECHO       = 1
	SGA        = 3
	STATUS     = 5
	TTYPE      = 24
	NAWS       = 31
	TSPEED     = 32
	LINEMODE   = 34
	NEWENVIRON = 39
)

// Server is a running test server.
type Server struct {
	*fetchtest.Loop
}

// Start serves handle on 127.0.0.1 for the rest of the test.
func Start(t testing.TB, handle func(net.Conn)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{fetchtest.Serve(ln, handle)}
	t.Cleanup(s.Close)
	return s
}

// URL is telnet://[userinfo@]127.0.0.1:PORT/.
func (s *Server) URL(userinfo string) string {
	if userinfo != "" {
		userinfo += "@"
	}
	return "telnet://" + userinfo + s.Addr() + "/"
}

// Seen is what a Shell learned from a client.
type Seen struct {
	mu     sync.Mutex
	Term   string
	User   string
	Speed  string
	Cols   int
	Rows   int
	Opts   map[string]bool // "WILL TTYPE", "DONT ECHO", … as the client sent them
	Lines  []string        // input lines, as decoded
	Raw    []byte          // every data byte the client sent (after IAC undoubling), up to 64 KiB
	Logins []string        // answers to "login:" then "Password:"
}

func (s *Seen) snapshot() Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	opts := map[string]bool{}
	for k, v := range s.Opts {
		opts[k] = v
	}
	return Seen{Term: s.Term, User: s.User, Speed: s.Speed, Cols: s.Cols, Rows: s.Rows, Opts: opts,
		Lines: append([]string(nil), s.Lines...), Raw: append([]byte(nil), s.Raw...), Logins: append([]string(nil), s.Logins...)}
}

// Shell is a well-behaved server's options.
type Shell struct {
	// Login asks "login: " and "Password:" before the prompt.
	Login bool
	// Echo offers WILL ECHO and echoes input lines when the client agrees.
	Echo bool

	mu   sync.Mutex
	seen []*Seen
}

// Last is the latest session's Seen (zero when none).
func (sh *Shell) Last() Seen {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if len(sh.seen) == 0 {
		return Seen{}
	}
	return sh.seen[len(sh.seen)-1].snapshot()
}

var optName = map[byte]string{BINARY: "BINARY", ECHO: "ECHO", SGA: "SGA", STATUS: "STATUS", TTYPE: "TTYPE",
	NAWS: "NAWS", TSPEED: "TSPEED", LINEMODE: "LINEMODE", NEWENVIRON: "NEW-ENVIRON"}
var cmdName = map[byte]string{WILL: "WILL", WONT: "WONT", DO: "DO", DONT: "DONT"}

func name(m map[byte]string, b byte) string {
	if n, ok := m[b]; ok {
		return n
	}
	return strconv.Itoa(int(b))
}

// Handle serves one connection. The commands, one a line: "env" prints
// TERM, USER, SPEED and SIZE as learned; "echo WORDS" prints WORDS;
// "ff" prints a line holding 0xFF (sent as IAC IAC); "exit" closes.
func (sh *Shell) Handle(nc net.Conn) {
	seen := &Seen{Opts: map[string]bool{}}
	sh.mu.Lock()
	sh.seen = append(sh.seen, seen)
	sh.mu.Unlock()
	var wmu sync.Mutex
	w := bufio.NewWriter(nc)
	send := func(b ...byte) { wmu.Lock(); w.Write(b); w.Flush(); wmu.Unlock() }
	send(IAC, DO, TTYPE, IAC, DO, TSPEED, IAC, DO, NEWENVIRON, IAC, DO, NAWS, IAC, DO, LINEMODE,
		IAC, WILL, SGA, IAC, WILL, STATUS, IAC, DO, ECHO)
	if sh.Echo {
		send(IAC, WILL, ECHO)
	}
	lines := make(chan string, 16)
	echo := make(chan bool, 1)
	go sh.read(nc, seen, send, lines, echo)
	clientEcho := false
	readLine := func() (string, bool) {
		for {
			select {
			case e := <-echo:
				clientEcho = e
			case l, ok := <-lines:
				return l, ok
			case <-time.After(20 * time.Second):
				return "", false
			}
		}
	}
	// Let the negotiation settle, as real servers do.
	time.Sleep(50 * time.Millisecond)
	crlf := func(s string) { send([]byte(strings.ReplaceAll(s, "\n", "\r\n"))...) }
	if sh.Login {
		crlf("\ntest login: ")
		u, ok := readLine()
		if !ok {
			return
		}
		crlf("Password:")
		p, ok := readLine()
		if !ok {
			return
		}
		seen.mu.Lock()
		seen.Logins = append(seen.Logins, u, p)
		seen.mu.Unlock()
		crlf("\nwelcome\n")
	}
	for {
		crlf("$ ")
		l, ok := readLine()
		if !ok {
			return
		}
		if clientEcho {
			crlf(l + "\n")
		}
		cmd, arg, _ := strings.Cut(l, " ")
		switch cmd {
		case "env":
			seen.mu.Lock()
			crlf(fmt.Sprintf("TERM=%s USER=%s SPEED=%s SIZE=%dx%d\n", seen.Term, seen.User, seen.Speed, seen.Cols, seen.Rows))
			seen.mu.Unlock()
		case "echo":
			crlf(arg + "\n")
		case "ff":
			send('a', IAC, IAC, 'b', '\r', '\n')
		case "exit":
			crlf("logout\n")
			return
		}
	}
}

// read parses what the client sends: negotiation (answered as a server
// does: SEND for TTYPE, TSPEED, NEW-ENVIRON once the client agrees) and
// data lines (CR LF, CR NUL or LF ended).
func (sh *Shell) read(nc net.Conn, seen *Seen, send func(...byte), lines chan<- string, echo chan<- bool) {
	defer close(lines)
	r := bufio.NewReader(nc)
	var line []byte
	cr := false
	for {
		b, err := r.ReadByte()
		if err != nil {
			if len(line) > 0 {
				lines <- string(line)
			}
			return
		}
		if b == IAC {
			c, err := r.ReadByte()
			if err != nil {
				return
			}
			switch c {
			case WILL, WONT, DO, DONT:
				o, err := r.ReadByte()
				if err != nil {
					return
				}
				seen.mu.Lock()
				seen.Opts[cmdName[c]+" "+name(optName, o)] = true
				seen.mu.Unlock()
				switch {
				case c == WILL && o == TTYPE:
					send(IAC, SB, TTYPE, 1, IAC, SE)
				case c == WILL && o == TSPEED:
					send(IAC, SB, TSPEED, 1, IAC, SE)
				case c == WILL && o == NEWENVIRON:
					send(IAC, SB, NEWENVIRON, 1, 0, 'U', 'S', 'E', 'R', IAC, SE)
				case o == ECHO && (c == DO || c == DONT):
					select {
					case echo <- c == DO:
					default:
					}
				}
				continue
			case SB:
				var sb []byte
				for {
					x, err := r.ReadByte()
					if err != nil {
						return
					}
					if x == IAC {
						y, err := r.ReadByte()
						if err != nil {
							return
						}
						if y == SE {
							break
						}
						x = y
					}
					if len(sb) < 4096 {
						sb = append(sb, x)
					}
				}
				seen.mu.Lock()
				learn(seen, sb)
				seen.mu.Unlock()
				continue
			case IAC:
				// a data 0xFF: falls through to the data path
			default:
				continue
			}
		}
		seen.mu.Lock()
		if len(seen.Raw) < 64<<10 {
			seen.Raw = append(seen.Raw, b)
		}
		seen.mu.Unlock()
		if cr {
			cr = false
			if b == 0 || b == '\n' {
				continue
			}
		}
		switch b {
		case '\r':
			cr = true
			fallthrough
		case '\n':
			seen.mu.Lock()
			seen.Lines = append(seen.Lines, string(line))
			seen.mu.Unlock()
			lines <- string(line)
			line = line[:0]
		default:
			line = append(line, b)
		}
	}
}

// learn records a subnegotiation the client sent.
func learn(s *Seen, sb []byte) {
	if len(sb) < 2 {
		return
	}
	switch sb[0] {
	case TTYPE:
		if sb[1] == 0 {
			s.Term = string(sb[2:])
		}
	case TSPEED:
		if sb[1] == 0 {
			s.Speed = string(sb[2:])
		}
	case NAWS:
		if len(sb) == 5 {
			s.Cols = int(sb[1])<<8 | int(sb[2])
			s.Rows = int(sb[3])<<8 | int(sb[4])
		}
	case NEWENVIRON:
		if sb[1] == 0 {
			// IS VAR name VALUE value …
			parts := bytes.FieldsFunc(sb[2:], func(r rune) bool { return r == 0 || r == 1 })
			for i := 0; i+1 < len(parts); i += 2 {
				if string(parts[i]) == "USER" {
					s.User = string(parts[i+1])
				}
			}
		}
	}
}

// Hostile servers.

// HugeSubnegotiation sends IAC SB TTYPE and then n bytes without ever
// ending it.
func HugeSubnegotiation(n int) func(net.Conn) {
	return func(nc net.Conn) {
		nc.Write([]byte{IAC, SB, TTYPE, 0})
		chunk := bytes.Repeat([]byte{'x'}, 32<<10)
		for sent := 0; sent < n; sent += len(chunk) {
			if _, err := nc.Write(chunk); err != nil {
				return
			}
		}
		io.Copy(io.Discard, nc)
	}
}

// IACFlood sends n IAC NOPs (and IAC GAs, and IAC IAC pairs in between
// data bytes "d"), then data, then closes. The client's output must be
// exactly data with one "d\xff" for every 1000 commands.
func IACFlood(n int, data []byte) func(net.Conn) {
	return func(nc net.Conn) {
		go io.Copy(io.Discard, nc)
		w := bufio.NewWriterSize(nc, 64<<10)
		for i := 0; i < n; i++ {
			w.Write([]byte{IAC, NOP, IAC, 249})
			if i%1000 == 999 {
				w.Write([]byte{'d', IAC, IAC})
			}
		}
		w.Write(data)
		w.Flush()
	}
}

// Flap sends WILL and WONT ECHO (and DO and DONT NAWS) alternately n
// times, then data; it counts the negotiation replies it gets in *replies.
func Flap(n int, data []byte, replies *atomic.Int64) func(net.Conn) {
	return func(nc net.Conn) {
		go func() {
			var buf [4096]byte
			for {
				k, err := nc.Read(buf[:])
				replies.Add(int64(bytes.Count(buf[:k], []byte{IAC})))
				if err != nil {
					return
				}
			}
		}()
		w := bufio.NewWriter(nc)
		for i := 0; i < n; i++ {
			w.Write([]byte{IAC, WILL, ECHO, IAC, WONT, ECHO, IAC, DO, NAWS, IAC, DONT, NAWS, IAC, WILL, 200, IAC, DO, 201})
		}
		w.Write(data)
		w.Flush()
		time.Sleep(100 * time.Millisecond)
	}
}

// Trickle sends data one byte at a time, delay apart, with the telnet
// sequences in it split across writes, then closes.
func Trickle(data []byte, delay time.Duration) func(net.Conn) {
	return func(nc net.Conn) {
		go io.Copy(io.Discard, nc)
		for _, b := range data {
			if _, err := nc.Write([]byte{b}); err != nil {
				return
			}
			time.Sleep(delay)
		}
	}
}

// Silent accepts and sends nothing until the connection is closed.
func Silent(nc net.Conn) { io.Copy(io.Discard, nc) }

// Banner offers WILL BINARY, sends body (IAC doubled) once the client has
// answered, and closes: a "resource" for the conformance suite.
func Banner(body []byte) func(net.Conn) {
	return func(nc net.Conn) {
		nc.Write([]byte{IAC, WILL, BINARY})
		var ans [3]byte
		if _, err := io.ReadFull(nc, ans[:]); err != nil {
			return
		}
		nc.Write(bytes.ReplaceAll(body, []byte{IAC}, []byte{IAC, IAC}))
		if tc, ok := nc.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.Copy(io.Discard, nc)
	}
}

// Hold sends data and then holds the connection open until the client or
// the server's Close ends it.
func Hold(data []byte) func(net.Conn) {
	return func(nc net.Conn) {
		nc.Write(data)
		io.Copy(io.Discard, nc)
	}
}
