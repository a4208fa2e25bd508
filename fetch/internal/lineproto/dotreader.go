package lineproto

import (
	"bufio"
	"bytes"
	"io"
)

// DotMode says how a DotReader treats the "." line that ends a text reply
// in the line protocols (RFC 1436 gopher, RFC 3977 NNTP, RFC 5321 SMTP).
type DotMode uint8

const (
	DotNone   DotMode = iota // no dot processing: the bytes as received
	DotEnd                   // a lone "." line ends the data; other lines pass as sent
	DotAuto                  // a lone "." line ends the data only when it is the last line
	DotStrict                // a lone "." line ends the data; a leading "." of any other line is removed (dot-stuffing undone)
)

// DotReader streams the data of a "."-terminated reply in constant memory:
// a line longer than the reader's buffer passes through in pieces, so
// lines have no length limit and memory stays bounded whatever the server
// sends. Line ends are passed on as the server sent them.
type DotReader struct {
	// Unterminated, when set, gives the error for input that ends
	// without the "." line (a partial transfer); when nil, the end of the
	// input ends the data.
	Unterminated func() error
	// ReadError, when set, turns a read error other than io.EOF into the
	// error Read returns.
	ReadError func(error) error
	// OnEnd, when set, is called once when the "." line is read.
	OnEnd func()

	br       *bufio.Reader
	mode     DotMode
	atStart  bool
	pending  []byte
	dot      [3]byte // a lone "." line held while looking past it
	done     bool
	ended    bool
	err      error
	notified bool
}

// bulk hands out at once what br already holds up to the first line that
// starts with ".", the only lines any mode treats specially (every other
// line passes as sent): a body read at the speed of a copy. It reports
// whether it handed out anything.
func (d *DotReader) bulk() bool {
	n := d.br.Buffered()
	if n == 0 {
		return false
	}
	buf, _ := d.br.Peek(n)
	k := 0
	if !d.atStart || buf[0] != '.' {
		k = len(buf)
		if i := bytes.Index(buf, []byte("\n.")); i >= 0 {
			k = i + 1
		}
	}
	if k == 0 {
		return false
	}
	d.br.Discard(k) // buf stays valid: br is read again only once pending is used up
	d.pending = buf[:k]
	d.atStart = buf[k-1] == '\n'
	return true
}

// NewDotReader reads the data from br in the given mode.
func NewDotReader(br *bufio.Reader, mode DotMode) *DotReader {
	return &DotReader{br: br, mode: mode, atStart: true}
}

// Ended reports whether the "." line has been read.
func (d *DotReader) Ended() bool { return d.ended }

func (d *DotReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(d.pending) == 0 {
			if d.err != nil {
				return n, d.err
			}
			if d.done {
				return n, io.EOF
			}
			if n > 0 && d.br.Buffered() == 0 {
				return n, nil // hand out what we have rather than block
			}
			d.fill()
			continue
		}
		k := copy(p[n:], d.pending)
		d.pending = d.pending[k:]
		n += k
	}
	return n, nil
}

func isLoneDot(line []byte) bool {
	switch len(line) {
	case 1:
		return line[0] == '.'
	case 2:
		return line[0] == '.' && line[1] == '\n'
	case 3:
		return line[0] == '.' && line[1] == '\r' && line[2] == '\n'
	}
	return false
}

func (d *DotReader) end() {
	d.done, d.ended = true, true
	if d.OnEnd != nil && !d.notified {
		d.notified = true
		d.OnEnd()
	}
}

func (d *DotReader) unstuff(line []byte) []byte {
	if d.atStart && d.mode == DotStrict && len(line) > 0 && line[0] == '.' {
		return line[1:]
	}
	return line
}

func (d *DotReader) fill() {
	if d.bulk() {
		return
	}
	line, err := d.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		// A piece of a line longer than the buffer: a terminator is never
		// this long, so only a leading stuffed dot needs undoing.
		d.pending = d.unstuff(line)
		d.atStart = false
		return
	case err == io.EOF:
		d.done = true
		if len(line) > 0 {
			if d.atStart && d.mode != DotNone && isLoneDot(line) {
				d.end()
				return
			}
			d.pending = d.unstuff(line)
		}
		if d.Unterminated != nil && !d.ended {
			d.err, d.done = d.Unterminated(), false
		}
		return
	case err != nil:
		if d.ReadError != nil {
			err = d.ReadError(err)
		}
		d.err = err
		return
	}
	if d.atStart && d.mode != DotNone && isLoneDot(line) {
		if d.mode != DotAuto {
			d.end()
			return
		}
		// Only the last line: servers that send no terminator (and do not
		// dot-stuff) may have a lone "." inside a text. The line is copied
		// first: Peek may move the buffer under it.
		n := copy(d.dot[:], line)
		line = d.dot[:n]
		if _, perr := d.br.Peek(1); perr != nil {
			d.end()
			return
		}
	} else {
		line = d.unstuff(line)
	}
	d.atStart = true
	d.pending = line
}

// ReadDotLine reads one line of a dot-terminated block (an NNTP listing,
// RFC 3977 §3.1.1) from br: at most limit bytes without its line end (CRLF
// or LF, removed), a leading "." removed (dot-stuffing undone). The "."
// line that ends the block is io.EOF; the input ending before it is
// io.ErrUnexpectedEOF. A longer line is ErrLineTooLong with its first
// limit bytes. The line is valid until the next read from br. It is
// DotReader's DotStrict, a line at a time, for data that is parsed line
// by line.
func ReadDotLine(br *bufio.Reader, limit int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull || (err == nil && len(line) > limit+2) {
		return line[:min(len(line), limit)], ErrLineTooLong
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if isLoneDot(line) {
		return nil, io.EOF
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	if len(line) > limit {
		return line[:limit], ErrLineTooLong
	}
	if len(line) > 0 && line[0] == '.' {
		line = line[1:]
	}
	return line, nil
}
