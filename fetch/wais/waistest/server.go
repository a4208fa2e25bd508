// Package waistest is an in-tree WAIS server for tests: it answers as
// freeWAIS-sf 2.2.10 does (its behaviour was recorded from the real server;
// fetch/wais/testdata holds the exchanges), and it can misbehave on demand.
//
// What it shares with freeWAIS-sf:
//
//   - Init is optional; an Init asking for Present or Delete is rejected
//     (Result 0); an accepted one sets the message buffer to
//     min(100000, the client's MaximumRecordSize).
//   - A relevance search (query type "3") returns up to MaxDocumentsRetrieved
//     document headers; empty seed words, or words starting with "?" or
//     "*", return the two help records (the source description, type WSRC,
//     and the catalog, type TEXT); a search without hits returns the
//     catalog headed "Search produced no result. Here's the Catalog for
//     database: …"; an unknown database is an S1 diagnostic.
//   - DocIDs are freeWAIS's: fields 1–7, the local id "<start> <end>
//     <path>"; a document with a long Path gives fields longer than 127
//     bytes (two-byte lengths).
//   - A retrieval (query type "1") sends bytes [start, end) of the
//     document; past its end the text is clipped and an SF "Request out of
//     range" diagnostic added (no text at all when start is at or past the
//     end); a reply that would not fit the buffer is a zero-length message.
//   - A missing database asked for without words gives no records and no
//     diagnostic (a real database always has its help records); with
//     words it is an S1 diagnostic.
//   - A retrieval without a DocID, with one that cannot be read, or of a
//     file the database does not hold gets freeWAIS-sf's own diagnostics:
//     "Missing DocID in request", "Bad DocID in request", "File not
//     present in specified database".
//   - The reply header echoes the request's; many requests per connection,
//     one at a time. freeWAIS-sf reads its socket through one stdio
//     stream: a request that arrives before the reply to the one before
//     has been written makes it close the connection without an answer,
//     and so does this server, unless Config.Pipelined asks it to answer
//     requests sent ahead, in order.
//
// The hostile modes (Mode) are what the client must survive; Config.Delay
// adds a service time to every reply (freeWAIS-sf needs some 44 ms a
// chunk on loopback).
package waistest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/wais/apdu"
	"github.com/urlget/urlget/urlparse"
)

// Doc is one document of a database.
type Doc struct {
	Name string // file name; the headline is "<name>   <dir>/"
	Type string // "" means "TEXT"
	Date string // "" means "0", as freeWAIS-sf sends
	// Path is the document's file path in its DocID; "" means
	// /srv/wais/data/<Name>. A path of 128 bytes or more makes DocID
	// fields with two-byte lengths.
	Path string
	Data []byte
}

// DB is one database.
type DB struct {
	Name        string
	Description string // the .src record's text
	Docs        []*Doc
}

// Mode is how the server behaves.
type Mode int

const (
	Normal Mode = iota
	// RejectInit answers an Init with Result 0 (refused) and goes on
	// serving the connection.
	RejectInit
	// ZeroInit answers an Init with a zero-length message, as a server
	// that cannot make sense of it does.
	ZeroInit
	// HugeHeader answers every request with a header claiming 10^9 bytes,
	// sends a few bytes and holds the connection.
	HugeHeader
	// Endless answers every retrieval with all the bytes asked for, past
	// the document's end: the document never ends.
	Endless
	// BadLengths answers a retrieval with an APDU whose inner lengths
	// disagree with the header: the text item claims twice the bytes that
	// follow.
	BadLengths
	// Trickle sends every reply one byte at a time, TrickleDelay apart.
	Trickle
	// Stall reads requests and never answers.
	Stall
	// CloseMidDocument closes the connection halfway through the second
	// chunk of a retrieval.
	CloseMidDocument
	// StallMidDocument answers the first chunk of a retrieval and nothing
	// after it.
	StallMidDocument
	// Crash closes the connection on reading a search or a retrieval,
	// without a reply, as freeWAIS-sf does when it crashes (on some
	// words); an Init is answered.
	Crash
)

// Config sets up a Server.
type Config struct {
	DBs          []*DB
	Mode         Mode
	TrickleDelay time.Duration // default 20ms
	// BufSize is the message buffer (freeWAIS-sf's BUFSZ); default 100000.
	BufSize int
	// Name is the host:port written into DocIDs (default "vm:22100").
	Name string
	// DBDir is the directory of the databases, written into DocIDs and
	// diagnostics (default "/srv/wais/db/"; the captures' server used
	// "/tmp/wais-build/db/").
	DBDir string
	// Pipelined answers requests sent ahead of the replies, in order,
	// instead of closing the connection as freeWAIS-sf does.
	Pipelined bool
	// Delay is a service time waited before every reply.
	Delay time.Duration
}

// Server is a running test server.
type Server struct {
	cfg  Config
	loop *fetchtest.Loop
	done <-chan struct{}

	mu       sync.Mutex
	requests [][]byte
	count    int
	ahead    int
}

// maxRecorded bounds the requests kept for Requests.
const maxRecorded = 256

// maxRequest bounds a request message the server reads.
const maxRequest = 1 << 20

// Start starts a server on 127.0.0.1 for the length of the test.
func Start(t testing.TB, cfg Config) *Server {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(ln, cfg)
	t.Cleanup(s.Close)
	return s
}

// New serves cfg on ln until Close.
func New(ln net.Listener, cfg Config) *Server {
	if cfg.TrickleDelay == 0 {
		cfg.TrickleDelay = 20 * time.Millisecond
	}
	if cfg.BufSize == 0 {
		cfg.BufSize = 100000
	}
	if cfg.Name == "" {
		cfg.Name = "vm:22100"
	}
	if cfg.DBDir == "" {
		cfg.DBDir = "/srv/wais/db/"
	}
	s := &Server{cfg: cfg}
	s.loop = fetchtest.NewLoop(ln) // handlers read s.loop: set it before they run
	s.done = s.loop.Done()
	s.loop.Start(s.serve)
	return s
}

// Close stops the server and closes its connections.
func (s *Server) Close() { s.loop.Close() }

// Addr is "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.loop.Addr() }

// URL is "wais://127.0.0.1:PORT/" followed by path.
func (s *Server) URL(path string) string { return "wais://" + s.Addr() + "/" + path }

// DocURL is the URL of the document d of database db as a search lists it:
// Lynx's form (/db/TYPE/LENGTH/DOCID), or without length RFC 1738's
// (/db/TYPE/DOCID).
func (s *Server) DocURL(db string, d *Doc, length bool) string {
	fields, _ := apdu.DocIDFields(s.docID(db, d.path(), len(d.Data)))
	n := ""
	if length {
		n = strconv.Itoa(len(d.Data))
	}
	host, port, _ := net.SplitHostPort(s.Addr())
	p, _ := strconv.Atoi(port)
	return urlparse.WAISDocFieldsURL(host, p, db, d.typ(), n, fields)
}

// Accepted is how many connections the server has accepted.
func (s *Server) Accepted() int { return s.loop.Accepted() }

// Requests returns the request messages received so far (header and APDU,
// as received; at most the first 256).
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.requests...)
}

// RequestCount is how many requests the server has received.
func (s *Server) RequestCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// ClosedAhead is how many connections the server closed because a
// request arrived before the reply to the one before it was written.
func (s *Server) ClosedAhead() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ahead
}

func (s *Server) record(msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	if len(s.requests) < maxRecorded {
		s.requests = append(s.requests, append([]byte(nil), msg...))
	}
}

// conn is one connection's state.
type conn struct {
	s       *Server
	c       net.Conn
	buf     int // the message buffer: BufSize, or less after an Init
	chunks  int // retrievals answered
	scratch []byte
	text    []byte // Endless's text (reused)
}

func (s *Server) serve(c net.Conn) {
	br := bufio.NewReaderSize(c, 64<<10)
	cc := &conn{s: s, c: c, buf: s.cfg.BufSize}
	msg := make([]byte, 0, 4096)
	for {
		msg = msg[:0]
		msg = append(msg, make([]byte, apdu.HeaderLen)...)
		if _, err := io.ReadFull(br, msg); err != nil {
			return
		}
		h, err := apdu.ParseHeader(msg)
		if err != nil || h.Length > maxRequest {
			return
		}
		n := int(h.Length)
		msg = append(msg, make([]byte, n)...)
		if _, err := io.ReadFull(br, msg[apdu.HeaderLen:]); err != nil {
			return
		}
		s.record(msg)
		if s.cfg.Mode == Stall {
			continue
		}
		if s.cfg.Mode == Crash && apdu.PDUType(msg[apdu.HeaderLen:]) == apdu.PDUSearch {
			return
		}
		reply := cc.answer(h, msg[apdu.HeaderLen:])
		if s.cfg.Delay > 0 {
			select {
			case <-s.done:
				return
			case <-time.After(s.cfg.Delay):
			}
		}
		if !s.cfg.Pipelined && (br.Buffered() > 0 || pending(c)) {
			s.mu.Lock()
			s.ahead++
			s.mu.Unlock()
			return
		}
		if !cc.send(reply) {
			return
		}
	}
}

// send writes a reply as the mode wants; false ends the connection.
func (cc *conn) send(reply []byte) bool {
	s := cc.s
	switch s.cfg.Mode {
	case HugeHeader:
		h := apdu.AppendHeader(nil, apdu.ClientHeader, 0)
		copy(h, "1000000000")
		cc.c.Write(append(h, 0, 0x11, apdu.PDUSearchResponse))
		<-s.done
		return false
	case Trickle:
		for i := range reply {
			if _, err := cc.c.Write(reply[i : i+1]); err != nil {
				return false
			}
			select {
			case <-s.done:
				return false
			case <-time.After(s.cfg.TrickleDelay):
			}
		}
		return true
	}
	_, err := cc.c.Write(reply)
	return err == nil
}

// zero is a zero-length reply under the request's header.
func zero(h apdu.Header) []byte { return apdu.AppendHeader(nil, h, 0) }

func (cc *conn) answer(h apdu.Header, a []byte) []byte {
	switch apdu.PDUType(a) {
	case apdu.PDUInit:
		return cc.init(h, a)
	case apdu.PDUSearch:
		q, err := apdu.ParseSearch(a)
		if err != nil {
			return zero(h)
		}
		switch q.QueryType {
		case "3":
			return cc.search(h, q)
		case "1":
			return cc.retrieve(h, q)
		}
	}
	return zero(h)
}

func (cc *conn) init(h apdu.Header, a []byte) []byte {
	in, err := apdu.ParseInit(a)
	if err != nil || cc.s.cfg.Mode == ZeroInit {
		return zero(h)
	}
	accept := !in.WillPresentOrDelete() && cc.s.cfg.Mode != RejectInit
	if accept && in.MaxRecord > 0 {
		cc.buf = min(cc.buf, int(in.MaxRecord))
	}
	return apdu.AppendInitResponse(nil, h, accept, uint32(cc.buf))
}

// dataDir holds the documents of a Doc without a Path.
const dataDir = "/srv/wais/data/"

func (s *Server) db(name string) *DB {
	for _, d := range s.cfg.DBs {
		if d.Name == name {
			return d
		}
	}
	return nil
}

func (d *Doc) path() string {
	if d.Path != "" {
		return d.Path
	}
	return dataDir + d.Name
}

func (d *Doc) typ() string {
	if d.Type == "" {
		return "TEXT"
	}
	return d.Type
}

// docID is freeWAIS's DocID for bytes [0, size) of the file at path.
func (s *Server) docID(db, path string, size int) []byte {
	dbDir := s.cfg.DBDir
	local := "0 " + strconv.Itoa(size) + " " + path
	return apdu.AppendDocID(nil, []urlparse.WAISField{
		{Tag: 1, Value: s.cfg.Name}, {Tag: 2, Value: dbDir + db}, {Tag: 3, Value: local},
		{Tag: 4, Value: s.cfg.Name}, {Tag: 5, Value: dbDir + db}, {Tag: 6, Value: local},
		{Tag: 7, Value: "\x00"},
	})
}

// helpID is the shorter DocID of a help record.
func helpID(db, path string) []byte {
	return apdu.AppendDocID(nil, []urlparse.WAISField{{Tag: 2, Value: db}, {Tag: 3, Value: "0 0 " + path}, {Tag: 7, Value: "\x00"}})
}

func (s *Server) header(db *DB, d *Doc, score uint32) apdu.DocHeader {
	dbDir := s.cfg.DBDir
	dir, name := splitPath(d.path())
	return apdu.DocHeader{
		DocID: s.docID(db.Name, d.path(), len(d.Data)), Score: score, Length: uint32(len(d.Data)),
		Lines: uint32(bytes.Count(d.Data[:min(len(d.Data), 1<<20)], []byte{'\n'})), Types: []string{d.typ()},
		Source: dbDir + db.Name, Date: dateOf(d), Headline: name + "   " + dir,
	}
}

func dateOf(d *Doc) string {
	if d.Date == "" {
		return "0"
	}
	return d.Date
}

func splitPath(p string) (dir, name string) {
	i := strings.LastIndexByte(p, '/')
	return p[:i+1], p[i+1:]
}

// help returns the help records of db: its source description and its
// catalog (whose headline says why it is sent).
func (s *Server) help(db *DB, catalogHeadline string) []apdu.DocHeader {
	dbDir := s.cfg.DBDir
	src := s.srcText(db)
	cat := s.catalog(db)
	return []apdu.DocHeader{
		{DocID: helpID(db.Name, dbDir+db.Name+".src"), Score: 0, Length: uint32(len(src)), Types: []string{"WSRC"},
			Source: dbDir + db.Name, Date: "0", Headline: db.Name + ".src"},
		{DocID: helpID(db.Name, dbDir+db.Name+".cat"), Score: 0, Length: uint32(len(cat)), Types: []string{"TEXT"},
			Source: dbDir + db.Name, Date: "0", Headline: catalogHeadline},
	}
}

func (s *Server) srcText(db *DB) []byte {
	host, port, _ := strings.Cut(s.cfg.Name, ":")
	return fmt.Appendf(nil, "(:source\n   :version  3\n   :ip-name \"%s\"\n   :tcp-port %s\n   :database-name \"%s\"\n   :description \"%s\"\n)\n",
		host, port, db.Name, db.Description)
}

func (s *Server) catalog(db *DB) []byte {
	var b []byte
	b = fmt.Appendf(b, "Catalog for database: %s%s\n%d total documents\n\n", s.cfg.DBDir, db.Name, len(db.Docs))
	for _, d := range db.Docs {
		b = fmt.Appendf(b, "Document # %s\nHeadline: %s\n\n", d.Name, d.Name)
	}
	return b
}

// matchWindow bounds the bytes of a document searched for the words.
const matchWindow = 64 << 10

func (cc *conn) search(h apdu.Header, q *apdu.Search) []byte {
	s := cc.s
	dbDir := s.cfg.DBDir
	db := s.db(q.Database)
	r := &apdu.Response{ReferenceID: q.ReferenceID}
	seed := strings.TrimSpace(q.Seed)
	if db == nil && seed == "" {
		return cc.fit(h, r) // no records, no diagnostic
	}
	if db == nil {
		r.Diags = []apdu.Diag{{Code: "S1", Text: "The following database is not available: " + dbDir + q.Database}}
		r.Returned = 1
		return cc.fit(h, r)
	}
	if seed == "" || seed[0] == '?' || seed[0] == '*' {
		r.Status, r.Headers = 1, s.help(db, "Catalog for database: "+dbDir+db.Name)
		r.Returned = len(r.Headers)
		return cc.fit(h, r)
	}
	words := strings.Fields(strings.ToLower(seed))
	type hit struct {
		d     *Doc
		score int
	}
	var hits []hit
	for _, d := range db.Docs {
		text := bytes.ToLower(append([]byte(d.Name+" "), d.Data[:min(len(d.Data), matchWindow)]...))
		n := 0
		for _, w := range words {
			n += bytes.Count(text, []byte(w))
		}
		if n > 0 {
			// Occurrences per 10000 bytes: a short document about the
			// words comes before a long one that mentions them.
			hits = append(hits, hit{d, max(1, n*10000/len(text))})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	maxDocs := q.MaxDocs
	if maxDocs < 0 {
		maxDocs = 40
	}
	if len(hits) > maxDocs {
		hits = hits[:maxDocs]
	}
	r.Status = 1
	if len(hits) == 0 {
		r.Headers = s.help(db, "Search produced no result. Here's the Catalog for database: "+dbDir+db.Name)[1:]
	}
	for _, x := range hits {
		r.Headers = append(r.Headers, s.header(db, x.d, uint32(min(1000, x.score))))
	}
	r.Returned = len(r.Headers)
	return cc.fit(h, r)
}

// fit encodes r, or gives a zero-length reply when it does not fit the
// buffer, as freeWAIS-sf does.
func (cc *conn) fit(h apdu.Header, r *apdu.Response) []byte {
	b := apdu.AppendResponse(cc.scratch[:0], h, r)
	cc.scratch = b
	if len(b)-apdu.HeaderLen > cc.buf {
		return zero(h)
	}
	return b
}

// The diagnostics of a retrieval freeWAIS-sf cannot serve, in its words.
const (
	MissingDocID = "Missing DocID in request"
	BadDocID     = "Bad DocID in request"
	NotPresent   = "File not present in specified database"
)

// find resolves a DocID to a document's bytes, or says why it cannot in
// freeWAIS-sf's words.
func (s *Server) find(q *apdu.Search) ([]byte, string) {
	if len(q.DocID) == 0 {
		return nil, MissingDocID
	}
	dbDir := s.cfg.DBDir
	fields, ok := apdu.DocIDFields(q.DocID)
	var path string
	for _, f := range fields {
		if f.Tag != 3 {
			continue
		}
		parts := strings.SplitN(f.Value, " ", 3)
		if len(parts) == 3 {
			path = parts[2]
		}
	}
	if !ok || path == "" {
		return nil, BadDocID
	}
	db := s.db(q.Database)
	if db == nil {
		return nil, NotPresent
	}
	switch path {
	case dbDir + db.Name + ".src":
		return s.srcText(db), ""
	case dbDir + db.Name + ".cat":
		return s.catalog(db), ""
	}
	for _, d := range db.Docs {
		if d.path() == path {
			return d.Data, ""
		}
	}
	return nil, NotPresent
}

func (cc *conn) retrieve(h apdu.Header, q *apdu.Search) []byte {
	s := cc.s
	r := &apdu.Response{ReferenceID: q.ReferenceID}
	if !q.HasType {
		return zero(h) // freeWAIS-sf crashes; the client sees nothing
	}
	data, why := s.find(q)
	if why != "" {
		r.Diags = []apdu.Diag{{Code: "S1", Text: why}}
		r.Returned = 1
		return cc.fit(h, r)
	}
	start, end := q.Start, q.End
	if start < 0 || end < start {
		r.Diags = []apdu.Diag{{Code: "SF", Text: "Bad byte range"}}
		r.Returned = 1
		return cc.fit(h, r)
	}
	cc.chunks++
	if s.cfg.Mode == StallMidDocument && cc.chunks > 1 {
		return nil
	}
	if s.cfg.Mode == Endless {
		r.HasText, r.TextID, r.Returned = true, q.DocID, 1
		cc.text = endless(cc.text[:0], start, end)
		r.Text = cc.text
		return cc.fit(h, r)
	}
	size := int64(len(data))
	if end > size {
		r.Diags = []apdu.Diag{{Code: "SF", Text: "Request out of range"}}
		r.Returned++
		end = size
	}
	if start < end {
		r.HasText, r.TextID, r.Text = true, q.DocID, data[start:end]
		r.Returned++
	}
	b := cc.fit(h, r)
	switch s.cfg.Mode {
	case BadLengths:
		return badLengths(b, r)
	case CloseMidDocument:
		if cc.chunks == 2 {
			cc.c.Write(b[:len(b)/2])
			cc.c.Close()
			return nil
		}
	}
	return b
}

// endless appends the text of a never-ending document to b: bytes
// [start, end) of an infinite repetition of a line.
func endless(b []byte, start, end int64) []byte {
	const line = "and on and on and on, the document never ends\n"
	if end-start > 1<<20 {
		end = start + 1<<20
	}
	for i := start; i < end; i++ {
		b = append(b, line[i%int64(len(line))])
	}
	return b
}

// badLengths rewrites a retrieval reply so that its text item claims
// twice the bytes it holds (the header still counts what is sent).
func badLengths(b []byte, r *apdu.Response) []byte {
	if !r.HasText || len(r.Text) == 0 {
		return b
	}
	i := bytes.LastIndex(b, r.Text)
	// The text item's length precedes the text: rewrite it, same width.
	old := apdu.AppendCInt(nil, len(r.Text))
	want := apdu.AppendCInt(nil, 2*len(r.Text))
	if len(old) != len(want) {
		want = apdu.AppendCInt(nil, len(r.Text)+1)
	}
	if len(old) != len(want) || i < len(old) {
		return b
	}
	out := append([]byte(nil), b...)
	copy(out[i-len(old):], want)
	return out
}
