package mirror

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
)

// keySet is a set of strings, for a walk of a graph: a gopher hole, whose
// documents any menu may link, must tell a document it has seen from one
// it has not without holding every one in memory. A key is held as its
// 16-byte digest (SHA-256's first half: two keys sharing one is beyond
// any mirror's size); up to keySetMem digests in memory, then sorted into
// a scratch file (a run) of which memory keeps every keyBlock-th digest,
// so that a lookup reads one block of each run. Runs are merged into one
// as they pile up (past keyRuns). When no scratch file can be made, the
// digests stay in memory: never a document taken as seen that was not.
type keySet struct {
	mu   sync.Mutex
	m    *manifest // for scratch files
	mem  map[keyDigest]struct{}
	runs []*keyRun
	err  error // a scratch file failed: no more spilling
}

type keyDigest [16]byte

// keyRun is a sorted scratch file of digests.
type keyRun struct {
	f     *os.File
	drop  func()
	n     int64       // digests in the file
	index []keyDigest // the first digest of each block
	// cache is the blocks read last (their numbers in at, -1 for none),
	// replaced in turn.
	cache [keyCache][]byte
	at    [keyCache]int
	next  int
}

// keyCache is how many blocks of each run are kept: a few menus of
// neighbouring directories read at once.
const keyCache = 8

// keySetMem is how many digests a keySet keeps in memory (about 50 bytes
// each with the map's overhead: under 1 MiB); keyBlock how many make a
// block of a run; keyRuns how many runs are kept before they are merged.
var (
	keySetMem = 16384
	keyBlock  = 256
	keyRuns   = 8
)

func newKeySet(m *manifest) *keySet {
	return &keySet{m: m, mem: map[keyDigest]struct{}{}}
}

// digestOf is key's digest: the first half of SHA-256 of its directory
// (up to its last "/"), then the first half of SHA-256 of the key, so
// that the keys of a directory, which a menu lists together, sort
// together: their lookups read the same block of a run, kept in its
// cache. Two keys share a digest only if both halves collide.
func digestOf(key string) keyDigest {
	dir := key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		dir = key[:i]
	}
	a, b := sha256.Sum256([]byte(dir)), sha256.Sum256([]byte(key))
	var d keyDigest
	copy(d[:8], a[:8])
	copy(d[8:], b[:8])
	return d
}

// add adds key and reports whether it is new.
func (s *keySet) add(key string) bool {
	d := digestOf(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.mem[d]; ok {
		return false
	}
	for _, r := range s.runs {
		if r.has(d) {
			return false
		}
	}
	s.mem[d] = struct{}{}
	if len(s.mem) >= keySetMem && s.err == nil {
		s.spill()
	}
	return true
}

// has reports whether d is in the run.
func (r *keyRun) has(d keyDigest) bool {
	// The last block whose first digest is at most d.
	i := sort.Search(len(r.index), func(i int) bool { return bytes.Compare(r.index[i][:], d[:]) > 0 }) - 1
	if i < 0 {
		return false
	}
	buf := r.block(i)
	if buf == nil {
		// A scratch file that cannot be read back: taken as not seen
		// (the document is fetched twice, never missed).
		return false
	}
	n := len(buf) / 16
	j := sort.Search(n, func(j int) bool { return bytes.Compare(buf[j*16:j*16+16], d[:]) >= 0 })
	return j < n && bytes.Equal(buf[j*16:j*16+16], d[:])
}

// block returns block i of the run, from the cache or read into it; nil
// when it cannot be read.
func (r *keyRun) block(i int) []byte {
	for c, at := range r.at {
		if at == i && r.cache[c] != nil {
			return r.cache[c]
		}
	}
	n := min(int64(keyBlock), r.n-int64(i)*int64(keyBlock))
	c := r.next
	r.next = (r.next + 1) % keyCache
	buf := r.cache[c]
	if int64(cap(buf)) < n*16 {
		buf = make([]byte, n*16)
	}
	buf = buf[:n*16]
	if _, err := r.f.ReadAt(buf, int64(i)*int64(keyBlock)*16); err != nil {
		r.cache[c], r.at[c] = nil, -1
		return nil
	}
	r.cache[c], r.at[c] = buf, i
	return buf
}

// spill writes the digests in memory as a run (s.mu held), merging the
// runs into one when there are too many.
func (s *keySet) spill() {
	ds := make([]keyDigest, 0, len(s.mem))
	for d := range s.mem {
		ds = append(ds, d)
	}
	slices.SortFunc(ds, func(a, b keyDigest) int { return bytes.Compare(a[:], b[:]) })
	srcs := []digestSource{&memDigests{ds: ds}}
	merge := len(s.runs) >= keyRuns
	if merge {
		for _, r := range s.runs {
			srcs = append(srcs, &fileDigests{r: bufio.NewReaderSize(io.NewSectionReader(r.f, 0, r.n*16), 16<<10)})
		}
	}
	r, err := s.writeRun(srcs)
	if err != nil {
		s.err = err
		return
	}
	if merge {
		for _, old := range s.runs {
			old.drop()
		}
		s.runs = s.runs[:0]
	}
	s.runs = append(s.runs, r)
	clear(s.mem)
}

// writeRun merges the sorted sources into a new run.
func (s *keySet) writeRun(srcs []digestSource) (*keyRun, error) {
	f, drop, err := s.m.scratch()
	if err != nil {
		return nil, err
	}
	r := &keyRun{f: f, drop: drop}
	for c := range r.at {
		r.at[c] = -1
	}
	w := bufio.NewWriterSize(f, 64<<10)
	for {
		var d keyDigest
		found := false
		for _, src := range srcs {
			if c, ok := src.peek(); ok && (!found || bytes.Compare(c[:], d[:]) < 0) {
				d, found = c, true
			}
		}
		if !found {
			break
		}
		for _, src := range srcs { // the same digest in two sources: once
			if c, ok := src.peek(); ok && c == d {
				src.advance()
			}
		}
		if r.n%int64(keyBlock) == 0 {
			r.index = append(r.index, d)
		}
		w.Write(d[:])
		r.n++
	}
	for _, src := range srcs {
		if err := src.failed(); err != nil {
			drop()
			return nil, err
		}
	}
	if err := w.Flush(); err != nil {
		drop()
		return nil, err
	}
	return r, nil
}

// close removes the scratch files.
func (s *keySet) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.runs {
		r.drop()
	}
	s.runs, s.mem = nil, nil
}

// digestSource is a sorted stream of digests.
type digestSource interface {
	peek() (keyDigest, bool)
	advance()
	failed() error
}

type memDigests struct{ ds []keyDigest }

func (m *memDigests) peek() (keyDigest, bool) {
	if len(m.ds) == 0 {
		return keyDigest{}, false
	}
	return m.ds[0], true
}
func (m *memDigests) advance()      { m.ds = m.ds[1:] }
func (m *memDigests) failed() error { return nil }

type fileDigests struct {
	r      *bufio.Reader
	d      keyDigest
	loaded bool
	done   bool
	err    error
}

func (f *fileDigests) peek() (keyDigest, bool) {
	if !f.loaded && !f.done {
		if _, err := io.ReadFull(f.r, f.d[:]); err != nil {
			f.done = true
			if err != io.EOF {
				f.err = err
			}
		} else {
			f.loaded = true
		}
	}
	return f.d, f.loaded
}
func (f *fileDigests) advance()      { f.loaded = false }
func (f *fileDigests) failed() error { return f.err }
