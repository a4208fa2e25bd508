package urlparse

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseIRI parses s as an absolute IRI (RFC 3987) and returns the URL of its
// URI form, with the two verdicts of Parse. An input that is already a URI
// gives exactly what Parse gives. Otherwise s is mapped to a URI first
// (RFC 3987 §3.1):
//
//   - a host holding non-ASCII characters becomes its A-label form through
//     IDNA (UTS #46 Lookup, as LookupHost uses it): "bücher.de" is
//     "xn--bcher-kva.de"; a host IDNA refuses is percent-encoded instead,
//     as the generic syntax allows, and LookupHost then refuses it;
//   - every other non-ASCII character is percent-encoded as UTF-8;
//   - a message-id pasted with its angle brackets into a news or nntp URL
//     ("news:<id@host>", "nntp://host/group/<id@host>") loses them, and the
//     bytes inside that a URI does not allow are percent-encoded.
//
// Bytes that are not valid UTF-8, characters outside RFC 3987's ucschar
// (C1 controls, noncharacters, private-use characters outside the query),
// and the bidirectional formatting characters RFC 3987 §4.1 forbids are
// refused; so is everything the URI grammar refuses in ASCII (spaces, for
// instance). Errors name the input as given and offsets into it. The URL's
// raw fields and String are those of the URI form.
func ParseIRI(s string) (URL, error) { return parseIRI(s, Parse) }

// ParseIRIRef is ParseRef for an IRI reference: the reference's URI form, as
// ParseIRI maps it. A relative reference's host goes through IDNA too.
func ParseIRIRef(s string) (Ref, error) { return parseIRI(s, ParseRef) }

// parseIRI parses s with parse, or else its URI form, and makes an error
// about the URI form name the input instead.
func parseIRI[T any](s string, parse func(string) (T, error)) (T, error) {
	v, err := parse(s)
	if err == nil || !mayBeIRI(s) {
		return v, err
	}
	uri, edits, cerr := toURI(s)
	if cerr != nil {
		var zero T
		return zero, cerr
	}
	if v, err = parse(uri); err != nil {
		edits.blame(err.(*Error), s)
	}
	return v, err
}

// mayBeIRI reports whether s holds something toURI would change.
func mayBeIRI(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf || s[i] == '<' {
			return true
		}
	}
	return false
}

// edit records one place where the URI form stops following the input
// byte for byte: in[inPos:inPos+inLen] became out[outPos:outPos+outLen].
type edit struct {
	inPos, inLen, outPos, outLen int
}

type edits []edit

// inputOffset maps an offset in the URI form back to the input: a byte
// inside an edit is blamed on the start of what it replaced (inEdit).
func (es edits) inputOffset(off int) (in int, inEdit bool) {
	delta := 0 // out - in, after the edits passed
	for _, e := range es {
		switch {
		case off < e.outPos:
			return off - delta, false
		case off < e.outPos+e.outLen:
			return e.inPos, true
		}
		delta = e.outPos + e.outLen - (e.inPos + e.inLen)
	}
	return off - delta, false
}

// blame makes e, an error about the URI form, name the input in instead.
// When the URI form went wrong where it percent-encodes a character (in a
// port or an IP-literal, say), the message names that character.
func (es edits) blame(e *Error, in string) {
	off, inEdit := es.inputOffset(e.Offset)
	e.Offset, e.Input = off, in
	if inEdit && off < len(in) && in[off] >= utf8.RuneSelf {
		r, _ := utf8.DecodeRuneInString(in[off:])
		e.Msg = "character " + uPlus(r) + " not allowed"
	}
}

// iriBuilder writes the URI form and records the edits.
type iriBuilder struct {
	in    string
	out   []byte
	edits edits
}

// copy appends in[a:b] unchanged.
func (b *iriBuilder) copy(a, e int) { b.out = append(b.out, b.in[a:e]...) }

// replace appends with in place of in[a:e].
func (b *iriBuilder) replace(a, e int, with string) {
	b.edits = append(b.edits, edit{inPos: a, inLen: e - a, outPos: len(b.out), outLen: len(with)})
	b.out = append(b.out, with...)
}

// escapeRange appends in[a:e], percent-encoding its non-ASCII bytes as
// UTF-8 (RFC 3987 §3.1 step 2).
func (b *iriBuilder) escapeRange(a, e int) {
	for i := a; i < e; {
		j := i
		for j < e && b.in[j] < utf8.RuneSelf {
			j++
		}
		b.copy(i, j)
		if j == e {
			return
		}
		k := j
		for k < e && b.in[k] >= utf8.RuneSelf {
			k++
		}
		b.edits = append(b.edits, edit{inPos: j, inLen: k - j, outPos: len(b.out), outLen: 3 * (k - j)})
		for ; j < k; j++ {
			b.out = appendPct(b.out, b.in[j])
		}
		i = k
	}
}

func appendPct(out []byte, c byte) []byte {
	return append(out, '%', upperHex[c>>4], upperHex[c&15])
}

// authority appends the authority in[a:e]: userinfo up to the first "@",
// then the host up to the first ":" (an IP-literal has no IRI form), then
// the port.
func (b *iriBuilder) authority(a, e int) {
	s := b.in
	h := a
	if k := strings.IndexByte(s[a:e], '@'); k >= 0 {
		h = a + k + 1
		b.escapeRange(a, h)
	}
	if h < e && s[h] == '[' {
		b.escapeRange(h, e)
		return
	}
	he := e
	if k := strings.IndexByte(s[h:e], ':'); k >= 0 {
		he = h + k
	}
	if !mayBeIRI(s[h:he]) {
		b.copy(h, he)
	} else if a, err := toASCIIHost(Unescape(s[h:he])); err == nil {
		b.replace(h, he, a)
	} else {
		b.escapeRange(h, he)
	}
	b.escapeRange(he, e)
}

// toURI maps an IRI reference to a URI reference (see ParseIRI). The input
// is split as RFC 3986 appendix B splits a reference.
func toURI(s string) (string, edits, *Error) {
	if err := checkIRIChars(s); err != nil {
		return "", nil, err
	}
	b := iriBuilder{in: s, out: make([]byte, 0, len(s)+16)}
	i := strings.IndexAny(s, ":/?#")
	scheme := ""
	if i > 0 && s[i] == ':' {
		scheme = strings.ToLower(s[:i])
		b.escapeRange(0, i+1)
		i++
	} else {
		i = 0
	}
	if strings.HasPrefix(s[i:], "//") {
		a := i + 2
		e := len(s)
		if k := strings.IndexAny(s[a:], "/?#"); k >= 0 {
			e = a + k
		}
		b.copy(i, a)
		b.authority(a, e)
		i = e
	}
	lt, gt := messageIDBrackets(s, scheme, i)
	if lt >= 0 {
		b.escapeRange(i, lt)
		b.replace(lt, lt+1, "")
		for k := lt + 1; k < gt; k++ {
			if c := s[k]; class[c]&cPath == 0 && c != '%' {
				b.replace(k, k+1, string(appendPct(nil, c)))
			} else {
				b.copy(k, k+1)
			}
		}
		b.replace(gt, gt+1, "")
		i = gt + 1
	}
	b.escapeRange(i, len(s))
	return bytesString(b.out), b.edits, nil
}

// messageIDBrackets finds a message-id pasted with its angle brackets into
// a news, nntp or nntps reference whose path starts at p: "<" at the start
// of the path or of one of its segments, ">" the last byte of s, and "@"
// but no other angle bracket between them. It returns their offsets, or
// -1, -1.
func messageIDBrackets(s, scheme string, p int) (lt, gt int) {
	if d := defOf(scheme); d == nil || !d.messageID {
		return -1, -1
	}
	gt = len(s) - 1
	k := strings.IndexByte(s[p:], '<')
	if gt <= p || s[gt] != '>' || k < 0 {
		return -1, -1
	}
	lt = p + k
	id := s[lt+1 : gt]
	if lt > p && s[lt-1] != '/' || strings.IndexByte(id, '@') < 0 || strings.ContainsAny(id, "<>") {
		return -1, -1
	}
	return lt, gt
}

// checkIRIChars refuses the non-ASCII input no IRI holds: bytes that are not
// UTF-8, characters outside ucschar (iprivate is allowed in the query), and
// the bidirectional formatting characters of RFC 3987 §4.1.
func checkIRIChars(s string) *Error {
	frag := strings.IndexByte(s, '#')
	if frag < 0 {
		frag = len(s)
	}
	query := strings.IndexByte(s[:frag], '?')
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return errAt(s, i, "IRI", "byte 0x"+string(upperHex[s[i]>>4])+string(upperHex[s[i]&15])+" is not UTF-8")
		case r == 0x200E || r == 0x200F || r >= 0x202A && r <= 0x202E:
			return errAt(s, i, "IRI", "bidirectional formatting character "+uPlus(r)+" (RFC 3987 §4.1)")
		case isIprivate(r):
			if query < 0 || i < query || i > frag {
				return errAt(s, i, "iprivate", "private-use character "+uPlus(r)+" outside the query")
			}
		case !isUcschar(r):
			return errAt(s, i, "ucschar", "character "+uPlus(r)+" not allowed in an IRI")
		}
		i += n
	}
	return nil
}

// uPlus writes r as U+XXXX.
func uPlus(r rune) string {
	h := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	for len(h) < 4 {
		h = "0" + h
	}
	return "U+" + h
}

// isUcschar reports whether r is an RFC 3987 ucschar.
func isUcschar(r rune) bool {
	switch {
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFEF:
		return true
	case r >= 0x10000 && r <= 0xEFFFD:
		// each plane less its last two code points; plane 14 from E1000
		return r&0xFFFF <= 0xFFFD && (r < 0xE0000 || r >= 0xE1000)
	}
	return false
}

// isIprivate reports whether r is an RFC 3987 iprivate.
func isIprivate(r rune) bool {
	return r >= 0xE000 && r <= 0xF8FF || r >= 0xF0000 && r <= 0xFFFFD || r >= 0x100000 && r <= 0x10FFFD
}
