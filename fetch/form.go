package fetch

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// Form is a multipart/form-data body (RFC 7578) for an HTTP POST, built
// from curl's -F arguments and written as curl writes it: a random
// boundary, each part with its Content-Disposition (and filename= for a
// file sent as a file) and Content-Type, files read as the body is sent.
//
// The body is written here rather than with mime/multipart's Writer
// because a request needs it as a reader whose length is known before the
// first byte goes out (curl sends a Content-Length for a form of files,
// and chunks only when a part comes from stdin). multipart.Writer pushes
// each part into an io.Writer as it is made: streaming a file's bytes
// through it needs an io.Pipe and a goroutine per request, and its length
// is known only once every file has been read — a second pass over the
// files, or the whole body in memory. Open instead joins the fixed part
// heads and the open files in an io.MultiReader and adds their sizes. The
// framing is RFC 2046's, which mime/multipart's Reader parses (the tests
// read every body this type writes back with it).
type Form struct {
	// Backslash (curl's --form-escape) writes a quote and a backslash in a
	// field or file name as \" and \\ (RFC 822's quoted-string), where by
	// default a quote, CR and LF are percent-encoded as browsers do (HTML
	// Living Standard's multipart/form-data encoding).
	Backslash bool
	// Warnings are what ParseForm skipped, one line each, as curl warns
	// of them.
	Warnings []string

	boundary string
	parts    []formPart
}

type formPart struct {
	name     string
	value    string // text value
	file     string // NAME=@FILE: the file's bytes; NAME=<FILE: as text
	upload   bool   // @: sent as a file (filename=...)
	filename string
	ctype    string
	// files, for NAME=@FILE,FILE,...: the files of a multipart/mixed
	// part whose boundary is boundary.
	files    []formPart
	boundary string
}

// FormArg is one of curl's form arguments: Text as given to -F, or with
// String to --form-string, whose VALUE is a text taken as it is (a
// leading "@" or "<" and a ";type=" in it mean nothing).
type FormArg struct {
	Text   string
	String bool
}

// ParseForm reads curl's -F arguments, one part each, as curl 7.88 reads
// them: NAME=VALUE (a text), NAME=@FILE (a file, sent as a file; FILE,FILE,...
// several, sent as one multipart/mixed part) and NAME=<FILE (a file's
// text); FILE "-" is standard input. After VALUE or each FILE come
// ";type=T" (its Content-Type; a ";PARAM" after it that is no keyword
// belongs to the type, as ";format=x" does) and ";filename=N" (the name
// sent; the path's last segment by default for a file, whose type is
// otherwise guessed from its extension). A VALUE, FILE or N in double
// quotes may hold ";" and ",", with \" and \\ for a quote and a backslash;
// unquoted, it ends at ";" (and "," for files) and loses its surrounding
// spaces. NAME may be empty: the part has no name. Another ";KEYWORD" is
// skipped with a warning (Form.Warnings), as curl skips it. An error
// names the argument.
func ParseForm(args []FormArg) (*Form, error) {
	f := &Form{boundary: newBoundary()}
	for _, arg := range args {
		a := arg.Text
		name, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want NAME=VALUE, NAME=@FILE or NAME=<FILE", a)
		}
		p := formPart{name: name}
		warn := func(msg string) { f.Warnings = append(f.Warnings, fmt.Sprintf("-F %q: %s", a, msg)) }
		switch {
		case arg.String:
			p.value = v
		case strings.HasPrefix(v, "@"):
			p.upload = true
			rest := v
			for rest != "" {
				fp, r, err := formParams(rest[1:], ',', warn)
				if err != nil {
					return nil, fmt.Errorf("%q: %v", a, err)
				}
				rest = r
				fp.upload = true
				if fp.filename == "" {
					fp.filename = filepath.Base(fp.file)
				}
				if fp.ctype == "" {
					fp.ctype = guessType(fp.filename, fp.file)
				}
				p.files = append(p.files, fp)
				if rest != "" && rest[0] != ',' {
					warn("garbage at the end: " + rest)
					break
				}
			}
			if len(p.files) == 1 {
				p.file, p.filename, p.ctype, p.files = p.files[0].file, p.files[0].filename, p.files[0].ctype, nil
			} else {
				p.upload, p.boundary = false, newBoundary()
				p.ctype = "multipart/mixed; boundary=" + p.boundary
			}
		case strings.HasPrefix(v, "<"):
			fp, rest, err := formParams(v[1:], 0, warn)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", a, err)
			}
			if fp.filename != "" {
				warn("a file name is not allowed here: " + fp.filename)
			}
			p.file, p.ctype = fp.file, fp.ctype
			if rest != "" {
				warn("garbage at the end: " + rest)
			}
		default:
			fp, rest, err := formParams(v, 0, warn)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", a, err)
			}
			p.value, p.ctype, p.filename = fp.file, cmp.Or(fp.ctype, typeByExt(fp.filename)), fp.filename
			if rest != "" {
				warn("garbage at the end: " + rest)
			}
		}
		f.parts = append(f.parts, p)
	}
	return f, nil
}

// newBoundary is a random multipart boundary, as curl makes them.
func newBoundary() string {
	var rnd [8]byte
	rand.Read(rnd[:])
	return "------------------------" + hex.EncodeToString(rnd[:])
}

// formWord reads one word of a -F argument at the start of s: in double
// quotes (\\ and \" unescaped; what follows the closing quote up to ";"
// or end is dropped), else up to ";" or end (0: none). rest starts at the
// ";" or end that ended it, or is empty.
func formWord(s string, end byte) (word string, quoted bool, rest string) {
	stop := func(c byte) bool { return c == ';' || end != 0 && c == end }
	if strings.HasPrefix(s, `"`) {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			c := s[i]
			if c == '\\' && i+1 < len(s) && (s[i+1] == '\\' || s[i+1] == '"') {
				b.WriteByte(s[i+1])
				i++
				continue
			}
			if c == '"' {
				j := i + 1
				for j < len(s) && !stop(s[j]) {
					j++
				}
				return b.String(), true, s[j:]
			}
			b.WriteByte(c)
		}
		// No closing quote: the word is taken as it is.
	}
	i := 0
	for i < len(s) && !stop(s[i]) {
		i++
	}
	return s[:i], false, s[i:]
}

// formSpace is curl's ISSPACE.
func formSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

func trimFormSpace(s string, left bool) string {
	if left {
		for s != "" && formSpace(s[0]) {
			s = s[1:]
		}
		return s
	}
	for s != "" && formSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// formParams reads a VALUE or FILE of a -F argument and its ";type=" and
// ";filename=" (see ParseForm), up to end (0: none) or the end of s; rest
// starts at that end, or holds what could not be read.
func formParams(s string, end byte, warn func(string)) (p formPart, rest string, err error) {
	word := func(s string) (string, string) {
		s = trimFormSpace(s, true)
		w, quoted, rest := formWord(s, end)
		if !quoted {
			w = trimFormSpace(w, false)
		}
		return w, rest
	}
	p.file, rest = word(s)
	typeStart, typeEnd := -1, -1 // of the type in s, while a ";PARAM" may still extend it
	for rest != "" && rest[0] == ';' {
		rest = trimFormSpace(rest[1:], true)
		at := len(s) - len(rest)
		switch {
		case typeStart < 0 && strings.HasPrefix(rest, "type="):
			rest = trimFormSpace(rest[5:], true)
			typeStart = len(s) - len(rest)
			n := strings.IndexAny(rest, "()<>@,;:\\\"[]?=\r\n ")
			if n < 0 {
				n = len(rest)
			}
			rest = rest[n:]
			typeEnd = len(s) - len(rest)
		case strings.HasPrefix(rest, "filename="):
			if typeEnd >= 0 {
				p.ctype, typeEnd = s[typeStart:typeEnd], -1
			}
			p.filename, rest = word(rest[9:])
		case strings.HasPrefix(rest, "headers="), strings.HasPrefix(rest, "encoder="):
			k, _, _ := strings.Cut(rest, "=")
			return p, rest, fmt.Errorf(";%s= is not supported", k)
		case typeEnd >= 0:
			// Part of the type, as curl takes it.
			i := 0
			for i < len(rest) && rest[i] != ';' && (end == 0 || rest[i] != end) {
				if !formSpace(rest[i]) {
					typeEnd = at + i + 1
				}
				i++
			}
			rest = rest[i:]
		default:
			var w string
			w, rest = word(rest)
			if w != "" {
				warn("skipped the unknown ;" + w)
			}
		}
	}
	if typeEnd >= 0 {
		p.ctype = s[typeStart:typeEnd]
	}
	return p, rest, nil
}

// guessType is curl's content type of a file sent as a file: by the
// extension of the name sent, else of the file's path, else
// application/octet-stream.
func guessType(filename, path string) string {
	return cmp.Or(typeByExt(filename), typeByExt(path), "application/octet-stream")
}

// typeByExt is curl's content type for a name's extension, "" for an
// extension it does not know.
func typeByExt(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".gif":
		return "image/gif"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".png":
		return "image/png"
	case ".svg":
		return "image/svg+xml"
	case ".txt":
		return "text/plain"
	case ".htm", ".html":
		return "text/html"
	case ".pdf":
		return "application/pdf"
	case ".xml":
		return "application/xml"
	}
	return ""
}

// ContentType is the body's Content-Type, with its boundary.
func (f *Form) ContentType() string { return "multipart/form-data; boundary=" + f.boundary }

// ReadsStdin reports whether a part is read from standard input (FILE
// "-"), so that the body cannot be sent twice.
func (f *Form) ReadsStdin() bool {
	for _, p := range f.parts {
		if p.file == "-" || slices.ContainsFunc(p.files, func(fp formPart) bool { return fp.file == "-" }) {
			return true
		}
	}
	return false
}

// Open gives the body as a stream and its length (-1 when a part's is not
// known): open opens each file (now; it is read as the body is sent), and
// says its size (-1: unknown, the body is then sent chunked). A file that
// does not open is an error naming its part; the files opened already are
// closed (when they are io.Closers).
func (f *Form) Open(open func(name string) (io.Reader, int64, error)) (io.Reader, int64, error) {
	var rs []io.Reader
	var n int64
	unknown := false
	add := func(s string) {
		rs = append(rs, strings.NewReader(s))
		n += int64(len(s))
	}
	// file adds a file's bytes.
	file := func(p formPart) error {
		r, size, err := open(p.file)
		if err != nil {
			for _, r := range rs {
				if c, ok := r.(io.Closer); ok {
					c.Close()
				}
			}
			return fmt.Errorf("%s: %v", p.name, err)
		}
		rs = append(rs, r)
		if size < 0 {
			unknown = true
		}
		n += size
		return nil
	}
	for _, p := range f.parts {
		head := "--" + f.boundary + "\r\nContent-Disposition: form-data"
		if p.name != "" {
			head += "; name=\"" + f.quote(p.name) + "\""
		}
		if p.filename != "" {
			head += "; filename=\"" + f.quote(p.filename) + "\""
		}
		head += "\r\n"
		if p.ctype != "" {
			head += "Content-Type: " + p.ctype + "\r\n"
		}
		add(head + "\r\n")
		switch {
		case p.files != nil:
			for _, fp := range p.files {
				add("--" + p.boundary + "\r\nContent-Disposition: attachment; filename=\"" + f.quote(fp.filename) + "\"\r\n" +
					"Content-Type: " + fp.ctype + "\r\n\r\n")
				fp.name = p.name
				if err := file(fp); err != nil {
					return nil, 0, err
				}
				add("\r\n")
			}
			add("--" + p.boundary + "--\r\n")
		case p.file != "":
			if err := file(p); err != nil {
				return nil, 0, err
			}
		default:
			add(p.value)
		}
		add("\r\n")
	}
	add("--" + f.boundary + "--\r\n")
	if unknown {
		n = -1 // stdin: sent chunked
	}
	return io.MultiReader(rs...), n, nil
}

var (
	percentQuote   = strings.NewReplacer(`"`, "%22", "\r", "%0D", "\n", "%0A")
	backslashQuote = strings.NewReplacer(`\`, `\\`, `"`, `\"`)
)

// quote escapes a field name or file name as curl does (see Backslash).
func (f *Form) quote(s string) string {
	if f.Backslash {
		return backslashQuote.Replace(s)
	}
	return percentQuote.Replace(s)
}
