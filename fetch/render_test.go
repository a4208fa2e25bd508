package fetch

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

// countWriter records each Write call.
type countWriter struct {
	writes []string
	fail   error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.fail != nil {
		return 0, c.fail
	}
	c.writes = append(c.writes, string(p))
	return len(p), nil
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

func TestBufferedWritesOncePerInputPause(t *testing.T) {
	var w countWriter
	body := &chunks{c: []string{"a\nb\nc\n", "d\ne\n"}}
	if err := Buffered(&w, body, lineRender); err != nil {
		t.Fatal(err)
	}
	// Everything rendered from the first chunk goes out before the second
	// is read; the rest at the end: two writes for five items.
	want := []string{"item a\nitem b\nitem c\n", "item d\nitem e\n"}
	if strings.Join(w.writes, "|") != strings.Join(want, "|") {
		t.Errorf("writes %q, want %q", w.writes, want)
	}
}

func TestBufferedWriteErrorIsErrWrite(t *testing.T) {
	w := countWriter{fail: errors.New("disk full")}
	err := Buffered(&w, &chunks{c: []string{"a\n", "b\n"}}, lineRender)
	if KindOf(err) != ErrWrite {
		t.Errorf("error %v, want ErrWrite", err)
	}
}
