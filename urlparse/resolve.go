package urlparse

import "strings"

// Resolve resolves the reference ref against the base URI r exactly as
// RFC 3986 §5.2.2 (strict) describes, and returns the target. The base
// should be an absolute URI; its fragment is ignored (§5.1).
func (r *Ref) Resolve(ref *Ref) Ref {
	var t Ref
	t.Port = -1
	if ref.RawScheme != "" {
		t.setScheme(ref)
		t.setAuthority(ref)
		t.RawPath = RemoveDotSegments(ref.RawPath)
		t.setQuery(ref)
	} else {
		if ref.HasAuth {
			t.setAuthority(ref)
			t.RawPath = RemoveDotSegments(ref.RawPath)
			t.setQuery(ref)
		} else {
			if ref.RawPath == "" {
				t.RawPath = r.RawPath
				if ref.HasQuery {
					t.setQuery(ref)
				} else {
					t.setQuery(r)
				}
			} else {
				if ref.RawPath[0] == '/' {
					t.RawPath = RemoveDotSegments(ref.RawPath)
				} else {
					t.RawPath = RemoveDotSegments(r.merge(ref.RawPath))
				}
				t.setQuery(ref)
			}
			t.setAuthority(r)
		}
		t.setScheme(r)
	}
	t.HasFragment, t.RawFragment = ref.HasFragment, ref.RawFragment
	t.decode(t.decodeMask())
	return t
}

func (t *Ref) setScheme(s *Ref) { t.RawScheme, t.Scheme = s.RawScheme, s.Scheme }

func (t *Ref) setQuery(s *Ref) { t.HasQuery, t.RawQuery = s.HasQuery, s.RawQuery }

func (t *Ref) setAuthority(s *Ref) {
	t.HasAuth, t.HasUserinfo, t.HasPort, t.HostKind = s.HasAuth, s.HasUserinfo, s.HasPort, s.HostKind
	t.RawUserinfo, t.RawHost, t.RawPort, t.Port = s.RawUserinfo, s.RawHost, s.RawPort, s.Port
}

// merge implements §5.2.3.
func (r *Ref) merge(path string) string {
	if r.HasAuth && r.RawPath == "" {
		return "/" + path
	}
	k := strings.LastIndexByte(r.RawPath, '/')
	if k < 0 {
		return path
	}
	return r.RawPath[:k+1] + path
}

// RemoveDotSegments implements the algorithm of RFC 3986 §5.2.4.
func RemoveDotSegments(in string) string {
	if !hasDotSegment(in) {
		return in
	}
	out := make([]byte, 0, len(in))
	for len(in) > 0 {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			out = popSegment(out)
		case in == "/..":
			in = "/"
			out = popSegment(out)
		case in == "." || in == "..":
			in = ""
		default:
			// move the first segment, with its leading "/" if any, to out
			k := 0
			if in[0] == '/' {
				k = 1
			}
			if j := strings.IndexByte(in[k:], '/'); j >= 0 {
				k += j
			} else {
				k = len(in)
			}
			out = append(out, in[:k]...)
			in = in[k:]
		}
	}
	return bytesString(out) // out is not written again
}

func popSegment(out []byte) []byte {
	k := strings.LastIndexByte(bytesString(out), '/')
	if k < 0 {
		return out[:0]
	}
	return out[:k]
}

// hasDotSegment reports whether any segment of p is "." or "..".
func hasDotSegment(p string) bool {
	for i := 0; i < len(p); {
		j := strings.IndexByte(p[i:], '/')
		var seg string
		if j < 0 {
			seg = p[i:]
			j = len(p)
		} else {
			seg = p[i : i+j]
			j += i
		}
		if seg == "." || seg == ".." {
			return true
		}
		i = j + 1
	}
	return false
}

// ResolveString parses base and ref and resolves ref against base.
func ResolveString(base, ref string) (string, error) {
	b, err := ParseAbsolute(base)
	if err != nil {
		return "", err
	}
	r, err := ParseRef(ref)
	if err != nil {
		return "", err
	}
	t := b.Resolve(&r)
	return t.String(), nil
}
