package mirror

// The manifest on disk, and how a run reads it without holding it.
//
// A manifest (format version 2) is JSON lines: the header, then one record
// per URL sorted by (bucket, URL), then a mark line, then the journal:
// every change of a run appended as it happens, the last line for a URL
// counting (a line with status "deleted" drops the URL). The bucket of a
// URL is the URL up to its last "/" (a trailing "/" not counted): for FTP
// and HTTP the directory it was listed in, so that a directory's records
// are one run of lines, and a directory sorts before everything below it.
//
// A run keeps in memory one entry per bucket (its byte range in the file),
// not one per record: a directory's records are read from the file when
// they are first asked for (while it is listed) and a few dozen such
// blocks are cached. At the end of the run the sorted records and the
// journal are merged into a new sorted file, written beside it and renamed
// over it: the journal is sorted in chunks of bounded size, spilled to
// temporary files when it is larger than one, and merged with the sorted
// records in one streaming pass. A manifest with a journal left by a
// killed run, or of version 1 (a journal only, unsorted), is merged so
// when it is loaded.
//
// (Why a sorted file and no embedded database: the package doc, Memory.)

import (
	"bufio"
	"bytes"
	"container/list"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
	"unsafe"
)

// journalMark ends the sorted records of a version 2 manifest. It has no
// "url", so that a reader of records skips it.
const journalMark = `{"urlget_journal":"the changes since the sorted records above, in order: the last line for a URL counts"}`

// chunkBytes bounds the journal lines sorted in memory at once (the
// lines, their URLs and entries counted).
var chunkBytes = 2 << 20

// blockCache is how many buckets' records a run keeps read.
const blockCache = 64

// maxLine bounds a manifest line.
const maxLine = 16 << 20

// bucketOf is the group a URL's record is stored in (see above).
func bucketOf(url string) string {
	u := strings.TrimSuffix(url, "/")
	if i := strings.LastIndexByte(u, '/'); i >= 0 {
		return url[:i+1]
	}
	return ""
}

// key is where a record sorts.
type key struct{ bucket, url string }

func keyOf(url string) key { return key{bucketOf(url), url} }

func (a key) less(b key) bool {
	if a.bucket != b.bucket {
		return a.bucket < b.bucket
	}
	return a.url < b.url
}

// span is a byte range of the manifest file.
type span struct{ off, end int64 }

// lineURL is the "url" of a record line: read directly from a line as
// Marshal writes it ({"url":"… first, nothing escaped), else parsed; or
// the URL of a line of a URL list (urlLine).
func lineURL(line []byte) string {
	const pre = `{"url":"`
	if bytes.HasPrefix(line, []byte(pre)) {
		rest := line[len(pre):]
		if i := bytes.IndexByte(rest, '"'); i >= 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
			return string(rest[:i])
		}
	}
	if len(line) > 0 && line[0] == '"' {
		// A URL list's line (urlLine).
		if u, n, ok := quickString(string(line), 0); ok && n == len(line) {
			return u
		}
		var u string
		if json.Unmarshal(line, &u) != nil {
			return ""
		}
		return u
	}
	var r struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(line, &r) != nil {
		return ""
	}
	return r.URL
}

// writtenURL is the "url" of a record line as Marshal writes it ({"url":"…
// first, no escape in it, and a "status" last but for the fields that
// follow it), "" for any other line: such a line, when it is valid JSON,
// is a whole record and can be used as it is.
func writtenURL(line []byte) string {
	const pre = `{"url":"`
	if !bytes.HasPrefix(line, []byte(pre)) || !bytes.Contains(line, []byte(`,"status":"`)) {
		return ""
	}
	rest := line[len(pre):]
	if i := bytes.IndexByte(rest, '"'); i >= 0 && bytes.IndexByte(rest[:i], '\\') < 0 {
		return string(rest[:i])
	}
	return ""
}

// lineField is the string field name (not "url") of a record line as
// Marshal writes it ({"url":"… first; a field left out is empty), read
// without parsing the line; false when the line is not such, or the value
// has an escape: parse it then. (`,"name":"` cannot occur inside a JSON
// string: its quotes would be escaped.)
func lineField(line []byte, name string) ([]byte, bool) {
	if !bytes.HasPrefix(line, []byte(`{"url":"`)) {
		return nil, false
	}
	pat := `,"` + name + `":"`
	i := bytes.Index(line, []byte(pat))
	if i < 0 {
		return nil, true
	}
	rest := line[i+len(pat):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 || bytes.IndexByte(rest[:j], '\\') >= 0 {
		return nil, false
	}
	return rest[:j], true
}

// deletedLine reports whether a line as Marshal writes it has the status
// "deleted" (the text cannot occur inside a JSON string: its quotes would
// be escaped).
func deletedLine(line []byte) bool {
	return bytes.Contains(line, []byte(`"status":"deleted"`))
}

// lineReader reads the lines of a range of a file.
type lineReader struct {
	r    *bufio.Reader
	off  int64 // where the next line starts
	buf  []byte
	err  error
	torn bool // the range ended in a line without its newline
}

func newLineReader(f *os.File, off, end int64) *lineReader {
	return newLineReaderSize(f, off, end, 64<<10)
}

// newLineReaderSize is newLineReader reading ahead size bytes.
func newLineReaderSize(f *os.File, off, end int64, size int) *lineReader {
	if end < 0 {
		end = 1 << 62
	}
	if n := end - off; n < int64(size) {
		size = int(max(n, 16)) // a bucket's few records need no 64 KiB buffer each
	}
	return &lineReader{r: bufio.NewReaderSize(io.NewSectionReader(f, off, end-off), size), off: off}
}

// bytesLineReader reads the lines of b.
func bytesLineReader(b []byte) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(bytes.NewReader(b), 64<<10)}
}

// spillBytes is how much a list kept for the end of a run (the URLs
// found, the manifest's paths) holds in memory before it goes to a
// scratch file: a small mirror makes none.
var spillBytes = 1 << 20

// spillList is such a list of lines.
type spillList struct {
	mem  bytes.Buffer
	f    *os.File
	drop func()
	w    *bufio.Writer
	err  error
}

// add appends a line (without its newline).
func (l *spillList) add(m *manifest, line []byte) {
	if l.err != nil {
		return
	}
	if l.f == nil {
		l.mem.Write(line)
		l.mem.WriteByte('\n')
		if l.mem.Len() < spillBytes {
			return
		}
		l.f, l.drop, l.err = m.scratch()
		if l.err != nil {
			return
		}
		l.w = bufio.NewWriterSize(l.f, 64<<10)
		l.w.Write(l.mem.Bytes())
		l.mem = bytes.Buffer{}
		return
	}
	l.w.Write(line)
	if err := l.w.WriteByte('\n'); err != nil {
		l.err = err
	}
}

// reader reads the lines added so far.
func (l *spillList) reader() (*lineReader, error) {
	if l.err != nil {
		return nil, l.err
	}
	if l.f == nil {
		return bytesLineReader(l.mem.Bytes()), nil
	}
	if err := l.w.Flush(); err != nil {
		return nil, err
	}
	return newLineReader(l.f, 0, -1), nil
}

// close removes the scratch file.
func (l *spillList) close() {
	if l.drop != nil {
		l.drop()
	}
	l.f, l.drop, l.w, l.mem = nil, nil, nil, bytes.Buffer{}
}

// next returns the next line (without its newline; valid until the next
// call) and its offset. Empty lines are skipped; a line longer than
// maxLine is an error.
func (lr *lineReader) next() ([]byte, int64, bool) {
	for lr.err == nil {
		start := lr.off
		line, err := lr.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			lr.buf = append(lr.buf[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(lr.buf) <= maxLine {
				line, err = lr.r.ReadSlice('\n')
				lr.buf = append(lr.buf, line...)
			}
			if len(lr.buf) > maxLine {
				lr.err = errors.New("a manifest line is too long")
				return nil, 0, false
			}
			line = lr.buf
		}
		lr.off += int64(len(line))
		if err != nil {
			lr.err = err
			if len(line) == 0 {
				break
			}
			lr.torn = true
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, start, true
	}
	return nil, 0, false
}

// failed is the reader's error; reaching the end is none.
func (lr *lineReader) failed() error {
	if errors.Is(lr.err, io.EOF) {
		return nil
	}
	return lr.err
}

// fileInfo is what scanning a manifest file found.
type fileInfo struct {
	hdr     header
	sorted  span // the sorted records
	journal int64
	// merge says the file must be merged before a run reads it: a
	// journal follows the records, or they are not in order (version 1).
	merge bool
	index map[string]span
}

// errNotManifest says a file is no manifest.
var errNotManifest = errors.New(ManifestName + " is not an urlget mirror manifest")

// scanFile reads a manifest's header and indexes its sorted records.
func scanFile(f *os.File) (fileInfo, error) {
	lr := newLineReader(f, 0, -1)
	first, _, ok := lr.next()
	if !ok {
		if err := lr.failed(); err != nil {
			return fileInfo{}, err
		}
		return fileInfo{}, errNotManifest
	}
	var fi fileInfo
	if err := json.Unmarshal(first, &fi.hdr); err != nil || fi.hdr.Manifest == "" {
		return fileInfo{}, errNotManifest
	}
	fi.sorted.off = lr.off
	fi.index = map[string]span{}
	if fi.hdr.Version < 2 {
		// A journal only.
		fi.sorted.end, fi.journal, fi.merge = fi.sorted.off, fi.sorted.off, true
		return fi, nil
	}
	var prev key
	var cur string
	var curSpan span
	have, disorder := false, false
	for {
		line, off, ok := lr.next()
		if !ok {
			if err := lr.failed(); err != nil {
				return fileInfo{}, err
			}
			// No mark: the records run to the end.
			fi.sorted.end, fi.journal = lr.off, lr.off
			fi.merge = fi.merge || lr.torn
			break
		}
		if string(line) == journalMark {
			fi.sorted.end, fi.journal = off, lr.off
			if _, _, more := lr.next(); more {
				fi.merge = true
			}
			break
		}
		if disorder {
			continue
		}
		u := lineURL(line)
		k := keyOf(u)
		if u == "" || have && !prev.less(k) || deletedLine(line) {
			// Out of order, twice, or not a record: merged as a
			// journal would be.
			disorder = true
			continue
		}
		if !have || k.bucket != cur {
			if have {
				fi.index[cur] = curSpan
			}
			cur, curSpan = k.bucket, span{off, off}
		}
		curSpan.end = lr.off
		prev, have = k, true
	}
	if have && !disorder {
		fi.index[cur] = curSpan
	}
	if disorder {
		fi.merge = true
		// Everything after the header, in order, counts as a journal.
		fi.sorted.end, fi.journal = fi.sorted.off, fi.sorted.off
		fi.index = map[string]span{}
	}
	return fi, nil
}

// entry is a journal line in a chunk being sorted.
type entry struct {
	k       key
	seq     int
	line    []byte
	deleted bool
}

// source is a sorted stream of lines the merge reads.
type source interface {
	peek() (key, []byte, bool)
	advance()
	failed() error
}

// fileSource streams sorted lines from a file range.
type fileSource struct {
	lr   *lineReader
	k    key
	line []byte
	ok   bool
}

func newFileSource(f *os.File, s span) *fileSource {
	// A merge reads many of these at once (one per spilled chunk): each
	// reads ahead less than a lone reader.
	fs := &fileSource{lr: newLineReaderSize(f, s.off, s.end, 16<<10)}
	fs.advance()
	return fs
}

func (s *fileSource) peek() (key, []byte, bool) { return s.k, s.line, s.ok }
func (s *fileSource) failed() error             { return s.lr.failed() }
func (s *fileSource) advance() {
	for {
		line, _, ok := s.lr.next()
		if !ok {
			s.ok = false
			return
		}
		if string(line) == journalMark {
			continue
		}
		u := lineURL(line)
		if u == "" {
			continue
		}
		s.k, s.line, s.ok = keyOf(u), line, true
		return
	}
}

// memSource is a sorted chunk in memory.
type memSource struct{ ents []entry }

func (s *memSource) peek() (key, []byte, bool) {
	if len(s.ents) == 0 {
		return key{}, nil, false
	}
	return s.ents[0].k, s.ents[0].line, true
}
func (s *memSource) advance()      { s.ents = s.ents[1:] }
func (s *memSource) failed() error { return nil }

// scratch is a temporary file for a chunk of the journal: in the mirror's
// directory (a temporary name, swept if a run is killed), or, when nothing
// may be written there (a dry run), in the system's temporary directory.
func (m *manifest) scratch() (*os.File, func(), error) {
	if m.dryRun || m.l.root == nil {
		f, err := os.CreateTemp("", "urlget-manifest-*")
		if err != nil {
			return nil, nil, err
		}
		return f, func() { f.Close(); os.Remove(f.Name()) }, nil
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	name := tmpPrefix + hex.EncodeToString(rnd[:])
	f, err := m.l.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close(); m.l.root.Remove(name) }, nil
}

// sortChunk sorts a chunk of journal lines by key, keeping the last line
// for each URL.
func sortChunk(ents []entry) []entry {
	sort.Slice(ents, func(i, j int) bool {
		if ents[i].k != ents[j].k {
			return ents[i].k.less(ents[j].k)
		}
		return ents[i].seq < ents[j].seq
	})
	out := ents[:0]
	for i, e := range ents {
		if i+1 < len(ents) && ents[i+1].k == e.k {
			continue
		}
		out = append(out, e)
	}
	return out
}

// runs is a sequence of lines sorted in chunks: each chunk sorted by key,
// the last line for a key kept; all but the last chunk spilled to scratch
// files, which are merged as they pile up (mergeFanIn at a time), so that
// a merge of them all reads a bounded number at once. Its sources can be
// read more than once.
type runs struct {
	files []chunkFile
	mem   []entry
}

// chunkFile is a spilled chunk (or a merge of mergeFanIn of them, or of such
// merges: its level).
type chunkFile struct {
	f     *os.File
	drop  func()
	level int
}

// mergeFanIn bounds the spilled chunks of one level before they are
// merged into one of the next: a merge reads at most this many of a
// level at once (each with a read-ahead buffer of its own, newFileSource),
// and every line is rewritten once per level (log16 of the chunks).
var mergeFanIn = 16

// sources are fresh sources of the chunks, oldest first.
func (r *runs) sources() []source {
	var out []source
	for _, f := range r.files {
		out = append(out, newFileSource(f.f, span{0, -1}))
	}
	if len(r.mem) > 0 {
		out = append(out, &memSource{ents: r.mem})
	}
	return out
}

// close removes the scratch files.
func (r *runs) close() {
	for _, f := range r.files {
		f.drop()
	}
	r.files, r.mem = nil, nil
}

// push adds a spilled chunk; when the newest mergeFanIn are of one level
// they are merged into one of the next (in order: the merge keeps the
// newest line of a key, as a merge of the chunks would).
func (r *runs) push(m *manifest, f *os.File, drop func()) error {
	r.files = append(r.files, chunkFile{f: f, drop: drop})
	for {
		n := len(r.files)
		if n < mergeFanIn {
			return nil
		}
		top := r.files[n-mergeFanIn:]
		lv := top[0].level
		for _, f := range top {
			if f.level != lv {
				return nil
			}
		}
		out, done, err := m.scratch()
		if err != nil {
			return err
		}
		var srcs []source
		for _, f := range top {
			srcs = append(srcs, newFileSource(f.f, span{0, -1}))
		}
		w := bufio.NewWriterSize(out, 64<<10)
		err = mergeLines(srcs, func(_ key, line []byte) error {
			w.Write(line)
			return w.WriteByte('\n')
		})
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			done()
			return err
		}
		for _, f := range top {
			f.drop()
		}
		r.files = append(r.files[:n-mergeFanIn], chunkFile{f: out, drop: done, level: lv + 1})
	}
}

// sortLines sorts the lines of lr in chunks of chunkBytes; parse makes a
// line an entry (false: the line is dropped). Spilled entries are read
// back with lineURL: parse's line must be a record line, or a URL as a
// JSON string (urlLine).
func (m *manifest) sortLines(lr *lineReader, parse func([]byte) (entry, bool)) (*runs, error) {
	r := &runs{}
	var ents []entry
	size, seq := 0, 0
	spill := func() error {
		ents = sortChunk(ents)
		sf, done, err := m.scratch()
		if err != nil {
			return err
		}
		w := bufio.NewWriterSize(sf, 64<<10)
		for _, e := range ents {
			w.Write(e.line)
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			done()
			return err
		}
		clear(ents)
		ents, size = ents[:0], 0
		return r.push(m, sf, done)
	}
	for {
		line, _, ok := lr.next()
		if !ok {
			break
		}
		e, ok := parse(line)
		if !ok {
			continue
		}
		e.seq = seq
		seq++
		ents = append(ents, e)
		size += len(e.line) + len(e.k.url) + entryBytes
		if size >= chunkBytes {
			if err := spill(); err != nil {
				r.close()
				return nil, err
			}
		}
	}
	if err := lr.failed(); err != nil {
		r.close()
		return nil, err
	}
	r.mem = sortChunk(ents)
	return r, nil
}

// entryBytes is what an entry of a chunk costs besides its line and URL:
// the entry itself and its share of the slice (which grows by doubling).
const entryBytes = 2 * int(unsafe.Sizeof(entry{}))

// journalSources sorts the journal lines of f from off on into sources,
// oldest first (sortLines; the returned func removes the scratch files).
// Lines that are not whole records (a line torn by a crash) are dropped;
// the others are written as Marshal writes them.
func (m *manifest) journalSources(f *os.File, off int64) ([]source, func(), error) {
	r, err := m.journalSourcesOf(newLineReader(f, off, -1))
	if err != nil {
		return nil, nil, err
	}
	return r.sources(), r.close, nil
}

// journalSourcesOf sorts the journal lines of lr (journalSources).
func (m *manifest) journalSourcesOf(lr *lineReader) (*runs, error) {
	return m.sortLines(lr, func(line []byte) (entry, bool) {
		if u := writtenURL(line); u != "" && json.Valid(line) {
			// As put wrote it: taken as it is, not parsed.
			return entry{k: keyOf(u), line: bytes.Clone(line), deleted: deletedLine(line)}, true
		}
		var r Record
		if decodeRecord(line, &r) != nil || r.URL == "" {
			return entry{}, false
		}
		b, _ := json.Marshal(r)
		return entry{k: keyOf(r.URL), line: b, deleted: r.Status == StatusDeleted}, true
	})
}

// urlLine is a URL as a line of a list of URLs: a JSON string, which
// lineURL reads.
func urlLine(url string) []byte {
	b, _ := json.Marshal(url)
	return b
}

// mergedKeys merges sources into one stream of their keys, ascending, each once.
func mergedKeys(srcs []source) func() (key, bool) {
	return func() (key, bool) {
		best := -1
		var bk key
		for i, src := range srcs {
			if k, _, ok := src.peek(); ok && (best < 0 || k.less(bk)) {
				best, bk = i, k
			}
		}
		if best < 0 {
			return key{}, false
		}
		for _, src := range srcs {
			if k, _, ok := src.peek(); ok && k == bk {
				src.advance()
			}
		}
		return bk, true
	}
}

// merge writes to w the header, the sorted records of f in s with the
// journal of f from journal on applied, and the mark; the index of what it
// wrote (offsets in w).
func (m *manifest) merge(w io.Writer, f *os.File, s span, journal int64) (map[string]span, error) {
	srcs := []source{}
	if s.end > s.off {
		srcs = append(srcs, newFileSource(f, s))
	}
	js, done, err := m.journalSources(f, journal)
	if err != nil {
		return nil, err
	}
	defer done()
	srcs = append(srcs, js...)
	bw := bufio.NewWriterSize(w, 64<<10)
	hl := m.headerLine()
	bw.Write(hl)
	iw := &indexWriter{w: bw, off: int64(len(hl)), index: map[string]span{}}
	err = mergeLines(srcs, func(k key, line []byte) error {
		if !deletedLine(line) {
			iw.line(k, line)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	bw.WriteString(journalMark + "\n")
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	return iw.finish(), nil
}

// mergeLines calls fn, in key order, with each key's line from the latest
// source that has it (a tie goes to the later source: the newer line).
func mergeLines(srcs []source, fn func(k key, line []byte) error) error {
	for {
		best := -1
		var bk key
		for i, src := range srcs {
			k, _, ok := src.peek()
			if ok && (best < 0 || !bk.less(k)) {
				best, bk = i, k
			}
		}
		if best < 0 {
			break
		}
		_, line, _ := srcs[best].peek()
		if err := fn(bk, line); err != nil {
			return err
		}
		for _, src := range srcs {
			if k, _, ok := src.peek(); ok && k == bk {
				src.advance()
			}
		}
	}
	for _, src := range srcs {
		if err := src.failed(); err != nil {
			return err
		}
	}
	return nil
}

// indexWriter writes sorted lines, noting each bucket's byte range.
type indexWriter struct {
	w     *bufio.Writer
	off   int64
	index map[string]span
	cur   string
	span  span
	have  bool
}

func (iw *indexWriter) line(k key, line []byte) {
	if !iw.have || k.bucket != iw.cur {
		iw.finish()
		iw.cur, iw.span, iw.have = k.bucket, span{iw.off, iw.off}, true
	}
	iw.w.Write(line)
	iw.w.WriteByte('\n')
	iw.off += int64(len(line)) + 1
	iw.span.end = iw.off
}

// finish ends the last bucket; the index.
func (iw *indexWriter) finish() map[string]span {
	if iw.have {
		iw.index[iw.cur] = iw.span
	}
	return iw.index
}

// lru is the cache of buckets' records.
type lru struct {
	l *list.List // of *block, most recent first
	m map[string]*list.Element
}

// block is a bucket's records, each as its line (a record is parsed when
// it is asked for: a line is one allocation, a parsed Record a dozen, and
// a bucket's records are a run's largest state).
type block struct {
	bucket string
	recs   map[string][]byte
}

func newLRU() *lru { return &lru{l: list.New(), m: map[string]*list.Element{}} }

func (c *lru) get(bucket string) (*block, bool) {
	el, ok := c.m[bucket]
	if !ok {
		return nil, false
	}
	c.l.MoveToFront(el)
	return el.Value.(*block), true
}

func (c *lru) add(b *block) {
	c.m[b.bucket] = c.l.PushFront(b)
	for c.l.Len() > blockCache {
		last := c.l.Back()
		c.l.Remove(last)
		delete(c.m, last.Value.(*block).bucket)
	}
}

// readBlock reads the records of a bucket from f: its span in the index
// (whose end is always known) in one read, the lines kept where they lie.
func readBlock(f *os.File, bucket string, s span) (*block, error) {
	b := &block{bucket: bucket, recs: map[string][]byte{}}
	buf := make([]byte, max(s.end-s.off, 0))
	n, err := io.ReadFull(io.NewSectionReader(f, s.off, int64(len(buf))), buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return b, err
	}
	for rest := buf[:n]; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i:i], rest[i+1:]
		} else {
			rest = nil
		}
		if u := lineURL(line); u != "" {
			b.recs[u] = line
		}
	}
	return b, nil
}
