package mirror

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"
)

// ManifestName is the manifest's file name in the mirror's directory. It
// starts with ".", which no mirrored name does (see EncodeName). A run
// holds an flock on the directory itself, so that two runs never write one
// mirror.
const ManifestName = ".urlget-mirror.jsonl"

// manifestVersion is the format version in the header line.
const manifestVersion = 2

// Record types.
const (
	TypeFile     = "file"     // a file (FTP) or a document (gopher), stored at Path
	TypeDir      = "dir"      // an FTP directory, Path is the local directory
	TypeMenu     = "menu"     // a gopher menu, stored byte for byte at Path (DIR/…/.gopher-menu)
	TypeSymlink  = "symlink"  // an FTP symbolic link: recorded with its Target, not followed
	TypeLink     = "link"     // a gopher "h" item with a URL: selector: Target, not followed
	TypeSearch   = "search"   // a gopher type 7 item: not followed
	TypeSession  = "session"  // a gopher type 8 or T item (telnet, tn3270): not followed
	TypeCSO      = "cso"      // a gopher type 2 item: not followed
	TypeExternal = "external" // an item on another host (without --span-hosts), or above the start selector (without --parents): not followed
	TypeOther    = "other"    // anything else that is listed but not mirrored
)

// Record statuses.
const (
	StatusOK       = "ok"       // mirrored: Path holds it
	StatusFailed   = "failed"   // could not be mirrored this time (Error says why)
	StatusRecorded = "recorded" // listed and recorded, deliberately not fetched
	StatusSkipped  = "skipped"  // not mirrored: excluded, refused, a cycle, over a limit (Error says why)
	StatusGone     = "gone"     // no longer on the server; the local copy was kept (no --delete)
	StatusDeleted  = "deleted"  // no longer on the server; the local copy was deleted (journal only)
)

// Record is one line of the manifest: what is known of one URL.
type Record struct {
	URL  string `json:"url"`
	Path string `json:"path,omitempty"` // local path, relative to the mirror's directory, "/"-separated
	Type string `json:"type"`
	// Name is the name as the server gave it (listing entry, selector),
	// when the local path is not simply that name (see EncodeName) and
	// the name is UTF-8; URL always holds the exact bytes.
	Name     string `json:"name,omitempty"`
	ItemType string `json:"item_type,omitempty"` // gopher item type
	Size     int64  `json:"size"`
	MTime    string `json:"mtime,omitempty"` // the server's modification time, RFC 3339, UTC
	// MTimeSource says where MTime came from: "mlsd" and "mdtm" (exact,
	// UTC), "list" (an ls-style LIST line: minutes, the server's time
	// zone unknown), "list-noyear" (the same without a year, which was
	// guessed), "gopher+" (a Gopher+ Mod-Date, server local time),
	// "menu" (the date in a gophernicus menu line: minutes, server local
	// time), "http" (Last-Modified, to the second).
	MTimeSource string `json:"mtime_source,omitempty"`
	// Unconfirmed says that no server stated the length of the copy (a
	// gopher document without a Gopher+ "+N" length: only the closed
	// connection ended it), so that it may be cut short: Verify fetches
	// it again and compares.
	Unconfirmed bool `json:"unconfirmed,omitempty"`
	// Key is what the listing said of the item (size and time, or the
	// menu line): the item is fetched again when it changes.
	Key    string `json:"key,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// ETag is the HTTP entity tag of the copy, as the server sent it: the
	// next run asks If-None-Match with it (and If-Modified-Since with
	// MTime, MTimeSource "http": the Last-Modified).
	ETag    string `json:"etag,omitempty"`
	Fetched string `json:"fetched,omitempty"` // when it was last fetched, RFC 3339
	Status  string `json:"status"`
	Target  string `json:"target,omitempty"` // symlink target, link URL
	Parent  string `json:"parent,omitempty"` // the URL of the listing or menu it was found in
	Error   string `json:"error,omitempty"`
}

// header is the first line of a manifest.
type header struct {
	Manifest string `json:"urlget_mirror"`
	Version  int    `json:"version"`
	URL      string `json:"url"`
	Created  string `json:"created,omitempty"`
}

// manifest is a run's view of the manifest (see store.go): the sorted
// records in the file, read a bucket at a time, and the journal, to which
// every change is appended as it happens, so that a run that is killed
// loses nothing it finished; compact merges them into a new sorted file.
type manifest struct {
	mu      sync.Mutex
	l       *localFS
	url     string
	created string
	dryRun  bool
	lock    *os.File
	f       *os.File // the sorted records (the manifest, or a dry run's merged copy)
	drop    func()   // removes a dry run's copy
	sorted  span
	jstart  int64           // where the journal starts in the manifest file
	index   map[string]span // bucket -> its records in f
	cache   *lru
	journal *os.File
	// written says the journal has lines since the records were last
	// merged; okPut that one of them is of something mirrored.
	written, okPut bool
	err            error // first journal write error
}

// ErrManifestMismatch says the directory holds a mirror of another URL.
var ErrManifestMismatch = errors.New("the directory holds a mirror of another URL")

// loadManifest locks the directory and opens its manifest (if any). The
// manifest must be for url. One left with a journal (a run was killed) or
// of version 1 is merged into a sorted one first (in a dry run into a
// temporary copy); lines that do not parse (a line cut short by a crash)
// are dropped, and for each URL the last line counts.
func loadManifest(l *localFS, url string, dryRun bool) (*manifest, error) {
	m := &manifest{l: l, url: url, dryRun: dryRun, index: map[string]span{}, cache: newLRU()}
	if !dryRun {
		lf, err := l.root.Open(".")
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			lf.Close()
			return nil, fmt.Errorf("another urlget mirror is running in %s (the directory is locked)", l.dir)
		}
		m.lock = lf
	}
	if err := m.open(); err != nil {
		m.release()
		return nil, err
	}
	return m, nil
}

// open reads the manifest's header and indexes its records, merging
// first when it must be.
func (m *manifest) open() error {
	if err := m.l.checkDirs(ManifestName); err != nil {
		return err
	}
	f, err := m.l.open(ManifestName)
	if errors.Is(err, fs.ErrNotExist) {
		m.created = time.Now().UTC().Format(time.RFC3339)
		return nil
	}
	if err != nil {
		return err
	}
	fi, err := scanFile(f)
	if errors.Is(err, errNotManifest) {
		err = fmt.Errorf("%s is not an urlget mirror manifest", ManifestName)
	}
	if err != nil {
		f.Close()
		return err
	}
	h := fi.hdr
	if h.Version > manifestVersion {
		f.Close()
		return fmt.Errorf("%s has format version %d; this urlget reads version %d", ManifestName, h.Version, manifestVersion)
	}
	if h.URL != m.url {
		f.Close()
		return fmt.Errorf("%w: %s is a mirror of %s, not %s", ErrManifestMismatch, m.l.dir, h.URL, m.url)
	}
	m.created = h.Created
	if !fi.merge {
		m.f, m.sorted, m.index, m.jstart = f, fi.sorted, fi.index, fi.journal
		return nil
	}
	err = m.rewrite(f, fi.sorted, fi.journal)
	f.Close()
	return err
}

// rewrite merges the sorted records s of f and its journal from journal
// on into a new sorted manifest, which becomes the one read: renamed over
// the manifest, or in a dry run a temporary copy.
func (m *manifest) rewrite(f *os.File, s span, journal int64) error {
	if m.dryRun {
		out, drop, err := m.scratch()
		if err != nil {
			return err
		}
		index, err := m.merge(out, f, s, journal)
		if err != nil {
			drop()
			return err
		}
		m.useFile(out, index, drop)
		return nil
	}
	t, err := m.l.create(ManifestName)
	if err != nil {
		return err
	}
	index, err := m.merge(t, f, s, journal)
	if err != nil {
		t.discard()
		return err
	}
	m.mu.Lock()
	if m.journal != nil {
		m.journal.Close()
		m.journal = nil
	}
	m.mu.Unlock()
	if err := t.commit(ManifestName, time.Time{}); err != nil {
		return err
	}
	nf, err := m.l.open(ManifestName)
	if err != nil {
		return err
	}
	m.useFile(nf, index, nil)
	return nil
}

// useFile makes f, just written by merge, the sorted records read.
func (m *manifest) useFile(f *os.File, index map[string]span, drop func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f != nil {
		m.f.Close()
	}
	if m.drop != nil {
		m.drop()
	}
	m.f, m.drop, m.index, m.cache = f, drop, index, newLRU()
	m.sorted = span{int64(len(m.headerLine())), int64(len(m.headerLine()))}
	for _, s := range index {
		m.sorted.end = max(m.sorted.end, s.end)
	}
	m.jstart = m.sorted.end + int64(len(journalMark)) + 1
	m.written = false
}

// block returns the cached records of bucket b, reading them when they
// are not (m.mu held).
func (m *manifest) block(b string) *block {
	if blk, ok := m.cache.get(b); ok {
		return blk
	}
	blk := &block{bucket: b, recs: map[string][]byte{}}
	if s, ok := m.index[b]; ok && m.f != nil {
		if rb, err := readBlock(m.f, b, s); err == nil {
			blk = rb
		}
	}
	m.cache.add(blk)
	return blk
}

// get returns the record for url: as the manifest had it when the run
// began, or as this run put it (while its bucket is cached: a record is
// asked for while its directory is listed, and put after).
func (m *manifest) get(url string) (Record, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	line, ok := m.block(bucketOf(url)).recs[url]
	if !ok {
		return Record{}, false
	}
	var r Record
	if decodeRecord(line, &r) != nil {
		return Record{}, false
	}
	return r, true
}

// each calls fn for every record of the sorted file in order (the records
// as they were when the run began, or at the last flush), until fn
// returns false. With journal it then calls fn for the lines of this
// run's journal, in order: a URL changed this run is then seen more than
// once, its last version last.
func (m *manifest) each(journal bool, fn func(Record) bool) error {
	return m.eachIf(journal, nil, fn)
}

// eachIf is each for the records whose lines want (when not nil) takes:
// the others are not parsed.
func (m *manifest) eachIf(journal bool, want func(line []byte) bool, fn func(Record) bool) error {
	m.mu.Lock()
	f, s := m.f, m.sorted
	m.mu.Unlock()
	if f == nil {
		return m.eachJournal(journal, fn)
	}
	lr := newLineReader(f, s.off, s.end)
	for {
		line, _, ok := lr.next()
		if !ok {
			break
		}
		if want != nil && !want(line) {
			continue
		}
		var r Record
		if decodeRecord(line, &r) != nil || r.URL == "" {
			continue
		}
		if !fn(r) {
			return nil
		}
	}
	if err := lr.failed(); err != nil {
		return err
	}
	return m.eachJournal(journal, fn)
}

// eachJournal calls fn for the lines of this run's journal (with journal).
func (m *manifest) eachJournal(journal bool, fn func(Record) bool) error {
	if !journal || m.dryRun {
		return nil
	}
	m.mu.Lock()
	written := m.written
	m.mu.Unlock()
	if !written {
		return nil
	}
	f, err := m.l.open(ManifestName)
	if err != nil {
		return err
	}
	defer f.Close()
	m.mu.Lock()
	off := m.jstart
	m.mu.Unlock()
	lr := newLineReader(f, off, -1)
	for {
		line, _, ok := lr.next()
		if !ok {
			break
		}
		var r Record
		if decodeRecord(line, &r) != nil || r.URL == "" {
			continue
		}
		if !fn(r) {
			return nil
		}
	}
	return lr.failed()
}

// anyOK reports whether any record is of something mirrored.
func (m *manifest) anyOK() bool {
	m.mu.Lock()
	ok := m.okPut
	m.mu.Unlock()
	if ok {
		return true
	}
	m.each(false, func(r Record) bool {
		ok = r.Status == StatusOK
		return !ok
	})
	return ok
}

// put records r: appended to the journal, and to the cached records of
// its bucket.
func (m *manifest) put(r Record) {
	line, _ := json.Marshal(r)
	m.mu.Lock()
	defer m.mu.Unlock()
	if blk, ok := m.cache.get(bucketOf(r.URL)); ok {
		if r.Status == StatusDeleted {
			delete(blk.recs, r.URL)
		} else {
			blk.recs[r.URL] = line
		}
	}
	if m.dryRun {
		return
	}
	if m.journal == nil && m.err == nil {
		m.journal, m.err = m.openJournal()
	}
	if m.journal == nil || m.err != nil {
		// After a failed write (a full disk) nothing more is appended: a
		// torn line must stay the last one, which loading drops.
		return
	}
	if _, err := m.journal.Write(append(line[:len(line):len(line)], '\n')); err != nil && m.err == nil {
		m.err = err
	}
	m.written = true
	m.okPut = m.okPut || r.Status == StatusOK
}

// openJournal opens the manifest for appending, writing the header and
// the mark first when it is new.
func (m *manifest) openJournal() (*os.File, error) {
	f, err := m.l.root.OpenFile(ManifestName, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.Size() == 0 {
		// A new manifest: no records yet.
		hl := m.headerLine()
		if _, err := f.Write(append(hl, journalMark+"\n"...)); err != nil {
			f.Close()
			return nil, err
		}
		m.sorted = span{int64(len(hl)), int64(len(hl))}
		m.jstart = m.sorted.end + int64(len(journalMark)) + 1
		return f, nil
	}
	// A line torn by a crash ends the file: end it, so that the next
	// record is not glued to it (and lost with it).
	rf, err := m.l.root.Open(ManifestName)
	if err != nil {
		f.Close()
		return nil, err
	}
	var last [1]byte
	_, err = rf.ReadAt(last[:], fi.Size()-1)
	rf.Close()
	if err == nil && last[0] != '\n' {
		_, err = f.Write([]byte{'\n'})
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (m *manifest) headerLine() []byte {
	b, _ := json.Marshal(header{Manifest: "urlget", Version: manifestVersion, URL: m.url, Created: m.created})
	return append(b, '\n')
}

// flush merges this run's journal into the sorted records (a new file
// renamed over the manifest), so that each sees every record once, as it
// is now. Nothing is done when the journal is empty.
func (m *manifest) flush() error {
	m.mu.Lock()
	written := m.written
	m.mu.Unlock()
	if m.dryRun || !written {
		return nil
	}
	f, err := m.l.open(ManifestName)
	if err != nil {
		return err
	}
	defer f.Close()
	return m.rewrite(f, m.sorted, m.jstart)
}

// compact leaves the manifest with one line per URL, sorted, and no
// journal.
func (m *manifest) compact() error { return m.flush() }

// release closes the journal, the files and the lock.
func (m *manifest) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.journal != nil {
		m.journal.Close()
		m.journal = nil
	}
	if m.f != nil {
		m.f.Close()
		m.f = nil
	}
	if m.drop != nil {
		m.drop()
		m.drop = nil
	}
	if m.lock != nil {
		m.lock.Close()
		m.lock = nil
	}
}

// ReadManifest reads the manifest of the mirror in dir: every record, one
// per URL, as the last run left them (the journal of an interrupted run
// included), sorted by path and URL. It holds them all in memory.
func ReadManifest(dir string) (url string, recs []Record, err error) {
	f, err := os.Open(dir + "/" + ManifestName)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	lr := newLineReader(f, 0, -1)
	first, _, _ := lr.next()
	var h header
	if err := json.Unmarshal(first, &h); err != nil || h.Manifest == "" {
		if err := lr.failed(); err != nil {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("%s is not an urlget mirror manifest", ManifestName)
	}
	if h.Version > manifestVersion {
		return "", nil, fmt.Errorf("%s has format version %d; this urlget reads version %d", ManifestName, h.Version, manifestVersion)
	}
	byURL := map[string]Record{}
	for {
		line, _, ok := lr.next()
		if !ok {
			break
		}
		var r Record
		if err := decodeRecord(line, &r); err != nil || r.URL == "" {
			continue
		}
		if r.Status == StatusDeleted {
			delete(byURL, r.URL)
			continue
		}
		byURL[r.URL] = r
	}
	if err := lr.failed(); err != nil {
		return "", nil, err
	}
	recs = make([]Record, 0, len(byURL))
	for _, r := range byURL {
		recs = append(recs, r)
	}
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Path != recs[j].Path {
			return recs[i].Path < recs[j].Path
		}
		return recs[i].URL < recs[j].URL
	})
	return h.URL, recs, nil
}

// current returns the records that match, as they are now (this run's
// journal applied): what a pass over a part of the tree needs, in memory
// only as much as matches.
func (m *manifest) current(match func(Record) bool) (map[string]Record, error) {
	out := map[string]Record{}
	err := m.each(true, func(r Record) bool {
		if r.Status != StatusDeleted && match(r) {
			out[r.URL] = r
		} else {
			delete(out, r.URL)
		}
		return true
	})
	return out, err
}

// fail records an error of the manifest's file (the first one counts).
func (m *manifest) fail(err error) {
	m.mu.Lock()
	if m.err == nil {
		m.err = err
	}
	m.mu.Unlock()
}
