package mirror

// What a run keeps for its end without holding it in memory: the URLs it
// found (seenLog), read back sorted beside the manifest for the delete
// sweep, and the manifest's file paths and their owners (pathIndex).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
)

// seenLog is the URLs found this run: kept as lines (spilled to a
// scratch file past spillBytes) and sorted at the end (sortLines) to be
// read beside the sorted manifest, so that no set of them is held in
// memory.
type seenLog struct {
	mu   sync.Mutex
	list spillList
}

// add notes url.
func (s *seenLog) add(m *manifest, url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list.add(m, urlLine(url))
}

// sorted sorts what was noted; the caller closes the runs.
func (s *seenLog) sorted(m *manifest) (*runs, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lr, err := s.list.reader()
	if err != nil {
		return nil, err
	}
	return m.sortLines(lr, func(line []byte) (entry, bool) {
		u := lineURL(line)
		if u == "" {
			return entry{}, false
		}
		return entry{k: keyOf(u), line: bytes.Clone(line)}, true
	})
}

// close removes the scratch file.
func (s *seenLog) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list.close()
}

// seenCursor answers, for keys asked in ascending order, whether a sorted
// stream of keys holds them.
type seenCursor struct {
	next func() (key, bool)
	cur  key
	ok   bool
}

func newSeenCursor(r *runs) *seenCursor {
	c := &seenCursor{next: mergedKeys(r.sources())}
	c.cur, c.ok = c.next()
	return c
}

func (c *seenCursor) has(k key) bool {
	for c.ok && c.cur.less(k) {
		c.cur, c.ok = c.next()
	}
	return c.ok && c.cur == k
}

// pathIndex is the manifest's file paths and their owners, for the path
// table: written to a scratch file as the manifest is read, sorted by path
// (so by directory: bucketOf), and read a directory at a time; and the
// files of the directories a walker was done with (drop), in a scratch
// file of their own.
type pathIndex struct {
	raw   spillList // the paths as reserved
	m     *manifest
	f     *os.File // sorted
	fDrop func()
	index map[string]span
	// released are the prefixes given up (pathTable.release), gone the
	// files, each with the spill file's size then: what was spilled
	// after is newer.
	released []release
	gone     map[string]int64
	spillN   int64
	dropped  map[string]bool
	spill    *os.File
	spDrop   func()
	sw       *bufio.Writer
}

// release is a prefix given up, and when.
type release struct {
	pre string
	at  int64
}

// pathLine is a line of a pathIndex file.
type pathLine struct {
	Path  string `json:"url"` // so named that lineURL reads it: the sort key
	Owner string `json:"owner"`
}

// add notes a reserved file.
func (ix *pathIndex) add(m *manifest, url, p string) {
	b, _ := json.Marshal(pathLine{Path: p, Owner: url})
	ix.raw.add(m, b)
}

// seal sorts the reserved files into the sorted file; when they are few
// (never spilled), they are handed to keep instead, to be held in memory.
func (ix *pathIndex) seal(m *manifest, keep func(p, owner string)) error {
	ix.m = m
	defer ix.raw.close()
	lr, err := ix.raw.reader()
	if err != nil {
		return err
	}
	if ix.raw.f == nil {
		for {
			line, _, ok := lr.next()
			if !ok {
				return lr.failed()
			}
			var pl pathLine
			if decodePathLine(line, &pl) == nil {
				keep(pl.Path, pl.Owner)
			}
		}
	}
	r, err := m.sortLines(lr, func(line []byte) (entry, bool) {
		u := lineURL(line)
		return entry{k: keyOf(u), line: bytes.Clone(line)}, u != ""
	})
	if err != nil {
		return err
	}
	defer r.close()
	f, drop, err := m.scratch()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	iw := &indexWriter{w: bw, index: map[string]span{}}
	err = mergeLines(r.sources(), func(k key, line []byte) error {
		iw.line(k, line)
		return nil
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		drop()
		return err
	}
	ix.f, ix.fDrop, ix.index = f, drop, iw.finish()
	return nil
}

// load reads the files of a bucket.
func (ix *pathIndex) load(b string) map[string]string {
	out := map[string]string{}
	read := func(f *os.File, s span, spilled bool) {
		lr := newLineReader(f, s.off, s.end)
		for {
			line, off, ok := lr.next()
			if !ok {
				return
			}
			if !spilled {
				off = -1 // older than any release
			}
			var pl pathLine
			if decodePathLine(line, &pl) != nil || spilled && bucketOf(pl.Path) != b || ix.isReleased(pl.Path, off) {
				continue
			}
			out[pl.Path] = pl.Owner
		}
	}
	if s, ok := ix.index[b]; ok && ix.f != nil {
		read(ix.f, s, false)
	}
	if ix.dropped[b] && ix.sw.Flush() == nil {
		// Claimed in again: what it had when dropped (rare: read all).
		read(ix.spill, span{0, -1}, true)
	}
	return out
}

// isReleased reports whether the line for p at off (in the spill file;
// -1 for the sorted file) was given up after it was written.
func (ix *pathIndex) isReleased(p string, off int64) bool {
	if at, ok := ix.gone[p]; ok && off < at {
		return true
	}
	for _, r := range ix.released {
		if off < r.at && strings.HasPrefix(p, r.pre) {
			return true
		}
	}
	return false
}

// drop keeps the files of bucket b in the spill file; false when there is
// none (they stay in memory).
func (ix *pathIndex) drop(b string, files map[string]string) bool {
	if ix.m == nil {
		return false
	}
	if ix.spill == nil {
		f, drop, err := ix.m.scratch()
		if err != nil {
			return false
		}
		ix.spill, ix.spDrop, ix.sw, ix.dropped = f, drop, bufio.NewWriterSize(f, 64<<10), map[string]bool{}
	}
	for p, owner := range files {
		line, _ := json.Marshal(pathLine{Path: p, Owner: owner})
		ix.sw.Write(line)
		ix.sw.WriteByte('\n')
		ix.spillN += int64(len(line)) + 1
	}
	ix.dropped[b] = true
	return true
}

// release gives up the paths below pre.
func (ix *pathIndex) release(pre string) {
	ix.released = append(ix.released, release{pre, ix.spillN})
}

// releaseFile gives up the file p.
func (ix *pathIndex) releaseFile(p string) {
	if ix.gone == nil {
		ix.gone = map[string]int64{}
	}
	ix.gone[p] = ix.spillN
}

// close removes the scratch files.
func (ix *pathIndex) close() {
	ix.raw.close()
	for _, d := range []func(){ix.fDrop, ix.spDrop} {
		if d != nil {
			d()
		}
	}
	ix.fDrop, ix.spDrop = nil, nil
}
