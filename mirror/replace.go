package mirror

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

// An item whose kind changed on the server — a link or a file that is now
// a directory of the same name, a directory that is now a file or a link —
// takes the place of its local copy at once (without Delete: the old kind
// is gone, since one name is one thing). displaced notes the old record
// when the listing shows the new kind, so that the path table hands the
// path to the new item; the disk is changed when the new item is written
// (makeDir, commitOver, linkOver): what stands there is swapped for the
// new item in one step (renameat2 RENAME_EXCHANGE, else moved aside first,
// so that the path never holds a mix of the two) and then removed, never
// through a link. A directory goes only when everything in it is the
// mirror's own (the manifest's paths, temporary and partial files):
// otherwise the new item fails and the directory stays.

// displaced is called before a path is claimed for an item whose name the
// manifest has as another item (other: the same name as a directory URL,
// or as a file or link URL), at the local path segs: that record gives the
// path up.
func (e *engine) displaced(other string, segs []string) {
	old, ok := e.man.get(other)
	if !ok || old.Path == "" || old.Path != path.Join(segs...) {
		return
	}
	e.paths.release(old.Path, old.Type == TypeDir)
	e.mu.Lock()
	if e.replacing == nil {
		e.replacing = map[string]Record{}
	}
	e.replacing[old.Path] = old
	e.mu.Unlock()
}

// takeReplacing returns the record whose local copy an item about to be
// written at rel replaces, if any.
func (e *engine) takeReplacing(rel string) (Record, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	r, ok := e.replacing[rel]
	delete(e.replacing, rel)
	return r, ok
}

// forget drops the records of old and, for a directory, of everything
// below it: their local copies are gone.
func (e *engine) forget(old Record) {
	recs, _ := e.man.current(func(r Record) bool {
		return r.URL == old.URL || old.Type == TypeDir && strings.HasPrefix(r.Path, old.Path+"/")
	})
	for _, r := range recs {
		e.man.put(Record{URL: r.URL, Status: StatusDeleted, Type: r.Type})
	}
}

// makeDir makes the local directory rel, in place of the file or link the
// manifest had there.
func (e *engine) makeDir(rel string) error {
	if old, ok := e.takeReplacing(rel); ok && old.Type != TypeDir {
		fi, err := e.fs.root.Lstat(rel)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0:
			tmp := e.fs.tmpName(rel)
			if err := e.fs.root.Mkdir(tmp, 0o755); err != nil {
				return err
			}
			if err := e.fs.swapIn(tmp, rel); err != nil {
				e.fs.root.Remove(tmp)
				return err
			}
		}
		e.forget(old)
	}
	return e.fs.mkdirAll(rel)
}

// replacedDir checks that the directory at rel, which the manifest's old
// record had there, may give way to a file or link: everything in it is
// the mirror's own. It reports false when no directory is to be replaced.
func (e *engine) replacedDir(rel string) (Record, bool, error) {
	old, ok := e.takeReplacing(rel)
	if !ok || old.Type != TypeDir {
		return old, false, nil
	}
	fi, err := e.fs.root.Lstat(rel)
	if err != nil || !fi.IsDir() {
		e.forget(old)
		return old, false, nil
	}
	below, err := e.man.current(func(r Record) bool { return strings.HasPrefix(r.Path, rel+"/") })
	if err != nil {
		return old, false, err
	}
	known := map[string]bool{}
	for _, r := range below {
		known[r.Path] = true
	}
	if p, ok := e.fs.ownTree(rel, known); !ok {
		return old, false, &fs.PathError{Op: "replace", Path: rel,
			Err: fmt.Errorf("the server has a file here now, but the directory holds %s, which the mirror did not make: left alone", p)}
	}
	return old, true, nil
}

// commitOver commits tmp as rel, in place of the directory the manifest
// had there.
func (e *engine) commitOver(tmp *tmpFile, rel string, mtime time.Time) error {
	old, replace, err := e.replacedDir(rel)
	if err != nil {
		tmp.discard()
		return err
	}
	if !replace {
		return tmp.commit(rel, mtime)
	}
	if err := tmp.f.Close(); err != nil {
		tmp.discard()
		return err
	}
	if err := e.fs.swapIn(tmp.rel, rel); err != nil {
		tmp.discard()
		return err
	}
	tmp.done = true
	e.forget(old)
	if !mtime.IsZero() {
		return e.fs.chtimes(rel, mtime)
	}
	return nil
}

// linkOver makes rel a symbolic link to target (localFS.symlink), in place
// of the directory the manifest had there.
func (e *engine) linkOver(target, rel string) (bool, error) {
	old, replace, err := e.replacedDir(rel)
	if err != nil {
		return false, err
	}
	if !replace {
		return e.fs.symlink(target, rel)
	}
	tmp := e.fs.tmpName(rel)
	if err := e.fs.root.Symlink(target, tmp); err != nil {
		return false, err
	}
	if err := e.fs.swapIn(tmp, rel); err != nil {
		e.fs.root.Remove(tmp)
		return false, err
	}
	e.forget(old)
	return true, nil
}

// tmpName is a new temporary name in the directory of rel.
func (l *localFS) tmpName(rel string) string {
	var rnd [8]byte
	rand.Read(rnd[:])
	return path.Join(path.Dir(rel), tmpPrefix+hex.EncodeToString(rnd[:]))
}

// swapIn puts what is at tmp (a temporary name in rel's directory) at rel,
// where something else stands, and removes that: exchanged in one step
// where the system can (Linux's RENAME_EXCHANGE), else moved aside to a
// temporary name first. Both names are single components of a directory
// checked to be one (no link on the way); what is removed is removed as it
// is (a link, never what it points to).
func (l *localFS) swapIn(tmp, rel string) error {
	if err := l.checkDirs(rel); err != nil {
		return err
	}
	aside := tmp
	if err := l.exchange(tmp, rel); err != nil {
		if !errors.Is(err, errNoExchange) {
			return err
		}
		aside = l.tmpName(rel)
		if err := l.root.Rename(rel, aside); err != nil {
			return err
		}
		if err := l.root.Rename(tmp, rel); err != nil {
			l.root.Rename(aside, rel)
			return err
		}
	}
	return l.root.RemoveAll(aside)
}

// errNoExchange says the system cannot exchange two names in one step.
var errNoExchange = errors.New("no atomic exchange")

// ownTree reports whether everything below the directory rel is in known
// (paths the manifest has), a temporary or partial file, or a directory
// holding only such things; else the first path that is not.
func (l *localFS) ownTree(rel string, known map[string]bool) (string, bool) {
	f, err := l.root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return rel, false
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return rel, false
	}
	for _, d := range ents {
		p := path.Join(rel, d.Name())
		switch {
		case known[p], strings.HasPrefix(d.Name(), tmpPrefix), strings.HasPrefix(d.Name(), partPrefix):
			if d.IsDir() {
				if q, ok := l.ownTree(p, known); !ok {
					return q, false
				}
			}
		case d.IsDir():
			if q, ok := l.ownTree(p, known); !ok {
				return q, false
			}
		default:
			return p, false
		}
	}
	return "", true
}
