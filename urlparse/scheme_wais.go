package urlparse

import (
	"strconv"
	"strings"
)

var _ = defScheme(schemeDef{port: 210, rule: "waisurl", form: formWAIS, inText: true}, "wais")

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

// checkWAIS is CheckLine for the fields of wais URLs.
func (u *URL) checkWAIS() error {
	w := &u.WAIS
	return checkFields(u.Scheme, maskLine, "database", w.Database, "search", w.Search, "wtype", w.DocType, "length", w.Length)
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

func (u *URL) waisFields(w FieldWriter) {
	x := &u.WAIS
	w.String("database", x.Database)
	if x.HasSearch {
		w.String("search", x.Search)
	}
	w.String("doc_type", x.DocType)
	w.String("doc_path", x.DocPath)
	w.String("length", x.Length)
	if x.DocFields != nil {
		w.Pairs("doc_fields", len(x.DocFields), func(i int) (string, string) {
			return strconv.Itoa(x.DocFields[i].Tag), x.DocFields[i].Value
		})
	}
}
