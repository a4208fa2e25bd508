package gopher

import (
	"bufio"
	"io"
	"unsafe"
)

// DefaultMaxLine bounds the length of one menu or attribute line (line end
// excluded) that MenuReader and AttributeReader hold in memory. Longer
// lines are cut: the reader keeps their first DefaultMaxLine bytes, marks
// them truncated and discards the rest as it streams past, so a hostile
// megabyte (or endless) line costs no more memory than this.
const DefaultMaxLine = 16 << 10

// lineReader reads lines of bounded length.
type lineReader struct {
	br  *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) lineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return lineReader{br: bufio.NewReaderSize(r, 32<<10), max: max}
}

// next returns the next line without its line end (CRLF or LF), whether it
// was cut at max bytes, and whether it had a line end. At the end of the
// input it returns io.EOF (a last line without line end is returned first,
// with a nil error). Other read errors are returned as they are.
func (l *lineReader) next() (line []byte, trunc, eol bool, err error) {
	l.buf = l.buf[:0]
	limit := l.max + 2 // room for the CRLF
	frag, err := l.br.ReadSlice('\n')
	if err == nil && len(frag) <= limit {
		// The common case: a whole line in the read buffer, returned as
		// it lies there (valid until the next call).
		line = trimEOL(frag)
		if len(line) > l.max {
			return line[:l.max], true, true, nil
		}
		return line, false, true, nil
	}
	for {
		if room := limit - len(l.buf); len(frag) <= room {
			l.buf = append(l.buf, frag...)
		} else {
			if room > 0 {
				l.buf = append(l.buf, frag[:room]...)
			}
			trunc = true
		}
		switch err {
		case nil:
			return l.finish(trunc), trunc || len(trimEOL(l.buf)) > l.max, true, nil
		case bufio.ErrBufferFull:
			frag, err = l.br.ReadSlice('\n')
		case io.EOF:
			if len(l.buf) == 0 && !trunc {
				return nil, false, false, io.EOF
			}
			return l.finish(trunc), trunc || len(l.buf) > l.max, false, nil
		default:
			return nil, false, false, err
		}
	}
}

// finish cuts the collected line to max bytes, without its line end.
func (l *lineReader) finish(trunc bool) []byte {
	line := l.buf
	if !trunc {
		line = trimEOL(line)
	}
	if len(line) > l.max {
		line = line[:l.max]
	}
	return line
}

// MenuReader reads a gopher menu one item at a time, in constant memory:
// it never holds more than one line (bounded by DefaultMaxLine or
// SetMaxLine) whatever the number of items. It stops at the "." line that
// ends an RFC 1436 menu, or at the end of the input for servers that just
// close the connection (pygopherd).
type MenuReader struct {
	lr   lineReader
	done bool
	view Item // the item nextView fills
	// viewPrintable is set when view's display string is all printable
	// ASCII.
	viewPrintable bool
	// Terminated is set once the "." line was read.
	Terminated bool
	// Items counts the lines returned so far.
	Items int64
}

// NewMenuReader returns a MenuReader reading from r.
func NewMenuReader(r io.Reader) *MenuReader {
	return &MenuReader{lr: newLineReader(r, DefaultMaxLine)}
}

// SetMaxLine changes the longest line kept (default DefaultMaxLine).
func (m *MenuReader) SetMaxLine(n int) {
	if n > 0 {
		m.lr.max = n
	}
}

// Next returns the next menu line as an Item, or io.EOF after the last one.
// A line that is not a valid item is returned with Unparsed set (and
// Truncated when it was too long); the error is only for reading. Lines
// after the "." terminator are not read.
func (m *MenuReader) Next() (Item, error) { return m.next() }

// nextView is Next for a caller that is done with the Item before it calls
// again (the renderers): it fills one Item kept by m, whose strings view
// the read buffer instead of a copy of each line, which spares an
// allocation and the copies of the Item per line.
func (m *MenuReader) nextView() (*Item, error) {
	line, trunc, err := m.line()
	if err != nil {
		return nil, err
	}
	if trunc {
		m.view, m.viewPrintable = truncItem(string(line)), false
	} else {
		m.viewPrintable, _ = parseInto(&m.view, unsafe.String(unsafe.SliceData(line), len(line)))
	}
	return &m.view, nil
}

func (m *MenuReader) next() (Item, error) {
	line, trunc, err := m.line()
	if err != nil {
		return Item{}, err
	}
	if trunc {
		return truncItem(string(line)), nil
	}
	it, _ := parseItem(string(line))
	return it, nil
}

// truncItem is the Item of a line cut at the reader's limit.
func truncItem(raw string) Item {
	it := Item{Raw: raw, Port: -1, Unparsed: true, Truncated: true}
	if len(raw) > 0 {
		it.Type = raw[0]
	}
	return it
}

// line reads the next menu line without its line end, and whether it was
// cut; io.EOF after the terminator or the end of the input.
func (m *MenuReader) line() ([]byte, bool, error) {
	if m.done {
		return nil, false, io.EOF
	}
	line, trunc, _, err := m.lr.next()
	if err != nil {
		m.done = true
		return nil, false, err
	}
	if !trunc && isTerminator(line) {
		m.done, m.Terminated = true, true
		return nil, false, io.EOF
	}
	m.Items++
	return line, trunc, nil
}
