package mirror

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urlget/urlget/internal/owner"
)

// tmpPrefix starts the names of files being written. A server's name never
// starts with "." (EncodeName), so these never collide with mirrored files.
const tmpPrefix = ".urlget-tmp-"

// errNotDir says a path component that must be a directory is something
// else in the local tree (a file, or a symbolic link, which is never
// followed).
var errNotDir = errors.New("not a directory (a file or a symbolic link is in the way)")

// localFS writes the mirror below its root. Every operation goes through
// an os.Root, which cannot leave the directory (no "..", no absolute
// paths, no symbolic link leading out); on top of that, directories are
// checked one component at a time with Lstat so that a symbolic link is
// never followed even inside the tree, and files are written to a new
// temporary name (O_EXCL: never through an existing link) and renamed over
// the target, which replaces a link instead of writing through it.
type localFS struct {
	root *os.Root
	dir  string // the root's path, for messages
}

func openLocal(dir string) (*localFS, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &localFS{root: r, dir: dir}, nil
}

func (l *localFS) close() error { return l.root.Close() }

// osPath is a slash-separated relative path as the local system spells it.
func osPath(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// mkdirAll makes the directory rel and its parents, refusing any component
// that exists as something other than a directory.
func (l *localFS) mkdirAll(rel string) error {
	if rel == "" {
		return nil
	}
	cur := ""
	for _, c := range strings.Split(rel, "/") {
		cur = path.Join(cur, c)
		fi, err := l.root.Lstat(cur)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil:
			return &fs.PathError{Op: "mkdir", Path: cur, Err: errNotDir}
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		if err := l.root.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		// Made by someone else meanwhile: check again.
		if fi, err := l.root.Lstat(cur); err != nil || !fi.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: cur, Err: errNotDir}
		}
	}
	return nil
}

// checkDirs verifies that every directory above rel is a real directory
// (not a symbolic link).
func (l *localFS) checkDirs(rel string) error {
	dir := path.Dir(rel)
	if dir == "." {
		return nil
	}
	cur := ""
	for _, c := range strings.Split(dir, "/") {
		cur = path.Join(cur, c)
		fi, err := l.root.Lstat(cur)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return &fs.PathError{Op: "open", Path: cur, Err: errNotDir}
		}
	}
	return nil
}

// tmpFile is a file being written: committed under its final name, or
// removed.
type tmpFile struct {
	l    *localFS
	f    *os.File
	rel  string // the temporary name
	h    hash.Hash
	n    int64
	done bool
	keep bool // a partial file (openPart): kept when not committed
}

// partPrefix starts the names of partial files: what a cut transfer left,
// kept (never under the final name) for the next run to continue with
// REST. The rest of the name says which URL and which version of the file
// (the server's size and time) the bytes belong to; a part no run claims
// is removed at the end of an uninterrupted run.
const partPrefix = ".urlget-part-"

// openPart opens (or makes) the partial file rel for appending, with what
// it holds already hashed: its size is where to continue from.
func (l *localFS) openPart(rel string) (*tmpFile, error) {
	_, err := l.mkParent(rel)
	if err != nil {
		return nil, err
	}
	if fi, err := l.root.Lstat(rel); err == nil && !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: errors.New("not a regular file")}
	}
	f, err := l.root.OpenFile(rel, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	t := &tmpFile{l: l, f: f, rel: rel, h: sha256.New(), keep: true}
	if t.n, err = io.Copy(t.h, f); err != nil {
		f.Close()
		return nil, err
	}
	return t, nil
}

// truncate empties a partial file (the server would not continue it).
func (t *tmpFile) truncate() error {
	if err := t.f.Truncate(0); err != nil {
		return err
	}
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	t.h.Reset()
	t.n = 0
	return nil
}

// mkParent makes the directory rel is in (when needed) and returns it,
// "" for the top.
func (l *localFS) mkParent(rel string) (string, error) {
	dir := path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	return dir, l.mkdirAll(dir)
}

// create opens a new temporary file in the directory of rel (made if
// needed).
func (l *localFS) create(rel string) (*tmpFile, error) {
	dir, err := l.mkParent(rel)
	if err != nil {
		return nil, err
	}
	for range 10 {
		var rnd [8]byte
		rand.Read(rnd[:])
		tmp := path.Join(dir, tmpPrefix+hex.EncodeToString(rnd[:]))
		f, err := l.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return &tmpFile{l: l, f: f, rel: tmp, h: sha256.New()}, nil
	}
	return nil, fmt.Errorf("cannot make a temporary file in %s", osPath(dir))
}

func (t *tmpFile) Write(p []byte) (int, error) {
	n, err := t.f.Write(p)
	t.h.Write(p[:n])
	t.n += int64(n)
	return n, err
}

// sum is the SHA-256 of what was written, in hex.
func (t *tmpFile) sum() string { return hex.EncodeToString(t.h.Sum(nil)) }

// discard closes and removes the temporary file (no-op once committed).
func (t *tmpFile) discard() {
	if t.done {
		return
	}
	t.done = true
	t.f.Close()
	if !t.keep {
		t.l.root.Remove(t.rel)
	}
}

// commit closes the file, renames it to rel and gives it mtime (when not
// zero). A directory at rel is an error; a file or symbolic link there is
// replaced (the link itself, never what it points to).
func (t *tmpFile) commit(rel string, mtime time.Time) error {
	if t.done {
		return errors.New("file already closed")
	}
	if err := t.f.Close(); err != nil {
		t.discard()
		return err
	}
	if err := t.l.checkDirs(rel); err != nil {
		t.discard()
		return err
	}
	fi, err := t.l.root.Lstat(rel)
	switch {
	case err == nil && fi.IsDir():
		t.discard()
		return &fs.PathError{Op: "rename", Path: rel, Err: errors.New("a directory is in the way")}
	case err == nil && fi.Mode().IsRegular():
		// A copy this process may not write is left as it is; one that is
		// another's is written in place, keeping its owner (internal/owner).
		if werr := owner.CanWrite(t.l.root.OpenFile, rel); werr != nil {
			t.keep = false // whole: nothing to continue
			t.discard()
			return &unwritableError{rel, werr}
		}
		if owner.Others(fi) {
			return t.copyInto(rel, mtime)
		}
	}
	if err := t.l.root.Rename(t.rel, rel); err != nil {
		t.discard()
		return err
	}
	t.done = true
	if !mtime.IsZero() {
		return t.l.chtimes(rel, mtime)
	}
	return nil
}

// unwritableError is a local copy this process may not write, left as it
// is: the run's error is then ErrWrite (curl's 23, as -o).
type unwritableError struct {
	rel string
	err error
}

func (e *unwritableError) Error() string {
	return e.rel + " is not writable: left as it is (" + e.err.Error() + ")"
}

func (e *unwritableError) Unwrap() error { return e.err }

// copyInto is commit for a file that is another user's or group's: the
// temporary file's bytes are written over it in place.
func (t *tmpFile) copyInto(rel string, mtime time.Time) error {
	in, err := t.l.root.Open(t.rel)
	if err != nil {
		t.discard()
		return err
	}
	defer in.Close()
	out, err := t.l.root.OpenFile(rel, os.O_WRONLY|os.O_TRUNC, 0)
	if err == nil {
		_, err = io.Copy(out, in)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	t.keep = false
	t.discard()
	if err != nil {
		return err
	}
	t.done = true
	if !mtime.IsZero() {
		return t.l.chtimes(rel, mtime)
	}
	return nil
}

// chtimes sets the modification (and access) time of rel, which must be a
// regular file or a directory (never through a symbolic link).
func (l *localFS) chtimes(rel string, mtime time.Time) error {
	fi, err := l.root.Lstat(osPath(rel))
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &fs.PathError{Op: "chtimes", Path: rel, Err: errors.New("a symbolic link")}
	}
	return l.root.Chtimes(osPath(rel), mtime, mtime)
}

// intact reports whether rel is a regular file of size bytes (size < 0:
// any size).
func (l *localFS) intact(rel string, size int64) bool {
	if l.checkDirs(rel) != nil {
		return false
	}
	fi, err := l.root.Lstat(rel)
	return err == nil && fi.Mode().IsRegular() && (size < 0 || fi.Size() == size)
}

// dirView is a local directory opened once for the lookups of many files
// in it (the entries of a listing): each is then one fstatat on the open
// directory, rather than a walk from the mirror's root that checks every
// directory on the way (intact). A rerun of a large mirror asks this of
// every file.
type dirView struct {
	l   *localFS
	dir string
	r   *os.Root // nil: lookups go through l
}

// view opens dir for lookups. It is used only when it is a real directory
// (no symbolic link on the way, checkDirs) and the one opened: should a
// directory on the way be swapped for a link meanwhile, the directory
// opened is not the one checked, and the lookups go through l.
func (l *localFS) view(dir string) *dirView {
	v := &dirView{l: l, dir: dir}
	if dir == "" || l.root == nil {
		return v
	}
	r, err := l.root.OpenRoot(osPath(dir))
	if err != nil {
		return v
	}
	fi, err := r.Stat(".")
	if err != nil || l.checkDirs(dir+"/x") != nil {
		r.Close()
		return v
	}
	if checked, err := l.root.Lstat(osPath(dir)); err != nil || !checked.IsDir() || !os.SameFile(fi, checked) {
		r.Close()
		return v
	}
	v.r = r
	return v
}

// intact is localFS.intact, for a file of the directory viewed in one
// lookup.
func (v *dirView) intact(rel string, size int64) bool {
	if v.r == nil || path.Dir(rel) != v.dir {
		return v.l.intact(rel, size)
	}
	fi, err := v.r.Lstat(osPath(path.Base(rel)))
	return err == nil && fi.Mode().IsRegular() && (size < 0 || fi.Size() == size)
}

// close closes the directory.
func (v *dirView) close() {
	if v.r != nil {
		v.r.Close()
		v.r = nil
	}
}

// move renames the regular file from to to, when nothing is at to (never
// through a symbolic link, never over anything).
func (l *localFS) move(from, to string) error {
	if !l.intact(from, -1) {
		return &fs.PathError{Op: "rename", Path: from, Err: errors.New("not a regular file")}
	}
	if _, err := l.mkParent(to); err != nil {
		return err
	}
	if err := l.checkDirs(to); err != nil {
		return err
	}
	if _, err := l.root.Lstat(to); !errors.Is(err, fs.ErrNotExist) {
		return &fs.PathError{Op: "rename", Path: to, Err: fs.ErrExist}
	}
	return l.root.Rename(from, to)
}

// symlink makes rel a symbolic link to target, unless it is one already
// (made reports whether it made one). Whatever else is at rel (a file,
// another link; never a directory) is replaced by a rename, never
// written through.
func (l *localFS) symlink(target, rel string) (made bool, err error) {
	dir, err := l.mkParent(rel)
	if err != nil {
		return false, err
	}
	if err := l.checkDirs(rel); err != nil {
		return false, err
	}
	if fi, err := l.root.Lstat(rel); err == nil {
		if fi.IsDir() {
			return false, &fs.PathError{Op: "symlink", Path: rel, Err: errors.New("a directory is in the way")}
		}
		if got, err := l.root.Readlink(rel); err == nil && got == target {
			return false, nil
		}
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, tmpPrefix+hex.EncodeToString(rnd[:]))
	if err := l.root.Symlink(target, tmp); err != nil {
		return false, err
	}
	if err := l.root.Rename(tmp, rel); err != nil {
		l.root.Remove(tmp)
		return false, err
	}
	return true, nil
}

// hashIs reports whether the regular file rel has the SHA-256 sum (hex),
// read never through a symbolic link.
func (l *localFS) hashIs(rel, sum string) bool {
	if sum == "" || !l.intact(rel, -1) {
		return false
	}
	f, err := l.open(rel)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == sum
}

// removeFile removes rel if it is a regular file or a symbolic link
// (never a directory, never what a link points to). A missing file is not
// an error.
func (l *localFS) removeFile(rel string) error {
	if err := l.checkDirs(rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	fi, err := l.root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return &fs.PathError{Op: "remove", Path: rel, Err: errors.New("is a directory")}
	}
	return l.root.Remove(rel)
}

// removeEmptyDir removes the directory rel if it is empty.
func (l *localFS) removeEmptyDir(rel string) error {
	if rel == "" {
		return nil
	}
	if err := l.checkDirs(rel); err != nil {
		return nil
	}
	fi, err := l.root.Lstat(rel)
	if err != nil || !fi.IsDir() {
		return nil
	}
	return l.root.Remove(rel) // fails when not empty: fine
}

// readFile reads a (small) regular file, never through a symbolic link.
func (l *localFS) readFile(rel string, max int64) ([]byte, error) {
	if err := l.checkDirs(rel); err != nil {
		return nil, err
	}
	f, err := l.open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// sweepTemp removes leftover temporary files (from an interrupted run) in
// the directory rel, and the partial files not in keep when keep is not
// nil.
func (l *localFS) sweepTemp(rel string, keep map[string]bool) {
	if l.checkDirs(path.Join(osPath(rel), "x")) != nil {
		return
	}
	f, err := l.root.OpenFile(osPath(rel), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		p := path.Join(osPath(rel), n)
		switch {
		case strings.HasPrefix(n, tmpPrefix):
			// A directory too: what a replaced item left (swapIn) when
			// the run ended before it was removed.
			l.root.RemoveAll(p)
		case keep != nil && strings.HasPrefix(n, partPrefix) && !keep[path.Join(rel, n)]:
			l.root.Remove(p)
		}
	}
}

// openLocalReadOnly opens dir for a dry run, which writes nothing: a
// directory that does not exist reads as empty.
func openLocalReadOnly(dir string) (*localFS, error) {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		r, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		return &localFS{root: r, dir: dir}, nil
	}
	tmp, err := os.MkdirTemp("", "urlget-mirror-dry-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp)
	r, err := os.OpenRoot(tmp)
	if err != nil {
		return nil, err
	}
	return &localFS{root: r, dir: dir}, nil
}

// findPart finds a partial file in the directory rel whose name starts
// with prefix and goes on "SIZE-UNIXTIME" (the version of the file it
// holds): its name, that size and time.
func (l *localFS) findPart(rel, prefix string) (name string, size int64, mtime time.Time, ok bool) {
	if l.checkDirs(path.Join(osPath(rel), "x")) != nil {
		return "", 0, time.Time{}, false
	}
	f, err := l.root.OpenFile(osPath(rel), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return "", 0, time.Time{}, false
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		rest, found := strings.CutPrefix(n, prefix)
		if !found {
			continue
		}
		a, b, found := strings.Cut(rest, "-")
		sz, err1 := strconv.ParseInt(a, 10, 64)
		ts, err2 := strconv.ParseInt(b, 10, 64)
		if found && err1 == nil && err2 == nil {
			return n, sz, time.Unix(ts, 0).UTC(), true
		}
	}
	return "", 0, time.Time{}, false
}

// dirOf is the directory of rel, "" for the top.
func dirOf(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}

// open opens the file rel for reading, never through a symbolic link.
func (l *localFS) open(rel string) (*os.File, error) {
	return l.root.OpenFile(rel, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}
