package fetch

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// countWriter records each Write call.
type countWriter struct {
	mu     sync.Mutex
	writes []string
	fail   error
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return 0, c.fail
	}
	c.writes = append(c.writes, string(p))
	return len(p), nil
}

func (c *countWriter) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.writes...)
}

// chunks hands out one chunk per Read, as a network connection would.
type chunks struct{ c []string }

func (r *chunks) Read(p []byte) (int, error) {
	if len(r.c) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.c[0])
	r.c = r.c[1:]
	return n, nil
}

func lineRender(w io.Writer, body io.Reader) error {
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		if _, err := io.WriteString(w, "item "+sc.Text()+"\n"); err != nil {
			return err
		}
	}
	return sc.Err()
}

// Everything rendered from what has arrived goes out in one write as soon
// as the input pauses; items that arrive together are written together.
func TestBufferedFlushesWhenInputPauses(t *testing.T) {
	var w countWriter
	pr, pw := io.Pipe()
	go func() {
		io.WriteString(pw, "a\nb\nc\n")
		// The input pauses until the first three items are out.
		for deadline := time.Now().Add(5 * time.Second); len(w.get()) == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		io.WriteString(pw, "d\ne\n")
		pw.Close()
	}()
	if err := Buffered(&w, pr, lineRender); err != nil {
		t.Fatal(err)
	}
	want := []string{"item a\nitem b\nitem c\n", "item d\nitem e\n"}
	if got := w.get(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("writes %q, want %q", got, want)
	}
}

// Input that arrives faster than it is rendered costs one write, not one
// per read.
func TestBufferedWritesOnceForReadyInput(t *testing.T) {
	var w countWriter
	if err := Buffered(&w, &chunks{c: []string{"a\nb\n", "c\n", "d\ne\n"}}, lineRender); err != nil {
		t.Fatal(err)
	}
	if got := w.get(); len(got) > 3 || strings.Join(got, "") != "item a\nitem b\nitem c\nitem d\nitem e\n" {
		t.Errorf("writes %q", got)
	}
}

func TestBufferedWriteErrorIsErrWrite(t *testing.T) {
	w := countWriter{fail: errors.New("disk full")}
	err := Buffered(&w, &chunks{c: []string{"a\n", "b\n"}}, lineRender)
	if KindOf(err) != ErrWrite {
		t.Errorf("error %v, want ErrWrite", err)
	}
}
