package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxComponent bounds one local path component (most file systems allow
// 255 bytes).
const maxComponent = 255

// EncodeName maps one name supplied by a server (an FTP listing entry, one
// segment of a gopher selector, a host name) to one local path component
// that cannot leave the directory it is created in:
//
//   - the bytes that have no business in a file name — "/", "\", control
//     bytes (below 0x20, 0x7F, and the C1 controls U+0080–U+009F), and
//     bytes that are not part of valid UTF-8 — become %XX;
//   - "%" stays as it is ("100%.txt" is saved as "100%.txt", as lftp and
//     wget save it) unless what follows it would read as an escape: two
//     hex digits or "~"; then it is %25;
//   - a leading "." or "@" becomes %2E or %40: no hidden files, never "."
//     or "..", and the names urlget uses itself (".urlget-…", ".gopher-menu",
//     "@host:port") cannot come from a server;
//   - a result longer than 255 bytes is cut, and "%~" and 16 hex digits of
//     the name's SHA-256 are appended, so that long names stay distinct.
//
// The mapping is one-to-one (apart from the cut of over-long names), so two
// names never share a file; the empty name gives "%~empty". DecodeName
// gives the name back: every %XX is a byte, any other "%" is itself.
func EncodeName(name string) string {
	if name == "" {
		return "%~empty"
	}
	var b strings.Builder
	b.Grow(len(name) + 8)
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == '%' && escapeLike(name[i+1:]) || i == 0 && (c == '.' || c == '@') {
				writeEscape(&b, c)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n == 1 || r >= 0x80 && r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff {
			for k := 0; k < n; k++ {
				writeEscape(&b, name[i+k])
			}
		} else {
			b.WriteString(name[i : i+n])
		}
		i += n
	}
	s := b.String()
	if len(s) <= maxComponent {
		return s
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "%~" + hex.EncodeToString(sum[:8])
	cut := maxComponent - len(suffix)
	// Never cut inside a %XX escape or a UTF-8 sequence.
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if cut >= 1 && s[cut-1] == '%' {
		cut--
	} else if cut >= 2 && s[cut-2] == '%' {
		cut -= 2
	}
	return s[:cut] + suffix
}

// escapeLike reports whether rest, what follows a "%", would make it read
// as an escape of EncodeName's: two hex digits, or "~".
func escapeLike(rest string) bool {
	return strings.HasPrefix(rest, "~") || len(rest) >= 2 && isHex(rest[0]) && isHex(rest[1])
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// DecodeName is EncodeName's inverse (for names that were not cut): every
// %XX is the byte XX, any other "%" is itself.
func DecodeName(local string) string {
	if !strings.Contains(local, "%") {
		return local
	}
	var b strings.Builder
	for i := 0; i < len(local); i++ {
		c := local[i]
		if c == '%' && i+2 < len(local) && isHex(local[i+1]) && isHex(local[i+2]) {
			v, _ := strconv.ParseUint(local[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func writeEscape(b *strings.Builder, c byte) {
	const hexd = "0123456789ABCDEF"
	b.WriteByte('%')
	b.WriteByte(hexd[c>>4])
	b.WriteByte(hexd[c&15])
}

// validName is name when it is UTF-8 (JSON can hold it), else "": the
// record's URL always has the exact bytes, percent-encoded.
func validName(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	return ""
}

// gopherReserved are local names urlget writes into a menu's directory
// itself: a server's item of that name is encoded.
var gopherReserved = map[string]bool{"gophermap": true}

// encodeGopherSegment is EncodeName for a selector segment: the name of the
// rewritten menu ("gophermap") is reserved as well.
func encodeGopherSegment(s string) string {
	if gopherReserved[s] {
		return "%" + strings.ToUpper(strconv.FormatInt(int64(s[0]), 16)) + s[1:]
	}
	return EncodeName(s)
}

// SelectorPath maps a gopher selector to local path components: the
// selector's names (selectorNames: split at "/", gophernicus's "#ooo"
// escapes decoded), each encoded (EncodeName; "gophermap" is reserved
// too). "", "/" and "//" give no components (the root).
func SelectorPath(selector string) []string {
	names := selectorNames(selector)
	for i, s := range names {
		names[i] = encodeGopherSegment(s)
	}
	return names
}

// selectorNames splits a gopher selector at "/" into the names of its
// segments, empty segments dropped, each decoded as gophernicus encodes
// it: "#" and three octal digits is that byte ("#040" a space, "#043" a
// "#" itself, which gophernicus always escapes). gophernicus names one
// directory both ways — "/pub/dir#040x/" in its parent's menu, "/pub/dir
// x/…" in the items of its own — so that only decoded are the two one
// local directory. On another server a selector with such a "#" gets the
// decoded local name all the same (the manifest's URL and name keep the
// selector as it was).
func selectorNames(selector string) []string {
	var out []string
	for _, s := range strings.Split(selector, "/") {
		if s != "" {
			out = append(out, decodeOctalEscapes(s))
		}
	}
	return out
}

// decodeOctalEscapes replaces every "#ooo" (three octal digits, at most
// 377) in s with the byte it stands for.
func decodeOctalEscapes(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) && s[i+1] <= '3' {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// hostComponent is the local directory of another gopher host's items
// (with --span-hosts): "@host:port". A leading "@" never comes from
// EncodeName, so it cannot collide with a selector's path.
func hostComponent(host string, port int) string {
	return "@" + EncodeName(strings.ToLower(host)) + ":" + strconv.Itoa(port)
}

// pathTable hands out local paths, so that no two URLs share one and no
// file stands where a directory is needed. Paths are slash-separated and
// relative to the mirror's root.
//
// Directories are held in memory; files by directory, and only for the
// directories in use: the manifest's file paths (reserveFile) are sorted
// into a scratch file read a directory at a time (runlists.go's pathIndex),
// and a walker that claims a directory's files in one listing (FTP, HTTP)
// says when it is done with it, which drops its files from memory (kept
// in a scratch file of their own, read back should the directory be
// claimed in again).
type pathTable struct {
	mu    sync.Mutex
	files map[string]map[string]string // bucketOf(file path) -> file path -> the URL that owns it
	dirs  map[string]string            // directory path -> the URL that owns it ("" for a directory only implied by a path)
	alias map[string]string            // directory as computed -> as handed out (differs after a clash with a file)
	ix    pathIndex
	held  int // files in memory (about: for done)
	// fresh is, by bucket, the files claimed this run for another owner
	// than the manifest's: what done must keep when the manifest's are
	// in the pathIndex file.
	fresh map[string]map[string]string
}

// dropFiles is how many files in memory make done drop a directory's: a
// small mirror makes no scratch file.
var dropFiles = 16384

func newPathTable() *pathTable {
	return &pathTable{files: map[string]map[string]string{}, dirs: map[string]string{"": ""}, alias: map[string]string{},
		fresh: map[string]map[string]string{}}
}

// reserve records a directory from the manifest as owned by url: a later
// claim by url gets it back, and other URLs keep off it.
func (t *pathTable) reserve(url, p string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.markDirs(p)
	t.dirs[p] = url
}

// reserveFile does the same for a file (noted in the list of the
// manifest's paths until seal).
func (t *pathTable) reserveFile(m *manifest, url, p string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.markDirs(path.Dir(p))
	t.ix.add(m, url, p)
}

// seal ends the reservations.
func (t *pathTable) seal(m *manifest) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ix.seal(m, func(p, owner string) {
		t.inBucket(p)[p] = owner
		t.held++
	})
}

// close removes the scratch files.
func (t *pathTable) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ix.close()
}

// inBucket is the map of files of p's directory, read when it is not
// (t.mu held).
func (t *pathTable) inBucket(p string) map[string]string {
	b := bucketOf(p)
	if m, ok := t.files[b]; ok {
		return m
	}
	m := t.ix.load(b)
	t.files[b] = m
	t.held += len(m)
	return m
}

// fileOwner reports whether p is a file, and its owner (t.mu held).
func (t *pathTable) fileOwner(p string) (string, bool) {
	owner, ok := t.inBucket(p)[p]
	return owner, ok
}

// done drops the files of the local directory dir from memory: the walker
// claims no more in it.
func (t *pathTable) done(dir string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := ""
	if dir != "" {
		b = dir + "/"
	}
	m, ok := t.files[b]
	if !ok || t.held <= dropFiles {
		return
	}
	keep := m
	if t.ix.f != nil {
		keep = t.fresh[b] // the others are in the pathIndex file
	}
	if t.ix.drop(b, keep) {
		delete(t.files, b)
		delete(t.fresh, b)
		t.held -= len(m)
	}
}

// markDirs records p and its ancestors as directories.
func (t *pathTable) markDirs(p string) {
	for p != "." && p != "" && p != "/" {
		if _, ok := t.dirs[p]; ok {
			return
		}
		t.dirs[p] = ""
		p = path.Dir(p)
	}
}

// resolveDir returns the local directory for the components segs, made
// unique against files: a component that names a file gets a suffix
// "%!2", "%!3", … (never produced by EncodeName).
func (t *pathTable) resolveDir(segs []string) string {
	cur := ""
	for _, s := range segs {
		key := cur + "\x00" + s
		if a, ok := t.alias[key]; ok {
			cur = a
			continue
		}
		cand := path.Join(cur, s)
		for n := 2; ; n++ {
			if _, isFile := t.fileOwner(cand); !isFile {
				break
			}
			cand = path.Join(cur, s+"%!"+strconv.Itoa(n))
		}
		t.alias[key] = cand
		if _, ok := t.dirs[cand]; !ok {
			t.dirs[cand] = ""
		}
		cur = cand
	}
	return cur
}

// claimFile returns the local file path for url, whose components are
// segs (at least one): its own earlier path when it has one, else a free
// one.
func (t *pathTable) claimFile(url string, segs []string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	dir := t.resolveDir(segs[:len(segs)-1])
	last := segs[len(segs)-1]
	cand := path.Join(dir, last)
	for n := 2; ; n++ {
		owner, isFile := t.fileOwner(cand)
		_, isDir := t.dirs[cand]
		if !isDir && (!isFile || owner == url) {
			break
		}
		cand = path.Join(dir, last+"%!"+strconv.Itoa(n))
	}
	m := t.inBucket(cand)
	old, ok := m[cand]
	if !ok {
		t.held++
	}
	if old != url {
		b := bucketOf(cand)
		if t.fresh[b] == nil {
			t.fresh[b] = map[string]string{}
		}
		t.fresh[b][cand] = url
	}
	m[cand] = url
	return cand
}

// claimDir returns the local directory for url (a menu, an FTP directory):
// a directory that no other URL owns.
func (t *pathTable) claimDir(url string, segs []string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(segs) == 0 {
		if owner := t.dirs[""]; owner == "" || owner == url {
			t.dirs[""] = url
			return ""
		}
		segs = []string{"@root"}
	}
	parent := t.resolveDir(segs[:len(segs)-1])
	last := segs[len(segs)-1]
	cand := path.Join(parent, last)
	for n := 2; ; n++ {
		_, isFile := t.fileOwner(cand)
		owner, isDir := t.dirs[cand]
		if !isFile && (!isDir || owner == "" || owner == url) {
			break
		}
		cand = path.Join(parent, last+"%!"+strconv.Itoa(n))
	}
	t.dirs[cand] = url
	if _, ok := t.alias[parent+"\x00"+last]; !ok {
		t.alias[parent+"\x00"+last] = cand
	}
	return cand
}

// release gives up the path p (a file, or a directory and everything
// reserved below it): the manifest's item there was replaced on the server
// by one of another kind, which claims it next.
func (t *pathTable) release(p string, dir bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !dir {
		delete(t.inBucket(p), p)
		delete(t.fresh[bucketOf(p)], p)
		t.ix.releaseFile(p)
		return
	}
	delete(t.dirs, p)
	pre := p + "/"
	for k := range t.dirs {
		if strings.HasPrefix(k, pre) {
			delete(t.dirs, k)
		}
	}
	for b := range t.files {
		if strings.HasPrefix(b, pre) {
			delete(t.files, b)
		}
	}
	t.ix.release(pre)
	for k, v := range t.alias {
		if v == p || strings.HasPrefix(v, pre) {
			delete(t.alias, k)
		}
	}
}
