// Package warc writes WARC 1.1 files (ISO 28500:2017), one gzip member per
// record, streaming: a record's block is read from an io.Reader whose
// length is known beforehand (a file on disk, a buffer), never held in
// memory, and its digests are computed on a first pass over a block that
// can be read twice (an io.ReaderAt).
//
// Why not a library: the Go WARC libraries the module proxy serves were
// weighed. github.com/internetarchive/gowarc and github.com/CorentinB/warc
// (CC0) are capture HTTP clients and pull in uTLS, miekg/dns, SOCKS5,
// cobra and brotli — some twenty modules for a mirror that needs only the
// record format. github.com/nlnwa/gowarc/v3 (Apache-2.0) is the closest
// fit, but its RecordBuilder copies every block into a buffer of its own
// (memory, then a temporary file) before it can write it, while the
// mirror already has each body on disk, and it would add four modules
// (uuid, klauspost/compress, whatwg-url, bitset) to a go.mod of five. The
// format needed here is a header block and CRLFs: this package is small
// and its output is checked by reading it back (Reader, the tests).
package warc

import (
	"bufio"
	"compress/gzip"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"fmt"
	"hash"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Record types written by the mirror.
const (
	TypeWarcinfo = "warcinfo"
	TypeRequest  = "request"
	TypeResponse = "response"
	TypeResource = "resource"
	TypeMetadata = "metadata"
	TypeRevisit  = "revisit"
)

// ProfileNotModified is the revisit profile of a 304 reply.
const ProfileNotModified = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"

// HTTPResponse is the Content-Type of a response record holding an HTTP
// response.
const HTTPResponse = "application/http;msgtype=response"

// HTTPRequest is the Content-Type of a request record holding an HTTP
// request.
const HTTPRequest = "application/http;msgtype=request"

// Fields is the Content-Type of a block of "name: value" lines (a
// metadata record's).
const Fields = "application/warc-fields"

// Writer writes records to w; safe for concurrent use (records never
// interleave).
type Writer struct {
	mu       sync.Mutex
	w        io.Writer
	gzip     bool
	infoID   string
	filename string
	whole    func()
}

// OnWhole sets a func called after each record is written whole (with
// the Writer's lock held: no other record has begun), so that the caller
// can note where the file's last whole record ends.
func (w *Writer) OnWhole(fn func()) {
	w.mu.Lock()
	w.whole = fn
	w.mu.Unlock()
}

// NewWriter returns a Writer that writes to w, each record a gzip member
// of its own when gz is set.
func NewWriter(w io.Writer, gz bool, filename string) *Writer {
	return &Writer{w: w, gzip: gz, filename: filename}
}

// Record is one record to write: its type, the header fields besides the
// ones Write sets (WARC-Type, WARC-Record-ID, WARC-Date, Content-Length,
// the digests, WARC-Warcinfo-ID), and its block.
type Record struct {
	ID          string // WARC-Record-ID ("": a new one); NewID makes one to refer to first
	Type        string
	TargetURI   string
	Date        time.Time
	ContentType string
	Fields      [][2]string // more fields, in order
	// Block is the record's content, BlockSize bytes; it is read twice
	// (once for the digests, once to write it): from 0 each time.
	Block     io.ReaderAt
	BlockSize int64
	// PayloadOffset is where the payload starts in the block (after an
	// HTTP head; 0 for a resource); -1 for no payload digest.
	PayloadOffset int64
}

// NewID is a new record ID, <urn:uuid:…> (a random UUID, version 4).
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Digest is "sha1:" and the base32 SHA-1 of what h hashed, WARC's usual
// digest form (wget, Heritrix, warcio).
func Digest(h hash.Hash) string {
	return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
}

// Warcinfo writes the warcinfo record that starts a file: fields such as
// software, format, conformsTo; later records refer to it.
func (w *Writer) Warcinfo(fields [][2]string) error {
	body := FieldsBlock(fields)
	id := NewID()
	var fs [][2]string
	if w.filename != "" {
		fs = append(fs, [2]string{"WARC-Filename", w.filename})
	}
	err := w.write(id, Record{Type: TypeWarcinfo, Date: time.Now(), ContentType: Fields,
		Fields: fs, Block: strings.NewReader(body), BlockSize: int64(len(body)), PayloadOffset: -1})
	if err == nil {
		w.mu.Lock()
		w.infoID = id
		w.mu.Unlock()
	}
	return err
}

// FieldsBlock is fields as an application/warc-fields block, one
// "name: value" line each, a value kept on its line (CR, LF, NUL as
// spaces).
func FieldsBlock(fields [][2]string) string {
	var b strings.Builder
	for _, f := range fields {
		fmt.Fprintf(&b, "%s: %s\r\n", clean(f[0]), clean(f[1]))
	}
	return b.String()
}

// Write writes r.
func (w *Writer) Write(r Record) error {
	id := r.ID
	if id == "" {
		id = NewID()
	}
	return w.write(id, r)
}

func (w *Writer) write(id string, r Record) error {
	// First pass: the digests.
	bh, ph := sha1.New(), sha1.New()
	if _, err := io.Copy(bh, io.NewSectionReader(r.Block, 0, r.BlockSize)); err != nil {
		return err
	}
	payload := ""
	if r.PayloadOffset >= 0 {
		src := io.NewSectionReader(r.Block, r.PayloadOffset, r.BlockSize-r.PayloadOffset)
		if _, err := io.Copy(ph, src); err != nil {
			return err
		}
		payload = Digest(ph)
	}
	var h strings.Builder
	h.WriteString("WARC/1.1\r\n")
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&h, "%s: %s\r\n", k, clean(v))
		}
	}
	field("WARC-Type", r.Type)
	field("WARC-Record-ID", id)
	field("WARC-Date", r.Date.UTC().Format("2006-01-02T15:04:05.000000Z"))
	field("WARC-Target-URI", r.TargetURI)
	w.mu.Lock()
	info := w.infoID
	w.mu.Unlock()
	if r.Type != TypeWarcinfo {
		field("WARC-Warcinfo-ID", info)
	}
	for _, f := range r.Fields {
		field(f[0], f[1])
	}
	field("Content-Type", r.ContentType)
	field("WARC-Block-Digest", Digest(bh))
	field("WARC-Payload-Digest", payload)
	field("Content-Length", strconv.FormatInt(r.BlockSize, 10))
	h.WriteString("\r\n")

	w.mu.Lock()
	defer w.mu.Unlock()
	var out io.Writer = w.w
	var zw *gzip.Writer
	if w.gzip {
		zw = gzip.NewWriter(w.w)
		out = zw
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	bw.WriteString(h.String())
	n, err := io.Copy(bw, io.NewSectionReader(r.Block, 0, r.BlockSize))
	if err == nil && n != r.BlockSize {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return err
	}
	bw.WriteString("\r\n\r\n")
	if err := bw.Flush(); err != nil {
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return err
		}
	}
	if w.whole != nil {
		w.whole()
	}
	return nil
}

// WholeLen reads the records of r (gzip members or plain, as NewReader)
// without keeping their blocks, and returns how many of its bytes are
// whole records: it stops at the first one cut short in its header, its
// block or its gzip member, as a record being written when its writer was
// killed is.
func WholeLen(r io.Reader) int64 {
	cr := &fetch.CountingReader{R: r}
	br := bufio.NewReader(cr)
	pos := func() int64 { return cr.N - int64(br.Buffered()) }
	var good int64
	magic, err := br.Peek(2)
	if err != nil || magic[0] != 0x1f || magic[1] != 0x8b {
		wholeRecords(br, func() { good = pos() })
		return good
	}
	zr, err := gzip.NewReader(br)
	for err == nil {
		// A member at a time: its end is where the next one starts.
		zr.Multistream(false)
		if wholeRecords(bufio.NewReader(zr), func() {}) != nil {
			break
		}
		good = pos()
		err = zr.Reset(br)
	}
	return good
}

// wholeRecords reads records from src to its end, calling done after
// each; an error for one cut short.
func wholeRecords(src *bufio.Reader, done func()) error {
	for {
		line, err := src.ReadString('\n')
		if err == io.EOF && line == "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("warc: a record cut short: %w", err)
		}
		if line != "WARC/1.1\r\n" {
			return fmt.Errorf("warc: version line %q", line)
		}
		n := int64(-1)
		for {
			l, err := src.ReadString('\n')
			if err != nil {
				return fmt.Errorf("warc: a record cut short in its header: %w", err)
			}
			if l == "\r\n" {
				break
			}
			if k, v, ok := strings.Cut(strings.TrimSuffix(l, "\r\n"), ":"); ok && strings.EqualFold(k, "Content-Length") {
				n, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			}
		}
		if n < 0 {
			return errors.New("warc: a record without a Content-Length")
		}
		if m, err := io.CopyN(io.Discard, src, n); err != nil {
			return fmt.Errorf("warc: a record cut short in its block (%d of %d bytes): %w", m, n, err)
		}
		var end [4]byte
		if _, err := io.ReadFull(src, end[:]); err != nil || string(end[:]) != "\r\n\r\n" {
			return fmt.Errorf("warc: a record not ended by CRLF CRLF (%q, %v)", end, err)
		}
		done()
	}
}

// clean keeps a field value on one line.
func clean(v string) string {
	return strings.Map(func(r rune) rune {
		if r == '\r' || r == '\n' || r == 0 {
			return ' '
		}
		return r
	}, v)
}

// Concat is an io.ReaderAt over parts one after the other.
type Concat []Part

// Part is one piece of a Concat: Size bytes of R from Off.
type Part struct {
	R    io.ReaderAt
	Off  int64
	Size int64
}

// Size is the total size of c.
func (c Concat) Size() int64 {
	var n int64
	for _, p := range c {
		n += p.Size
	}
	return n
}

// ReadAt reads from the parts.
func (c Concat) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for _, p := range c {
		if off >= p.Size {
			off -= p.Size
			continue
		}
		for len(b) > 0 && off < p.Size {
			want := min(int64(len(b)), p.Size-off)
			k, err := p.R.ReadAt(b[:want], p.Off+off)
			n += k
			off += int64(k)
			b = b[k:]
			if err != nil && !(err == io.EOF && int64(k) == want) {
				return n, err
			}
		}
		if len(b) == 0 {
			return n, nil
		}
		off = 0
	}
	return n, io.EOF
}

// Header is a parsed record header, for reading a file back.
type Header map[string]string

// Reader reads the records of a WARC file (gzip members or plain)
// back: for tests and tools.
type Reader struct {
	br *bufio.Reader
}

// NewReader reads records from r, gunzipping it when it starts with the
// gzip magic (multi-member streams read as one).
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		return &Reader{br: bufio.NewReader(zr)}, nil
	}
	return &Reader{br: br}, nil
}

// Next reads the next record: its header and its whole block (small test
// files only); io.EOF at the end.
func (r *Reader) Next() (Header, []byte, error) {
	line, err := r.br.ReadString('\n')
	if err == io.EOF && line == "" {
		return nil, nil, io.EOF
	}
	if err != nil {
		return nil, nil, err
	}
	if line != "WARC/1.1\r\n" {
		return nil, nil, fmt.Errorf("warc: version line %q", line)
	}
	h := Header{}
	for {
		l, err := r.br.ReadString('\n')
		if err != nil {
			return nil, nil, err
		}
		if !strings.HasSuffix(l, "\r\n") {
			return nil, nil, fmt.Errorf("warc: header line %q not ended by CRLF", l)
		}
		if l == "\r\n" {
			break
		}
		k, v, ok := strings.Cut(strings.TrimSuffix(l, "\r\n"), ":")
		if !ok {
			return nil, nil, fmt.Errorf("warc: header line %q", l)
		}
		h[k] = strings.TrimSpace(v)
	}
	n, err := strconv.ParseInt(h["Content-Length"], 10, 64)
	if err != nil || n < 0 {
		return nil, nil, fmt.Errorf("warc: Content-Length %q", h["Content-Length"])
	}
	block := make([]byte, n)
	if _, err := io.ReadFull(r.br, block); err != nil {
		return nil, nil, err
	}
	var end [4]byte
	if _, err := io.ReadFull(r.br, end[:]); err != nil || string(end[:]) != "\r\n\r\n" {
		return nil, nil, fmt.Errorf("warc: record not ended by CRLF CRLF (%q, %v)", end, err)
	}
	return h, block, nil
}

// Fields lists h's names, sorted (for messages).
func (h Header) Fields() []string {
	var out []string
	for k := range h {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
