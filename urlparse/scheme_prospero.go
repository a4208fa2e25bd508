package urlparse

import "strings"

var _ = defScheme(schemeDef{port: 1525, rule: "prosperourl", form: formProspero, inText: true}, "prospero")

// parseProspero reads prospero://host:port/hsoname;field=value;field=value
// (RFC 1738 §3.11). The hsoname is everything after the "/" that follows
// host:port up to the first literal ";", so prospero://h//a/b names "/a/b".
// "?" is an ordinary character (psegment), so the query belongs to the
// path. Fields are split on literal ";" and then on the first literal "=",
// and each piece is decoded after splitting.
func (u *URL) parseProspero(s string) error {
	if err := u.needHost(s); err != nil {
		return err
	}
	var v pview
	v.init(s, &u.Ref, true)
	a, err := u.urlPath(s, &v)
	if err != nil || a < 0 {
		return err
	}
	p := &u.Prospero
	semi := strings.IndexByte(s[a:v.end], ';')
	if semi < 0 {
		p.HSOName = v.dec(a, v.end)
		return nil
	}
	p.HSOName = v.dec(a, a+semi)
	a += semi + 1
	p.Fields = make([]Field, strings.Count(s[a:v.end], ";")+1)
	for i := range p.Fields {
		b := v.end
		if k := strings.IndexByte(s[a:b], ';'); k >= 0 {
			b = a + k
		}
		eq := strings.IndexByte(s[a:b], '=')
		if eq < 0 {
			return errAt(s, b, "fieldspec", "field without \"=\"")
		}
		p.Fields[i] = Field{Name: v.dec(a, a+eq), Value: v.dec(a+eq+1, b)}
		a = b + 1
	}
	return nil
}

// ObjectVersion is the field that names a version of the object (RFC
// 1738 §3.11 leaves field names to Prospero; its servers know
// OBJECT-VERSION, which goes into the request's version token).
const ObjectVersion = "OBJECT-VERSION"

// Field returns the value of the first field called name, compared without
// regard to case as Prospero compares its keywords.
func (p *Prospero) Field(name string) (value string, ok bool) {
	for _, f := range p.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value, true
		}
	}
	return "", false
}

// checkProspero is CheckLine for the fields of prospero URLs.
func (u *URL) checkProspero() error {
	sc := u.Scheme
	p := &u.Prospero
	if err := checkField(sc, "hsoname", -1, p.HSOName, maskLine); err != nil {
		return err
	}
	for k, f := range p.Fields {
		if err := checkField(sc, "field name", k, f.Name, maskLine); err != nil {
			return err
		}
		if err := checkField(sc, "field value", k, f.Value, maskLine); err != nil {
			return err
		}
	}
	return nil
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

func (u *URL) prosperoFields(w FieldWriter) {
	p := &u.Prospero
	w.String("hsoname", p.HSOName)
	w.Pairs("fields", len(p.Fields), func(i int) (string, string) { return p.Fields[i].Name, p.Fields[i].Value })
}
