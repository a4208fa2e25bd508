package file

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// sortLimit is the largest directory listed sorted by name (a variable
// for tests).
var sortLimit = 4096

const (
	// batch is how many entries are read at a time past sortLimit.
	batch = 256
	// timeFormat is MTIME in a listing line.
	timeFormat = "2006-01-02T15:04:05Z"
)

// lister is the Body of a directory: it reads entries a batch at a time and
// formats them as listing lines, so memory stays bounded.
type lister struct {
	f       *os.File
	dir     string
	started bool
	eof     bool
	pending []os.DirEntry
	out     []byte // formatted, not yet read: out[off:]
	off     int
}

func (l *lister) Read(p []byte) (int, error) {
	for l.off == len(l.out) {
		if len(l.pending) == 0 {
			if l.eof {
				return 0, io.EOF
			}
			if err := l.fill(); err != nil {
				return 0, err
			}
			continue
		}
		l.out, l.off = l.out[:0], 0
		n := min(len(l.pending), 64)
		for _, e := range l.pending[:n] {
			l.out = l.appendEntry(l.out, e)
		}
		l.pending = l.pending[n:]
	}
	n := copy(p, l.out[l.off:])
	l.off += n
	return n, nil
}

func (l *lister) fill() error {
	var ents []os.DirEntry
	want := batch
	if !l.started {
		l.started, want = true, sortLimit
	}
	for len(ents) < want {
		got, err := l.f.ReadDir(min(batch, want-len(ents)))
		ents = append(ents, got...)
		if err == io.EOF {
			l.eof = true
			break
		}
		if err != nil {
			return &fetch.Error{Kind: fetch.ErrFileRead, Msg: "reading directory " + l.dir, Err: err}
		}
	}
	slices.SortFunc(ents, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	l.pending = ents
	return nil
}

func (l *lister) Close() error { return l.f.Close() }

// appendEntry formats one listing line. An entry that vanished since the
// directory was read is left out.
func (l *lister) appendEntry(b []byte, e os.DirEntry) []byte {
	fi, err := e.Info()
	if err != nil {
		return b
	}
	target := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ = os.Readlink(filepath.Join(l.dir, e.Name()))
	}
	return AppendLine(b, fi, target)
}

// AppendLine appends the listing line for fi (see the package
// documentation) to b, newline included; target is the link target of a
// symbolic link.
func AppendLine(b []byte, fi fs.FileInfo, target string) []byte {
	b = append(b, typeLetter(fi.Mode()), ' ')
	b = strconv.AppendInt(b, fi.Size(), 10)
	b = append(b, ' ')
	b = fi.ModTime().UTC().AppendFormat(b, timeFormat)
	b = append(b, ' ')
	b = appendEscaped(b, fi.Name(), true)
	if fi.Mode()&fs.ModeSymlink != 0 {
		b = append(b, " -> "...)
		b = appendEscaped(b, target, false)
	}
	return append(b, '\n')
}

func typeLetter(m fs.FileMode) byte {
	switch {
	case m.IsRegular():
		return '-'
	case m.IsDir():
		return 'd'
	case m&fs.ModeSymlink != 0:
		return 'l'
	case m&fs.ModeNamedPipe != 0:
		return 'p'
	case m&fs.ModeSocket != 0:
		return 's'
	case m&fs.ModeCharDevice != 0:
		return 'c'
	case m&fs.ModeDevice != 0:
		return 'b'
	}
	return '?'
}

const hexDigits = "0123456789abcdef"

func appendEscaped(b []byte, s string, name bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c < 0x20 || c == 0x7f, name && c == '>' && i >= 2 && s[i-2:i] == " -":
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		default:
			b = append(b, c)
		}
	}
	return b
}

// unescape reverses appendEscaped; ok is false for a malformed escape.
func unescape(s string) (string, bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		if i+1 == len(s) {
			return "", false
		}
		i++
		switch s[i] {
		case '\\':
			b = append(b, '\\')
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 'x':
			if i+2 >= len(s) {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", false
			}
			b = append(b, byte(v))
			i += 2
		default:
			return "", false
		}
	}
	return string(b), true
}

// ParseLine parses one line of a file: directory listing (see the package
// documentation) into an Entry; base, when not empty, is the directory's URL
// ending in "/", under which Entry.URL is made. A line that does not follow
// the format is an Unparsed entry.
func ParseLine(line []byte, base string) fetch.Entry { return parseLine(line, base) }

func parseLine(line []byte, base string) fetch.Entry {
	raw := string(line)
	bad := fetch.Entry{Raw: raw, Unparsed: true, Size: -1}
	typ, rest, ok1 := strings.Cut(raw, " ")
	size, rest, ok2 := strings.Cut(rest, " ")
	mtime, rest, ok3 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !ok3 || len(typ) != 1 || rest == "" {
		return bad
	}
	e := fetch.Entry{Raw: raw}
	var err error
	if e.Size, err = strconv.ParseInt(size, 10, 64); err != nil || e.Size < 0 {
		return bad
	}
	if e.ModTime, err = time.Parse(timeFormat, mtime); err != nil {
		return bad
	}
	name := rest
	switch typ[0] {
	case '-':
		e.Type = fetch.EntryFile
	case 'd':
		e.Type = fetch.EntryDir
	case 'l':
		e.Type = fetch.EntryLink
		var target string
		var ok bool
		name, target, ok = strings.Cut(rest, " -> ")
		if !ok {
			return bad
		}
		if e.Target, ok = unescape(target); !ok {
			return bad
		}
	case 'p', 's', 'c', 'b':
		e.Type = fetch.EntryOther
	case '?':
		e.Type = fetch.EntryUnknown
	default:
		return bad
	}
	var ok bool
	if e.Name, ok = unescape(name); !ok || e.Name == "" || strings.ContainsRune(e.Name, '/') {
		return bad
	}
	if base != "" {
		e.URL = base + urlparse.SegmentEscape(e.Name)
		if e.Type == fetch.EntryDir {
			e.URL += "/"
		}
	}
	return e
}
