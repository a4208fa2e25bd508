// Package smtptest is an in-tree SMTP server (RFC 5321) for testing
// fetch/mailto: a well-behaved server with STARTTLS, AUTH PLAIN and LOGIN,
// SIZE, SMTPUTF8 and refusable recipients, and the hostile behaviours a
// client must survive (endless continuation lines, a 10 MB reply line, a
// stall after DATA, 421 in the middle of a transaction). It runs on
// fetchtest.Serve.
package smtptest

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// Mode is a hostile behaviour.
type Mode int

const (
	Normal              Mode = iota
	EndlessContinuation      // the EHLO reply is "250-" lines without end
	HugeLine                 // the EHLO reply is one line of 10 MB
	StallAfterData           // no reply after the message's final "."
	Close421AtRcpt           // "421" to the first RCPT, then the connection closes
	Close421AfterData        // "421" instead of the reply to the final "."
	NoEHLO                   // "502" to EHLO (HELO works)
	RefuseMessage            // "554" to the final "."
)

// Message is one message the server accepted.
type Message struct {
	From   string // MAIL FROM address
	Params string // MAIL FROM parameters (SIZE=…, SMTPUTF8, BODY=…)
	To     []string
	Data   []byte // the message, dot-stuffing undone
	TLS    bool   // received over TLS
	User   string // the AUTH user, "" without AUTH
}

// Server is the test server. Set the fields, then Start.
type Server struct {
	Mode Mode
	// Extensions are the EHLO keywords after the greeting line; nil gives
	// 8BITMIME, SIZE 10000000, SMTPUTF8 and AUTH PLAIN LOGIN (and
	// STARTTLS when TLS is set).
	Extensions []string
	// Refuse maps a recipient address to the reply refusing it
	// ("550 5.1.1 no such user").
	Refuse map[string]string
	// Users are the AUTH credentials accepted.
	Users map[string]string
	// TLS, when set, makes the server offer STARTTLS, or with ImplicitTLS
	// speak TLS from the start (smtps).
	TLS         *tls.Config
	ImplicitTLS bool

	*fetchtest.Server
	mu         sync.Mutex
	messages   []Message
	incomplete int      // DATA phases that ended without the final "."
	commands   []string // every command line received (AUTH payloads masked)
}

// Start starts the server on 127.0.0.1, closed when the test ends.
func (s *Server) Start(t testing.TB) *Server {
	s.Server = fetchtest.NewServer(t, s.serve)
	return s
}

// Messages are the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Incomplete is how many DATA phases ended without the final ".".
func (s *Server) Incomplete() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.incomplete
}

// Commands are the command lines received, in order, over all
// connections; AUTH responses are shown as "****".
func (s *Server) Commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.commands...)
}

type conn struct {
	s    *Server
	nc   net.Conn
	br   *bufio.Reader
	tls  bool
	user string
	from string
	par  string
	to   []string
}

func (s *Server) serve(nc net.Conn) {
	c := &conn{s: s, nc: nc, br: bufio.NewReader(nc)}
	if s.ImplicitTLS && !c.startTLS() {
		return
	}
	c.reply("220 smtptest ESMTP ready")
	for {
		line, err := c.line()
		if err != nil {
			return
		}
		if !c.command(line) {
			return
		}
	}
}

func (c *conn) reply(lines ...string) {
	for _, l := range lines {
		if _, err := io.WriteString(c.nc, l+"\r\n"); err != nil {
			return
		}
	}
}

func (c *conn) line() (string, error) {
	l, err := c.br.ReadString('\n')
	return strings.TrimRight(l, "\r\n"), err
}

func (c *conn) record(l string) {
	c.s.mu.Lock()
	c.s.commands = append(c.s.commands, l)
	c.s.mu.Unlock()
}

func (c *conn) command(line string) bool {
	verb, arg, _ := strings.Cut(line, " ")
	verb = strings.ToUpper(verb)
	if verb == "AUTH" {
		mech, _, _ := strings.Cut(arg, " ")
		c.record("AUTH " + mech + " ****")
	} else {
		c.record(line)
	}
	switch verb {
	case "EHLO":
		switch c.s.Mode {
		case NoEHLO:
			c.reply("502 5.5.1 EHLO not implemented")
			return true
		case EndlessContinuation:
			for {
				if _, err := io.WriteString(c.nc, "250-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\r\n"); err != nil {
					return false
				}
			}
		case HugeLine:
			chunk := bytes.Repeat([]byte("A"), 64<<10)
			c.nc.Write([]byte("250 "))
			for i := 0; i < 160; i++ { // 10 MB
				if _, err := c.nc.Write(chunk); err != nil {
					return false
				}
			}
			c.nc.Write([]byte("\r\n"))
			return true
		}
		ext := c.s.Extensions
		if ext == nil {
			ext = []string{"8BITMIME", "SIZE 10000000", "SMTPUTF8", "AUTH PLAIN LOGIN"}
		}
		if c.s.TLS != nil && !c.tls {
			ext = append(append([]string(nil), ext...), "STARTTLS")
		}
		lines := []string{"250-smtptest greets " + arg}
		for i, e := range ext {
			sep := "-"
			if i == len(ext)-1 {
				sep = " "
			}
			lines = append(lines, "250"+sep+e)
		}
		if len(ext) == 0 {
			lines = []string{"250 smtptest"}
		}
		c.reply(lines...)
	case "HELO":
		c.reply("250 smtptest")
	case "STARTTLS":
		if c.s.TLS == nil || c.tls {
			c.reply("502 5.5.1 no STARTTLS")
			return true
		}
		c.reply("220 2.0.0 go ahead")
		if !c.startTLS() {
			return false
		}
		c.from, c.to, c.user = "", nil, ""
	case "AUTH":
		c.auth(arg)
	case "MAIL", "RCPT":
		prefix := map[string]string{"MAIL": "FROM:<", "RCPT": "TO:<"}[verb]
		rest, ok := cutPrefixFold(arg, prefix)
		if !ok {
			c.reply("501 5.5.4 syntax")
			return true
		}
		addr, params, _ := strings.Cut(rest, ">")
		if verb == "MAIL" {
			c.from, c.par, c.to = addr, strings.TrimSpace(params), nil
			c.reply("250 2.1.0 ok")
			return true
		}
		if c.s.Mode == Close421AtRcpt {
			c.reply("421 4.3.0 shutting down")
			return false
		}
		if r, no := c.s.Refuse[addr]; no {
			c.reply(r)
			return true
		}
		c.to = append(c.to, addr)
		c.reply("250 2.1.5 ok")
	case "DATA":
		if len(c.to) == 0 {
			c.reply("554 5.5.1 no valid recipients")
			return true
		}
		c.reply("354 end with .")
		data, ok := c.data()
		if !ok {
			c.s.mu.Lock()
			c.s.incomplete++
			c.s.mu.Unlock()
			return false
		}
		switch c.s.Mode {
		case StallAfterData:
			io.Copy(io.Discard, c.nc)
			return false
		case Close421AfterData:
			c.reply("421 4.3.0 going down")
			return false
		case RefuseMessage:
			c.reply("554 5.6.0 message refused: content")
			return true
		}
		c.s.mu.Lock()
		c.s.messages = append(c.s.messages, Message{From: c.from, Params: c.par, To: c.to, Data: data, TLS: c.tls, User: c.user})
		n := len(c.s.messages)
		c.s.mu.Unlock()
		c.reply(fmt.Sprintf("250 2.0.0 ok: queued as Q%d", n))
		c.from, c.to = "", nil
	case "RSET":
		c.from, c.to = "", nil
		c.reply("250 2.0.0 ok")
	case "NOOP":
		c.reply("250 2.0.0 ok")
	case "QUIT":
		c.reply("221 2.0.0 bye")
		return false
	default:
		c.reply("500 5.5.2 unknown command")
	}
	return true
}

// data reads a message up to the line ".", undoing dot-stuffing; ok is
// false when the connection ends first.
func (c *conn) data() ([]byte, bool) {
	var b bytes.Buffer
	for {
		l, err := c.br.ReadString('\n')
		if err != nil {
			return nil, false
		}
		if l == ".\r\n" {
			return b.Bytes(), true
		}
		b.WriteString(strings.TrimPrefix(l, "."))
	}
}

func (c *conn) auth(arg string) {
	mech, ir, _ := strings.Cut(arg, " ")
	var user, pass string
	switch strings.ToUpper(mech) {
	case "PLAIN":
		if ir == "" {
			c.reply("334 ")
			ir, _ = c.line()
		}
		b, err := base64.StdEncoding.DecodeString(ir)
		parts := strings.Split(string(b), "\x00")
		if err != nil || len(parts) != 3 {
			c.reply("501 5.5.2 bad PLAIN")
			return
		}
		user, pass = parts[1], parts[2]
	case "LOGIN":
		if ir == "" {
			c.reply("334 " + base64.StdEncoding.EncodeToString([]byte("Username:")))
			ir, _ = c.line()
		}
		u, _ := base64.StdEncoding.DecodeString(ir)
		c.reply("334 " + base64.StdEncoding.EncodeToString([]byte("Password:")))
		l, _ := c.line()
		p, _ := base64.StdEncoding.DecodeString(l)
		user, pass = string(u), string(p)
	default:
		c.reply("504 5.5.4 unknown mechanism")
		return
	}
	if want, ok := c.s.Users[user]; ok && want == pass {
		c.user = user
		c.reply("235 2.7.0 authenticated")
		return
	}
	c.reply("535 5.7.8 authentication failed")
}

// startTLS runs the server side of a TLS handshake on the connection.
func (c *conn) startTLS() bool {
	tc := tls.Server(c.nc, c.s.TLS)
	if tc.Handshake() != nil {
		return false
	}
	c.nc, c.br, c.tls = tc, bufio.NewReader(tc), true
	return true
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
