package urlparse

import "strings"

var _ = defScheme(schemeDef{rule: "mailtoURI", form: formMailto, inText: true}, "mailto")

// parseMailto reads mailto:addr,addr?hfname=hfvalue&hfname=hfvalue
// (RFC 6068 §2). The path is split on literal "," and the query on literal
// "&" and then "=", and every piece is decoded after splitting, so "%2C",
// "%26" and "%3D" stay inside their piece. "+" is not a space (RFC 6068
// §5). An empty query ("mailto:a@b?") has no header fields.
func (u *URL) parseMailto(s string) error {
	if u.HasAuth {
		return errAt(s, len(u.RawScheme)+1, "mailtoURI", "a mailto URL has no \"//\" authority")
	}
	var v pview
	v.init(s, &u.Ref, false)
	m := &u.Mailto
	if u.RawPath != "" {
		m.To = make([]string, strings.Count(u.RawPath, ",")+1)
		a := v.po
		for i := range m.To {
			b := v.pe
			if k := strings.IndexByte(s[a:b], ','); k >= 0 {
				b = a + k
			}
			if a == b {
				return errAt(s, a, "to", "empty address")
			}
			m.To[i] = v.dec(a, b)
			a = b + 1
		}
	}
	if u.RawQuery != "" {
		m.Headers = make([]Header, strings.Count(u.RawQuery, "&")+1)
		a := v.pe + 1
		qe := a + len(u.RawQuery)
		for i := range m.Headers {
			b := qe
			if k := strings.IndexByte(s[a:b], '&'); k >= 0 {
				b = a + k
			}
			eq := strings.IndexByte(s[a:b], '=')
			if eq < 0 {
				return errAt(s, b, "hfield", "header field without \"=\"")
			}
			m.Headers[i] = Header{Name: v.dec(a, a+eq), Value: v.dec(a+eq+1, b)}
			a = b + 1
		}
	}
	return nil
}

// checkMailto is CheckLine for the fields of mailto URLs.
func (u *URL) checkMailto() error {
	sc := u.Scheme
	for k, a := range u.Mailto.To {
		if err := checkField(sc, "to", k, a, maskLine); err != nil {
			return err
		}
	}
	for k, h := range u.Mailto.Headers {
		if err := checkField(sc, "hfname", k, h.Name, maskLine); err != nil {
			return err
		}
		// A body may hold line breaks (RFC 6068 §2: %0D%0A).
		mask := maskLine
		if strings.EqualFold(h.Name, "body") {
			mask = maskNUL
		}
		if err := checkField(sc, "hfvalue", k, h.Value, mask); err != nil {
			return err
		}
	}
	return nil
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

func (u *URL) mailtoFields(w FieldWriter) {
	m := &u.Mailto
	w.Strings("to", m.To)
	w.Pairs("headers", len(m.Headers), func(i int) (string, string) { return m.Headers[i].Name, m.Headers[i].Value })
}
