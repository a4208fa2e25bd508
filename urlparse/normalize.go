package urlparse

import (
	"strconv"
	"strings"
)

// DefaultPort returns the well-known port of a scheme RFC 1738 (or a later
// RFC) defines, or 0 when there is none.
func DefaultPort(scheme string) int {
	switch scheme {
	case "http":
		return 80
	case "https":
		return 443
	case "ftp":
		return 21
	case "gopher", "gophers":
		return 70
	case "nntp", "news":
		return 119
	case "nntps":
		return 563
	case "telnet":
		return 23
	case "wais":
		return 210
	case "prospero":
		return 1525
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
			n.RawPort = strconv.Itoa(r.Port) // drops leading zeros: same port
		}
	}
	p := normPct(r.RawPath, false)
	if p != "" && p[0] != '/' {
		// Dot segments of a rootless or relative path are removed as if it
		// were rooted, without gaining a leading "/".
		p = RemoveDotSegments("/" + p)[1:]
	} else {
		p = RemoveDotSegments(p)
	}
	if p == "" && r.HasAuth && (r.Scheme == "http" || r.Scheme == "https") {
		p = "/"
	}
	n.RawPath = p
	n.RawQuery = normPct(r.RawQuery, false)
	n.RawFragment = normPct(r.RawFragment, false)
	n.decode(true)
	return n
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
