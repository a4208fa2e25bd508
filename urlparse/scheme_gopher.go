package urlparse

import "strings"

var _ = defScheme(schemeDef{port: 70, rule: "gopherurl", form: formGopher, inText: true}, "gopher", "gophers")

// parseGopher reads gopher://host:port/<gophertype><selector>%09<search>%09<gopher+_string>
// (RFC 1738 §3.4; gophers, RFC 4266, has the same syntax). Nothing in the
// gopher-path is reserved, so a "?" belongs to the selector: the path, "?"
// and the query are read as one string. "#" still starts a fragment, which
// is ignored. The whole gopher-path is decoded first and then split at the
// first two TAB bytes: a literal TAB cannot appear in a URL, so each came
// from "%09". A TAB beyond those two stays in the gopher+ string, for
// CheckLine to refuse.
func (u *URL) parseGopher(s string) error {
	if err := u.needHost(s); err != nil {
		return err
	}
	var v pview
	v.init(s, &u.Ref, true)
	a, err := u.urlPath(s, &v)
	if err != nil {
		return err
	}
	g := &u.Gopher
	if a < 0 || a == v.end {
		g.Type = '1'
		return nil
	}
	d := v.dec(a, v.end)
	g.Type = d[0]
	rest := d[1:]
	k := strings.IndexByte(rest, '\t')
	if k < 0 {
		g.Selector = rest
		return nil
	}
	g.Selector, rest = rest[:k], rest[k+1:]
	g.HasSearch = true
	k = strings.IndexByte(rest, '\t')
	if k < 0 {
		g.Search = rest
		return nil
	}
	g.Search, g.Plus = rest[:k], rest[k+1:]
	g.HasPlus = true
	return nil
}

// checkGopher is CheckLine for the fields of gopher and gophers URLs.
func (u *URL) checkGopher() error {
	g := &u.Gopher
	return checkFields(u.Scheme, maskGopher, "selector", g.Selector, "search", g.Search, "plus", g.Plus)
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

func (u *URL) gopherFields(w FieldWriter) {
	g := &u.Gopher
	w.String("type", typecodeString(g.Type))
	w.String("selector", g.Selector)
	if g.HasSearch {
		w.String("search", g.Search)
	}
	if g.HasPlus {
		w.String("plus", g.Plus)
	}
}
