package lineproto

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// dotWrite writes text through a DotWriter in pieces of size bytes.
func dotWrite(t testing.TB, text []byte, size int) ([]byte, int64) {
	var b bytes.Buffer
	dw := NewDotWriter(bufio.NewWriterSize(&b, 16))
	for len(text) > 0 {
		k := min(size, len(text))
		if n, err := dw.Write(text[:k]); n != k || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
		text = text[k:]
	}
	if err := dw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), dw.Written()
}

func TestDotWriter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ".\r\n"},
		{"a\r\nb\r\n", "a\r\nb\r\n.\r\n"},
		{"a\nb\n", "a\r\nb\r\n.\r\n"},
		{"no end", "no end\r\n.\r\n"},
		{".\n..\n.x\nx.\n", "..\r\n...\r\n..x\r\nx.\r\n.\r\n"},
		{".", "..\r\n.\r\n"},
		{"a\rb\n", "a\rb\r\n.\r\n"},
		{"cr at end\r", "cr at end\r\n.\r\n"},
		{"\r\n.\r\n", "\r\n..\r\n.\r\n"},
		{"a\r\r\n", "a\r\r\n.\r\n"},
		{"\n\n.", "\r\n\r\n..\r\n.\r\n"},
	} {
		for _, size := range []int{1, 2, 3, 1 << 20} {
			got, n := dotWrite(t, []byte(tc.in), size)
			if string(got) != tc.want || n != int64(len(tc.in)) {
				t.Errorf("%q in pieces of %d: %q (%d taken), want %q", tc.in, size, got, n, tc.want)
			}
		}
	}
}

func TestReadDotLine(t *testing.T) {
	in := "a\r\n..b\r\n.c\nplain\n" + strings.Repeat("x", 10) + "\r\n.\r\nafter\r\n"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	var got []string
	for {
		line, err := ReadDotLine(br, 10)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
	}
	if strings.Join(got, "|") != "a|.b|c|plain|xxxxxxxxxx" {
		t.Errorf("lines %q", got)
	}
	if rest, _ := io.ReadAll(br); string(rest) != "after\r\n" {
		t.Errorf("read past the end: %q left", rest)
	}
	for _, tc := range []struct {
		in   string
		want error
	}{
		{"no end\r\n", io.ErrUnexpectedEOF},
		{"", io.ErrUnexpectedEOF},
		{".", io.ErrUnexpectedEOF},
		{"12345678901\r\n.\r\n", ErrLineTooLong},
		{".12345678901\r\n.\r\n", ErrLineTooLong}, // counted as sent, as before stuffing was undone
		{strings.Repeat("y", 40) + "\r\n.\r\n", ErrLineTooLong},
	} {
		br := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
		var err error
		for err == nil {
			_, err = ReadDotLine(br, 10)
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%q: %v, want %v", tc.in, err, tc.want)
		}
	}
}

// FuzzDotRoundTrip: any text written by DotWriter, in any pieces, reads
// back through DotReader (DotStrict) and through ReadDotLine as the same
// text with every line ended (CRLF for a bare LF), up to the "." line and
// no further: the writer's stuffing and the readers' unstuffing are one
// rule.
func FuzzDotRoundTrip(f *testing.F) {
	for _, s := range []string{"", ".", "..", ".\n", "a\n.\nb", "\r\n.\r\n", "x\r", ".a\r\n..b\n", "\n\n\n"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, text []byte, size uint8) {
		if len(text) > 1<<16 {
			return
		}
		wire, _ := dotWrite(t, text, int(size)+1)
		// What the text is once every line has a CRLF end.
		var want bytes.Buffer
		for i, c := range text {
			if c == '\n' && (i == 0 || text[i-1] != '\r') {
				want.WriteByte('\r')
			}
			want.WriteByte(c)
		}
		if want.Len() > 0 && !bytes.HasSuffix(want.Bytes(), []byte("\n")) {
			if bytes.HasSuffix(want.Bytes(), []byte("\r")) {
				want.WriteByte('\n')
			} else {
				want.WriteString("\r\n")
			}
		}
		tail := []byte("more\r\n")
		d := NewDotReader(bufio.NewReaderSize(bytes.NewReader(append(wire, tail...)), 16), DotStrict)
		got, err := io.ReadAll(d)
		if err != nil || !bytes.Equal(got, want.Bytes()) || !d.Ended() {
			t.Fatalf("DotReader: %v, ended %v\n%q\nwant\n%q", err, d.Ended(), got, want.Bytes())
		}
		br := bufio.NewReaderSize(bytes.NewReader(append(wire, tail...)), 1<<17+2)
		var lines bytes.Buffer
		for {
			line, err := ReadDotLine(br, 1<<17)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("ReadDotLine: %v", err)
			}
			lines.Write(line)
			lines.WriteString("\r\n")
		}
		// ReadDotLine takes a CR before the LF as the line end: compare
		// with the lines of want, split the same way.
		var wantLines bytes.Buffer
		for l := range bytes.Lines(want.Bytes()) {
			wantLines.Write(bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r")))
			wantLines.WriteString("\r\n")
		}
		if !bytes.Equal(lines.Bytes(), wantLines.Bytes()) {
			t.Fatalf("ReadDotLine:\n%q\nwant\n%q", lines.Bytes(), wantLines.Bytes())
		}
		if rest, _ := io.ReadAll(br); !bytes.Equal(rest, tail) {
			t.Fatalf("ReadDotLine read past the end: %q", rest)
		}
	})
}
