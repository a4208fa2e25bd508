// Package nntptest is an NNTP server for tests: a small, honest reader
// server (RFC 3977 GROUP, ARTICLE/HEAD/BODY/STAT, OVER/XOVER, LIST ACTIVE,
// LIST NEWSGROUPS, CAPABILITIES, MODE READER, AUTHINFO USER/PASS, STARTTLS,
// POST)
// over articles held in memory, which can also misbehave on purpose (see
// Hostile). It listens on 127.0.0.1 on a free port and records every command
// line it receives.
package nntptest

import (
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/internal/lineproto"

	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Article is one article. Its wire form is Head lines, an empty line, Body
// lines, each line ended by CRLF (dot-stuffed on the wire).
type Article struct {
	MessageID string // with angle brackets
	Head      []string
	Body      []string
}

// Bytes is the article exactly as a client should deliver it: CRLF line
// ends, dot-stuffing undone.
func (a *Article) Bytes() []byte { return []byte(a.HeadText() + "\r\n" + a.BodyText()) }

// HeadText is the header block as HEAD delivers it.
func (a *Article) HeadText() string { return joinCRLF(a.Head) }

// BodyText is the body as BODY delivers it.
func (a *Article) BodyText() string { return joinCRLF(a.Body) }

func joinCRLF(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteString("\r\n")
	}
	return b.String()
}

func (a *Article) header(name string) string {
	for _, h := range a.Head {
		if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Group is a newsgroup; Articles[i] has number Low+i, and a nil entry is a
// number with no article (expired).
type Group struct {
	Name        string
	Description string
	Status      string // LIST ACTIVE flag; "y" when empty
	Low         int64  // number of Articles[0]; 1 when 0
	Articles    []*Article
}

func (g *Group) low() int64 {
	if g.Low == 0 {
		return 1
	}
	return g.Low
}

func (g *Group) bounds() (count, low, high int64) {
	low = g.low()
	high = low + int64(len(g.Articles)) - 1
	for _, a := range g.Articles {
		if a != nil {
			count++
		}
	}
	if len(g.Articles) == 0 {
		high = low - 1
	}
	return
}

// Hostile makes the server misbehave.
type Hostile struct {
	// HugeGreeting, when > 0, replaces the greeting by a status line of
	// this many bytes.
	HugeGreeting int
	// EndlessArticle answers ARTICLE and BODY with 220/222 and then lines
	// forever (until the client goes away).
	EndlessArticle bool
	// OverviewLines, when > 0, answers OVER and XOVER with this many
	// generated lines, whatever the range.
	OverviewLines int
	// InjectBeforeTLS is sent in the same write as the 382 reply to
	// STARTTLS, before the TLS handshake: a man in the middle's pipelined
	// replies (CVE-2021-22947).
	InjectBeforeTLS string
	// StallGreeting accepts connections and never says anything.
	StallGreeting bool
	// StallArticle sends the status line and the first half of the article,
	// then nothing more (the connection stays open).
	StallArticle bool
	// CloseArticle sends the status line and the first half of the
	// article, then closes the connection.
	CloseArticle bool
	// RefusePost answers POST with 440 (posting not permitted).
	RefusePost bool
	// FailPost, when set, answers an article sent with POST with "441 "
	// and this text instead of 240.
	FailPost string
	// ClosePost, when > 0, closes the connection after this many lines of
	// an article sent with POST, without a reply.
	ClosePost int
	// SilentPost reads an article sent with POST to its end, then closes
	// the connection without a reply.
	SilentPost bool
}

// Server is the test server. Set the fields, then call Start.
type Server struct {
	Groups []*Group
	// Loose holds articles reachable only by message-id.
	Loose []*Article

	Greeting string // default "200 nntptest ready (posting ok)"
	// User and Password, when User is set, make every reader command
	// answer 480 until AUTHINFO USER/PASS gives them.
	User, Password string
	// ModeSwitching lists MODE-READER (not READER) in CAPABILITIES and
	// answers reader commands with "401 MODE-READER" until MODE READER.
	ModeSwitching bool
	// HideModeReader leaves MODE-READER out of CAPABILITIES (with
	// ModeSwitching): the client learns of it only from a 401 reply.
	HideModeReader bool
	// NoCapabilities answers CAPABILITIES with 500, as an RFC 977 server.
	NoCapabilities bool
	// NoOver and NoXover answer OVER and XOVER with 500.
	NoOver, NoXover bool
	// TLS, with ImplicitTLS, makes the server speak TLS from the start
	// (nntps); with StartTLS it offers STARTTLS.
	TLS         *tls.Config
	ImplicitTLS bool
	StartTLS    bool
	Hostile     Hostile

	// Addr is host:port once started; Host and Port the same apart.
	Addr string
	Host string
	Port int

	loop     *fetchtest.Loop
	mu       sync.Mutex
	posted   []*Article
	wire     [][]byte
	lines    []string
	sessions [][]string
	ended    []chan struct{}
}

// Start listens on a free port of 127.0.0.1 and serves until the test ends.
func (s *Server) Start(t testing.TB) *Server {
	t.Helper()
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Listen is Start outside a test (an Example): it listens on a free port
// of 127.0.0.1 and serves until Close.
func (s *Server) Listen() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.Addr = ln.Addr().String()
	s.Host = "127.0.0.1"
	s.Port = ln.Addr().(*net.TCPAddr).Port
	s.loop = fetchtest.NewLoop(ln) // handlers read s.loop: set it before they run
	s.loop.Start(s.handle)
	return nil
}

// Close stops the server and ends every session.
func (s *Server) Close() {
	if s.loop != nil {
		s.loop.Close()
	}
}

// Lines returns every command line received so far, in order, across
// connections (AUTHINFO PASS included as sent).
func (s *Server) Lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

// Session waits (up to 5 s) until the i-th connection (from 0) has ended
// and returns the command lines received on it.
func (s *Server) Session(i int) []string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		if i < len(s.ended) {
			ch := s.ended[i]
			s.mu.Unlock()
			select {
			case <-ch:
			case <-time.After(time.Until(deadline)):
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			return append([]string(nil), s.sessions[i]...)
		}
		s.mu.Unlock()
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Conns is the number of connections accepted so far.
func (s *Server) Conns() int { return s.loop.Accepted() }

// handle serves one connection and records its session.
func (s *Server) handle(c net.Conn) {
	s.mu.Lock()
	id := len(s.sessions)
	s.sessions = append(s.sessions, nil)
	end := make(chan struct{})
	s.ended = append(s.ended, end)
	s.mu.Unlock()
	defer close(end)
	s.serve(c, id)
}

// session is one client's state.
type session struct {
	s      *Server
	nc     net.Conn
	r      *bufio.Reader
	w      *bufio.Writer
	authed bool
	reader bool
	tls    bool
	user   string
	group  *Group
}

func (s *Server) serve(nc net.Conn, id int) {
	ss := &session{s: s, nc: nc}
	if s.ImplicitTLS {
		tc := tls.Server(nc, s.TLS)
		if err := tc.Handshake(); err != nil {
			return
		}
		ss.nc, ss.tls = tc, true
	}
	ss.r = bufio.NewReaderSize(ss.nc, 4096)
	ss.w = bufio.NewWriter(ss.nc)
	if s.Hostile.StallGreeting {
		<-s.loop.Done()
		return
	}
	if n := s.Hostile.HugeGreeting; n > 0 {
		ss.w.WriteString("200 ")
		chunk := strings.Repeat("x", 4096)
		for n > 4 {
			k := min(n-4, len(chunk))
			if _, err := ss.w.WriteString(chunk[:k]); err != nil {
				return
			}
			n -= k
		}
		ss.w.WriteString("\r\n")
		ss.w.Flush()
		ss.drain()
		return
	}
	g := s.Greeting
	if g == "" {
		g = "200 nntptest ready (posting ok)"
	}
	ss.reply("%s", g)
	if ss.w.Flush() != nil {
		return
	}
	ss.reader = !s.ModeSwitching
	for {
		line, err := ss.r.ReadSlice('\n')
		if err != nil {
			return
		}
		cmd := strings.TrimRight(string(line), "\r\n")
		s.mu.Lock()
		s.lines = append(s.lines, cmd)
		s.sessions[id] = append(s.sessions[id], cmd)
		s.mu.Unlock()
		if !ss.command(cmd) {
			ss.w.Flush()
			return
		}
		if err := ss.w.Flush(); err != nil {
			return
		}
	}
}

// drain reads what the client sends until it goes away.
func (ss *session) drain() { io.Copy(io.Discard, ss.nc) }

func (ss *session) reply(format string, a ...any) {
	fmt.Fprintf(ss.w, format, a...)
	ss.w.WriteString("\r\n")
}

// data writes lines dot-stuffed, then the terminator
// (lineproto.DotWriter).
func (ss *session) data(lines []string) {
	dw := lineproto.NewDotWriter(ss.w)
	for _, l := range lines {
		dw.Write([]byte(l + "\r\n"))
	}
	dw.Close()
}

// command handles one line; false ends the session.
func (ss *session) command(line string) bool {
	s := ss.s
	verb, arg, _ := strings.Cut(line, " ")
	verb = strings.ToUpper(verb)
	switch verb {
	case "QUIT":
		ss.reply("205 bye")
		return false
	case "CAPABILITIES":
		if s.NoCapabilities {
			ss.reply("500 What?")
			return true
		}
		caps := []string{"VERSION 2", "IMPLEMENTATION nntptest"}
		if ss.reader {
			caps = append(caps, "READER", "LIST ACTIVE NEWSGROUPS")
			if !s.Hostile.RefusePost {
				caps = append(caps, "POST")
			}
			if !s.NoOver {
				caps = append(caps, "OVER")
			}
		} else if !s.HideModeReader {
			caps = append(caps, "MODE-READER")
		}
		if s.User != "" && !ss.authed {
			caps = append(caps, "AUTHINFO USER")
		}
		if s.StartTLS && !ss.tls {
			caps = append(caps, "STARTTLS")
		}
		ss.reply("101 Capability list:")
		ss.data(caps)
		return true
	case "MODE":
		if strings.EqualFold(arg, "READER") {
			ss.reader = true
			ss.reply("200 reader mode")
			return true
		}
		ss.reply("501 unknown MODE")
		return true
	case "STARTTLS":
		if !s.StartTLS || ss.tls || s.TLS == nil {
			ss.reply("502 STARTTLS not available")
			return true
		}
		ss.w.WriteString("382 Continue with TLS negotiation\r\n" + s.Hostile.InjectBeforeTLS)
		if ss.w.Flush() != nil {
			return false
		}
		tc := tls.Server(ss.nc, s.TLS)
		if err := tc.Handshake(); err != nil {
			return false
		}
		ss.nc, ss.tls = tc, true
		ss.r = bufio.NewReaderSize(tc, 4096)
		ss.w = bufio.NewWriter(tc)
		return true
	case "AUTHINFO":
		sub, val, _ := strings.Cut(arg, " ")
		switch strings.ToUpper(sub) {
		case "USER":
			ss.user = val
			ss.reply("381 Enter password")
		case "PASS":
			if s.User != "" && ss.user == s.User && val == s.Password {
				ss.authed = true
				ss.reply("281 Authentication accepted")
			} else {
				ss.reply("481 Authentication failed")
			}
		default:
			ss.reply("501 unknown AUTHINFO")
		}
		return true
	}
	// Reader commands from here on.
	if s.User != "" && !ss.authed {
		ss.reply("480 Authentication required")
		return true
	}
	if !ss.reader {
		ss.reply("401 MODE-READER")
		return true
	}
	switch verb {
	case "GROUP":
		g := s.group(arg)
		if g == nil {
			ss.reply("411 No such group %s", arg)
			return true
		}
		ss.group = g
		n, lo, hi := g.bounds()
		ss.reply("211 %d %d %d %s", n, lo, hi, g.Name)
	case "ARTICLE", "HEAD", "BODY", "STAT":
		return ss.article(verb, arg)
	case "OVER", "XOVER":
		if (verb == "OVER" && s.NoOver) || (verb == "XOVER" && s.NoXover) {
			ss.reply("500 What?")
			return true
		}
		ss.over(arg)
	case "LIST":
		ss.list(arg)
	case "POST":
		return ss.post()
	default:
		ss.reply("500 What?")
	}
	return true
}

func (s *Server) group(name string) *Group {
	for _, g := range s.Groups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// byID finds an article by message-id.
func (s *Server) byID(id string) *Article {
	for _, g := range s.Groups {
		for _, a := range g.Articles {
			if a != nil && a.MessageID == id {
				return a
			}
		}
	}
	for _, a := range s.Loose {
		if a.MessageID == id {
			return a
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.posted {
		if a.MessageID == id {
			return a
		}
	}
	return nil
}

// Posted returns the data of every article posted so far (POST, answered
// 240), as it came over the wire but for dot-stuffing, which is undone:
// line ends as the client sent them, the "." line left out.
func (s *Server) Posted() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.wire...)
}

// post takes an article (POST, RFC 3977 §6.3.1): 340, the lines up to the
// "." line with dot-stuffing undone, then 240, and the article can be read
// by its Message-ID from then on.
func (ss *session) post() bool {
	s := ss.s
	if s.Hostile.RefusePost {
		ss.reply("440 Posting not permitted")
		return true
	}
	ss.reply("340 Send article to be posted")
	if ss.w.Flush() != nil {
		return false
	}
	var wire []byte
	var lines []string
	for {
		line, err := ss.r.ReadBytes('\n')
		if err != nil {
			return false
		}
		if s.Hostile.ClosePost > 0 && len(lines) >= s.Hostile.ClosePost {
			return false
		}
		if string(line) == ".\r\n" {
			break
		}
		if line[0] == '.' {
			line = line[1:]
		}
		wire = append(wire, line...)
		lines = append(lines, strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r"))
	}
	if s.Hostile.SilentPost {
		return false
	}
	if s.Hostile.FailPost != "" {
		ss.reply("441 %s", s.Hostile.FailPost)
		return true
	}
	a := &Article{}
	for i, l := range lines {
		if l == "" {
			a.Head, a.Body = lines[:i], lines[i+1:]
			break
		}
	}
	a.MessageID = a.header("Message-ID")
	s.mu.Lock()
	s.posted = append(s.posted, a)
	s.wire = append(s.wire, wire)
	s.mu.Unlock()
	ss.reply("240 Article received OK")
	return true
}

func (ss *session) article(verb, arg string) bool {
	s := ss.s
	var a *Article
	num := int64(0)
	switch {
	case strings.HasPrefix(arg, "<"):
		if a = s.byID(arg); a == nil {
			ss.reply("430 No such article")
			return true
		}
	default:
		if ss.group == nil {
			ss.reply("412 No newsgroup selected")
			return true
		}
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			ss.reply("501 Syntax error")
			return true
		}
		g := ss.group
		if i := n - g.low(); i >= 0 && i < int64(len(g.Articles)) {
			a = g.Articles[i]
		}
		if a == nil {
			ss.reply("423 No article with that number")
			return true
		}
		num = n
	}
	code := map[string]int{"ARTICLE": 220, "HEAD": 221, "BODY": 222, "STAT": 223}[verb]
	ss.reply("%d %d %s", code, num, a.MessageID)
	if verb == "STAT" {
		return true
	}
	h := s.Hostile
	if h.EndlessArticle && verb != "HEAD" {
		line := strings.Repeat("endless ", 8)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(ss.w, "%d %s\r\n", i, line); err != nil {
				return false
			}
			select {
			case <-s.loop.Done():
				return false
			default:
			}
		}
	}
	var lines []string
	switch verb {
	case "ARTICLE":
		lines = append(append(append(lines, a.Head...), ""), a.Body...)
	case "HEAD":
		lines = a.Head
	case "BODY":
		lines = a.Body
	}
	if h.StallArticle || h.CloseArticle {
		for _, l := range lines[:len(lines)/2] {
			ss.w.WriteString(l + "\r\n")
		}
		ss.w.Flush()
		if h.CloseArticle {
			return false
		}
		<-s.loop.Done()
		return false
	}
	ss.data(lines)
	return true
}

func (ss *session) over(arg string) {
	if n := ss.s.Hostile.OverviewLines; n > 0 {
		ss.reply("224 Overview information follows")
		for i := 1; i <= n; i++ {
			if _, err := fmt.Fprintf(ss.w, "%d\tSubject %d\tposter%d@example.net\tMon, 2 Jan 2006 15:04:05 +0000\t<gen%d@example.net>\t\t100\t3\r\n", i, i, i, i); err != nil {
				return
			}
		}
		ss.w.WriteString(".\r\n")
		return
	}
	g := ss.group
	if g == nil {
		ss.reply("412 No newsgroup selected")
		return
	}
	lo, hi, ok := parseRange(arg)
	if !ok {
		ss.reply("501 Syntax error")
		return
	}
	var lines []string
	for i, a := range g.Articles {
		n := g.low() + int64(i)
		if a == nil || n < lo || n > hi {
			continue
		}
		lines = append(lines, fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d",
			n, a.header("Subject"), a.header("From"), a.header("Date"), a.MessageID, a.header("References"), len(a.Bytes()), len(a.Body)))
	}
	if len(lines) == 0 {
		ss.reply("423 No articles in that range")
		return
	}
	ss.reply("224 Overview information follows")
	ss.data(lines)
}

func parseRange(arg string) (lo, hi int64, ok bool) {
	a, b, dash := strings.Cut(arg, "-")
	lo, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if !dash {
		return lo, lo, true
	}
	if b == "" {
		return lo, 1<<62 - 1, true
	}
	hi, err = strconv.ParseInt(b, 10, 64)
	return lo, hi, err == nil
}

func (ss *session) list(arg string) {
	kw, pat, _ := strings.Cut(arg, " ")
	kw = strings.ToUpper(kw)
	if kw == "" {
		kw = "ACTIVE"
	}
	var lines []string
	switch kw {
	case "ACTIVE":
		for _, g := range ss.s.Groups {
			if pat == "" || Wildmat(pat, g.Name) {
				_, lo, hi := g.bounds()
				st := g.Status
				if st == "" {
					st = "y"
				}
				lines = append(lines, fmt.Sprintf("%s %010d %010d %s", g.Name, hi, lo, st))
			}
		}
	case "NEWSGROUPS":
		for _, g := range ss.s.Groups {
			if (pat == "" || Wildmat(pat, g.Name)) && g.Description != "" {
				lines = append(lines, g.Name+"\t"+g.Description)
			}
		}
	default:
		ss.reply("501 Syntax error")
		return
	}
	ss.reply("215 list follows")
	ss.data(lines)
}

// Wildmat matches name against a simple wildmat (RFC 3977 §4): "*", "?",
// "[set]" and comma-separated alternatives, "!" negating one.
func Wildmat(pat, name string) bool {
	match := false
	for _, p := range strings.Split(pat, ",") {
		neg := strings.HasPrefix(p, "!")
		if neg {
			p = p[1:]
		}
		if glob(p, name) {
			match = !neg
		}
	}
	return match
}

func glob(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if glob(p[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if len(s) == 0 {
				return false
			}
			p, s = p[1:], s[1:]
		case '[':
			end := strings.IndexByte(p[1:], ']')
			if end < 0 || len(s) == 0 {
				return false
			}
			set := p[1 : 1+end]
			if !strings.ContainsRune(set, rune(s[0])) {
				return false
			}
			p, s = p[2+end:], s[1:]
		default:
			if len(s) == 0 || s[0] != p[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return len(s) == 0
}

// Sample returns the groups and articles most tests use: local.test with
// five articles (number 3 expired), comp.infosystems.www.servers.unix with
// one cross-posted article, local.empty with none.
func Sample() []*Group {
	date := time.Date(2026, 11, 21, 7, 37, 18, 0, time.UTC)
	art := func(id, subject string, body ...string) *Article {
		return &Article{
			MessageID: id,
			Head: []string{
				"From: Fixture Poster <poster@example.net>",
				"Newsgroups: local.test",
				"Subject: " + subject,
				"Date: " + date.Format(time.RFC1123Z),
				"Message-ID: " + id,
				"Path: nntptest!not-for-mail",
			},
			Body: body,
		}
	}
	xpost := art("<xpost@example.net>", "Cross-posted", "in two groups")
	return []*Group{
		{Name: "local.test", Description: "Local test group", Articles: []*Article{
			art("<known-1@example.net>", "Known article one", "Hello, news.", "Second line."),
			xpost,
			nil,
			art("<dots@example.net>", "Dots", ".leading dot", "..two leading dots", ".", "after a lone dot line"),
			art("<odd/chars+$1@example.net>", "Odd \x1b[31mchars\x07", "odd"),
		}},
		{Name: "comp.infosystems.www.servers.unix", Description: "Web servers on Unix", Articles: []*Article{xpost}},
		{Name: "local.empty"},
	}
}
