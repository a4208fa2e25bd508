// Package ftptest is an in-process FTP server for tests (RFC 959, with
// SIZE, MDTM, REST, MLSD and FEAT from RFC 3659 and RFC 2389, EPSV and
// EPRT from RFC 2428, AUTH, PBSZ, PROT and CCC from RFC 4217 when given a
// TLS configuration). It serves an in-memory tree, records every command
// line it receives, and misbehaves on purpose when a test installs a Hook
// (see hostile.go): endless or huge replies, PASV replies naming another
// host, data connections that never open, close early or never end, final
// replies that never come.
//
// It is written from the RFCs, independently of the client in package
// ftp, so that the two check each other.
package ftptest

import (
	"github.com/urlget/urlget/fetch/fetchtest"

	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/ftp"
)

// MaxLine bounds a command line; a longer one is answered 500 and dropped.
const MaxLine = 4096

// Command is one command line the server received.
type Command struct {
	Conn int    // connection number, from 1
	Line string // without CRLF, as received (PASS arguments included)
}

// node is a file or directory of the served tree.
type node struct {
	dir     bool
	data    []byte
	modTime time.Time
	target  string // symlink target, listed only
}

// Hook may take over a command: it returns true when it has handled it
// (replied, or held the connection). verb is upper case; "(connect)" is
// called before the greeting. It runs on the session's goroutine.
type Hook func(s *Session, verb, arg string) bool

// Server is a running test server on 127.0.0.1.
type Server struct {
	Addr string // 127.0.0.1:PORT
	Host string
	Port int

	// The configuration fields below are read by the sessions under the
	// server's lock: change them through Configure.
	//
	// Users maps user names to passwords. With Anonymous set, "anonymous"
	// and "ftp" log in with any password.
	Users     map[string]string
	Anonymous bool
	// Homes maps a user to its login directory (default "/").
	Homes map[string]string
	// Features are the FEAT lines (default: EPRT EPSV MDTM MLST PASV REST
	// STREAM SIZE TVFS); NoEPSV and NoMLSD answer those commands 502.
	Features []string
	NoEPSV   bool
	NoEPRT   bool
	NoMLSD   bool
	// PASVAddress is the IPv4 address a PASV reply names (default
	// 127.0.0.1): set it to another host to test that the client ignores it.
	PASVAddress string
	// Hook, when set, sees every command first.
	Hook Hook
	// ListStyle is the form of LIST lines: "" (ls -l, see ListLine) or
	// StyleVMS.
	ListStyle string
	// Greet230 greets with "230" instead of "220": the session is logged
	// in as anonymous from the start (a server that needs no USER).
	Greet230 bool
	// NeedPRET makes the server drftpd's: PRET (which names the transfer
	// command to come) is answered 200, and EPSV or PASV without a PRET
	// since the last transfer 500, as are a transfer command other than
	// the one PRET named. Without it PRET is 502, as any unknown command.
	NeedPRET bool
	// TLS, when set, offers FTP over TLS (RFC 4217): AUTH TLS (or SSL)
	// puts the control connection in TLS, PBSZ and PROT are taken, and
	// PROT P puts the data connections in TLS. Without it AUTH is 502.
	TLS *tls.Config
	// CCC takes CCC (RFC 4217 §6) on a control connection in TLS: 200,
	// then the server's close_notify, and the connection goes on in the
	// clear; a client's close_notify (curl's active mode) is read and
	// dropped. Without it CCC is 502, as vsftpd and curl's test server
	// answer it.
	CCC bool

	loop     *fetchtest.Loop
	mu       sync.Mutex
	tree     map[string]*node
	log      []Command
	conns    atomic.Int64 // sessions started: numbers them
	received atomic.Int64
}

// New starts a server with an empty tree (only "/"); Close is registered
// with t.Cleanup.
func New(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().(*net.TCPAddr)
	s := &Server{
		Addr: ln.Addr().String(), Host: "127.0.0.1", Port: a.Port,
		Users:       map[string]string{},
		Homes:       map[string]string{},
		Anonymous:   true,
		PASVAddress: "127.0.0.1",
		tree:        map[string]*node{"/": {dir: true}},
	}
	s.loop = fetchtest.NewLoop(ln) // handlers read s.loop: set it before they run
	s.loop.Start(s.serve)
	t.Cleanup(s.Close)
	return s
}

// Configure runs f with the server locked. Change the configuration
// fields through it once a client may be connected: sessions read them
// under the same lock, command by command.
func (s *Server) Configure(f func(*Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

// config is a session's copy of the configuration, for one command.
type config struct {
	hook           Hook
	anonymous      bool
	features       []string
	noEPSV, noEPRT bool
	noMLSD         bool
	listStyle      string
	greet230       bool
	needPRET       bool
	tls            *tls.Config
	ccc            bool
	pasvAddress    string
	password, home string
	known          bool
}

func (s *Server) conf(user string) config {
	s.mu.Lock()
	defer s.mu.Unlock()
	pw, known := s.Users[user]
	return config{hook: s.Hook, anonymous: s.Anonymous, features: s.Features,
		noEPSV: s.NoEPSV, noEPRT: s.NoEPRT, noMLSD: s.NoMLSD, listStyle: s.ListStyle, greet230: s.Greet230, needPRET: s.NeedPRET, tls: s.TLS, ccc: s.CCC, pasvAddress: s.PASVAddress,
		password: pw, known: known, home: s.Homes[user]}
}

// Close stops the server and closes every connection.
func (s *Server) Close() { s.loop.Close() }

// Done is closed when the server closes: hooks that hold a connection wait
// on it.
func (s *Server) Done() <-chan struct{} { return s.loop.Done() }

// AddFile adds a file (and its parent directories).
func (s *Server) AddFile(p string, data []byte, mod time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p = path.Clean("/" + p)
	s.mkdirs(path.Dir(p))
	s.tree[p] = &node{data: data, modTime: mod}
}

// AddDir adds a directory (and its parents).
func (s *Server) AddDir(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mkdirs(path.Clean("/" + p))
}

// AddLink adds a symlink entry, listed as "name -> target" (not followed).
func (s *Server) AddLink(p, target string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p = path.Clean("/" + p)
	s.mkdirs(path.Dir(p))
	s.tree[p] = &node{target: target, modTime: time.Date(2024, 1, 2, 3, 4, 0, 0, time.UTC)}
}

// Remove deletes a file or a directory with everything below it.
func (s *Server) Remove(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p = path.Clean("/" + p)
	for q := range s.tree {
		if q == p || strings.HasPrefix(q, p+"/") {
			delete(s.tree, q)
		}
	}
}

func (s *Server) mkdirs(p string) {
	for p != "/" && s.tree[p] == nil {
		s.tree[p] = &node{dir: true}
		p = path.Dir(p)
	}
}

// File returns a file's content (after uploads), or nil.
func (s *Server) File(p string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.tree[path.Clean("/"+p)]; n != nil && !n.dir {
		return append([]byte(nil), n.data...)
	}
	return nil
}

// Commands returns every command line received so far.
func (s *Server) Commands() []Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Command(nil), s.log...)
}

// Lines returns the command lines received so far, on every connection.
func (s *Server) Lines() []string {
	var out []string
	for _, c := range s.Commands() {
		out = append(out, c.Line)
	}
	return out
}

// Conns is how many connections the server has accepted on its control
// port.
func (s *Server) Conns() int { return int(s.conns.Load()) }

// Received counts the connections and command lines received: anything
// reaching the server moves it.
func (s *Server) Received() int { return int(s.received.Load()) }

// serve runs one control connection.
func (s *Server) serve(c net.Conn) {
	s.received.Add(1)
	ss := &Session{srv: s, conn: c, n: int(s.conns.Add(1)), br: bufio.NewReaderSize(c, MaxLine), cwd: "/", typ: 'A'}
	ss.run()
	ss.closeData()
}

// Session is one control connection.
type Session struct {
	srv      *Server
	conn     net.Conn
	n        int
	br       *bufio.Reader
	user     string
	loggedIn bool
	cwd      string
	typ      byte
	rest     int64
	pasv     net.Listener
	active   string   // address from PORT/EPRT
	pret     string   // the verb the last PRET named (NeedPRET)
	clear    net.Conn // the TCP connection under conn while it is in TLS
	prot     byte     // PROT: 'P' puts data connections in TLS
}

// Conn is the control connection.
func (ss *Session) Conn() net.Conn { return ss.conn }

// Reply sends "code text" (one line).
func (ss *Session) Reply(code int, text string) error {
	_, err := fmt.Fprintf(ss.conn, "%d %s\r\n", code, text)
	return err
}

// Raw sends bytes as they are.
func (ss *Session) Raw(b []byte) error {
	_, err := ss.conn.Write(b)
	return err
}

// Hold keeps the session open without answering until the client closes
// or the server is closed.
func (ss *Session) Hold() {
	go func() {
		<-ss.srv.loop.Done()
		ss.conn.Close()
	}()
	io.Copy(io.Discard, ss.conn)
}

// LogIn marks the session logged in as the user of its last USER, in that
// user's home: for hooks that take over the login (ACCT, odd replies).
func (ss *Session) LogIn() {
	ss.loggedIn = true
	ss.cwd = ss.srv.conf(ss.user).home
	if ss.cwd == "" {
		ss.cwd = "/"
	}
}

// CWD is the session's working directory.
func (ss *Session) CWD() string { return ss.cwd }

// Resolve turns a command argument into a clean absolute path. In the VMS
// listing style, names as a VMS listing gives them are understood too:
// "FILE.TXT;3" is FILE.TXT, "NAME.DIR;1" the directory NAME, "NAME.;1" NAME.
func (ss *Session) Resolve(arg string) string {
	if ss.srv.conf(ss.user).listStyle == StyleVMS {
		segs := strings.Split(arg, "/")
		for i, seg := range segs {
			segs[i] = ftp.VMSLocalName(seg, true)
		}
		arg = strings.Join(segs, "/")
	}
	if strings.HasPrefix(arg, "/") {
		return path.Clean(arg)
	}
	return path.Clean(ss.cwd + "/" + arg)
}

// OpenData returns the data connection the client prepared: accepts on
// the passive listener, or connects to the PORT/EPRT address; in TLS
// after PROT P.
func (ss *Session) OpenData() (net.Conn, error) {
	c, err := ss.openData()
	if err != nil || ss.prot != 'P' {
		return c, err
	}
	return tls.Server(c, ss.srv.conf(ss.user).tls), nil
}

func (ss *Session) openData() (net.Conn, error) {
	defer ss.closeData()
	if ss.pasv != nil {
		ss.pasv.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
		return ss.pasv.Accept()
	}
	if ss.active != "" {
		return net.DialTimeout("tcp", ss.active, 10*time.Second)
	}
	return nil, errors.New("no PASV, EPSV, PORT or EPRT before the transfer")
}

// auth runs AUTH: 234 and the TLS handshake on the control connection.
func (ss *Session) auth(arg string, cf config) bool {
	if cf.tls == nil || ss.clear != nil {
		ss.Reply(502, "Command not implemented")
		return true
	}
	if m := strings.ToUpper(arg); m != "TLS" && m != "SSL" {
		ss.Reply(504, "Unknown AUTH type")
		return true
	}
	ss.Reply(234, "Proceed with negotiation")
	tc := tls.Server(ss.conn, cf.tls)
	tc.SetDeadline(time.Now().Add(10 * time.Second))
	if err := tc.Handshake(); err != nil {
		return false
	}
	tc.SetDeadline(time.Time{})
	ss.clear, ss.conn = ss.conn, tc
	ss.br = bufio.NewReaderSize(tc, MaxLine)
	return true
}

// ccc runs CCC: 200 in TLS, the server's close_notify, then the clear
// connection, dropping a close_notify the client sends back.
func (ss *Session) ccc(cf config) bool {
	tc, ok := ss.conn.(*tls.Conn)
	if !cf.ccc || !ok {
		ss.Reply(502, "Command not implemented")
		return true
	}
	ss.Reply(200, "CCC command successful")
	if tc.CloseWrite() != nil {
		return false
	}
	ss.conn, ss.clear = ss.clear, nil
	ss.conn.SetWriteDeadline(time.Time{}) // CloseWrite leaves it at now
	ss.br = bufio.NewReaderSize(ss.conn, MaxLine)
	// A TLS record (an alert, or in TLS 1.3 one typed application
	// data) where a command would start is the client's close_notify;
	// no command starts with these bytes.
	if b, err := ss.br.Peek(5); err == nil && (b[0] == 0x15 || b[0] == 0x17) && b[1] == 3 {
		ss.br.Discard(5 + int(b[3])<<8 + int(b[4]))
	}
	return true
}

func (ss *Session) closeData() {
	if ss.pasv != nil {
		ss.pasv.Close()
		ss.pasv = nil
	}
	ss.active = ""
}

func (ss *Session) readLine() (string, error) {
	line, err := ss.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = ss.br.ReadSlice('\n')
		}
		if err != nil {
			return "", err
		}
		return "", errTooLong
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r"), nil
}

var errTooLong = errors.New("line too long")

func (ss *Session) run() {
	s := ss.srv
	if h := s.conf("").hook; h != nil && h(ss, "(connect)", "") {
		return
	}
	if s.conf("").greet230 {
		ss.user = "anonymous"
		ss.LogIn()
		ss.Reply(230, "welcome without password")
	} else {
		ss.Reply(220, "ftptest ready")
	}
	for {
		line, err := ss.readLine()
		if err == errTooLong {
			ss.Reply(500, "Line too long")
			continue
		}
		if err != nil {
			return
		}
		s.received.Add(1)
		s.mu.Lock()
		s.log = append(s.log, Command{Conn: ss.n, Line: line})
		s.mu.Unlock()
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		if h := s.conf("").hook; h != nil && h(ss, verb, arg) {
			continue
		}
		if !ss.command(verb, arg, line) {
			return
		}
	}
}

// command runs one command; false ends the session.
func (ss *Session) command(verb, arg, line string) bool {
	cf := ss.srv.conf(ss.user)
	if !ss.loggedIn {
		switch verb {
		case "USER", "PASS", "QUIT", "FEAT", "SYST", "NOOP", "AUTH":
		default:
			ss.Reply(530, "Please login with USER and PASS")
			return true
		}
	}
	switch verb {
	case "USER":
		ss.user, ss.loggedIn = arg, false
		ss.Reply(331, "Password required")
	case "PASS":
		if ss.user == "" {
			ss.Reply(503, "Login with USER first")
			break
		}
		home := cf.home
		anon := cf.anonymous && (ss.user == "anonymous" || ss.user == "ftp")
		if !anon && (!cf.known || cf.password != arg) {
			ss.Reply(530, "Login incorrect")
			break
		}
		ss.loggedIn = true
		if home == "" {
			home = "/"
		}
		ss.cwd = home
		ss.Reply(230, "Logged in")
	case "QUIT":
		ss.Reply(221, "Goodbye")
		return false
	case "NOOP":
		ss.Reply(200, "OK")
	case "SYST":
		if cf.listStyle == StyleVMS {
			ss.Reply(215, "VMS system type. VMS V7.3-2")
		} else {
			ss.Reply(215, "UNIX Type: L8")
		}
	case "FEAT":
		feats := cf.features
		if feats == nil {
			feats = []string{"EPRT", "EPSV", "MDTM", "MLST type*;size*;modify*;", "PASV", "REST STREAM", "SIZE", "TVFS"}
		}
		var b strings.Builder
		b.WriteString("211-Features:\r\n")
		for _, f := range feats {
			b.WriteString(" " + f + "\r\n")
		}
		b.WriteString("211 End\r\n")
		ss.Raw([]byte(b.String()))
	case "PWD", "XPWD":
		ss.Reply(257, `"`+strings.ReplaceAll(ss.cwd, `"`, `""`)+`" is the current directory`)
	case "CWD", "XCWD":
		target := cf.home
		if target == "" {
			target = "/"
		}
		if line != verb { // an argument, even an empty one
			target = ss.Resolve(arg)
		}
		if n := ss.lookup(target); n == nil || !n.dir {
			ss.Reply(550, "Failed to change directory")
			break
		}
		ss.cwd = target
		ss.Reply(250, "Directory changed to "+target)
	case "CDUP":
		ss.cwd = path.Dir(ss.cwd)
		ss.Reply(250, "OK")
	case "TYPE":
		switch strings.ToUpper(arg) {
		case "A", "A N":
			ss.typ = 'A'
		case "I", "L 8":
			ss.typ = 'I'
		default:
			ss.Reply(504, "Type not supported")
			return true
		}
		ss.Reply(200, "Type set")
	case "MODE", "STRU":
		ss.Reply(200, "OK")
	case "SIZE":
		n := ss.lookup(ss.Resolve(arg))
		if n == nil || n.dir || n.target != "" {
			ss.Reply(550, "Could not get file size")
			break
		}
		ss.Reply(213, strconv.Itoa(len(n.data)))
	case "MDTM":
		n := ss.lookup(ss.Resolve(arg))
		if n == nil || n.dir {
			ss.Reply(550, "Could not get modification time")
			break
		}
		ss.Reply(213, n.modTime.UTC().Format("20060102150405"))
	case "REST":
		v, err := strconv.ParseInt(arg, 10, 64)
		if err != nil || v < 0 {
			ss.Reply(501, "Bad REST")
			break
		}
		ss.rest = v
		ss.Reply(350, "Restart position accepted")
	case "AUTH":
		return ss.auth(arg, cf)
	case "PBSZ":
		ss.Reply(200, "PBSZ=0")
	case "PROT":
		if p := strings.ToUpper(arg); p == "C" || p == "P" {
			ss.prot = p[0]
			ss.Reply(200, "PROT now "+p)
		} else {
			ss.Reply(504, "PROT "+arg+" not supported")
		}
	case "CCC":
		return ss.ccc(cf)
	case "PRET":
		if !cf.needPRET {
			ss.Reply(502, "Command not implemented")
			break
		}
		v, _, _ := strings.Cut(arg, " ")
		ss.pret = strings.ToUpper(v)
		ss.Reply(200, "OK, will use this server for the upcoming transfer")
	case "EPSV", "PASV":
		if cf.needPRET && ss.pret == "" {
			ss.Reply(500, "You need to use a client supporting PRET (PRE Transfer) to use "+verb)
			break
		}
		ss.passive(verb, cf)
	case "PORT", "EPRT":
		ss.port(verb, arg, cf)
	case "RETR", "LIST", "NLST", "MLSD", "STOR", "APPE":
		pret := ss.pret
		ss.pret = ""
		if cf.needPRET && ss.pasv != nil && pret != verb {
			ss.Reply(503, "PRET was not for "+verb)
			ss.closeData()
			break
		}
		ss.transfer(verb, arg)
	case "ABOR":
		ss.Reply(226, "No transfer to abort")
	default:
		ss.Reply(502, "Command not implemented")
	}
	return true
}

// passive runs EPSV or PASV.
func (ss *Session) passive(verb string, cf config) {
	switch verb {
	case "EPSV":
		if cf.noEPSV {
			ss.Reply(502, "EPSV not implemented")
			break
		}
		p, err := ss.listen()
		if err != nil {
			ss.Reply(425, "Cannot listen")
			break
		}
		ss.Reply(229, fmt.Sprintf("Entering Extended Passive Mode (|||%d|)", p))
	case "PASV":
		p, err := ss.listen()
		if err != nil {
			ss.Reply(425, "Cannot listen")
			break
		}
		ip := net.ParseIP(cf.pasvAddress).To4()
		ss.Reply(227, fmt.Sprintf("Entering Passive Mode (%d,%d,%d,%d,%d,%d).", ip[0], ip[1], ip[2], ip[3], p>>8, p&0xff))
	}
}

// transfer runs a transfer command.
func (ss *Session) transfer(verb, arg string) {
	switch verb {
	case "RETR":
		ss.retr(arg)
	case "LIST", "NLST", "MLSD":
		ss.list(verb, arg)
	case "STOR", "APPE":
		ss.store(verb, arg)
	}
}

// port runs PORT or EPRT.
func (ss *Session) port(verb, arg string, cf config) {
	switch verb {
	case "PORT":
		var n [6]int
		parts := strings.Split(arg, ",")
		ok := len(parts) == 6
		for i := 0; ok && i < 6; i++ {
			v, err := strconv.Atoi(strings.TrimSpace(parts[i]))
			ok = err == nil && v >= 0 && v <= 255
			n[i] = v
		}
		if !ok {
			ss.Reply(501, "Bad PORT")
			break
		}
		ss.closeData()
		ss.active = fmt.Sprintf("%d.%d.%d.%d:%d", n[0], n[1], n[2], n[3], n[4]<<8|n[5])
		ss.Reply(200, "PORT command successful")
	case "EPRT":
		if cf.noEPRT {
			ss.Reply(502, "EPRT not implemented")
			break
		}
		if len(arg) < 7 {
			ss.Reply(501, "Bad EPRT")
			break
		}
		f := strings.Split(arg[1:len(arg)-1], arg[:1])
		if len(f) != 3 || net.ParseIP(f[1]) == nil {
			ss.Reply(501, "Bad EPRT")
			break
		}
		ss.closeData()
		ss.active = net.JoinHostPort(f[1], f[2])
		ss.Reply(200, "EPRT command successful")
	}
}

func (ss *Session) lookup(p string) *node {
	ss.srv.mu.Lock()
	defer ss.srv.mu.Unlock()
	return ss.srv.tree[p]
}

func (ss *Session) listen() (int, error) {
	ss.closeData()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	ss.pasv = ln
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (ss *Session) retr(arg string) {
	n := ss.lookup(ss.Resolve(arg))
	rest := ss.rest
	ss.rest = 0
	if n == nil || n.dir || n.target != "" {
		ss.closeData()
		ss.Reply(550, "Failed to open file")
		return
	}
	data := n.data
	if rest > int64(len(data)) {
		rest = int64(len(data))
	}
	data = data[rest:]
	if ss.typ == 'A' {
		data = toNVT(data)
	}
	ss.Reply(150, fmt.Sprintf("Opening data connection for %s (%d bytes)", arg, len(data)))
	dc, err := ss.OpenData()
	if err != nil {
		ss.Reply(425, "Failed to establish connection")
		return
	}
	_, err = dc.Write(data)
	dc.Close()
	if err != nil {
		ss.Reply(426, "Connection closed; transfer aborted")
		return
	}
	ss.Reply(226, "Transfer complete")
}

// toNVT converts LF line ends to CRLF, as an ASCII transfer sends them.
func toNVT(b []byte) []byte {
	var out []byte
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}

// Children lists a directory's entries, sorted by name.
func (s *Server) children(dir string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for p := range s.tree {
		if p != "/" && path.Dir(p) == dir {
			names = append(names, path.Base(p))
		}
	}
	sort.Strings(names)
	return names
}

// ListLine is the LIST line the server sends for an entry.
func ListLine(name string, dir bool, size int, mod time.Time, target string) string {
	mode := "-rw-r--r--"
	switch {
	case dir:
		mode = "drwxr-xr-x"
	case target != "":
		mode = "lrwxrwxrwx"
		name += " -> " + target
	}
	return fmt.Sprintf("%s    1 ftp      ftp      %8d %s %s", mode, size, mod.UTC().Format("Jan 02  2006"), name)
}

func (ss *Session) list(verb, arg string) {
	s := ss.srv
	cf := s.conf(ss.user)
	// Options such as "-la" are not paths.
	if strings.HasPrefix(arg, "-") {
		arg = ""
	}
	if verb == "MLSD" && cf.noMLSD {
		ss.closeData()
		ss.Reply(502, "MLSD not implemented")
		return
	}
	target := ss.cwd
	if arg != "" {
		target = ss.Resolve(arg)
	}
	n := ss.lookup(target)
	if n == nil {
		ss.closeData()
		ss.Reply(550, "No such file or directory")
		return
	}
	var lines []string
	vms := verb == "LIST" && cf.listStyle == StyleVMS
	files := 0
	if vms {
		lines = append(lines, "", "Directory FTP$ROOT:[000000"+strings.ReplaceAll(target, "/", ".")+"]", "")
	}
	if n.dir {
		for _, name := range s.children(target) {
			c := ss.lookup(path.Join(target, name))
			if vms && c.target == "" {
				files++
				lines = append(lines, vmsLines(name, c)...)
			} else if vms {
				continue
			} else {
				lines = append(lines, entryLine(verb, name, c))
			}
		}
	} else if vms {
		files++
		lines = append(lines, vmsLines(path.Base(target), n)...)
	} else {
		lines = append(lines, entryLine(verb, arg, n))
	}
	if vms {
		lines = append(lines, "", fmt.Sprintf("Total of %d files.", files))
	}
	ss.Reply(150, "Here comes the directory listing")
	dc, err := ss.OpenData()
	if err != nil {
		ss.Reply(425, "Failed to establish connection")
		return
	}
	for _, l := range lines {
		io.WriteString(dc, l+"\r\n")
	}
	dc.Close()
	ss.Reply(226, "Directory send OK")
}

// StyleVMS is the ListStyle of an OpenVMS server (MultiNet, TCPware, UCX):
// a "Directory DEV:[DIR]" header, then per entry "NAME.TYPE;1  used/alloc
// 2-JUN-1998 07:32:04  [FTP,FTP]  (RWED,RWED,RE,RE)" — directories are
// NAME.DIR;1, a name without a dot gets one ("NOTES.;1"), and a name longer
// than 19 characters stands on its own line, the rest on the next — and a
// "Total of N files." line. Links are not listed (VMS has none). In
// this style Resolve understands VMS names, and SYST answers VMS.
const StyleVMS = "vms"

// vmsLines are the VMS LIST line(s) of one entry.
func vmsLines(name string, n *node) []string {
	switch {
	case n.dir:
		name += ".DIR"
	case !strings.Contains(name, "."):
		name += "."
	}
	name += ";1"
	blocks := (len(n.data) + 511) / 512
	if n.dir {
		blocks = 1
	}
	rest := fmt.Sprintf("%6d/%-6d %s  [FTP,FTP]  (RWED,RWED,RE,RE)", blocks, blocks,
		strings.ToUpper(n.modTime.UTC().Format("_2-Jan-2006 15:04:05")))
	if len(name) > 19 {
		return []string{name, strings.Repeat(" ", 20) + rest}
	}
	return []string{fmt.Sprintf("%-20s%s", name, rest)}
}

func entryLine(verb, name string, n *node) string {
	switch verb {
	case "NLST":
		return name
	case "MLSD":
		t := "file"
		if n.dir {
			t = "dir"
		} else if n.target != "" {
			t = "OS.unix=slink:" + n.target
		}
		return fmt.Sprintf("type=%s;size=%d;modify=%s; %s", t, len(n.data), n.modTime.UTC().Format("20060102150405"), name)
	}
	size := len(n.data)
	if n.dir {
		size = 4096
	}
	return ListLine(name, n.dir, size, n.modTime, n.target)
}

func (ss *Session) store(verb, arg string) {
	s := ss.srv
	if ss.user == "anonymous" || ss.user == "ftp" {
		ss.closeData()
		ss.Reply(550, "Permission denied")
		return
	}
	p := ss.Resolve(arg)
	if n := ss.lookup(path.Dir(p)); n == nil || !n.dir {
		ss.closeData()
		ss.Reply(553, "Could not create file")
		return
	}
	ss.Reply(150, "Ok to send data")
	dc, err := ss.OpenData()
	if err != nil {
		ss.Reply(425, "Failed to establish connection")
		return
	}
	data, err := io.ReadAll(dc)
	dc.Close()
	if err != nil {
		ss.Reply(426, "Connection closed; transfer aborted")
		return
	}
	s.mu.Lock()
	old := s.tree[p]
	if verb == "APPE" && old != nil && !old.dir {
		data = append(append([]byte(nil), old.data...), data...)
	}
	s.tree[p] = &node{data: data, modTime: time.Now().UTC()}
	s.mu.Unlock()
	ss.Reply(226, "Transfer complete")
}
