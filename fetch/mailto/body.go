package mailto

import (
	"bytes"
	"errors"
	"io"
	"mime/quotedprintable"
	"strings"
)

// peekLimit is how much of Request.Body is read ahead to choose the
// transfer encoding: a body that ends within it is sent as 7bit when it
// can be, and its size is known (SIZE=); a longer one is streamed as
// quoted-printable.
const peekLimit = 64 << 10

// rendered is a message ready to be written: the header block and the
// body, whole in memory when it is small, else streamed.
type rendered struct {
	header []byte
	body   []byte    // the encoded body, when whole
	stream io.Reader // else the rest of the raw body, after body
	eight  bool      // the header holds UTF-8 (RFC 6532)
}

// bodyReadError marks an error from reading Request.Body, so that the
// sender can tell it from a failed write and drop the connection.
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "reading the message body: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }

// render reads ahead up to peekLimit bytes of extra (Request.Body, or nil)
// and chooses the body's encoding: the body is m.Text, a line break when
// the text does not end with one and extra follows, then extra; every line
// end (CR, LF or CRLF) becomes CRLF and the body ends with one.
func (m *Message) render(extra io.Reader) (*rendered, error) {
	text := m.Text
	if extra != nil && text != "" && !strings.HasSuffix(text, "\n") && !strings.HasSuffix(text, "\r") {
		text += "\r\n"
	}
	var raw bytes.Buffer
	raw.WriteString(text)
	complete := true
	if extra != nil {
		n, err := io.CopyN(&raw, extra, peekLimit+1)
		if err != nil && err != io.EOF {
			return nil, &bodyReadError{err}
		}
		complete = n <= peekLimit
	}
	r := &rendered{eight: m.needsUTF8()}
	if !complete {
		r.header = m.header("quoted-printable")
		r.body = raw.Bytes() // raw: encoded when written
		r.stream = extra
		return r, nil
	}
	var norm bytes.Buffer
	cw := &crlfWriter{w: &norm}
	cw.Write(raw.Bytes())
	cw.end()
	if is7bit(norm.Bytes()) {
		r.header, r.body = m.header("7bit"), norm.Bytes()
		return r, nil
	}
	var enc bytes.Buffer
	writeQP(&enc, &norm)
	r.header, r.body = m.header("quoted-printable"), enc.Bytes()
	return r, nil
}

// size is the message's length in bytes, or -1 when the body is streamed.
func (r *rendered) size() int64 {
	if r.stream != nil {
		return -1
	}
	return int64(len(r.header) + len(r.body))
}

// writeTo writes the whole message to w, CRLF line ends throughout. An
// error reading the streamed body is a *bodyReadError.
func (r *rendered) writeTo(w io.Writer) error {
	if _, err := w.Write(r.header); err != nil {
		return err
	}
	if r.stream == nil {
		_, err := w.Write(r.body)
		return err
	}
	src := io.MultiReader(bytes.NewReader(r.body), readMarker{r.stream})
	return writeQP(w, src)
}

// readMarker wraps the errors of a body source as *bodyReadError.
type readMarker struct{ r io.Reader }

func (m readMarker) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if err != nil && err != io.EOF {
		err = &bodyReadError{err}
	}
	return n, err
}

// writeQP writes src to w as quoted-printable, line ends normalised to
// CRLF first, ending with CRLF.
func writeQP(w io.Writer, src io.Reader) error {
	lw := &lastByteWriter{w: w}
	qp := quotedprintable.NewWriter(lw)
	cw := &crlfWriter{w: qp}
	if _, err := io.Copy(cw, src); err != nil {
		var re *bodyReadError
		if errors.As(err, &re) {
			return re
		}
		return err
	}
	if err := cw.end(); err != nil {
		return err
	}
	if err := qp.Close(); err != nil {
		return err
	}
	if lw.n > 0 && lw.last != '\n' {
		_, err := w.Write([]byte("\r\n"))
		return err
	}
	return nil
}

// is7bit reports whether a CRLF-normalised body can go as 7bit (RFC 2045
// §2.7): no byte above 127, no NUL, no line over 998 bytes.
func is7bit(b []byte) bool {
	line := 0
	for _, c := range b {
		switch {
		case c >= 0x80 || c == 0:
			return false
		case c == '\n':
			line = 0
		case c != '\r':
			line++
			if line > maxLine {
				return false
			}
		}
	}
	return true
}

// crlfWriter turns every line end (CRLF, a lone CR, a lone LF) into CRLF.
// end finishes the text with CRLF unless it is empty or ends with one.
type crlfWriter struct {
	w       io.Writer
	cr      bool // the last byte was a CR, already written as CRLF
	started bool
	eol     bool // the last byte written ended a line
	buf     []byte
}

func (c *crlfWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.buf = c.buf[:0]
	for _, b := range p {
		switch b {
		case '\n':
			if c.cr {
				c.cr = false
				continue
			}
			c.buf = append(c.buf, '\r', '\n')
		case '\r':
			c.buf = append(c.buf, '\r', '\n')
			c.cr = true
		default:
			c.cr = false
			c.buf = append(c.buf, b)
		}
	}
	if len(c.buf) > 0 {
		c.started = true
		c.eol = c.buf[len(c.buf)-1] == '\n'
	}
	if _, err := c.w.Write(c.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (c *crlfWriter) end() error {
	if c.started && !c.eol {
		c.eol = true
		_, err := c.w.Write([]byte("\r\n"))
		return err
	}
	return nil
}

// lastByteWriter remembers the last byte written through it.
type lastByteWriter struct {
	w    io.Writer
	n    int64
	last byte
}

func (l *lastByteWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if n > 0 {
		l.n += int64(n)
		l.last = p[n-1]
	}
	return n, err
}
