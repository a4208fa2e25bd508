package urlparse

import (
	"strconv"
	"strings"
)

// String returns the URL exactly as it was parsed, recomposed from its raw
// components (RFC 3986 §5.3): Parse(u.String()) gives u back.
func (u *URL) String() string { return u.Ref.String() }

// Redacted is String with the password, when there is one, shown as "****"
// (net/url's Redacted), for logs and messages.
func (r *Ref) Redacted() string {
	if !r.HasPassword {
		return r.String()
	}
	c := *r
	user, _, _ := strings.Cut(c.RawUserinfo, ":")
	c.RawUserinfo = user + ":****"
	return c.String()
}

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

// SegmentEscape percent-encodes s for use as one path segment: every byte
// but pchar is encoded, and so are ";" and "/" (so that an ftp name keeps
// its bytes and cannot start a ;type= or a new segment).
func SegmentEscape(s string) string { return string(appendEscaped(nil, s, keepSeg)) }

// UserinfoEscape percent-encodes s for the user or the password part of a
// userinfo: unreserved characters and sub-delims stay, everything else
// (":" and "@" included) is encoded.
func UserinfoEscape(s string) string { return string(appendEscaped(nil, s, keepUser)) }
