package urlparse

import "strings"

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
