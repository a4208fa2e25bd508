package telnet

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/urlget/urlget/fetch"
)

// Limits against hostile servers.
const (
	// MaxSubnegotiation is the longest subnegotiation (IAC SB … IAC SE)
	// accepted; a longer one ends the session with ErrProtocol.
	MaxSubnegotiation = 64 << 10
	// MaxNegotiations is how many option commands (WILL, WONT, DO, DONT,
	// SB) a server may send in one session: real servers send a few
	// dozen. Past it the session ends with ErrProtocol.
	MaxNegotiations = 4096
)

// parser states
const (
	stData   = iota
	stCR     // text mode: a CR was received, the next byte decides
	stCRSeen // terminal mode: a CR was passed on; a NUL after it is dropped
	stIAC    // IAC received
	stOpt    // WILL/WONT/DO/DONT received: the option byte comes next
	stSBOpt  // IAC SB received: the option byte comes next
	stSBData // inside a subnegotiation
	stSBIAC  // IAC inside a subnegotiation
)

// conn is one telnet session over a network connection: the NVT parser
// that strips the protocol from what the server sends (Read), the encoder
// for what the user sends (WriteData), and the option negotiation (RFC 855
// with RFC 1143's Q method).
type conn struct {
	nc       net.Conn
	terminal bool // a person at a terminal: remote echo and BINARY welcome
	verbose  io.Writer
	vmu      sync.Mutex

	wmu sync.Mutex // serialises writes to nc

	mu         sync.Mutex // the option state and the window size
	us, him    [256]side
	cols, rows int
	ttype      string
	user       string
	negs       int

	// The reader's state; used by Read only.
	rbuf      []byte
	r, w      int
	st        int
	cmd       byte
	sbOpt     byte
	sb        []byte
	rerr      error // the connection's read error, once met
	perr      error // a protocol error: the session is over
	seenData  bool
	onData    func(p []byte) // sees the output (autologin, the first-data signal)
	pendingCR bool           // encoder: a CR ended the last chunk (text mode)
}

func newConn(nc net.Conn, terminal bool, verbose io.Writer) *conn {
	return &conn{nc: nc, terminal: terminal, verbose: verbose, rbuf: make([]byte, 32<<10)}
}

// logf writes one verbose line.
func (c *conn) logf(format string, a ...any) {
	if c.verbose == nil {
		return
	}
	c.vmu.Lock()
	fetch.Logf(c.verbose, format, a...)
	c.vmu.Unlock()
}

// Read returns what the server sent, the protocol taken out: never an IAC
// sequence; in text mode (the server not in BINARY) CR LF becomes LF for a
// script and stays CR LF for a terminal, CR NUL becomes CR.
func (c *conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if c.perr != nil {
			return 0, c.perr
		}
		if c.r < c.w {
			n := c.parse(p)
			if n > 0 {
				c.seenData = true
				if c.onData != nil {
					c.onData(p[:n])
				}
				return n, nil
			}
			continue
		}
		if c.rerr != nil {
			if c.st == stCR {
				c.st = stData
				p[0] = '\r'
				return 1, nil
			}
			return 0, c.rerr
		}
		n, err := c.nc.Read(c.rbuf)
		c.r, c.w = 0, n
		if err != nil {
			c.rerr = err
		}
	}
}

// textIn reports whether the server sends NVT text (not BINARY).
func (c *conn) textIn() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.him[optBINARY].on()
}

// parse consumes buffered input, writing data bytes to p; it stops when p
// is full or the buffer is used up, or at a protocol error (c.perr).
func (c *conn) parse(p []byte) int {
	n := 0
	text := c.textIn()
	for c.r < c.w && n < len(p) && c.perr == nil {
		b := c.rbuf[c.r]
		c.r++
		switch c.st {
		case stData:
			switch {
			case b == cmdIAC:
				c.st = stIAC
			case b == '\r' && text && !c.terminal:
				c.st = stCR
			case b == '\r' && text:
				p[n] = b
				n++
				c.st = stCRSeen
			default:
				p[n] = b
				n++
			}
		case stCR:
			c.st = stData
			switch b {
			case 0:
				p[n] = '\r'
				n++
			case '\n':
				p[n] = '\n'
				n++
			default:
				p[n] = '\r'
				n++
				c.r-- // read b again in stData
			}
		case stCRSeen:
			c.st = stData
			if b != 0 {
				c.r--
			}
		case stIAC:
			c.st = stData
			switch b {
			case cmdIAC:
				p[n] = b
				n++
			case cmdWILL, cmdWONT, cmdDO, cmdDONT:
				c.cmd = b
				c.st = stOpt
			case cmdSB:
				c.st = stSBOpt
			default:
				// NOP, DM, GA, AYT, BRK, …: nothing for a client to do.
				c.logf("< IAC %s", cmdName(b))
			}
		case stOpt:
			c.st = stData
			c.negotiate(c.cmd, b)
			// BINARY may have changed how the rest is read.
			text = c.textIn()
		case stSBOpt:
			c.sbOpt = b
			c.sb = c.sb[:0]
			c.st = stSBData
		case stSBData:
			if b == cmdIAC {
				c.st = stSBIAC
				continue
			}
			c.sbAppend(b)
		case stSBIAC:
			switch b {
			case cmdIAC:
				c.st = stSBData
				c.sbAppend(b)
			case cmdSE:
				c.st = stData
				c.subnegotiation()
			default:
				// An unterminated subnegotiation: take it as ended, and b
				// as the command it starts.
				c.subnegotiation()
				c.st = stIAC
				c.r--
			}
		}
	}
	return n
}

func (c *conn) sbAppend(b byte) {
	if len(c.sb) >= MaxSubnegotiation {
		c.perr = &fetch.Error{Kind: fetch.ErrProtocol,
			Msg: "telnet: the server sent a subnegotiation (" + optName(c.sbOpt) + ") longer than " + strconv.Itoa(MaxSubnegotiation>>10) + " KiB"}
		return
	}
	if c.sb == nil {
		c.sb = make([]byte, 0, 256)
	}
	c.sb = append(c.sb, b)
}

// countNegotiation bounds the option commands a server sends.
func (c *conn) countNegotiation() bool {
	c.negs++
	if c.negs > MaxNegotiations {
		c.perr = &fetch.Error{Kind: fetch.ErrProtocol,
			Msg: "telnet: the server sent more than " + strconv.Itoa(MaxNegotiations) + " option negotiations (a negotiation storm)"}
		return false
	}
	return true
}

// acceptUs says whether urlget agrees to perform opt (the server sent DO).
func (c *conn) acceptUs(opt byte) bool {
	switch opt {
	case optSGA, optTTYPE, optTSPEED, optNEWENVIRON:
		return true
	case optBINARY:
		// A script's input is text, sent as NVT lines.
		return c.terminal
	case optNAWS:
		return c.cols > 0 && c.rows > 0
	}
	return false // ECHO included: urlget never echoes the server's data back
}

// acceptHim says whether urlget agrees that the server performs opt (it
// sent WILL).
func (c *conn) acceptHim(opt byte) bool {
	switch opt {
	case optBINARY, optSGA:
		return true
	case optECHO:
		// A terminal wants the server's echo (character at a time); a
		// script wants only what the remote programs write.
		return c.terminal
	}
	return false
}

// negotiate applies a received WILL, WONT, DO or DONT.
func (c *conn) negotiate(cmd, opt byte) {
	c.logf("< IAC %s %s", cmdName(cmd), optName(opt))
	if !c.countNegotiation() {
		return
	}
	c.mu.Lock()
	var r reply
	us := cmd == cmdDO || cmd == cmdDONT
	switch cmd {
	case cmdWILL:
		r = c.him[opt].recvEnable(c.acceptHim(opt), cmdDO, cmdDONT)
	case cmdWONT:
		r = c.him[opt].recvDisable(cmdDO, cmdDONT)
	case cmdDO:
		r = c.us[opt].recvEnable(c.acceptUs(opt), cmdWILL, cmdWONT)
	case cmdDONT:
		r = c.us[opt].recvDisable(cmdWILL, cmdWONT)
	}
	naws := us && opt == optNAWS && r.changed && r.on
	cols, rows := c.cols, c.rows
	c.mu.Unlock()
	if r.err != "" {
		c.logf("* telnet: %s %s: %s", cmdName(cmd), optName(opt), r.err)
	}
	if r.send != 0 {
		c.sendCmd(r.send, opt)
	}
	if naws {
		c.sendNAWS(cols, rows)
	}
}

// subnegotiation answers a complete IAC SB … IAC SE.
func (c *conn) subnegotiation() {
	opt, data := c.sbOpt, c.sb
	c.logf("< IAC SB %s %s IAC SE", optName(opt), sbText(data))
	if !c.countNegotiation() {
		return
	}
	c.mu.Lock()
	on := c.us[opt].on()
	ttype, user := c.ttype, c.user
	c.mu.Unlock()
	if !on || len(data) == 0 || data[0] != sbSEND {
		return
	}
	switch opt {
	case optTTYPE:
		c.sendSB(optTTYPE, append([]byte{sbIS}, ttype...))
	case optTSPEED:
		c.sendSB(optTSPEED, append([]byte{sbIS}, "38400,38400"...))
	case optNEWENVIRON:
		out := []byte{sbIS}
		if user != "" && wantsUser(data[1:]) {
			out = append(out, envVAR)
			out = append(out, "USER"...)
			out = append(out, envVALUE)
			out = appendEnvEscaped(out, user)
		}
		c.sendSB(optNEWENVIRON, out)
	}
}

// wantsUser reads the list of a NEW-ENVIRON SEND: an empty list, a bare
// VAR (every well-known variable) or VAR "USER" asks for USER.
func wantsUser(list []byte) bool {
	if len(list) == 0 {
		return true
	}
	for i := 0; i < len(list); {
		typ := list[i]
		i++
		var name []byte
		for i < len(list) && list[i] != envVAR && list[i] != envUSERVAR {
			if list[i] == envESC && i+1 < len(list) {
				i++
			}
			name = append(name, list[i])
			i++
		}
		if typ == envVAR && (len(name) == 0 || string(name) == "USER") {
			return true
		}
	}
	return false
}

// appendEnvEscaped appends s with RFC 1572's ESC before VAR, VALUE, ESC
// and USERVAR bytes.
func appendEnvEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] <= envUSERVAR {
			b = append(b, envESC)
		}
		b = append(b, s[i])
	}
	return b
}

// sbText shows subnegotiation data for -v: the SEND/IS code, then the rest
// quoted.
func sbText(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	code := strconv.Itoa(int(data[0]))
	switch data[0] {
	case sbIS:
		code = "IS"
	case sbSEND:
		code = "SEND"
	}
	rest := data[1:]
	if len(rest) > 64 {
		return code + " " + strconv.Quote(string(rest[:64])) + "…"
	}
	if len(rest) == 0 {
		return code
	}
	return code + " " + strconv.Quote(string(rest))
}

// write sends raw protocol bytes.
func (c *conn) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.nc.Write(b)
	return err
}

func (c *conn) sendCmd(cmd, opt byte) {
	c.logf("> IAC %s %s", cmdName(cmd), optName(opt))
	c.write([]byte{cmdIAC, cmd, opt})
}

// sendSB sends IAC SB opt data IAC SE, doubling any IAC in data.
func (c *conn) sendSB(opt byte, data []byte) {
	c.logf("> IAC SB %s %s IAC SE", optName(opt), sbText(data))
	b := make([]byte, 0, len(data)+8)
	b = append(b, cmdIAC, cmdSB, opt)
	for _, x := range data {
		b = append(b, x)
		if x == cmdIAC {
			b = append(b, cmdIAC)
		}
	}
	b = append(b, cmdIAC, cmdSE)
	c.write(b)
}

func (c *conn) sendNAWS(cols, rows int) {
	cols, rows = min(max(cols, 0), 65535), min(max(rows, 0), 65535)
	c.sendSB(optNAWS, []byte{byte(cols >> 8), byte(cols), byte(rows >> 8), byte(rows)})
}

// setWindowSize records the window size and tells the server when NAWS is
// on; a size known only now makes urlget offer NAWS.
func (c *conn) setWindowSize(cols, rows int) error {
	c.mu.Lock()
	c.cols, c.rows = cols, rows
	var ask byte
	on := c.us[optNAWS].on()
	if !on && cols > 0 && rows > 0 {
		ask = c.us[optNAWS].askEnable(cmdWILL)
	}
	c.mu.Unlock()
	if ask != 0 {
		c.sendCmd(ask, optNAWS)
	}
	if on {
		c.sendNAWS(cols, rows)
	}
	return nil
}

func (c *conn) remoteEcho() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.him[optECHO].on()
}

func (c *conn) binaryOut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.us[optBINARY].on()
}

// sendCommand sends one of the commands the escape prompt offers.
func (c *conn) sendCommand(name string) error {
	for _, k := range commands {
		if k.name == name {
			c.logf("> IAC %s", cmdName(k.code))
			return c.write([]byte{cmdIAC, k.code})
		}
	}
	return errors.New("unknown command " + strconv.Quote(name) + " (try: " + strings.Join(commandNames(), ", ") + ")")
}

func commandNames() []string {
	s := make([]string, len(commands))
	for i, k := range commands {
		s[i] = k.name
	}
	return s
}

// encode appends src to dst as telnet data: IAC doubled, and in text mode
// LF as CR LF and a lone CR as CR NUL (RFC 854). A CR that ends src waits
// for the next call (or flushCR) to know what follows, unless flush is set.
func (c *conn) encode(dst, src []byte, binary, flush bool) []byte {
	for i, b := range src {
		if c.pendingCR {
			c.pendingCR = false
			if b == '\n' {
				dst = append(dst, '\r', '\n')
				continue
			}
			dst = append(dst, '\r', 0)
		}
		switch {
		case b == cmdIAC:
			dst = append(dst, cmdIAC, cmdIAC)
		case binary:
			dst = append(dst, b)
		case b == '\n':
			dst = append(dst, '\r', '\n')
		case b == '\r':
			if i+1 == len(src) && flush {
				dst = append(dst, '\r', 0)
			} else {
				c.pendingCR = true
			}
		default:
			dst = append(dst, b)
		}
	}
	return dst
}

// flushCR ends the input: a pending CR is sent as CR NUL.
func (c *conn) flushCR(dst []byte) []byte {
	if c.pendingCR {
		c.pendingCR = false
		dst = append(dst, '\r', 0)
	}
	return dst
}

// writeData sends what the user typed (or a script's stdin) as telnet
// data.
func (c *conn) writeData(p []byte, flush bool) error {
	b := c.encode(make([]byte, 0, len(p)+len(p)/8+2), p, c.binaryOut(), flush)
	if len(b) == 0 {
		return nil
	}
	return c.write(b)
}

// promptTail keeps the end of the current output line, to spot login
// prompts.
type promptTail struct{ line []byte }

func (t *promptTail) add(p []byte) {
	if i := bytes.LastIndexAny(p, "\r\n"); i >= 0 {
		t.line = t.line[:0]
		p = p[i+1:]
	}
	t.line = append(t.line, p...)
	if len(t.line) > 128 {
		t.line = append(t.line[:0], t.line[len(t.line)-64:]...)
	}
}

// endsWith reports whether the line so far, spaces trimmed, ends with
// prompt (ASCII case-insensitive).
func (t *promptTail) endsWith(prompt string) bool {
	s := bytes.TrimRight(t.line, " \t")
	return len(s) >= len(prompt) && strings.EqualFold(string(s[len(s)-len(prompt):]), prompt)
}
