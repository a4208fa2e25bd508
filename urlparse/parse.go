package urlparse

// Parse parses an absolute URL of any scheme: the generic RFC 3986 syntax
// first (strictly), then the scheme's own syntax from RFC 1738 (or the later
// RFC for https, gophers, mailto and nntps), filling in the typed fields.
// Schemes are case-insensitive. An error is an *Error naming the byte offset
// and the rule broken.
func Parse(s string) (u URL, err error) {
	// Small enough to inline, which saves one copy of the URL (some 640
	// bytes) on the way back to the caller.
	if err = u.parse(s); err != nil {
		return URL{}, err
	}
	return u, nil
}

// parse fills in u, which must be zero.
func (u *URL) parse(s string) error {
	if err := u.Ref.parse(s, true); err != nil {
		return err
	}
	if u.Port > maxPort {
		return errAt(s, portOffset(s, &u.Ref), "port", "port number over 65535")
	}
	return u.parseScheme(s)
}

// portOffset is the byte offset of the port in s.
func portOffset(s string, r *Ref) int {
	return len(r.RawScheme) + 3 + len(r.RawUserinfo) + b2i(r.HasUserinfo) + len(r.RawHost) + 1
}

// pathOffset is the byte offset of the path in s.
func pathOffset(r *Ref) int {
	n := len(r.RawScheme) + 1
	if r.HasAuth {
		n += 2 + len(r.RawUserinfo) + b2i(r.HasUserinfo) + len(r.RawHost) + b2i(r.HasPort) + len(r.RawPort)
	}
	return n
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PortOrDefault returns the URL's port, or its scheme's default port.
func (u *URL) PortOrDefault() int {
	if u.Port >= 0 {
		return u.Port
	}
	return DefaultPort(u.Scheme)
}
