package urlparse

import "strings"

// parseWAIS reads the wais URL forms (RFC 1738 §3.9, RFC 4156):
//
//	wais://host:port/database
//	wais://host:port/database?search
//	wais://host:port/database/wtype/wpath
//	wais://host:port/database/wtype/length/wpath
//
// The last is what Lynx and CERN libwww write: after
// /database/wtype/, leading digits followed by "/" are the document length
// (a libwww DOCID always starts "<digits>=", so this is unambiguous). The
// wpath is everything after, decoded, "/" included; when it is written in
// Lynx's DocID notation its fields are in DocFields as well. Search is the decoded
// query as written: "+" is not turned into a space here (Lynx does that).
func (u *URL) parseWAIS(s string) error {
	if err := u.needHost(s); err != nil {
		return err
	}
	var v pview
	v.init(s, &u.Ref, false)
	w := &u.WAIS
	if u.RawPath == "" {
		w.Search, w.HasSearch = u.Query, u.HasQuery
		return nil
	}
	a := v.po + 1
	k := strings.IndexByte(s[a:v.pe], '/')
	if k < 0 {
		w.Database = v.dec(a, v.pe)
		w.Search, w.HasSearch = u.Query, u.HasQuery
		return nil
	}
	w.Database = v.dec(a, a+k)
	a += k + 1
	k = strings.IndexByte(s[a:v.pe], '/')
	if k < 0 {
		return errAt(s, v.pe, "waisdoc", "a WAIS document URL needs /database/wtype/wpath")
	}
	w.DocType = v.dec(a, a+k)
	a += k + 1
	n := 0
	for a+n < v.pe && s[a+n] >= '0' && s[a+n] <= '9' {
		n++
	}
	if n > 0 && a+n < v.pe && s[a+n] == '/' {
		w.Length = s[a : a+n]
		a += n + 1
	}
	w.DocPath = v.dec(a, v.pe)
	w.DocFields = parseDocFields(s, a, v.pe, &v)
	if u.HasQuery {
		return errAt(s, v.pe, "waisdoc", "a WAIS document URL has no search")
	}
	return nil
}

// maxDocTag bounds a DocID field tag: a WAIS tag is a compressed integer
// of at most four bytes.
const maxDocTag = 1<<28 - 1

// parseDocFields reads s[a:b] (a wpath as written, escapes kept) as
// "<tag>=<value>;"…, the DocID notation of Lynx and CERN libwww
// (WWW_from_WAIS), decoding each value on its own. It returns nil when the
// wpath is anything else.
func parseDocFields(s string, a, b int, v *pview) []WAISField {
	n := strings.Count(s[a:b], ";")
	if n == 0 {
		return nil
	}
	var fields []WAISField
	for a < b {
		k, tag := 0, 0
		for a+k < b && k < 9 && s[a+k] >= '0' && s[a+k] <= '9' {
			tag = tag*10 + int(s[a+k]-'0')
			k++
		}
		if k == 0 || a+k >= b || s[a+k] != '=' || tag > maxDocTag {
			return nil
		}
		a += k + 1
		end := strings.IndexByte(s[a:b], ';')
		if end < 0 {
			return nil
		}
		if fields == nil {
			fields = make([]WAISField, 0, n)
		}
		fields = append(fields, WAISField{Tag: tag, Value: v.dec(a, a+end)})
		a += end + 1
	}
	return fields
}
