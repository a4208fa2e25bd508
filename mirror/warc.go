package mirror

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/mirror/internal/warc"
	"github.com/urlget/urlget/urlparse"
)

// openWARC opens Options.WARC for appending (each run starts with its own
// warcinfo record, so runs into one file make one valid WARC file), gzip
// per record unless the name ends in ".warc".
func (e *engine) openWARC() error {
	name := e.opt.WARC
	if name == "" || e.opt.DryRun {
		return nil
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return err
	}
	e.repairWARC(name, abs)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	e.warcFile = f
	e.warc = warc.NewWriter(f, !strings.HasSuffix(name, ".warc"), path.Base(name))
	// After each whole record, the mark says where it ends.
	if mf, err := e.fs.root.OpenFile(warcMarkName, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644); err == nil {
		e.warcMark = mf
		mf.Truncate(0)
		e.warc.OnWhole(func() {
			if end, err := f.Seek(0, io.SeekCurrent); err == nil {
				mf.WriteAt(fmt.Appendf(nil, "%020d\t%s\n", end, abs), 0)
			}
		})
	}
	sw := e.client.UserAgent
	if sw == "" {
		sw = fetch.DefaultUserAgent
	}
	return e.warc.Warcinfo([][2]string{
		{"software", sw + " mirror"},
		{"format", "WARC File Format 1.1"},
		{"conformsTo", "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"},
		{"description", "urlget mirror of " + e.rootURL},
	})
}

// warcMarkName is the file in the mirror's directory that says where the
// last whole record of the WARC file ends: "SIZE<TAB>ABSOLUTE-NAME".
const warcMarkName = ".urlget-mirror-warc"

// repairWARC cuts from the WARC file name (abs) a record left torn by a
// run that was killed while writing it: from the end of the last whole
// record (as the mark of the last run into this mirror says), whole
// records (another mirror's, appended since) are kept, and what follows
// them, a record cut short, is cut, so that what is appended next follows
// whole records and the file stays one valid WARC file.
func (e *engine) repairWARC(name, abs string) {
	mark, err := e.fs.readFile(warcMarkName, 4096)
	if err != nil {
		return
	}
	size, markName, ok := strings.Cut(strings.TrimSuffix(string(mark), "\n"), "\t")
	end, err := strconv.ParseInt(size, 10, 64)
	if !ok || err != nil || markName != abs {
		return
	}
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= end {
		return
	}
	tail := fi.Size() - end
	end += warc.WholeLen(io.NewSectionReader(f, end, tail))
	if end == fi.Size() {
		return
	}
	if err := f.Truncate(end); err != nil {
		e.markIncomplete("the WARC file ends in a record cut short by an earlier run, which could not be removed: " + fetch.OneLine(err.Error()))
		return
	}
	e.markNote(fmt.Sprintf("%s ended in a record cut short by an interrupted run: its %d bytes were removed", name, fi.Size()-end))
}

// closeWARC closes the WARC file; its error, or the first of a write.
func (e *engine) closeWARC() error {
	if e.warcMark != nil {
		e.warcMark.Close()
		e.warcMark = nil
	}
	if e.warcFile == nil {
		return nil
	}
	err := e.warcFile.Close()
	e.warcFile, e.warc = nil, nil
	return err
}

// warcFailed records that a record could not be written: the run is
// incomplete (the mirror itself is not).
func (e *engine) warcFailed(err error) {
	if err != nil {
		e.markIncomplete("writing the WARC file: " + fetch.OneLine(err.Error()))
	}
}

// httpHead is the head of an HTTP response as received, status line and
// fields in their order and case, for a body of n bytes. A body that came
// chunked has lost its framing on the way (the HTTP client decodes it): it
// is recorded as it is, with "Transfer-Encoding: chunked" left out and a
// Content-Length in its place, so that the block is a true HTTP message
// whose payload every reader agrees on (readers differ on the payload
// digest of a chunked block: nlnwa/gowarc takes the chunked bytes, warcio
// the dechunked).
func httpHead(res *fetch.Resource, n int64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %d %s\r\n", res.Proto, res.Status, res.Reason)
	chunked := false
	for _, f := range res.Header {
		if strings.EqualFold(f.Name, "Transfer-Encoding") && strings.EqualFold(strings.TrimSpace(f.Value), "chunked") {
			chunked = true
			continue
		}
		fmt.Fprintf(&b, "%s: %s\r\n", f.Name, f.Value)
	}
	if _, ok := res.Header.Lookup("Content-Length"); chunked && !ok {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", n)
	}
	b.WriteString("\r\n")
	return b.String()
}

// archive writes an HTTP response whose body (n bytes) is at body: a
// response record, or for a 304 a revisit record (server-not-modified).
func (e *engine) archive(res *fetch.Resource, u *urlparse.URL, body io.ReaderAt, n int64) {
	if e.warc == nil {
		return
	}
	if body == nil {
		body, n = strings.NewReader(""), 0
	}
	_, err := e.archiveHTTP(res, u, warc.Part{R: body, Size: n})
	e.warcFailed(err)
}

// maxSmallBody bounds the body of a reply that is no file (an error
// page, a redirect) that is read to be archived.
const maxSmallBody = 1 << 20

// archiveSmall writes a reply that is no file (an error, a redirect) with
// its body, read here; not when the body is over maxSmallBody. (A dry
// run, whose requests are HEADs, writes no WARC file.)
func (e *engine) archiveSmall(res *fetch.Resource, u *urlparse.URL) {
	if e.warc == nil {
		return
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxSmallBody+1))
	if err != nil || len(body) > maxSmallBody {
		return
	}
	e.archive(res, u, bytes.NewReader(body), int64(len(body)))
}

// archiveFile writes an HTTP response whose body is in tmp, from the
// offset it was asked at (a 206's bytes only: the record is the exchange
// as it was). A file resumed so (its first bytes fetched by an earlier
// run, which was cut before it could record them) is then written whole,
// as the ftp mirror writes every file: a resource record of the complete
// file, with a metadata record that refers to it and says how it was put
// together, so that the WARC file holds a complete capture of it.
func (e *engine) archiveFile(res *fetch.Resource, u *urlparse.URL, tmp *tmpFile) error {
	var id string
	err := e.archiveTmp(tmp, func(f io.ReaderAt) (err error) {
		id, err = e.archiveHTTP(res, u, warc.Part{R: f, Off: res.Offset, Size: tmp.n - res.Offset})
		return err
	})
	if err != nil || res.Offset == 0 || id == "" {
		return err
	}
	ct := res.ContentType
	if ct == "" {
		ct = typeByName(u.RawPath)
	}
	how := fmt.Sprintf("bytes 0-%d kept from an earlier run's partial copy, the rest from the %d response %s", res.Offset-1, res.Status, id)
	return e.archiveResource(canonicalURL(u), ct, tmp, [][2]string{{"description", how}})
}

// archiveTmp hands the file tmp, opened for reading, to write (nothing
// without a WARC file).
func (e *engine) archiveTmp(tmp *tmpFile, write func(f io.ReaderAt) error) error {
	if e.warc == nil {
		return nil
	}
	f, err := e.fs.open(tmp.rel)
	if err != nil {
		return err
	}
	defer f.Close()
	return write(f)
}

// archiveHTTP writes the exchange: the request as the fetcher wrote it
// (when it recorded it) and the response, each naming the other in
// WARC-Concurrent-To. It returns the response record's ID.
func (e *engine) archiveHTTP(res *fetch.Resource, u *urlparse.URL, body warc.Part) (string, error) {
	now := time.Now()
	head := httpHead(res, body.Size)
	block := warc.Concat{{R: strings.NewReader(head), Size: int64(len(head))}, body}
	r := warc.Record{ID: warc.NewID(), Type: warc.TypeResponse, TargetURI: canonicalURL(u), Date: now, ContentType: warc.HTTPResponse,
		PayloadOffset: int64(len(head)), Block: block, BlockSize: block.Size()}
	if res.NotModified {
		r.Type = warc.TypeRevisit
		r.Fields = [][2]string{{"WARC-Profile", warc.ProfileNotModified}}
		r.PayloadOffset = -1
	}
	if req := res.Request; req != nil {
		q := warc.Record{ID: warc.NewID(), Type: warc.TypeRequest, TargetURI: r.TargetURI, Date: now, ContentType: warc.HTTPRequest,
			Fields: [][2]string{{"WARC-Concurrent-To", r.ID}}, PayloadOffset: requestPayload(req),
			Block: bytes.NewReader(req), BlockSize: int64(len(req))}
		if err := e.warc.Write(q); err != nil {
			return "", err
		}
		r.Fields = append(r.Fields, [2]string{"WARC-Concurrent-To", q.ID})
	}
	return r.ID, e.warc.Write(r)
}

// requestPayload is where the body of an HTTP request starts (after the
// empty line), or -1 (no payload digest) when it has no head end.
func requestPayload(req []byte) int64 {
	if i := bytes.Index(req, []byte("\r\n\r\n")); i >= 0 {
		return int64(i + 4)
	}
	return -1
}

// archiveResource writes a resource record (ftp, gopher): the file in
// tmp, all of it, with its Content-Type; then, when meta has fields (the
// server's replies, the item's attributes), a metadata record of them
// that refers to it.
func (e *engine) archiveResource(url, contentType string, tmp *tmpFile, meta [][2]string) error {
	return e.archiveTmp(tmp, func(f io.ReaderAt) error {
		now := time.Now()
		r := warc.Record{ID: warc.NewID(), Type: warc.TypeResource, TargetURI: url, Date: now, ContentType: contentType,
			Block: f, BlockSize: tmp.n}
		if err := e.warc.Write(r); err != nil || len(meta) == 0 {
			return err
		}
		block := warc.FieldsBlock(meta)
		return e.warc.Write(warc.Record{Type: warc.TypeMetadata, TargetURI: url, Date: now, ContentType: warc.Fields,
			Fields: [][2]string{{"WARC-Refers-To", r.ID}}, PayloadOffset: -1,
			Block: strings.NewReader(block), BlockSize: int64(len(block))})
	})
}

// replyFields are an ftp command and its reply as metadata fields: the
// command, then each line of the reply as received.
func replyFields(cmd string, r *ftp.Reply) [][2]string {
	out := [][2]string{{"ftp-command", cmd}}
	if r != nil {
		for _, l := range r.Lines() {
			out = append(out, [2]string{"ftp-reply", l})
		}
	}
	return out
}

// gopherFields describe a gopher item as metadata fields: its type and
// selector, the menu line that named it, and the Gopher+ attributes when
// the server gave them (each block's lines under its name).
func gopherFields(typ byte, selector, menuLine string, attrs *gopher.Attributes) [][2]string {
	out := [][2]string{{"gopher-item-type", string([]byte{typ})}, {"gopher-selector", selector}}
	if menuLine != "" {
		out = append(out, [2]string{"gopher-menu-line", menuLine})
	}
	if attrs != nil {
		for _, b := range attrs.Blocks {
			name := "gopher-plus-" + strings.ToLower(b.Name)
			out = append(out, [2]string{name, b.Value})
			for _, l := range b.Lines {
				out = append(out, [2]string{name, l})
			}
		}
	}
	return out
}

// typeByName is a Content-Type from a file name's extension, else
// application/octet-stream.
func typeByName(name string) string {
	return cmp.Or(fetch.TypeByName(name), "application/octet-stream")
}

// gopherType is the Content-Type of a gopher item type.
func gopherType(typ byte, name string) string {
	switch typ {
	case '0':
		return "text/plain"
	case '1':
		return "application/gopher-menu"
	case 'h':
		return "text/html"
	case 'g':
		return "image/gif"
	case '4':
		return "application/mac-binhex40"
	case '6':
		return "text/x-uuencode"
	}
	return typeByName(name)
}
