package urlparse

import "strings"

// A schemeDef is what the parser knows of one scheme. Each scheme's file
// (scheme_<name>.go) declares its own with defScheme beside its typed URL;
// nothing else in the package lists scheme names.
type schemeDef struct {
	port int        // the well-known port; 0 for none
	rule string     // the name of the RFC's production ("ftpurl")
	form schemeForm // its typed URL: which parse and CheckLine apply
	// inText: Extract finds the scheme in running text, and a scheme name
	// written in upper case is recognised without a copy.
	inText bool
	// messageID: the path may hold a message-id that an IRI's angle
	// brackets surround.
	messageID bool
	// rootPath: an empty path with an authority normalises to "/".
	rootPath bool
}

// A schemeForm names a typed URL's parser and CheckLine part. They are
// called from a switch, not through function values in schemeDef: an
// indirect call would make every URL parsed escape to the heap.
type schemeForm uint8

const (
	formGeneric schemeForm = iota // only Ref's components
	formHTTP
	formFTP
	formGopher
	formMailto
	formNews
	formNNTP
	formSession
	formWAIS
	formFile
	formProspero
)

// schemeDefs holds every schemeDef by lower-case scheme name.
var schemeDefs = map[string]*schemeDef{}

// defScheme declares d for each of names; it is called once per scheme,
// from a package-level declaration in the scheme's file.
func defScheme(d schemeDef, names ...string) struct{} {
	for _, n := range names {
		if schemeDefs[n] != nil {
			panic("urlparse: scheme declared twice: " + n)
		}
		schemeDefs[n] = &d
	}
	return struct{}{}
}

// defTable is schemeDefs as an open-addressed table keyed by the name
// packed into a word (every scheme name urlget knows has at most eight
// bytes), built once every scheme file has declared its own: Parse looks
// every URL's scheme up, and a map's hashing and string compare would
// cost it a tenth of its time.
var defTable [64]struct {
	key uint64
	def *schemeDef
}

func init() {
	for name, d := range schemeDefs {
		k, ok := defKey(name)
		if !ok {
			panic("urlparse: scheme name over 8 bytes: " + name)
		}
		h := defHash(k)
		for defTable[h].def != nil {
			h = (h + 1) % uint64(len(defTable))
		}
		defTable[h].key, defTable[h].def = k, d
	}
}

// defKey packs a name of one to eight bytes into a word.
func defKey(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > 8 {
		return 0, false
	}
	var k uint64
	for i := 0; i < len(s); i++ {
		k = k<<8 | uint64(s[i])
	}
	return k, true
}

func defHash(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> 58 }

// defOf is the schemeDef of a lower-case scheme name, nil when none.
func defOf(scheme string) *schemeDef {
	k, ok := defKey(scheme)
	if !ok {
		return nil
	}
	for h := defHash(k); defTable[h].def != nil; h = (h + 1) % uint64(len(defTable)) {
		if defTable[h].key == k {
			return defTable[h].def
		}
	}
	return nil
}

// Known reports whether urlparse has a typed URL (and so the parse rules)
// for scheme, given in lower case.
func Known(scheme string) bool { return defOf(scheme) != nil }

// parseScheme fills in the typed fields for u.Scheme from the generic
// components Ref already holds. s is the whole input, for error offsets and
// for substrings that need no decoding. A scheme urlget does not know keeps
// only the generic components. Every error is an *Error (errAt).
func (u *URL) parseScheme(s string) error {
	switch formOf(u.Scheme) {
	case formHTTP:
		return u.parseHTTP(s)
	case formFTP:
		return u.parseFTP(s)
	case formGopher:
		return u.parseGopher(s)
	case formMailto:
		return u.parseMailto(s)
	case formNews:
		return u.parseNews(s)
	case formNNTP:
		return u.parseNNTP(s)
	case formSession:
		return u.parseSession(s)
	case formWAIS:
		return u.parseWAIS(s)
	case formFile:
		return u.parseFile(s)
	case formProspero:
		return u.parseProspero(s)
	}
	return nil
}

// A FieldWriter receives the fields of a URL's typed part, in a fixed
// order, from URL.WriteFields (the CLI's urlget url --json writes them as
// a JSON object under the scheme's name).
type FieldWriter interface {
	String(key, value string)
	Strings(key string, values []string)
	Bool(key string, value bool)
	// Pairs is a list of n name/value pairs; pair gives the i-th.
	Pairs(key string, n int, pair func(i int) (name, value string))
}

// WriteFields writes the fields of the URL's typed part to w: none for a
// scheme without one; a field that has a Has flag is left out when the
// flag is false, and news gives only the one form the URL has.
func (u *URL) WriteFields(w FieldWriter) {
	switch formOf(u.Scheme) {
	case formHTTP:
		u.httpFields(w)
	case formFTP:
		u.ftpFields(w)
	case formGopher:
		u.gopherFields(w)
	case formMailto:
		u.mailtoFields(w)
	case formNews:
		u.newsFields(w)
	case formNNTP:
		u.nntpFields(w)
	case formWAIS:
		u.waisFields(w)
	case formFile:
		u.fileFields(w)
	case formProspero:
		u.prosperoFields(w)
	}
}

// typecodeString is a one-byte typecode as a string; "" for 0 (absent).
func typecodeString(c byte) string {
	if c == 0 {
		return ""
	}
	return string([]byte{c})
}

func formOf(scheme string) schemeForm {
	if d := defOf(scheme); d != nil {
		return d.form
	}
	return formGeneric
}

// rule returns the RFC 1738 name of the scheme's production ("ftpurl").
func (u *URL) rule() string {
	if d := defOf(u.Scheme); d != nil {
		return d.rule
	}
	return "URI"
}

// needHost refuses a URL of a scheme that names a server when it has no
// "//" authority or an empty host.
func (u *URL) needHost(s string) error {
	if !u.HasAuth {
		return errAt(s, len(u.RawScheme)+1, u.rule(), "a "+u.Scheme+" URL needs \"//\" and a host")
	}
	if u.RawHost == "" {
		return errAt(s, len(u.RawScheme)+3+len(u.RawUserinfo)+b2i(u.HasUserinfo), "host", "empty host")
	}
	return nil
}

// pview gives the decoded form of spans of a URL's path (and, for the
// schemes of RFC 1738 where "?" is an ordinary character, of "?" and the
// query after it) without decoding a second time.
//
// Percent-decoding is local: a literal byte decodes to itself and each
// three-byte escape to one byte, so the decoded form of a span of RawPath
// that starts and ends outside escapes is a substring of Ref.Path, found by
// counting the escapes before it (likewise RawQuery and Ref.Query). Only a
// span that straddles the "?" between path and query needs a new string.
type pview struct {
	s     string
	path  string // Ref.Path
	query string // Ref.Query
	po    int    // offset of the path in s
	pe    int    // offset just past the path: the "?" when there is a query
	end   int    // end of the region: pe, or the end of the query when re-joined

	pCur, pPct int // escapes in s[po:pCur]
	qCur, qPct int // escapes in s[pe+1:qCur]
}

// init sets v up over u's path; with rejoin, "?" and the query belong to
// the region too.
func (v *pview) init(s string, r *Ref, rejoin bool) {
	// Only strings are copied out of r: a pointer kept in v would make the
	// URL being parsed escape to the heap.
	v.s, v.path, v.query = s, r.Path, r.Query
	v.po = pathOffset(r)
	v.pe = v.po + len(r.RawPath)
	v.end = v.pe
	if rejoin && r.HasQuery {
		v.end = v.pe + 1 + len(r.RawQuery)
	}
	v.pCur, v.qCur = v.po, v.pe+1
}

// pctTo counts the escapes in s[base:k], continuing from the last count
// when k has not moved backwards.
func (v *pview) pctTo(cur, pct *int, base, k int) int {
	if k < *cur {
		*cur, *pct = base, 0
	}
	*pct += strings.Count(v.s[*cur:k], "%")
	*cur = k
	return *pct
}

// dec returns the decoded form of s[a:b], which lies within the region and
// neither starts nor ends inside an escape.
func (v *pview) dec(a, b int) string {
	raw := v.s[a:b]
	n := strings.Count(raw, "%")
	if n == 0 {
		return raw
	}
	switch {
	case b <= v.pe:
		d := a - v.po - 2*v.pctTo(&v.pCur, &v.pPct, v.po, a)
		return v.path[d : d+len(raw)-2*n]
	case a > v.pe:
		q := v.pe + 1
		d := a - q - 2*v.pctTo(&v.qCur, &v.qPct, q, a)
		return v.query[d : d+len(raw)-2*n]
	}
	return Unescape(raw)
}

// urlPath returns the offset in s where the RFC 1738 url-path starts: just
// after the "/" that follows host:port (that "/" is not part of it), or -1
// when there is no url-path at all. A "?" with no "/" before it is refused
// for the schemes that read "?" as part of the path.
func (u *URL) urlPath(s string, v *pview) (int, error) {
	if u.RawPath == "" {
		if v.end > v.pe {
			return 0, errAt(s, v.pe, u.rule(), "\"?\" before the \"/\" that starts the path")
		}
		return -1, nil
	}
	return v.po + 1, nil
}
