package urlparse

import (
	"strconv"
)

// LineError reports a decoded URL component holding a byte that must not
// reach a line-oriented protocol: CR, LF or NUL anywhere; TAB in a gopher
// selector, search or gopher+ string; space, TAB, "<" or ">" in a newsgroup
// or message-id.
type LineError struct {
	Component string // which component, e.g. "gopher selector" or "ftp cwd[1]"
	Byte      byte   // the offending byte
	Offset    int    // its offset within the decoded component
}

func (e *LineError) Error() string {
	return e.Component + " contains " + byteName(e.Byte) + " at byte " + strconv.Itoa(e.Offset)
}

func byteName(c byte) string {
	hex := "(0x" + string(upperHex[c>>4]) + string(upperHex[c&15]) + ")"
	switch c {
	case '\r':
		return "CR " + hex
	case '\n':
		return "LF " + hex
	case 0:
		return "NUL " + hex
	case '\t':
		return "TAB " + hex
	case ' ':
		return "space " + hex
	}
	return quoteByte(c) + " " + hex
}

// Byte sets refused by CheckLine.
const (
	lbNUL  uint8 = 1 << iota // NUL
	lbCRLF                   // CR, LF
	lbTab                    // TAB
	lbNews                   // space, "<", ">"

	maskNUL    = lbNUL
	maskLine   = lbNUL | lbCRLF
	maskGopher = maskLine | lbTab
	maskNews   = maskLine | lbTab | lbNews
)

var lineClass = [256]uint8{
	0:    lbNUL,
	'\r': lbCRLF,
	'\n': lbCRLF,
	'\t': lbTab,
	' ':  lbNews,
	'<':  lbNews,
	'>':  lbNews,
}

// checkField is the one check of a field s: nil when no byte of s is in
// the mask, else the *LineError for the first that is, its component
// scheme+" "+name, followed by [idx] when idx >= 0. It allocates only for
// the error.
func checkField(scheme, name string, idx int, s string, mask uint8) error {
	for i := 0; i < len(s); i++ {
		if lineClass[s[i]]&mask != 0 {
			c := scheme + " " + name
			if idx >= 0 {
				c += "[" + strconv.Itoa(idx) + "]"
			}
			return &LineError{Component: c, Byte: s[i], Offset: i}
		}
	}
	return nil
}

// checkFields is checkField for each name and value pair of fields (no
// index), in order.
func checkFields(scheme string, mask uint8, fields ...string) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if err := checkField(scheme, fields[i], -1, fields[i+1], mask); err != nil {
			return err
		}
	}
	return nil
}

// CheckLine is the one check a fetcher makes before any decoded component
// goes on the wire: it refuses CR, LF and NUL in every decoded field the
// URL's scheme sends (user, password and host for every scheme; the ftp
// cwd segments and name; the gopher selector, search and gopher+ string,
// which also may not hold TAB; the newsgroup, message-id and article, which
// also may not hold space, TAB, "<" or ">"; the mailto addresses and header
// fields, where only NUL is refused in a body; the wais database, type and
// search; the prospero hsoname and fields; NUL in a file path). The wais
// document path is an opaque binary DocID (it holds NUL in real URLs) and
// is not checked. The error is a *LineError. CheckLine does not allocate
// when the URL passes.
func (u *URL) CheckLine() error {
	sc := u.Scheme
	if err := checkFields(sc, maskLine, "user", u.User, "password", u.Password, "host", u.Host); err != nil {
		return err
	}
	switch formOf(sc) {
	case formFTP:
		return u.checkFTP()
	case formGopher:
		return u.checkGopher()
	case formMailto:
		return u.checkMailto()
	case formNews:
		return u.checkNews()
	case formNNTP:
		return u.checkNNTP()
	case formWAIS:
		return u.checkWAIS()
	case formProspero:
		return u.checkProspero()
	case formFile:
		return u.checkFile()
	}
	return nil
}
