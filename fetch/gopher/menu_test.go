package gopher

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func readMenu(t *testing.T, r io.Reader) ([]Item, *MenuReader) {
	t.Helper()
	m := NewMenuReader(r)
	var items []Item
	for {
		it, err := m.Next()
		if err == io.EOF {
			return items, m
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		items = append(items, it)
	}
}

func TestMenuReaderLineEnds(t *testing.T) {
	for _, menu := range []string{
		"iHi\t\tnull.host\t1\r\n0Hello\t/hello.txt\th\t70\r\n1Docs\t/docs\th\t70\t+\r\n.\r\n",
		"iHi\t\tnull.host\t1\n0Hello\t/hello.txt\th\t70\n1Docs\t/docs\th\t70\t+\n.\n",
		"iHi\t\tnull.host\t1\n0Hello\t/hello.txt\th\t70\r\n1Docs\t/docs\th\t70\t+\n", // no terminator (pygopherd)
		"iHi\t\tnull.host\t1\r\n0Hello\t/hello.txt\th\t70\r\n1Docs\t/docs\th\t70\t+", // last line without line end
	} {
		items, m := readMenu(t, strings.NewReader(menu))
		if len(items) != 3 {
			t.Fatalf("%q: %d items, want 3", menu, len(items))
		}
		want := []string{"Hi", "Hello", "Docs"}
		for i, it := range items {
			if it.Display != want[i] || it.Unparsed {
				t.Errorf("%q: item %d = %+v, want display %q parsed", menu, i, it, want[i])
			}
		}
		if items[2].Plus != '+' || items[1].Selector != "/hello.txt" {
			t.Errorf("%q: items %+v", menu, items)
		}
		if wantTerm := strings.Contains(menu, "\n.\n") || strings.Contains(menu, "\n.\r\n"); m.Terminated != wantTerm {
			t.Errorf("%q: Terminated = %v, want %v", menu, m.Terminated, wantTerm)
		}
		if m.Items != 3 {
			t.Errorf("Items = %d, want 3", m.Items)
		}
	}
}

func TestMenuReaderStopsAtTerminator(t *testing.T) {
	// Nothing after the "." is read: a reader that fails after it proves it.
	r := io.MultiReader(strings.NewReader("0A\t/a\th\t70\r\n.\r\n"), errReader{errors.New("read past the terminator")})
	items, m := readMenu(t, r)
	if len(items) != 1 || !m.Terminated {
		t.Fatalf("items %+v terminated %v", items, m.Terminated)
	}
	if _, err := m.Next(); err != io.EOF {
		t.Errorf("Next after the end = %v, want io.EOF", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func TestMenuReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	m := NewMenuReader(io.MultiReader(strings.NewReader("0A\t/a\th\t70\r\n"), errReader{boom}))
	if _, err := m.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Next(); err != boom {
		t.Errorf("Next = %v, want %v", err, boom)
	}
}

func TestMenuReaderUnparsedLines(t *testing.T) {
	items, _ := readMenu(t, strings.NewReader("garbage line\r\n\r\n0Good\t/g\th\t70\r\n"))
	if len(items) != 3 {
		t.Fatalf("%d items", len(items))
	}
	if !items[0].Unparsed || items[0].Raw != "garbage line" {
		t.Errorf("item 0 = %+v", items[0])
	}
	if !items[1].Unparsed || items[1].Raw != "" {
		t.Errorf("item 1 = %+v", items[1])
	}
	if items[2].Unparsed || items[2].Display != "Good" {
		t.Errorf("item 2 = %+v", items[2])
	}
}

func TestMenuReaderLongLine(t *testing.T) {
	long := "0" + strings.Repeat("x", 3*DefaultMaxLine) + "\t/huge\th\t70\r\n"
	items, _ := readMenu(t, strings.NewReader(long+"0After\t/after\th\t70\r\n.\r\n"))
	if len(items) != 2 {
		t.Fatalf("%d items", len(items))
	}
	if !items[0].Unparsed || !items[0].Truncated || len(items[0].Raw) != DefaultMaxLine || items[0].Type != '0' {
		t.Errorf("long line: unparsed %v truncated %v raw %d bytes type %q", items[0].Unparsed, items[0].Truncated, len(items[0].Raw), items[0].Type)
	}
	if items[1].Display != "After" {
		t.Errorf("item after the long line = %+v", items[1])
	}
	// Exactly at the limit is not cut.
	exact := "0" + strings.Repeat("y", DefaultMaxLine-len("0\t/s\th\t70")) + "\t/s\th\t70"
	items, _ = readMenu(t, strings.NewReader(exact+"\r\n"))
	if len(items) != 1 || items[0].Unparsed || items[0].Truncated || items[0].Raw != exact {
		t.Errorf("line of exactly DefaultMaxLine bytes: %+v", items[0].Truncated)
	}
	// One byte over is cut.
	items, _ = readMenu(t, strings.NewReader("y"+exact+"\n"))
	if len(items) != 1 || !items[0].Truncated || len(items[0].Raw) != DefaultMaxLine {
		t.Errorf("line one byte over: truncated %v, %d bytes", items[0].Truncated, len(items[0].Raw))
	}
	// A line without any line end, longer than the limit, at EOF.
	items, _ = readMenu(t, strings.NewReader(strings.Repeat("z", DefaultMaxLine+10)))
	if len(items) != 1 || !items[0].Truncated || len(items[0].Raw) != DefaultMaxLine {
		t.Errorf("unterminated long line: %d items", len(items))
	}
}

func TestMenuReaderSetMaxLine(t *testing.T) {
	m := NewMenuReader(strings.NewReader("0abcdefghij\t/s\th\t70\n"))
	m.SetMaxLine(5)
	it, err := m.Next()
	if err != nil || it.Raw != "0abcd" || !it.Truncated {
		t.Errorf("Next = %+v, %v", it, err)
	}
}

// genReader generates n bytes of one endless menu line without holding it.
type genReader struct {
	left int64
	read int64
}

func (g *genReader) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	n := int64(len(p))
	if n > g.left {
		n = g.left
	}
	for i := range p[:n] {
		p[i] = 'x'
	}
	g.left -= n
	g.read += n
	return int(n), nil
}

func TestMenuReaderBoundedMemory(t *testing.T) {
	// A 64 MiB line: the reader must go through all of it (it is counted)
	// without its heap growing by anything near that.
	const size = 64 << 20
	g := &genReader{left: size}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := NewMenuReader(g)
	it, err := m.Next()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if g.read != size {
		t.Errorf("read %d bytes of the line, want %d", g.read, size)
	}
	if !it.Truncated || len(it.Raw) != DefaultMaxLine {
		t.Errorf("truncated %v, raw %d bytes", it.Truncated, len(it.Raw))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Errorf("reading a %d MiB line allocated %d bytes", size>>20, grew)
	}
}

func TestMenuReaderManyItems(t *testing.T) {
	// A million items go through one at a time.
	const n = 1000000
	pr, pw := io.Pipe()
	go func() {
		var b bytes.Buffer
		for i := 0; i < n; i++ {
			b.WriteString("0Item ")
			b.WriteString(strconv.Itoa(i))
			b.WriteString("\t/item\th\t70\r\n")
			if b.Len() > 32<<10 {
				pw.Write(b.Bytes())
				b.Reset()
			}
		}
		b.WriteString(".\r\n")
		pw.Write(b.Bytes())
		pw.Close()
	}()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := NewMenuReader(pr)
	count := 0
	var last Item
	for {
		it, err := m.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		count++
		last = it
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if count != n || last.Display != "Item "+strconv.Itoa(n-1) || !m.Terminated {
		t.Errorf("count %d, last %q, terminated %v", count, last.Display, m.Terminated)
	}
	if after.HeapInuse > before.HeapInuse+8<<20 {
		t.Errorf("heap grew from %d to %d reading %d items", before.HeapInuse, after.HeapInuse, n)
	}
}
