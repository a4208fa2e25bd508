package mirror

import (
	"bufio"
	"bytes"
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
const manifestVersion = 1

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

// manifest is the loaded manifest and its journal: every change is
// appended as a line as it happens, so that a run that is killed loses
// nothing it finished; compact rewrites the file with one line per URL.
type manifest struct {
	mu      sync.Mutex
	l       *localFS
	url     string
	created string
	recs    map[string]*Record
	journal *os.File
	lock    *os.File
	dryRun  bool
	err     error // first journal write error
}

// ErrManifestMismatch says the directory holds a mirror of another URL.
var ErrManifestMismatch = errors.New("the directory holds a mirror of another URL")

// loadManifest locks the directory and reads its manifest (if any). The
// manifest must be for url. Lines that do not parse (a line cut short by a
// crash) are skipped; for each URL the last line counts.
func loadManifest(l *localFS, url string, dryRun bool) (*manifest, error) {
	m := &manifest{l: l, url: url, recs: map[string]*Record{}, dryRun: dryRun}
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
	data, err := l.readFile(ManifestName, 1<<40)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		m.created = time.Now().UTC().Format(time.RFC3339)
	case err != nil:
		m.release()
		return nil, err
	default:
		if err := m.parse(data); err != nil {
			m.release()
			return nil, err
		}
	}
	return m, nil
}

func (m *manifest) parse(data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	first := true
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if first {
			first = false
			var h header
			if err := json.Unmarshal(line, &h); err != nil || h.Manifest == "" {
				return fmt.Errorf("%s is not an urlget mirror manifest", ManifestName)
			}
			if h.Version > manifestVersion {
				return fmt.Errorf("%s has format version %d; this urlget reads version %d", ManifestName, h.Version, manifestVersion)
			}
			if h.URL != m.url {
				return fmt.Errorf("%w: %s is a mirror of %s, not %s", ErrManifestMismatch, m.l.dir, h.URL, m.url)
			}
			m.created = h.Created
			continue
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil || r.URL == "" {
			continue
		}
		if r.Status == StatusDeleted {
			delete(m.recs, r.URL)
			continue
		}
		rr := r
		m.recs[r.URL] = &rr
	}
	return sc.Err()
}

// get returns a copy of the record for url.
func (m *manifest) get(url string) (Record, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.recs[url]
	if !ok {
		return Record{}, false
	}
	return *r, true
}

// all returns copies of every record.
func (m *manifest) all() []Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Record, 0, len(m.recs))
	for _, r := range m.recs {
		out = append(out, *r)
	}
	return out
}

// anyOK reports whether any record is of something mirrored.
func (m *manifest) anyOK() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.recs {
		if r.Status == StatusOK {
			return true
		}
	}
	return false
}

// put stores r and appends it to the journal.
func (m *manifest) put(r Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Status == StatusDeleted {
		delete(m.recs, r.URL)
	} else {
		rr := r
		m.recs[r.URL] = &rr
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
	line, _ := json.Marshal(r)
	line = append(line, '\n')
	if _, err := m.journal.Write(line); err != nil && m.err == nil {
		m.err = err
	}
}

// openJournal opens the manifest for appending, writing the header first
// when it is new.
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
		if _, err := f.Write(m.headerLine()); err != nil {
			f.Close()
			return nil, err
		}
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

// compact rewrites the manifest with one line per URL, sorted by path
// then URL, through a temporary file renamed over it.
func (m *manifest) compact() error {
	if m.dryRun {
		return nil
	}
	m.mu.Lock()
	recs := make([]*Record, 0, len(m.recs))
	for _, r := range m.recs {
		recs = append(recs, r)
	}
	m.mu.Unlock()
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Path != recs[j].Path {
			return recs[i].Path < recs[j].Path
		}
		return recs[i].URL < recs[j].URL
	})
	t, err := m.l.create(ManifestName)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(t, 64<<10)
	w.Write(m.headerLine())
	for _, r := range recs {
		b, _ := json.Marshal(r)
		w.Write(b)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.discard()
		return err
	}
	m.mu.Lock()
	if m.journal != nil {
		m.journal.Close()
		m.journal = nil
	}
	m.mu.Unlock()
	return t.commit(ManifestName, time.Time{})
}

// release closes the journal and the lock.
func (m *manifest) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.journal != nil {
		m.journal.Close()
		m.journal = nil
	}
	if m.lock != nil {
		m.lock.Close()
		m.lock = nil
	}
}

// ReadManifest reads the manifest of the mirror in dir: every record, one
// per URL, as the last run left them (the journal of an interrupted run
// included).
func ReadManifest(dir string) (url string, recs []Record, err error) {
	data, err := os.ReadFile(dir + "/" + ManifestName)
	if err != nil {
		return "", nil, err
	}
	var h header
	line, _, _ := bytes.Cut(data, []byte("\n"))
	if err := json.Unmarshal(line, &h); err != nil || h.Manifest == "" {
		return "", nil, fmt.Errorf("%s is not an urlget mirror manifest", ManifestName)
	}
	m := &manifest{url: h.URL, recs: map[string]*Record{}, l: &localFS{dir: dir}}
	if err := m.parse(data); err != nil {
		return "", nil, err
	}
	recs = m.all()
	sort.Slice(recs, func(i, j int) bool {
		if recs[i].Path != recs[j].Path {
			return recs[i].Path < recs[j].Path
		}
		return recs[i].URL < recs[j].URL
	})
	return h.URL, recs, nil
}
