package urlparse

import (
	"strconv"
	"strings"
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

// scanLine returns the offset of the first byte of s in the mask, or -1.
func scanLine(s string, mask uint8) int {
	for i := 0; i < len(s); i++ {
		if lineClass[s[i]]&mask != 0 {
			return i
		}
	}
	return -1
}

// lineErr builds the error for s[i]; the component is scheme+" "+name,
// followed by [idx] when idx >= 0.
func lineErr(scheme, name string, idx int, s string, i int) error {
	c := scheme + " " + name
	if idx >= 0 {
		c += "[" + strconv.Itoa(idx) + "]"
	}
	return &LineError{Component: c, Byte: s[i], Offset: i}
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
	if i := scanLine(u.User, maskLine); i >= 0 {
		return lineErr(sc, "user", -1, u.User, i)
	}
	if i := scanLine(u.Password, maskLine); i >= 0 {
		return lineErr(sc, "password", -1, u.Password, i)
	}
	if i := scanLine(u.Host, maskLine); i >= 0 {
		return lineErr(sc, "host", -1, u.Host, i)
	}
	switch sc {
	case "ftp":
		for k, seg := range u.FTP.CWD {
			if i := scanLine(seg, maskLine); i >= 0 {
				return lineErr(sc, "cwd", k, seg, i)
			}
		}
		if i := scanLine(u.FTP.Name, maskLine); i >= 0 {
			return lineErr(sc, "name", -1, u.FTP.Name, i)
		}
	case "gopher", "gophers":
		g := &u.Gopher
		if i := scanLine(g.Selector, maskGopher); i >= 0 {
			return lineErr(sc, "selector", -1, g.Selector, i)
		}
		if i := scanLine(g.Search, maskGopher); i >= 0 {
			return lineErr(sc, "search", -1, g.Search, i)
		}
		if i := scanLine(g.Plus, maskGopher); i >= 0 {
			return lineErr(sc, "plus", -1, g.Plus, i)
		}
	case "mailto":
		for k, a := range u.Mailto.To {
			if i := scanLine(a, maskLine); i >= 0 {
				return lineErr(sc, "to", k, a, i)
			}
		}
		for k, h := range u.Mailto.Headers {
			if i := scanLine(h.Name, maskLine); i >= 0 {
				return lineErr(sc, "hfname", k, h.Name, i)
			}
			// A body may hold line breaks (RFC 6068 §2: %0D%0A).
			mask := maskLine
			if strings.EqualFold(h.Name, "body") {
				mask = maskNUL
			}
			if i := scanLine(h.Value, mask); i >= 0 {
				return lineErr(sc, "hfvalue", k, h.Value, i)
			}
		}
	case "news":
		if i := scanLine(u.News.Group, maskNews); i >= 0 {
			return lineErr(sc, "group", -1, u.News.Group, i)
		}
		if i := scanLine(u.News.MessageID, maskNews); i >= 0 {
			return lineErr(sc, "message-id", -1, u.News.MessageID, i)
		}
	case "nntp", "nntps":
		if i := scanLine(u.NNTP.Group, maskNews); i >= 0 {
			return lineErr(sc, "group", -1, u.NNTP.Group, i)
		}
		if i := scanLine(u.NNTP.Article, maskNews); i >= 0 {
			return lineErr(sc, "article", -1, u.NNTP.Article, i)
		}
		if i := scanLine(u.NNTP.MessageID, maskNews); i >= 0 {
			return lineErr(sc, "message-id", -1, u.NNTP.MessageID, i)
		}
	case "wais":
		w := &u.WAIS
		if i := scanLine(w.Database, maskLine); i >= 0 {
			return lineErr(sc, "database", -1, w.Database, i)
		}
		if i := scanLine(w.Search, maskLine); i >= 0 {
			return lineErr(sc, "search", -1, w.Search, i)
		}
		if i := scanLine(w.DocType, maskLine); i >= 0 {
			return lineErr(sc, "wtype", -1, w.DocType, i)
		}
		if i := scanLine(w.Length, maskLine); i >= 0 {
			return lineErr(sc, "length", -1, w.Length, i)
		}
	case "prospero":
		p := &u.Prospero
		if i := scanLine(p.HSOName, maskLine); i >= 0 {
			return lineErr(sc, "hsoname", -1, p.HSOName, i)
		}
		for k, f := range p.Fields {
			if i := scanLine(f.Name, maskLine); i >= 0 {
				return lineErr(sc, "field name", k, f.Name, i)
			}
			if i := scanLine(f.Value, maskLine); i >= 0 {
				return lineErr(sc, "field value", k, f.Value, i)
			}
		}
	case "file":
		if i := scanLine(u.File.Path, maskNUL); i >= 0 {
			return lineErr(sc, "path", -1, u.File.Path, i)
		}
	}
	return nil
}
