package urlparse

// Character classes of RFC 3986 §2 and appendix A, as a 256-entry table so
// that every scan is one load and one mask per byte.
const (
	cUnreserved uint16 = 1 << iota // ALPHA / DIGIT / "-" / "." / "_" / "~"
	cSubDelim                      // "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
	cAlpha                         // ALPHA
	cDigit                         // DIGIT
	cHex                           // HEXDIG
	cSchemeRest                    // ALPHA / DIGIT / "+" / "-" / "."
	cPchar                         // unreserved / sub-delims / ":" / "@" (pct-encoded handled apart)
	cQuery                         // pchar / "/" / "?"
	cPath                          // pchar / "/"
	cRegName                       // unreserved / sub-delims (pct-encoded handled apart)
	cUpper                         // "A" to "Z"
	cSegmentNC                     // pchar less ":" (pct-encoded handled apart)
)

var class [256]uint16

func init() {
	for c := 'a'; c <= 'z'; c++ {
		class[c] |= cUnreserved | cAlpha | cSchemeRest | cPchar | cQuery
		class[c-'a'+'A'] |= cUnreserved | cAlpha | cSchemeRest | cPchar | cQuery | cUpper
	}
	for c := '0'; c <= '9'; c++ {
		class[c] |= cUnreserved | cDigit | cHex | cSchemeRest | cPchar | cQuery
	}
	for _, c := range "abcdefABCDEF" {
		class[c] |= cHex
	}
	for _, c := range "-._~" {
		class[c] |= cUnreserved | cPchar | cQuery
	}
	for _, c := range "!$&'()*+,;=" {
		class[c] |= cSubDelim | cPchar | cQuery
	}
	class['+'] |= cSchemeRest
	class['-'] |= cSchemeRest
	class['.'] |= cSchemeRest
	class[':'] |= cPchar | cQuery
	class['@'] |= cPchar | cQuery
	class['/'] |= cQuery
	class['?'] |= cQuery
	for c := range class {
		if class[c]&cPchar != 0 {
			class[c] |= cPath | cSegmentNC
		}
		if class[c]&(cUnreserved|cSubDelim) != 0 {
			class[c] |= cRegName
		}
	}
	class['/'] |= cPath
	class[':'] &^= cSegmentNC
}

func isHex(c byte) bool { return class[c]&cHex != 0 }

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

const upperHex = "0123456789ABCDEF"

// isUnreserved reports whether c is an RFC 3986 unreserved character.
func isUnreserved(c byte) bool { return class[c]&cUnreserved != 0 }
