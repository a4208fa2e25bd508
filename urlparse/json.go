package urlparse

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSONExtra is what AppendJSON writes beside a URL's components.
type JSONExtra struct {
	// IRI is the IRI the URL was converted from, "" when it was given as
	// a URI ("iri").
	IRI string
	// SchemeErr is the scheme's verdict on a URL that breaks its scheme's
	// syntax: written instead of the scheme's fields ("scheme_error").
	SchemeErr error
	// Found is where Extract found the URL ("start", "end"), or nil.
	Found *Found
}

// AppendJSON appends u as one JSON object, the form of urlget url --json:
// "url" (u.String()), "iri", "start" and "end" from x, "scheme", the
// generic components decoded ("user", "password", "host", "host_kind",
// "host_lookup", "port", "path", "query", "fragment", each absent when its
// delimiter is), "raw" (the same as written), and the typed fields of the
// scheme (WriteFields) under the scheme's name, or "scheme_error". Keys come
// in that fixed order. Strings keep every byte: valid UTF-8 as it is, each
// other byte as the lone surrogate \udcXX (PEP 383's "surrogateescape"),
// which encoding/json would turn into U+FFFD.
func (u *URL) AppendJSON(b []byte, x JSONExtra) []byte {
	w := jsonWriter{b: b}
	w.open()
	w.str("url", u.String())
	if x.IRI != "" {
		w.str("iri", x.IRI)
	}
	if x.Found != nil {
		w.num("start", strconv.Itoa(x.Found.Start))
		w.num("end", strconv.Itoa(x.Found.End))
	}
	if u.IsAbsolute() {
		w.str("scheme", u.Scheme)
	}
	if u.HasUserinfo {
		w.str("user", u.User)
		if u.HasPassword {
			w.str("password", u.Password)
		}
	}
	if u.HasAuth {
		w.str("host", u.Host)
		w.str("host_kind", u.HostKind.String())
		if l, err := u.LookupHost(); err == nil && l != u.Host {
			w.str("host_lookup", l)
		}
		if u.HasPort && u.RawPort != "" {
			w.num("port", jsonPort(u))
		}
	}
	w.str("path", u.Path)
	if u.HasQuery {
		w.str("query", u.Query)
	}
	if u.HasFragment {
		w.str("fragment", u.Fragment)
	}

	w.obj("raw")
	if u.IsAbsolute() {
		w.str("scheme", u.RawScheme)
	}
	if u.HasUserinfo {
		user, pass, colon := strings.Cut(u.RawUserinfo, ":")
		w.str("user", user)
		if colon {
			w.str("password", pass)
		}
	}
	if u.HasAuth {
		w.str("host", u.RawHost)
		if u.HasPort {
			w.str("port", u.RawPort)
		}
	}
	w.str("path", u.RawPath)
	if u.HasQuery {
		w.str("query", u.RawQuery)
	}
	if u.HasFragment {
		w.str("fragment", u.RawFragment)
	}
	w.close()

	if x.SchemeErr != nil {
		w.str("scheme_error", x.SchemeErr.Error())
	} else {
		appendSchemeJSON(&w, u)
	}
	w.close()
	return w.b
}

// jsonPort is the port as a JSON number: Port, or for a relative reference
// whose port is over 65535 (Parse refuses those in absolute URLs), its digits
// without leading zeros.
func jsonPort(u *URL) string {
	if u.Port >= 0 && u.Port <= 65535 {
		return strconv.Itoa(u.Port)
	}
	d := strings.TrimLeft(u.RawPort, "0")
	if d == "" {
		d = "0"
	}
	return d
}

// appendSchemeJSON writes the fields of the URL's typed part
// (URL.WriteFields) as an object under the scheme's name, left out
// when there are none.
func appendSchemeJSON(w *jsonWriter, u *URL) {
	f := schemeFields{w: w, name: u.Scheme}
	u.WriteFields(&f)
	if f.opened {
		w.close()
	}
}

// schemeFields is a FieldWriter that opens its object at the
// first field.
type schemeFields struct {
	w      *jsonWriter
	name   string
	opened bool
}

func (f *schemeFields) open() *jsonWriter {
	if !f.opened {
		f.w.obj(f.name)
		f.opened = true
	}
	return f.w
}

func (f *schemeFields) String(k, v string)            { f.open().str(k, v) }
func (f *schemeFields) Strings(k string, vs []string) { f.open().strs(k, vs) }
func (f *schemeFields) Bool(k string, v bool)         { f.open().boolean(k, v) }
func (f *schemeFields) Pairs(k string, n int, pair func(int) (string, string)) {
	f.open().nameValues(k, n, pair)
}

// jsonWriter writes JSON objects in a fixed key order.
type jsonWriter struct {
	b     []byte
	first bool // no key written yet in the innermost open object
}

func (w *jsonWriter) open()  { w.b = append(w.b, '{'); w.first = true }
func (w *jsonWriter) close() { w.b = append(w.b, '}'); w.first = false }

func (w *jsonWriter) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = AppendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) obj(k string)         { w.key(k); w.open() }
func (w *jsonWriter) str(k, v string)      { w.key(k); w.b = AppendJSONString(w.b, v) }
func (w *jsonWriter) num(k, digits string) { w.key(k); w.b = append(w.b, digits...) }

func (w *jsonWriter) boolean(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}

// strs writes a string array; nil is written as [].
func (w *jsonWriter) strs(k string, vs []string) {
	w.key(k)
	w.b = append(w.b, '[')
	for i, v := range vs {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = AppendJSONString(w.b, v)
	}
	w.b = append(w.b, ']')
}

// nameValues writes k as an array of n {"name","value"} objects, the i-th
// from at(i) (mailto headers, prospero fields).
func (w *jsonWriter) nameValues(k string, n int, at func(int) (name, value string)) {
	w.key(k)
	w.b = append(w.b, '[')
	for i := range n {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		name, value := at(i)
		w.open()
		w.str("name", name)
		w.str("value", value)
		w.close()
	}
	w.b = append(w.b, ']')
}

// AppendJSONString appends s as a JSON string without losing a byte (see
// AppendJSON). Valid
// UTF-8 is copied as it is, except for '"', '\\' and the control characters,
// which are escaped. Each byte that is not part of a valid UTF-8 sequence is
// written as the lone surrogate \udcXX, XX being the byte (0x80-0xff) in hex:
// valid UTF-8 never encodes a surrogate, so the mapping can be undone exactly
// (PEP 383's "surrogateescape"). encoding/json would write U+FFFD instead.
func AppendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size > 1 {
				i += size
				continue
			}
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			if c < 0x20 {
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			} else {
				b = append(b, '\\', 'u', 'd', 'c', hex[c>>4], hex[c&15])
			}
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
