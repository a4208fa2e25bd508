package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"testing"
)

// stallingConn gives its bytes at the first Read, then blocks the next
// until Close, which it fails as a closed connection's Read does; entered
// says the blocked Read is under way.
type stallingConn struct {
	first   []byte
	entered chan struct{}
	closed  chan struct{}
}

func (c *stallingConn) Read(p []byte) (int, error) {
	if len(c.first) > 0 {
		n := copy(p, c.first)
		c.first = c.first[n:]
		return n, nil
	}
	close(c.entered)
	<-c.closed
	return 0, errors.New("use of closed network connection")
}

func (c *stallingConn) Close() error {
	close(c.closed)
	return nil
}

// afterRead closes ended once a Read of r has returned an error.
type afterRead struct {
	r     io.Reader
	ended chan struct{}
}

func (a *afterRead) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if err != nil {
		close(a.ended)
	}
	return n, err
}

// TestBodyCloseDuringRead: a renderer that stops early on a failed write
// to its client returns from fetch.Buffered while the read-ahead goroutine
// is still inside the body's Read, and the caller's Close ends that Read
// from another goroutine. Run with -race: the Close and the ending Read
// must not touch the body's state unguarded. After the Close, the body
// fails every Read.
func TestBodyCloseDuringRead(t *testing.T) {
	c := &stallingConn{first: []byte("0item\t/x\th\t70\r\n"), entered: make(chan struct{}), closed: make(chan struct{})}
	b := &body{rc: c, ctx: context.Background(), url: "gopher://h/1/", size: -1, limit: -1}
	ar := &afterRead{r: b, ended: make(chan struct{})}
	w := &countWriter{fail: errors.New("connection reset by peer")}
	err := Buffered(w, ar, func(w io.Writer, r io.Reader) error {
		buf := make([]byte, 64)
		n, err := r.Read(buf) // the first chunk
		if err != nil {
			return err
		}
		// The read-ahead goroutine has a free buffer and goes on to the
		// body's next Read, where it stays: the renderer stops now, and
		// Buffered's flush of what it wrote fails.
		<-c.entered
		_, err = w.Write(buf[:n])
		return err
	})
	if KindOf(err) != ErrWrite {
		t.Fatalf("Buffered: %v, want the failed write", err)
	}
	b.Close()
	<-ar.ended
	if n, err := b.Read(make([]byte, 10)); n != 0 || err == nil || err == io.EOF {
		t.Errorf("Read after Close: %d, %v", n, err)
	}
}

// TestBodyCopyAfterClose: a body closed before it is copied fails the
// copy as a Read after Close does, straight from a file too.
func TestBodyCopyAfterClose(t *testing.T) {
	f, err := os.Open("body.go")
	if err != nil {
		t.Fatal(err)
	}
	b := &body{rc: f, ctx: context.Background(), url: "file:///body.go", size: -1, limit: -1}
	b.Close()
	var out bytes.Buffer
	n, err := CopyBody(&out, b, nil)
	var fe *Error
	if n != 0 || !errors.As(err, &fe) || fe.Msg != "read from a closed body" {
		t.Errorf("CopyBody after Close: %d, %v", n, err)
	}
}
