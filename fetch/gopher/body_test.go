package gopher

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/urlget/urlget/fetch"
)

func dotRead(t *testing.T, in string, mode dotMode, requireTerm bool, bufSize int) (string, error) {
	t.Helper()
	br := bufio.NewReaderSize(strings.NewReader(in), bufSize)
	d := newDotReader(br, mode, requireTerm, "text")
	got, err := io.ReadAll(d)
	return string(got), err
}

func TestDotReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		mode dotMode
		want string
	}{
		// auto: what the real servers send (no terminator, no stuffing).
		{"auto/pygopherd dots.txt", "first\n.\n..two dots\n.leading\nlast\n", dotAuto, "first\n.\n..two dots\n.leading\nlast\n"},
		{"auto/gophernicus CRLF", "first\r\n.\r\n..two\r\nlast\r\n", dotAuto, "first\r\n.\r\n..two\r\nlast\r\n"},
		{"auto/terminated", "line\r\n..stuffed\r\n.\r\n", dotAuto, "line\r\n..stuffed\r\n"},
		{"auto/terminated LF", "line\n.\n", dotAuto, "line\n"},
		{"auto/terminator without line end", "line\r\n.", dotAuto, "line\r\n"},
		{"auto/lone dot mid-text then terminator", "a\r\n.\r\nb\r\n.\r\n", dotAuto, "a\r\n.\r\nb\r\n"},
		{"auto/no final newline", "a\r\nb", dotAuto, "a\r\nb"},
		{"auto/empty", "", dotAuto, ""},
		{"auto/only terminator", ".\r\n", dotAuto, ""},
		{"auto/dot inside line", "a.\r\n.b\r\n", dotAuto, "a.\r\n.b\r\n"},
		// rfc1436: the first lone dot ends it; dot-stuffing undone.
		{"rfc1436/stuffed", "line\r\n..stuffed\r\n...three\r\n.\r\nafter\r\n", dotStrict, "line\r\n.stuffed\r\n..three\r\n"},
		{"rfc1436/leading dot word", ".hidden\r\n.\r\n", dotStrict, "hidden\r\n"},
		// end: menus and Gopher+ +-1; nothing unstuffed.
		{"end/menu", "0a\t/a\th\t70\r\n.\r\n0b\t/b\th\t70\r\n", dotEnd, "0a\t/a\th\t70\r\n"},
		{"end/dots kept", "..x\r\n.\r\n", dotEnd, "..x\r\n"},
		// none.
		{"none", "a\r\n.\r\nb\r\n", dotNone, "a\r\n.\r\nb\r\n"},
	}
	for _, tt := range tests {
		for _, size := range []int{16, 4096} {
			got, err := dotRead(t, tt.in, tt.mode, false, size)
			if err != nil || got != tt.want {
				t.Errorf("%s (buffer %d): got %q, %v; want %q", tt.name, size, got, err, tt.want)
			}
		}
	}
}

func TestDotReaderLongLines(t *testing.T) {
	// Lines longer than the buffer pass through in pieces; a stuffed dot
	// at the start of a long line is still undone, and a dot inside a long
	// line never ends anything.
	long := strings.Repeat("x", 100)
	in := ".." + long + "\r\n" + long + ".\r\n.\r\n"
	got, err := dotRead(t, in, dotStrict, true, 16)
	if want := "." + long + "\r\n" + long + ".\r\n"; err != nil || got != want {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

func TestDotReaderRequireTerminator(t *testing.T) {
	_, err := dotRead(t, "data\r\nmore\r\n", dotEnd, true, 4096)
	if fetch.KindOf(err) != fetch.ErrPartial {
		t.Errorf("missing terminator: %v, want ErrPartial", err)
	}
	got, err := dotRead(t, "data\r\n.\r\n", dotEnd, true, 4096)
	if err != nil || got != "data\r\n" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestDotReaderOneByteReads(t *testing.T) {
	// A server trickling one byte at a time.
	in := "first\r\n.\r\nsecond\r\n.\r\n"
	br := bufio.NewReaderSize(iotest.OneByteReader(strings.NewReader(in)), 16)
	got, err := io.ReadAll(newDotReader(br, dotAuto, false, "text"))
	if err != nil || string(got) != "first\r\n.\r\nsecond\r\n" {
		t.Errorf("got %q, %v", got, err)
	}
}

func TestExactReader(t *testing.T) {
	r := &exactReader{r: strings.NewReader("0123456789extra"), left: 10, total: 10}
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "0123456789" {
		t.Errorf("got %q, %v", got, err)
	}
	r = &exactReader{r: strings.NewReader("01234"), left: 10, total: 10}
	got, err = io.ReadAll(r)
	if string(got) != "01234" || fetch.KindOf(err) != fetch.ErrPartial {
		t.Errorf("short: got %q, %v; want ErrPartial", got, err)
	}
	if !strings.Contains(err.Error(), "10 bytes") || !strings.Contains(err.Error(), "after 5") {
		t.Errorf("message %q", err.Error())
	}
	r = &exactReader{r: strings.NewReader(""), left: 0, total: 0}
	if got, err := io.ReadAll(r); err != nil || len(got) != 0 {
		t.Errorf("zero: %q %v", got, err)
	}
}
