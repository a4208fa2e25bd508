package lineproto

import (
	"bufio"
	"bytes"
)

// DotWriter writes text as the data of a dot-terminated block (SMTP DATA,
// RFC 5321 §4.5.2; NNTP POST, RFC 3977 §3.1.1): a "." that starts a line
// is doubled, every line ends in CRLF on the wire (a bare LF gets its CR,
// a CRLF stays as it is), and Close ends the block with the "." line. It is
// the writer's half of DotReader.
type DotWriter struct {
	w   *bufio.Writer
	mid bool  // the last byte written was not the end of a line
	cr  bool  // the last byte written was a CR
	n   int64 // bytes of text taken, before stuffing and added CRs
}

// NewDotWriter writes the block to w; Close flushes it.
func NewDotWriter(w *bufio.Writer) *DotWriter { return &DotWriter{w: w} }

// Write stuffs p. It keeps no part of p: a line may span several writes.
func (d *DotWriter) Write(p []byte) (int, error) {
	total := len(p)
	for len(p) > 0 {
		if !d.mid && p[0] == '.' {
			if err := d.w.WriteByte('.'); err != nil {
				return 0, err
			}
		}
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if _, err := d.w.Write(chunk); err != nil {
			return 0, err
		}
		if len(chunk) > 0 {
			d.cr = chunk[len(chunk)-1] == '\r'
		}
		d.n += int64(len(chunk))
		d.mid = i < 0
		if i >= 0 {
			eol := "\r\n"
			if d.cr {
				eol = "\n"
			}
			if _, err := d.w.WriteString(eol); err != nil {
				return 0, err
			}
			d.cr = false
			d.n++
			chunk = p[:i+1]
		}
		p = p[len(chunk):]
	}
	return total, nil
}

// Close ends the last line if the text did not, writes the "." line and
// flushes. It does not close the underlying connection.
func (d *DotWriter) Close() error {
	if d.mid {
		eol := "\r\n"
		if d.cr {
			eol = "\n"
		}
		d.w.WriteString(eol)
		d.mid, d.cr = false, false
	}
	d.w.WriteString(".\r\n")
	return d.w.Flush()
}

// Written is how many bytes of text Write has taken.
func (d *DotWriter) Written() int64 { return d.n }
