package urlparse

import (
	"strconv"
	"strings"
)

// String returns the URL exactly as it was parsed, recomposed from its raw
// components (RFC 3986 §5.3): Parse(u.String()) gives u back.
func (u *URL) String() string { return u.Ref.String() }

// Byte sets kept literal by the builders below; every other byte is
// percent-encoded (upper-case hex), "%" itself included.
const (
	kUnres uint16 = 1 << iota // unreserved
	kSub                      // sub-delims but ";", "=", "&", "+", ","
	kSemi                     // ";"
	kEq                       // "="
	kAmp                      // "&"
	kPlus                     // "+"
	kComma                    // ","
	kColon                    // ":"
	kAt                       // "@"
	kSlash                    // "/"
	kLynx                     // what Lynx leaves literal in a DocID field: A-Z a-z 0-9 . / - _ $

	kAllSub = kSub | kSemi | kEq | kAmp | kPlus | kComma
	kPchar  = kUnres | kAllSub | kColon | kAt

	keepHost    = kUnres | kAllSub                // reg-name
	keepUser    = kUnres | kAllSub                // user or password: ":" and "@" encoded
	keepPath    = kPchar | kSlash                 // gopher-path, file path
	keepSeg     = kPchar &^ kSemi                 // ftp segment: "/" and ";" encoded
	keepHSO     = (kPchar | kSlash) &^ kSemi      // prospero hsoname
	keepField   = kPchar &^ (kSemi | kEq)         // prospero field name or value
	keepGroup   = kPchar                          // nntp group: "/" encoded
	keepNews    = kPchar                          // news grouppart: "/" encoded
	keepWAISSeg = kPchar                          // wais database, wtype: "/" encoded
	keepDocID   = kPchar | kSlash                 // wais wpath
	keepLynx    = kLynx                           // wais DocID field value, as Lynx writes it
	keepSearch  = (kPchar | kSlash) &^ kPlus      // wais search: "+" encoded (Lynx reads it as space)
	keepAddr    = kPchar &^ kComma                // mailto address
	keepHField  = kPchar &^ (kAmp | kEq | kComma) // mailto hfname, hfvalue
)

var keepClass [256]uint16

func init() {
	for c := 0; c < 256; c++ {
		if isUnreserved(byte(c)) {
			keepClass[c] |= kUnres
		}
	}
	for _, c := range "!$'()*" {
		keepClass[c] |= kSub
	}
	keepClass[';'] |= kSemi
	keepClass['='] |= kEq
	keepClass['&'] |= kAmp
	keepClass['+'] |= kPlus
	keepClass[','] |= kComma
	keepClass[':'] |= kColon
	for c := 0; c < 256; c++ {
		if (isUnreserved(byte(c)) && c != '~') || c == '/' || c == '$' {
			keepClass[c] |= kLynx
		}
	}
	keepClass['@'] |= kAt
	keepClass['/'] |= kSlash
}

// keep8 reports whether all eight bytes of w are in keep (each byte may be
// kept for a different bit of keep: "a" as unreserved, "/" as a slash),
// without a branch per byte.
func keep8(w string, keep uint16) bool {
	w = w[:8]
	return kept(w[0], keep)&kept(w[1], keep)&kept(w[2], keep)&kept(w[3], keep)&
		kept(w[4], keep)&kept(w[5], keep)&kept(w[6], keep)&kept(w[7], keep) != 0
}

// kept is 1 when c is in keep, else 0.
func kept(c byte, keep uint16) uint8 {
	if keepClass[c]&keep != 0 {
		return 1
	}
	return 0
}

// appendEscaped appends s to b, percent-encoding every byte not in keep.
func appendEscaped(b []byte, s string, keep uint16) []byte {
	for len(s) > 0 {
		// The longest run kept as it is goes in one append (looked up
		// eight bytes at a time while every byte is kept).
		i := 0
		for ; i+8 <= len(s); i += 8 {
			if !keep8(s[i:i+8], keep) {
				break
			}
		}
		if i+8 > len(s) && len(s) >= 8 && keep8(s[len(s)-8:], keep) {
			i = len(s) // the last eight bytes, overlapping the blocks checked
		}
		for i < len(s) && keepClass[s[i]]&keep != 0 {
			i++
		}
		b = append(b, s[:i]...)
		if i == len(s) {
			break
		}
		c := s[i]
		b = append(b, '%', upperHex[c>>4], upperHex[c&15])
		s = s[i+1:]
	}
	return b
}

// appendAuthority appends "//", the userinfo when user or password is not
// empty, the host (an IPv6 address in brackets, a reg-name
// percent-encoded), and ":port" unless port is 0 or less or scheme's
// default.
func appendAuthority(b []byte, scheme, user, password, host string, port int) []byte {
	b = append(b, "//"...)
	if user != "" || password != "" {
		b = appendEscaped(b, user, keepUser)
		if password != "" {
			b = append(b, ':')
			b = appendEscaped(b, password, keepUser)
		}
		b = append(b, '@')
	}
	if IsIPv6Address(host) {
		b = append(b, '[')
		b = append(b, host...)
		b = append(b, ']')
	} else {
		b = appendEscaped(b, host, keepHost)
	}
	if port > 0 && port != DefaultPort(scheme) {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(port), 10)
	}
	return b
}

func start(scheme string, n int) []byte {
	b := make([]byte, 0, len(scheme)+n+16)
	b = append(b, scheme...)
	return append(b, ':')
}

// GopherURL returns the gopher (or gophers) URL of an item: scheme is
// "gopher" or "gophers" ("" means "gopher"), port 0 or the default is
// left out. The item type and selector are percent-encoded so that Parse
// gives back the same bytes; a selector cannot hold TAB (it would start the
// search).
func GopherURL(scheme, host string, port int, itemType byte, selector string) string {
	return gopherURL(scheme, host, port, itemType, selector, "", "", 0)
}

// GopherSearchURL is GopherURL for a search: selector%09search.
func GopherSearchURL(scheme, host string, port int, itemType byte, selector, search string) string {
	return gopherURL(scheme, host, port, itemType, selector, search, "", 1)
}

// GopherPlusURL is GopherURL with a search and a gopher+ string:
// selector%09search%09plus.
func GopherPlusURL(scheme, host string, port int, itemType byte, selector, search, plus string) string {
	return gopherURL(scheme, host, port, itemType, selector, search, plus, 2)
}

// oneByte holds every byte value once, in order: oneByte[c:c+1] is the
// one-byte string c without an allocation.
var oneByte = func() string {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return string(b)
}()

// AppendGopherURL appends GopherURL(scheme, host, port, itemType,
// selector) to b: for renderers that write many URLs into one buffer. It is
// AppendGopherRoot followed by AppendGopherPath.
func AppendGopherURL(b []byte, scheme, host string, port int, itemType byte, selector string) []byte {
	return AppendGopherPath(AppendGopherRoot(b, scheme, host, port), itemType, selector)
}

// AppendGopherRoot appends scheme://host[:port]/, the part of a gopher URL
// that the items of one server share ("" means "gopher").
func AppendGopherRoot(b []byte, scheme, host string, port int) []byte {
	if scheme == "" {
		scheme = "gopher"
	}
	b = append(b, scheme...)
	b = append(b, ':')
	b = appendAuthority(b, scheme, "", "", host, port)
	return append(b, '/')
}

// AppendGopherPath appends the item type and selector of a gopher URL,
// percent-encoded, as they follow AppendGopherRoot.
func AppendGopherPath(b []byte, itemType byte, selector string) []byte {
	b = appendEscaped(b, oneByte[itemType:int(itemType)+1], keepPath) // one byte, not UTF-8
	return appendEscaped(b, selector, keepPath)
}

func gopherURL(scheme, host string, port int, itemType byte, selector, search, plus string, tabs int) string {
	if scheme == "" {
		scheme = "gopher"
	}
	b := start(scheme, len(host)+len(selector)+len(search)+len(plus))
	return string(appendGopherRest(b, scheme, host, port, itemType, selector, search, plus, tabs))
}

func appendGopherRest(b []byte, scheme, host string, port int, itemType byte, selector, search, plus string, tabs int) []byte {
	b = appendAuthority(b, scheme, "", "", host, port)
	b = AppendGopherPath(append(b, '/'), itemType, selector)
	if tabs > 0 {
		b = append(b, "%09"...)
		b = appendEscaped(b, search, keepPath)
	}
	if tabs > 1 {
		b = append(b, "%09"...)
		b = appendEscaped(b, plus, keepPath)
	}
	return b
}

// SessionURL returns scheme://user@host:port/ for an interactive session
// (telnet, tn3270, rlogin): the user is left out when empty, the port when
// it is 0 or the scheme's default (telnet and tn3270 23, rlogin 513).
func SessionURL(scheme, user, host string, port int) string {
	b := start(scheme, len(user)+len(host)+8)
	b = appendAuthority(b, scheme, user, "", host, port)
	return string(append(b, '/'))
}

// FTPURL returns ftp://user:password@host:port/cwd…/name;type=X. User and
// password are left out when both are empty, the port when it is 0 or 21,
// ";type=" when typecode is 0 (else it should be 'a', 'i' or 'd'). Every
// segment is encoded on its own, "/" and ";" included, so Parse gives back
// the same CWD, Name and Type.
func FTPURL(host string, port int, user, password string, cwd []string, name string, typecode byte) string {
	n := len(host) + len(user) + len(password) + len(name)
	for _, c := range cwd {
		n += len(c) + 1
	}
	b := start("ftp", n)
	b = appendAuthority(b, "ftp", user, password, host, port)
	b = append(b, '/')
	for _, c := range cwd {
		b = appendEscaped(b, c, keepSeg)
		b = append(b, '/')
	}
	b = appendEscaped(b, name, keepSeg)
	if typecode != 0 {
		b = append(b, ";type="...)
		b = append(b, typecode)
	}
	return string(b)
}

// NNTPURL returns nntp://host:port/group/article (article "" leaves out
// the "/article"; it should be decimal digits). Port 0 or 119 is left out.
func NNTPURL(host string, port int, group, article string) string {
	b := start("nntp", len(host)+len(group)+len(article))
	b = appendAuthority(b, "nntp", "", "", host, port)
	b = append(b, '/')
	b = appendEscaped(b, group, keepGroup)
	if article != "" {
		b = append(b, '/')
		b = appendEscaped(b, article, keepGroup)
	}
	return string(b)
}

// NewsURL returns news:grouppart for a newsgroup, a message-id (without
// angle brackets) or "*".
func NewsURL(grouppart string) string {
	b := start("news", len(grouppart))
	return string(appendEscaped(b, grouppart, keepNews))
}

// TelnetURL returns telnet://user:password@host:port/.
func TelnetURL(host string, port int, user, password string) string {
	b := start("telnet", len(host)+len(user)+len(password))
	b = appendAuthority(b, "telnet", user, password, host, port)
	return string(append(b, '/'))
}

// WAISURL returns wais://host:port/database.
func WAISURL(host string, port int, database string) string {
	b := start("wais", len(host)+len(database))
	b = appendAuthority(b, "wais", "", "", host, port)
	b = append(b, '/')
	return string(appendEscaped(b, database, keepWAISSeg))
}

// WAISSearchURL returns wais://host:port/database?search ("+" in search is
// encoded, since Lynx reads a literal "+" as a space).
func WAISSearchURL(host string, port int, database, search string) string {
	b := start("wais", len(host)+len(database)+len(search))
	b = appendAuthority(b, "wais", "", "", host, port)
	b = append(b, '/')
	b = appendEscaped(b, database, keepWAISSeg)
	b = append(b, '?')
	return string(appendEscaped(b, search, keepSearch))
}

// WAISDocURL returns wais://host:port/database/wtype/length/wpath, or
// without "/length" when length is "" (it should be decimal digits). When
// there is no length and wpath itself starts with digits and "/", that
// "/" is encoded so that Parse does not take the digits for a length.
func WAISDocURL(host string, port int, database, docType, length, docPath string) string {
	b := startWAISDoc(len(docPath), host, port, database, docType, length)
	if length == "" {
		n := 0
		for n < len(docPath) && docPath[n] >= '0' && docPath[n] <= '9' {
			n++
		}
		if n > 0 && n < len(docPath) && docPath[n] == '/' {
			b = append(b, docPath[:n]...)
			b = append(b, "%2F"...)
			docPath = docPath[n+1:]
		}
	}
	return string(appendEscaped(b, docPath, keepDocID))
}

// startWAISDoc starts a document URL: wais://host:port/database/wtype/,
// and length/ unless length is "", with room for n more bytes.
func startWAISDoc(n int, host string, port int, database, docType, length string) []byte {
	b := start("wais", n+len(host)+len(database)+len(docType)+len(length))
	b = appendAuthority(b, "wais", "", "", host, port)
	b = append(b, '/')
	b = appendEscaped(b, database, keepWAISSeg)
	b = append(b, '/')
	b = appendEscaped(b, docType, keepWAISSeg)
	b = append(b, '/')
	if length != "" {
		b = appendEscaped(b, length, keepWAISSeg)
		b = append(b, '/')
	}
	return b
}

// WAISDocFieldsURL returns wais://host:port/database/wtype/length/docid with
// the DocID written as Lynx and CERN libwww write it: "<tag>=<value>;" for
// every field, each byte of a value outside A-Z a-z 0-9 . / - _ $ as %XX.
// Old WAIS clients understand this form; Parse gives the fields back in
// DocFields. length is decimal digits, or "" to leave the segment out.
func WAISDocFieldsURL(host string, port int, database, docType, length string, fields []WAISField) string {
	n := 0
	for _, f := range fields {
		n += len(f.Value) + 12
	}
	b := startWAISDoc(n, host, port, database, docType, length)
	for _, f := range fields {
		b = strconv.AppendInt(b, int64(f.Tag), 10)
		b = append(b, '=')
		b = appendEscaped(b, f.Value, keepLynx)
		b = append(b, ';')
	}
	return string(b)
}

// ProsperoURL returns prospero://host:port/hsoname;name=value… (an
// hsoname starting with "/" gives "//" after the host).
func ProsperoURL(host string, port int, hsoname string, fields []Field) string {
	n := len(host) + len(hsoname)
	for _, f := range fields {
		n += len(f.Name) + len(f.Value) + 2
	}
	b := start("prospero", n)
	b = appendAuthority(b, "prospero", "", "", host, port)
	b = append(b, '/')
	b = appendEscaped(b, hsoname, keepHSO)
	for _, f := range fields {
		b = append(b, ';')
		b = appendEscaped(b, f.Name, keepField)
		b = append(b, '=')
		b = appendEscaped(b, f.Value, keepField)
	}
	return string(b)
}

// MailtoURL returns mailto:addr,addr?name=value&name=value (RFC 6068).
func MailtoURL(to []string, headers []Header) string {
	n := 0
	for _, a := range to {
		n += len(a) + 1
	}
	for _, h := range headers {
		n += len(h.Name) + len(h.Value) + 2
	}
	b := start("mailto", n)
	for i, a := range to {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEscaped(b, a, keepAddr)
	}
	for i, h := range headers {
		if i == 0 {
			b = append(b, '?')
		} else {
			b = append(b, '&')
		}
		b = appendEscaped(b, h.Name, keepHField)
		b = append(b, '=')
		b = appendEscaped(b, h.Value, keepHField)
	}
	return string(b)
}

// FileURL returns file:///path for a local path ("/" is put in front of a
// path that does not start with one).
func FileURL(path string) string {
	b := start("file", len(path)+3)
	b = append(b, "//"...)
	if !strings.HasPrefix(path, "/") {
		b = append(b, '/')
	}
	return string(appendEscaped(b, path, keepPath))
}

// SegmentEscape percent-encodes s for use as one path segment: every byte
// but pchar is encoded, and so are ";" and "/" (so that an ftp name keeps
// its bytes and cannot start a ;type= or a new segment).
func SegmentEscape(s string) string { return string(appendEscaped(nil, s, keepSeg)) }

// UserinfoEscape percent-encodes s for the user or the password part of a
// userinfo: unreserved characters and sub-delims stay, everything else
// (":" and "@" included) is encoded.
func UserinfoEscape(s string) string { return string(appendEscaped(nil, s, keepUser)) }
