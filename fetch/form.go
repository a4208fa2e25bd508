package fetch

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Form is a multipart/form-data body (RFC 7578) for an HTTP POST, built
// from curl's -F arguments and written as curl writes it: a random
// boundary, each part with its Content-Disposition (and filename= for a
// file sent as a file) and Content-Type, files read as the body is sent.
type Form struct {
	// Backslash (curl's --form-escape) writes a quote and a backslash in a
	// field or file name as \" and \\ (RFC 822's quoted-string), where by
	// default a quote, CR and LF are percent-encoded as browsers do (HTML
	// Living Standard's multipart/form-data encoding).
	Backslash bool

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
}

// FormArg is one of curl's form arguments: Text as given to -F, or with
// String to --form-string, whose VALUE is a text taken as it is (a
// leading "@" or "<" and a ";type=" in it mean nothing).
type FormArg struct {
	Text   string
	String bool
}

// ParseForm reads curl's -F arguments, one part each: NAME=VALUE (a
// text; ";type=T" after it gives its Content-Type), NAME=@FILE (a file,
// sent as a file: ";type=T" and ";filename=N" after it, the type guessed
// from the name's extension otherwise) and NAME=<FILE (a file's text).
// FILE "-" is standard input. An error names the argument.
func ParseForm(args []FormArg) (*Form, error) {
	var rnd [8]byte
	rand.Read(rnd[:])
	f := &Form{boundary: "------------------------" + hex.EncodeToString(rnd[:])}
	for _, arg := range args {
		a := arg.Text
		name, v, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q: want NAME=VALUE, NAME=@FILE or NAME=<FILE", a)
		}
		p := formPart{name: name}
		switch {
		case arg.String:
			p.value = v
		case strings.HasPrefix(v, "@"), strings.HasPrefix(v, "<"):
			p.upload = v[0] == '@'
			v = v[1:]
			fields := strings.Split(v, ";")
			p.file = fields[0]
			for _, m := range fields[1:] {
				k, mv, _ := strings.Cut(m, "=")
				switch strings.TrimSpace(k) {
				case "type":
					p.ctype = mv
				case "filename":
					p.filename = mv
				default:
					return nil, fmt.Errorf("%q: unknown ;%s", a, k)
				}
			}
			if p.upload && p.filename == "" {
				p.filename = filepath.Base(p.file)
			}
			if p.upload && p.ctype == "" {
				p.ctype = guessType(p.file)
			}
		default:
			val, t, hasType := strings.Cut(v, ";type=")
			p.value = val
			if hasType {
				p.ctype = t
			}
		}
		f.parts = append(f.parts, p)
	}
	return f, nil
}

// guessType is curl's content type for a file by its extension.
func guessType(name string) string {
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
	return "application/octet-stream"
}

// ContentType is the body's Content-Type, with its boundary.
func (f *Form) ContentType() string { return "multipart/form-data; boundary=" + f.boundary }

// ReadsStdin reports whether a part is read from standard input (FILE
// "-"), so that the body cannot be sent twice.
func (f *Form) ReadsStdin() bool {
	for _, p := range f.parts {
		if p.file == "-" {
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
	for _, p := range f.parts {
		head := "--" + f.boundary + "\r\nContent-Disposition: form-data; name=\"" + f.quote(p.name) + "\""
		if p.upload {
			head += "; filename=\"" + f.quote(p.filename) + "\""
		}
		head += "\r\n"
		if p.ctype != "" {
			head += "Content-Type: " + p.ctype + "\r\n"
		}
		add(head + "\r\n")
		if p.file != "" {
			r, size, err := open(p.file)
			if err != nil {
				for _, r := range rs {
					if c, ok := r.(io.Closer); ok {
						c.Close()
					}
				}
				return nil, 0, fmt.Errorf("%s: %v", p.name, err)
			}
			rs = append(rs, r)
			if size < 0 {
				unknown = true
			}
			n += size
		} else {
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
