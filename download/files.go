package download

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Files is what the Downloaders of transfers run at once share (through
// Downloader.Files): two transfers to one file write it one after the
// other, never both into one NAME.part; and files are created and renamed
// in a directory one at a time. The zero value is ready; a nil *Files
// holds nothing.
type Files struct {
	mu      sync.Mutex
	holding map[string]chan struct{} // output files being written
	dirs    map[string]*dirLock
}

type dirLock struct {
	sync.Mutex
	users int // transfers holding or waiting for it
}

// hold waits until no other transfer writes path, and keeps it until the
// function it returns is called. For stdout ("") it does nothing.
func (f *Files) hold(path string) (unhold func()) {
	if f == nil || path == "" {
		return func() {}
	}
	for {
		f.mu.Lock()
		ch, busy := f.holding[path]
		if !busy {
			if f.holding == nil {
				f.holding = map[string]chan struct{}{}
			}
			f.holding[path] = make(chan struct{})
			f.mu.Unlock()
			break
		}
		f.mu.Unlock()
		<-ch
	}
	return func() {
		f.mu.Lock()
		close(f.holding[path])
		delete(f.holding, path)
		f.mu.Unlock()
	}
}

// lockDir takes the lock of path's directory until the function it
// returns is called. The kernel creates and renames one at a time anyway
// (a directory's entries change under its lock), but a thread waiting for
// that lock spins on a CPU while the holder runs — on ext4 the holder may
// search the inode bitmap for a while — where a goroutine waiting here
// leaves the CPU to the transfers that are copying.
func (f *Files) lockDir(path string) (unlock func()) {
	if f == nil {
		return func() {}
	}
	dir := filepath.Dir(path)
	f.mu.Lock()
	l := f.dirs[dir]
	if l == nil {
		if f.dirs == nil {
			f.dirs = map[string]*dirLock{}
		}
		l = &dirLock{}
		f.dirs[dir] = l
	}
	l.users++
	f.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		f.mu.Lock()
		if l.users--; l.users == 0 {
			delete(f.dirs, dir)
		}
		f.mu.Unlock()
	}
}

// saveETag is ETagSave: the ETag as received and a newline, or an empty
// file when the response has none or an empty one, as curl writes it. A reply that
// changed nothing (304) leaves the file alone.
func (d *Downloader) saveETag(res *fetch.Meta) error {
	if d.ETagSave == "" || res.NotModified {
		return nil
	}
	etag := ""
	if v := res.Header.Get("ETag"); strings.TrimSpace(v) != "" {
		etag = v + "\n"
	}
	if err := os.WriteFile(d.ETagSave, []byte(etag), 0o666); err != nil {
		return fetch.NewError(fetch.ErrWrite, "--etag-save: cannot write "+d.ETagSave, fetch.PathCause(err))
	}
	return nil
}

// ReadETag reads the ETag in the file name (curl's --etag-compare, as
// ETagSave writes it) for IfNoneMatch: its first line, or `""` when that
// is empty, so that a condition is still sent. A file that cannot be read
// is ErrRead (curl's 26).
func ReadETag(name string) (string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return "", fetch.NewError(fetch.ErrRead, "--etag-compare: cannot read "+name, fetch.PathCause(err))
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	if etag := strings.TrimRight(string(line), "\r"); etag != "" {
		return etag, nil
	}
	return `""`, nil
}

// setXattr is Xattr: the URL as given, credentials taken out, and the
// type, as curl records them; a file system without extended attributes
// gets a warning, and the transfer still succeeds, as with curl.
func (d *Downloader) setXattr(out *output, r *Result) {
	if !d.Xattr || out.path == "" || out.untouched || out.direct {
		return
	}
	u, err := ParseURL(r.URL)
	if err != nil {
		return
	}
	attrs := [][2]string{{"user.xdg.origin.url", publicURL(u)}}
	if r.ContentType != "" {
		attrs = append([][2]string{{"user.mime_type", r.ContentType}}, attrs...)
	}
	for _, a := range attrs {
		if err := setXattr(out.path, a[0], a[1]); err != nil {
			d.warn("cannot set extended attributes on " + out.path + ": " + err.Error())
			return
		}
	}
}

// publicURL is u as a file's extended attribute records it: without its
// credentials.
func publicURL(u urlparse.URL) string {
	u.User, u.Password, u.RawUserinfo, u.HasUserinfo, u.HasPassword = "", "", "", false, false
	return u.String()
}

func (d *Downloader) warn(msg string) {
	if d.Warn != nil {
		d.Warn(msg)
	}
}
