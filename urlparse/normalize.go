package urlparse

import "strings"

// DefaultPort returns the well-known port of a scheme RFC 1738 (or a later
// RFC) defines, or 0 when there is none.
func DefaultPort(scheme string) int {
	if d := defOf(scheme); d != nil {
		return d.port
	}
	return 0
}

// Normalize returns the reference in the normal form of RFC 3986 §6.2.2
// (case, percent-encoding, dot segments) and §6.2.3 (an empty or default
// port is dropped; an empty http or https path with an authority becomes "/").
func (r *Ref) Normalize() Ref {
	n := *r
	n.RawScheme = r.Scheme
	if r.HasAuth {
		n.RawUserinfo = normPct(r.RawUserinfo, false)
		n.RawHost = normPct(r.RawHost, true)
		if r.HasPort && (r.RawPort == "" || r.Port == DefaultPort(r.Scheme) && r.Scheme != "") {
			n.HasPort, n.RawPort, n.Port = false, "", -1
		} else if r.HasPort {
			// Leading zeros name the same port.
			if n.RawPort = strings.TrimLeft(r.RawPort, "0"); n.RawPort == "" {
				n.RawPort = "0"
			}
		}
	}
	p := normPct(r.RawPath, false)
	if r.RawScheme == "" && !r.HasAuth && p != "" && p[0] != '/' {
		p = removeDotSegmentsRelative(p)
	} else {
		// §5.2.4 as written, as resolution applies it: a rootless path
		// whose ".." climbs past its first segment becomes rooted
		// ("foo:a/../../b" is "foo:/b").
		p = RemoveDotSegments(p)
	}
	switch {
	case p == "" && r.HasAuth && defOf(r.Scheme) != nil && defOf(r.Scheme).rootPath:
		p = "/"
	case !r.HasAuth && strings.HasPrefix(p, "//"):
		// "/.//x" lost its "/." and would now read as an authority.
		p = "/." + p
	}
	n.RawPath = p
	n.RawQuery = normPct(r.RawQuery, false)
	n.RawFragment = normPct(r.RawFragment, false)
	n.decode(n.decodeMask())
	return n
}

// removeDotSegmentsRelative removes the dot segments of the relative path
// of a relative reference (no scheme, no authority, no leading "/") without
// changing what the reference resolves to against any base: a ".." that has
// no segment of its own to remove is kept (it removes one of the base's),
// the result gains a "./" prefix when its first segment would otherwise be
// empty or hold a ':', and a path that cancels out entirely becomes "./",
// which like "." and "a/.." names the base's directory.
func removeDotSegmentsRelative(p string) string {
	if !hasDotSegment(p) {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	up := 0 // leading ".." segments in out
	for i, seg := range segs {
		last := i == len(segs)-1
		switch seg {
		case ".":
		case "..":
			if len(out) > up {
				out = out[:len(out)-1]
			} else {
				out = append(out, "..")
				up++
			}
		default:
			out = append(out, seg)
			continue
		}
		if last {
			out = append(out, "") // a final "." or ".." names a directory
		}
	}
	q := strings.Join(out, "/")
	if q == "" || q[0] == '/' || strings.IndexByte(out[0], ':') >= 0 {
		q = "./" + q
	}
	return q
}

// normPct upper-cases the hex digits of every pct-encoded octet and decodes
// those that encode unreserved characters; with lower, letters outside
// escapes are lower-cased too (for the host).
func normPct(s string, lower bool) string {
	need := false
	for i := 0; i < len(s) && !need; i++ {
		c := s[i]
		need = c == '%' || lower && c >= 'A' && c <= 'Z'
	}
	if !need {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			d := unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
			if isUnreserved(d) {
				if lower && d >= 'A' && d <= 'Z' {
					d += 'a' - 'A'
				}
				b.WriteByte(d)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[d>>4])
				b.WriteByte(upperHex[d&15])
			}
			continue
		}
		if lower && c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Normalize parses s and returns its normal form as a string.
func Normalize(s string) (string, error) {
	r, err := ParseRef(s)
	if err != nil {
		return "", err
	}
	n := r.Normalize()
	return n.String(), nil
}

// Equivalent reports whether a and b are equivalent after normalization
// (RFC 3986 §6.2.2 and §6.2.3).
func Equivalent(a, b string) (bool, error) {
	na, err := Normalize(a)
	if err != nil {
		return false, err
	}
	nb, err := Normalize(b)
	if err != nil {
		return false, err
	}
	return na == nb, nil
}
