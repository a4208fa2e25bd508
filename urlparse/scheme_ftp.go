package urlparse

import "strings"

var _ = defScheme(schemeDef{port: 21, rule: "ftpurl", form: formFTP, inText: true}, "ftp")

// ftps is ftp inside TLS from the first byte (RFC 4217 §11's "implicit"
// FTPS, port 990): the same syntax as ftp.
var _ = defScheme(schemeDef{port: 990, rule: "ftpurl", form: formFTP, inText: true}, "ftps")

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

// checkFTP is CheckLine for the fields of ftp URLs.
func (u *URL) checkFTP() error {
	sc := u.Scheme
	for k, seg := range u.FTP.CWD {
		if err := checkField(sc, "cwd", k, seg, maskLine); err != nil {
			return err
		}
	}
	if err := checkField(sc, "name", -1, u.FTP.Name, maskLine); err != nil {
		return err
	}
	return nil
}

// FTPURL returns ftp://user:password@host:port/cwd…/name;type=X. User and
// password are left out when both are empty, the port when it is 0 or 21,
// ";type=" when typecode is 0 (else it should be 'a', 'i' or 'd'). Every
// segment is encoded on its own, "/" and ";" included, so Parse gives back
// the same CWD, Name and Type.
func FTPURL(host string, port int, user, password string, cwd []string, name string, typecode byte) string {
	return FTPSchemeURL("ftp", host, port, user, password, cwd, name, typecode)
}

// FTPSchemeURL is FTPURL for scheme "ftp" or "ftps" (whose default port,
// left out, is 990).
func FTPSchemeURL(scheme, host string, port int, user, password string, cwd []string, name string, typecode byte) string {
	n := len(host) + len(user) + len(password) + len(name)
	for _, c := range cwd {
		n += len(c) + 1
	}
	b := start(scheme, n)
	b = appendAuthority(b, scheme, user, password, host, port)
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

func (u *URL) ftpFields(w FieldWriter) {
	w.Strings("cwd", u.FTP.CWD)
	w.String("name", u.FTP.Name)
	w.String("type", typecodeString(u.FTP.Type))
}
