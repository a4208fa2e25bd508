package urlparse

import "strings"

// parseFTP reads ftp://user:password@host:port/cwd1/cwd2/name;type=X
// (RFC 1738 §3.2). The url-path starts after the "/" that follows
// host:port; it is split on literal "/" first and each segment decoded
// after, so "%2F" stays inside its segment and empty segments are kept.
// "?" is an ordinary fsegment character: the query is part of the path.
// ";type=" is recognised only at the end of the last segment; the rule's
// literals and the typecode are case-insensitive (RFC 1738 §5 follows
// RFC 822), the typecode is stored in lower case.
func (u *URL) parseFTP(s string) error {
	if err := u.needHost(s); err != nil {
		return err
	}
	var v pview
	v.init(s, &u.Ref, true)
	a, err := u.urlPath(s, &v)
	if err != nil || a < 0 {
		return err
	}
	f := &u.FTP
	if n := strings.Count(s[a:v.end], "/"); n > 0 {
		f.CWD = make([]string, n)
		for i := range f.CWD {
			k := a + strings.IndexByte(s[a:v.end], '/')
			f.CWD[i] = v.dec(a, k)
			a = k + 1
		}
	}
	nameEnd := v.end
	if k := strings.LastIndexByte(s[a:v.end], ';'); k >= 0 {
		p := a + k + 1 // after ";"
		if v.end-p >= 5 && strings.EqualFold(s[p:p+5], "type=") {
			t := p + 5
			switch {
			case t == v.end:
				return errAt(s, t, "ftptype", "empty ;type= typecode (want a, i or d)")
			case !isTypecode(s[t]):
				return errAt(s, t, "ftptype", "typecode "+quoteByte(s[t])+" is not a, i or d")
			case t+1 < v.end:
				return errAt(s, t+1, "ftptype", "typecode longer than one letter (want a, i or d)")
			}
			f.Type = s[t] | 0x20
			nameEnd = a + k
		}
	}
	f.Name = v.dec(a, nameEnd)
	return nil
}

func isTypecode(c byte) bool {
	switch c | 0x20 {
	case 'a', 'i', 'd':
		return true
	}
	return false
}

// quoteByte returns c quoted for an error message.
func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return "0x" + string(upperHex[c>>4]) + string(upperHex[c&15])
}
