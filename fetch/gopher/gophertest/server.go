// Package gophertest is an in-process gopher server for tests: it serves
// menus, texts, binaries, searches, Gopher+ replies (attributes, views, +ASK
// forms) and gophers (TLS), and misbehaves on purpose when asked to
// (endless lines, millions of items, no terminator, trickling bytes, early
// close, silence).
//
// It is written from RFC 1436 and the Gopher+ document, independently of
// the client in package gopher, so that the two check each other. It keeps
// a record of every connection and request line received.
package gophertest

import (
	"github.com/urlget/urlget/fetch/fetchtest"

	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Request is what a client sent on one connection.
type Request struct {
	// Line is the request line without its CRLF, as received (cut at
	// MaxRequestLine bytes).
	Line string
	// Fields is Line split at TAB.
	Fields []string
	// Selector, Search and Plus are the fields as a Gopher+ server reads
	// them: one field after the selector is a gopher+ string when it starts
	// with "+", "!" or "$" and a search otherwise; two are search and
	// gopher+ string — or gopher+ string and data flag when the second is
	// "1" and the first starts with "+".
	Selector  string
	Search    string
	HasSearch bool
	Plus      string
	HasPlus   bool
	// DataFlag is set when the request announced a data block ("…TAB 1");
	// Data holds the block as received (header included), DataLines its
	// lines (answers to a +ASK form) after the header, without the ".".
	DataFlag  bool
	Data      []byte
	DataLines []string
	TLS       bool
}

// MaxRequestLine bounds the request line the server reads.
const MaxRequestLine = 64 << 10

// A Handler answers one request. It may write anything to c, take any time
// (the server closes c when it is closed) and return; the server then closes
// the connection.
type Handler interface {
	ServeGopher(c *Conn, r *Request)
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(c *Conn, r *Request)

// ServeGopher calls f(c, r).
func (f HandlerFunc) ServeGopher(c *Conn, r *Request) { f(c, r) }

// Conn is the server side of one connection.
type Conn struct {
	net.Conn
	Server *Server
	closed <-chan struct{}
}

// Done is closed when the server is shutting down: handlers that wait must
// stop then.
func (c *Conn) Done() <-chan struct{} { return c.closed }

// WriteString writes s.
func (c *Conn) WriteString(s string) (int, error) { return c.Write([]byte(s)) }

// Server is a running test server on 127.0.0.1.
type Server struct {
	Host string // "127.0.0.1"
	Port int
	Addr string // "127.0.0.1:PORT"
	TLS  bool

	Handler Handler

	loop     *fetchtest.Loop
	pool     *x509.CertPool
	mu       sync.Mutex
	requests []Request
	bytesIn  atomic.Int64
}

// Start starts a plain gopher server on 127.0.0.1 and a free port; it is
// closed when the test ends.
func Start(t testing.TB, h Handler) *Server {
	t.Helper()
	s, err := Listen(h, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// StartTLS starts a gophers server (gopher inside TLS) with a self-signed
// certificate for 127.0.0.1, ::1 and localhost, made once per process and
// shared by every TLS server. ClientTLS (or TrustedTLS) gives a client
// configuration that trusts it.
func StartTLS(t testing.TB, h Handler) *Server {
	t.Helper()
	s, err := Listen(h, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Listen starts a server without a test; the caller must Close it.
func Listen(h Handler, useTLS bool) (*Server, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Handler: h, TLS: useTLS}
	if useTLS {
		cert, pool, err := sharedCert()
		if err != nil {
			ln.Close()
			return nil, err
		}
		s.pool = pool
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	s.Addr = ln.Addr().String()
	s.Host = "127.0.0.1"
	s.Port = ln.Addr().(*net.TCPAddr).Port
	s.loop = fetchtest.NewLoop(ln) // handlers read s.loop: set it before they run
	s.loop.Start(s.handle)
	return s, nil
}

// ClientTLS returns a TLS client configuration that trusts the server's
// certificate (nil for a plain server).
func (s *Server) ClientTLS() *tls.Config {
	if s.pool == nil {
		return nil
	}
	return &tls.Config{RootCAs: s.pool}
}

// Scheme is "gophers" for a TLS server, "gopher" otherwise.
func (s *Server) Scheme() string {
	if s.TLS {
		return "gophers"
	}
	return "gopher"
}

// URL returns scheme://127.0.0.1:PORT/ followed by rest (already encoded).
func (s *Server) URL(rest string) string {
	return s.Scheme() + "://" + s.Addr + "/" + rest
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Accepted returns the number of connections accepted so far (TLS
// handshakes that failed included).
func (s *Server) Accepted() int64 { return int64(s.loop.Accepted()) }

// BytesIn returns the number of request bytes received so far (after TLS).
func (s *Server) BytesIn() int64 { return s.bytesIn.Load() }

// Close stops the server: the listener and every open connection are
// closed, and Close waits for the handlers to return.
func (s *Server) Close() { s.loop.Close() }

type countReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (s *Server) handle(nc net.Conn) {
	br := bufio.NewReaderSize(countReader{nc, &s.bytesIn}, 4096)
	r, err := readRequest(br)
	if err != nil {
		return
	}
	r.TLS = s.TLS
	s.mu.Lock()
	s.requests = append(s.requests, *r)
	s.mu.Unlock()
	if s.Handler != nil {
		s.Handler.ServeGopher(&Conn{Conn: nc, Server: s, closed: s.loop.Done()}, r)
	}
}

func readRequest(br *bufio.Reader) (*Request, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line) < MaxRequestLine {
			line = append(line, frag[:min(len(frag), MaxRequestLine-len(line))]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if len(line) == 0 {
				return nil, err
			}
		}
		break
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	r := &Request{Line: string(line)}
	r.Fields = strings.Split(r.Line, "\t")
	f := r.Fields
	r.Selector = f[0]
	isPlus := func(s string) bool {
		return strings.HasPrefix(s, "+") || strings.HasPrefix(s, "!") || strings.HasPrefix(s, "$") || strings.HasPrefix(s, "?")
	}
	switch len(f) {
	case 1:
	case 2:
		if isPlus(f[1]) {
			r.Plus, r.HasPlus = f[1], true
		} else {
			r.Search, r.HasSearch = f[1], true
		}
	case 3:
		if f[2] == "1" && strings.HasPrefix(f[1], "+") {
			r.Plus, r.HasPlus, r.DataFlag = f[1], true, true
		} else {
			r.Search, r.HasSearch = f[1], true
			r.Plus, r.HasPlus = f[2], true
		}
	default:
		r.Search, r.HasSearch = f[1], true
		r.Plus, r.HasPlus = f[2], true
		r.DataFlag = f[3] == "1"
	}
	if r.DataFlag {
		if err := readDataBlock(br, r); err != nil {
			return r, nil // what arrived is recorded; the handler decides
		}
	}
	return r, nil
}

// readDataBlock reads a Gopher+ data block: "+N" and N bytes, or "+-1" and
// lines up to ".". (A client cannot send "+-2": it would have to close.)
func readDataBlock(br *bufio.Reader, r *Request) error {
	head, err := br.ReadString('\n')
	r.Data = append(r.Data, head...)
	if err != nil {
		return err
	}
	h := strings.TrimRight(head, "\r\n")
	switch {
	case h == "+-1":
		for len(r.Data) < 1<<20 {
			l, err := br.ReadString('\n')
			r.Data = append(r.Data, l...)
			if err != nil {
				return err
			}
			l = strings.TrimRight(l, "\r\n")
			if l == "." {
				return nil
			}
			r.DataLines = append(r.DataLines, l)
		}
		return errors.New("data block too long")
	case strings.HasPrefix(h, "+"):
		n, err := strconv.Atoi(h[1:])
		if err != nil || n < 0 || n > 1<<20 {
			return fmt.Errorf("bad data block header %q", h)
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(br, buf); err != nil {
			return err
		}
		r.Data = append(r.Data, buf...)
		r.DataLines = strings.Split(strings.TrimRight(strings.ReplaceAll(string(buf), "\r\n", "\n"), "\n"), "\n")
		return nil
	}
	return fmt.Errorf("bad data block header %q", h)
}

// sharedCert is the one certificate of every TLS test server of this
// process (fetchtest.Cert).
func sharedCert() (tls.Certificate, *x509.CertPool, error) { return fetchtest.Cert() }

// CertPEM returns the certificate and private key shared by the TLS
// servers, PEM-encoded, for real servers (pygopherd, socat) started by
// tests, so that ClientTLS trusts them as well.
func CertPEM() (certPEM, keyPEM []byte, err error) { return fetchtest.CertPEM() }

// TrustedTLS returns a client configuration that trusts the shared
// certificate.
func TrustedTLS() (*tls.Config, error) {
	_, pool, err := sharedCert()
	if err != nil {
		return nil, err
	}
	return &tls.Config{RootCAs: pool}, nil
}
