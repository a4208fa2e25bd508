// Package prosperotest is an in-tree Prospero server for urlget's tests: ARDP
// v0 over UDP carrying Prospero protocol v5 as ISI's dirsrv (release
// P53.17May94b) speaks them: its behaviour was recorded from the real
// server, and fetch/prospero/testdata holds the exchanges. No Prospero
// server is packaged anywhere.
//
// It serves a tree of Objects by hsoname: files (with the access methods
// they list, PROSPERO-CONTENTS answered from Contents), directories (their
// links are the objects one level below), FORWARDED objects and failures.
// The ARDP side does what the ISI server does: replies cut at 1,250 bytes,
// a window of 16 packets with "please ACK" on the last one, resends from
// the done queue on an ACK or a duplicate request, ACKs of multi-packet
// requests when idle, wait and queue-position replies. It fails as the stock
// server does: asked for the CONTENTS of an object it knows by AFTP, or
// given a GOPHER-GW name that is not host(port)/type/selector (the parent
// of a gateway menu's name), it stops answering anything (Crashed says
// why) — dirsrv crashes or fails an assertion and exits, and a client
// hears nothing more. Patched answers such CONTENTS, as the fixed server
// does. GOPHER-GW names are served from Objects too, outside Root, a
// menu's entries given as LINK lines (Object.Links), its text lines the
// NULL links the gateway makes of them. Hostile modes make it
// lie (a total of 65,535 packets, packets past the total, endless waits,
// redirect loops, forged packets). Relay is a lossy datagram relay to put
// between a client and the server.
package prosperotest

import (
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/prospero"
	"github.com/urlget/urlget/fetch/prospero/ardp"
)

// DefaultRoot is the hsoname prefix of the recorded server's tree.
const DefaultRoot = "/tmp/prospero-build/pfs/root"

// Object is one object of the served tree.
type Object struct {
	// Contents is a file's data. A file without Methods offers
	// PROSPERO-CONTENTS and LOCAL, like the ISI server.
	Contents []byte
	// Versions holds other versions of the file, by version token.
	Versions map[string][]byte
	// Dir makes the object a directory: its links are the objects whose
	// hsoname is its own plus "/" and one more component.
	Dir bool
	// Methods are the ACCESS-METHOD values, in order (each a list of
	// tokens, "" for ''). Set, they replace the default ones.
	Methods [][]string
	// External lists the object as an EXTERNAL link in its directory.
	External bool
	// ModTime is LAST-MODIFIED (default 20261121071312Z).
	ModTime string
	// Size is the SIZE attribute as written (default: the data's length
	// and " bytes"): another number is a size the data do not match.
	Size string
	// Forward answers every request about the object with FORWARDED to
	// this host ("127.0.0.1(PORT)"), same hsoname.
	Forward string
	// Failure answers every request about it with FAILURE and this code.
	Failure string
	// Links, for a directory, are its LINK lines as given (and any
	// ATTRIBUTE lines after them), in place of the objects below it: a
	// gopher gateway's menu ("LINK L NULL '' NULL NULL NULL NULL 0" is a
	// text line, empty).
	Links []string
}

// GopherGW is the prefix of the ISI gopher gateway's names:
// GOPHER-GW/host(port)/type/selector.
const GopherGW = "GOPHER-GW"

// gopherName is a well-formed gateway name: a menu (1) or a search (7).
var gopherName = regexp.MustCompile(`^GOPHER-GW/[^(/]+\([0-9]+\)/[17]/`)

// Hostile modes.
type Hostile uint

const (
	// HugeTotal claims 65,535 packets in every multi-packet reply and
	// sends only the real ones.
	HugeTotal Hostile = 1 << iota
	// PastTotal sends a packet numbered past the reply's total first.
	PastTotal
	// EndlessWait answers every request with "wait".
	EndlessWait
	// RedirectLoop answers every request with a redirect to itself.
	RedirectLoop
	// Spoof sends forged replies before the real one: from another
	// socket, and from the server's socket with another connection id.
	Spoof
	// Truncated cuts the end off every CONTENTS reply, the closing quote
	// of the data included: the message ends inside the data.
	Truncated
	// SwapCID byte-swaps the connection id in every packet after the
	// first window, like the unpatched ISI server on x86.
	SwapCID
)

// Server is a Prospero server. Set the fields, then Start.
type Server struct {
	Root    string             // prefix of the served hsonames (DefaultRoot)
	Objects map[string]*Object // by hsoname
	Window  int                // reply window (16)
	Hostile Hostile
	// Waits is how many wait replies each request gets before its answer,
	// each asking for WaitSecs seconds (1 when 0) with queue position
	// Waits-i and the expected seconds (option 254).
	Waits    int
	WaitSecs uint16
	// RedirectTo, when valid, answers every request with an ARDP redirect
	// (option 4) to this address.
	RedirectTo netip.AddrPort
	// Patched answers GET-OBJECT-INFO CONTENTS of an object with an AFTP
	// access method (from Contents), as the fixed server does; the stock
	// one crashes.
	Patched bool

	conn  *net.UDPConn
	host  string
	mu    sync.Mutex
	txns  map[string]*txn
	msgs  []string
	pkts  [][]byte
	acks  []uint16
	done  chan struct{}
	wg    sync.WaitGroup
	spoof *net.UDPConn
	// crashed is why the server stopped answering ("": it answers).
	crashed string
}

type txn struct {
	peer     netip.AddrPort
	cid      uint16
	parts    map[int][]byte
	total    int
	needAck  bool
	reply    [][]byte
	prcvd    int
	sentOnce bool
	waits    int
}

// maxTxns bounds the transactions the server remembers.
const maxTxns = 256

// Start listens on 127.0.0.1 (a free port) and serves until the test ends.
func (s *Server) Start(t testing.TB) string {
	t.Helper()
	addr, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return addr
}

// Listen starts the server outside a test; Close stops it.
func (s *Server) Listen() (string, error) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		return "", err
	}
	sp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		c.Close()
		return "", err
	}
	if s.Root == "" {
		s.Root = DefaultRoot
	}
	if s.Window <= 0 {
		s.Window = ardp.DefaultWindow
	}
	s.conn, s.spoof = c, sp
	s.host = fmt.Sprintf("127.0.0.1(%d)", c.LocalAddr().(*net.UDPAddr).Port)
	s.txns = map[string]*txn{}
	s.done = make(chan struct{})
	s.wg.Add(1)
	go s.serve()
	return c.LocalAddr().String(), nil
}

// Set adds or replaces the object hsoname while the server runs.
func (s *Server) Set(hsoname string, o *Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Objects[hsoname] = o
}

// Host is the server as its LINKs name it: "127.0.0.1(PORT)".
func (s *Server) Host() string { return s.host }

// Crashed is why the server stopped answering, as the stock dirsrv stops
// (see the package documentation); "" while it answers.
func (s *Server) Crashed() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.crashed
}

// Close stops the server.
func (s *Server) Close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.done)
	s.conn.Close()
	s.spoof.Close()
	s.wg.Wait()
}

// Messages returns the request messages received so far, in order.
func (s *Server) Messages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}

// Packets returns every datagram received so far, in order.
func (s *Server) Packets() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.pkts...)
}

// Acks returns the received-through values of the client's control
// packets (acknowledgements) so far, in order.
func (s *Server) Acks() []uint16 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]uint16(nil), s.acks...)
}

func (s *Server) serve() {
	defer s.wg.Done()
	buf := make([]byte, ardp.MaxPacket) // what the ISI server reads at most
	for {
		s.mu.Lock()
		idle := false
		for _, x := range s.txns {
			idle = idle || x.needAck
		}
		s.mu.Unlock()
		if idle {
			s.conn.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
		} else {
			s.conn.SetReadDeadline(time.Time{})
		}
		n, peer, err := s.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				s.ackPartials()
			}
			continue
		}
		s.mu.Lock()
		s.pkts = append(s.pkts, append([]byte(nil), buf[:n]...))
		if s.crashed == "" {
			s.packet(peer, buf[:n])
		}
		s.mu.Unlock()
	}
}

// ackPartials acknowledges, once the socket is idle, the multi-packet
// requests still missing packets (09 cc cc 00 00 00 00 RR RR).
func (s *Server) ackPartials() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range s.txns {
		if !x.needAck {
			continue
		}
		x.needAck = false
		thru := 0
		for x.parts[thru+1] != nil {
			thru++
		}
		h := ardp.Header{Len: 9, CID: x.cid, Seq: 0, Total: 0, RcvdThru: uint16(thru)}
		s.send(x.peer, h.Append(nil, nil))
	}
}

func (s *Server) send(peer netip.AddrPort, pkt []byte) {
	s.conn.WriteToUDPAddrPort(pkt, peer)
}

func (s *Server) packet(peer netip.AddrPort, pkt []byte) {
	h, data, err := ardp.Parse(pkt)
	if err != nil {
		return
	}
	key := peer.String() + "/" + strconv.Itoa(int(h.CID))
	x := s.txns[key]
	if h.Option == ardp.OptCancel {
		delete(s.txns, key)
		return
	}
	if h.Seq == 0 {
		s.acks = append(s.acks, h.RcvdThru)
	}
	if x != nil && x.reply != nil {
		// Done queue: an ACK or a duplicate request moves the window.
		if h.Len >= 9 && int(h.RcvdThru) > x.prcvd {
			x.prcvd = min(int(h.RcvdThru), len(x.reply))
		}
		s.sendWindow(x)
		return
	}
	if h.Seq == 0 {
		return
	}
	if x == nil {
		if len(s.txns) >= maxTxns {
			for k := range s.txns {
				delete(s.txns, k)
				break
			}
		}
		x = &txn{peer: peer, cid: h.CID, parts: map[int][]byte{}}
		s.txns[key] = x
	}
	if h.Total > 0 {
		x.total = int(h.Total)
	}
	if int(h.Seq) > ardp.MaxWindow*4 || x.total > ardp.MaxWindow*4 {
		delete(s.txns, key)
		return
	}
	if x.parts[int(h.Seq)] == nil {
		x.parts[int(h.Seq)] = append([]byte{}, data...)
	}
	if x.total == 0 || len(x.parts) < x.total {
		x.needAck = true
		return
	}
	x.needAck = false
	s.answer(x)
}

// answer replies to a complete request (again, for a repeated one that
// was told to wait).
func (s *Server) answer(x *txn) {
	switch {
	case s.Hostile&EndlessWait != 0:
		h := ardp.Header{Len: 11, CID: x.cid, Seq: 0, Total: 0, Wait: max(s.WaitSecs, 1)}
		s.send(x.peer, h.Append(nil, nil))
		return
	case s.Hostile&RedirectLoop != 0 || s.RedirectTo.IsValid():
		to := s.RedirectTo
		if s.Hostile&RedirectLoop != 0 {
			to = s.conn.LocalAddr().(*net.UDPAddr).AddrPort()
		}
		h := ardp.Header{CID: x.cid, Seq: 0, Total: 0, Option: ardp.OptRedirect, Redirect: to}
		s.send(x.peer, h.Append(nil, nil))
		return
	case x.waits < s.Waits:
		x.waits++
		h := ardp.Header{CID: x.cid, Seq: 0, Total: 0, Wait: max(s.WaitSecs, 1), Option: ardp.OptQueueReply,
			QueuePos: uint16(s.Waits - x.waits + 1), HasQueuePos: true,
			QueueSecs: uint32(max(s.WaitSecs, 1)), HasQueueSec: true}
		s.send(x.peer, h.Append(nil, nil))
		return
	}
	var msg []byte
	for i := 1; i <= x.total; i++ {
		msg = append(msg, x.parts[i]...)
	}
	s.msgs = append(s.msgs, string(msg))
	reply := s.handle(msg)
	if s.crashed != "" {
		return
	}
	x.reply = ardp.Split(reply)
	if s.Hostile&Spoof != 0 {
		forged := []byte("FAILURE NOT-FOUND forged\n")
		h := ardp.Header{CID: x.cid, Seq: 1, Total: 1}
		s.spoof.WriteToUDPAddrPort(h.Append(nil, forged), x.peer)
		h.CID = x.cid + 1
		s.send(x.peer, h.Append(nil, forged))
	}
	if s.Hostile&PastTotal != 0 {
		n := len(x.reply)
		h := ardp.Header{Len: 9, CID: x.cid, Seq: uint16(n + 1), Total: uint16(n), RcvdThru: 1}
		s.send(x.peer, h.Append(nil, []byte("past the total\n")))
	}
	s.sendWindow(x)
}

// sendWindow sends the reply packets after prcvd, up to the window, the
// last of the window asking for an ACK.
func (s *Server) sendWindow(x *txn) {
	n := len(x.reply)
	huge := s.Hostile&HugeTotal != 0 && n > 1
	if n == 1 {
		h := ardp.Header{CID: x.cid, Seq: 1, Total: 1}
		s.send(x.peer, h.Append(nil, x.reply[0]))
		return
	}
	first := !x.sentOnce
	x.sentOnce = true
	end := min(n, x.prcvd+s.Window)
	for seq := x.prcvd + 1; seq <= end; seq++ {
		h := ardp.Header{CID: x.cid, Seq: uint16(seq)}
		switch {
		case huge:
			h.Total = 65535
		case first && seq < n:
			h.Total = 0 // not known yet, as the real server sends them
		default:
			h.Total = uint16(n)
		}
		if !first {
			h.Len, h.RcvdThru = 9, 1
			if s.Hostile&SwapCID != 0 {
				h.CID = x.cid>>8 | x.cid<<8
			}
		}
		if seq == x.prcvd+s.Window && seq < n || huge && seq == end {
			h.RcvdThru, h.Flags = 1, ardp.FlagPleaseAck
		}
		if h.Total == 0 && h.Flags == 0 && first {
			h.Len = 7
		}
		s.send(x.peer, h.Append(nil, x.reply[seq-1]))
	}
}

// ---- Prospero v5 ----

func (s *Server) handle(msg []byte) []byte {
	lines, err := prospero.Lines(msg)
	if err != nil {
		return []byte("ERROR " + prospero.Quote(err.Error()) + "\n")
	}
	var out strings.Builder
	dir := ""
	for _, t := range lines {
		switch t[0] {
		case "VERSION":
			if len(t) == 1 {
				out.WriteString("VERSION 5 P53.17May94b\n")
			} else if t[1] != "5" {
				out.WriteString("VERSION-NOT-SUPPORTED TRY 1-5")
				return []byte(out.String())
			}
		case "AUTHENTICATE":
		case "GET-OBJECT-INFO":
			if len(t) < 4 || t[2] != "ASCII" {
				out.WriteString("ERROR Malformed GET-OBJECT-INFO\n")
				continue
			}
			version := "0"
			if len(t) > 4 {
				version = t[4]
			}
			s.objectInfo(&out, t[1], t[3], version)
		case "DIRECTORY":
			if len(t) < 3 {
				out.WriteString("ERROR Malformed DIRECTORY\n")
				continue
			}
			dir = t[2]
		case "LIST":
			comps := []string{}
			if len(t) > 3 {
				comps = t[3:]
			}
			s.list(&out, dir, comps)
		default:
			out.WriteString("ERROR Unknown message: " + t[0] + "\n")
		}
	}
	return []byte(out.String())
}

// crash stops the server, as dirsrv's crash or failed assertion does.
func (s *Server) crash(why string) { s.crashed = why }

// served reports whether hso is a name the server answers for (its
// tree, the gopher gateway's); a malformed gateway name crashes it.
func (s *Server) served(hso string) bool {
	if strings.HasPrefix(hso, GopherGW) {
		if !gopherName.MatchString(hso) {
			s.crash("assertion failed on the gopher gateway name " + strconv.Quote(hso))
			return false
		}
		return true
	}
	return hso == s.Root || strings.HasPrefix(hso, s.Root+"/")
}

func (s *Server) lookup(out *strings.Builder, hso string) *Object {
	if !s.served(hso) {
		out.WriteString("FAILURE NOT-AUTHORIZED\n")
		return nil
	}
	o := s.Objects[hso]
	switch {
	case o == nil:
		out.WriteString("FAILURE NOT-FOUND\n")
	case o.Forward != "":
		fmt.Fprintf(out, "FORWARDED INTERNET-D %s ASCII %s 0\n", prospero.Quote(o.Forward), prospero.Quote(hso))
	case o.Failure != "":
		out.WriteString("FAILURE " + o.Failure + "\n")
	default:
		return o
	}
	return nil
}

func attrLine(out *strings.Builder, name string, values ...string) {
	out.WriteString("ATTRIBUTE OBJECT INTRINSIC " + name + " SEQUENCE")
	for _, v := range values {
		out.WriteString(" " + prospero.Quote(v))
	}
	out.WriteByte('\n')
}

func (s *Server) objectInfo(out *strings.Builder, attrs, hso, version string) {
	o := s.lookup(out, hso)
	if o == nil {
		return
	}
	data := o.Contents
	if version != "0" && version != "" {
		v, ok := o.Versions[version]
		if !ok {
			out.WriteString("FAILURE NOT-FOUND\n")
			return
		}
		data = v
	}
	if attrs == "CONTENTS" {
		if o.Dir {
			out.WriteString("FAILURE NOT-FOUND\n")
			return
		}
		if !s.Patched && hasAFTP(o) {
			// read_contents() calls qsprintf_stcopyr without its buffer.
			s.crash("CONTENTS of an AFTP object (read_contents)")
			return
		}
		// The data as one token: quoted as %'s writes it.
		line := "ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA " + prospero.Quote(string(data)) + "\n"
		if s.Hostile&Truncated != 0 {
			line = line[:len(line)-min(len(line)/2, 100)]
		}
		out.WriteString(line)
		return
	}
	s.objectAttrs(out, o, data, attrs == "ACCESS-METHOD")
}

// hasAFTP reports whether o lists an AFTP access method.
func hasAFTP(o *Object) bool {
	for _, m := range o.Methods {
		if len(m) > 0 && m[0] == "AFTP" {
			return true
		}
	}
	return false
}

func (s *Server) objectAttrs(out *strings.Builder, o *Object, data []byte, methodsOnly bool) {
	if o.Dir && o.Links != nil {
		// A gateway's directory is a pseudo-object: no native file, no
		// attributes of its own.
		out.WriteString("NONE-FOUND\n")
		return
	}
	if o.Dir && methodsOnly {
		out.WriteString("NONE-FOUND\n")
		return
	}
	if !methodsOnly {
		mod := o.ModTime
		if mod == "" {
			mod = "20261121071312Z"
		}
		if !o.Dir {
			size := o.Size
			if size == "" {
				size = strconv.Itoa(len(data)) + " bytes"
			}
			attrLine(out, "SIZE", size)
		}
		attrLine(out, "NATIVE-OWNER", "root")
		attrLine(out, "NATIVE-GROUP", "root")
		attrLine(out, "LAST-MODIFIED", mod)
		if o.Dir {
			attrLine(out, "UNIX-MODES", "drwxr-xr-x")
		} else {
			attrLine(out, "UNIX-MODES", "-rw-r--r--")
		}
	}
	if o.Dir {
		return
	}
	ms := o.Methods
	if ms == nil {
		ms = [][]string{{"PROSPERO-CONTENTS", "", "", "", ""}, {"LOCAL", "", "", "", ""}}
	}
	for _, m := range ms {
		attrLine(out, "ACCESS-METHOD", m...)
	}
}

func (s *Server) list(out *strings.Builder, dir string, comps []string) {
	o := s.Objects[dir]
	if !s.served(dir) {
		if s.crashed == "" {
			out.WriteString("FAILURE NOT-AUTHORIZED\n")
		}
		return
	}
	if o != nil && o.Forward != "" {
		s.lookup(out, dir)
		return
	}
	if o == nil || !o.Dir {
		out.WriteString("FAILURE NOT-A-DIRECTORY\n")
		return
	}
	if o.Links != nil {
		for _, l := range o.Links {
			out.WriteString(l + "\n")
		}
		return
	}
	var names []string
	for k := range s.Objects {
		if rest, ok := strings.CutPrefix(k, dir+"/"); ok && rest != "" && !strings.Contains(rest, "/") {
			names = append(names, rest)
		}
	}
	sort.Strings(names)
	found := 0
	for _, name := range names {
		if len(comps) > 0 && comps[0] != name {
			continue
		}
		found++
		c := s.Objects[dir+"/"+name]
		target := "FILE"
		switch {
		case c.Dir:
			target = "DIRECTORY"
		case c.External:
			target = "EXTERNAL"
		}
		host := s.host
		if c.Forward != "" {
			host = c.Forward
		}
		fmt.Fprintf(out, "LINK  L %s %s INTERNET-D %s ASCII %s 0\n", target, prospero.Quote(name),
			prospero.Quote(host), prospero.Quote(dir+"/"+name))
		if c.Forward == "" && c.Failure == "" {
			s.objectAttrs(out, c, c.Contents, false)
		}
	}
	if found == 0 {
		out.WriteString("NONE-FOUND\n")
	}
}
