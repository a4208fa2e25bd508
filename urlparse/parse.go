package urlparse

// Parse parses an absolute URL of any scheme in two layers: the generic
// RFC 3986 syntax first (strictly), then the scheme's own syntax from
// RFC 1738 (or the later RFC for https, gophers, mailto and nntps), filling
// in the typed fields. Schemes are case-insensitive.
//
// Each layer has its own verdict, an *Error naming the byte offset and the
// rule broken. When the generic syntax is broken, Parse returns the zero
// URL. When only the scheme's rules are (the error's Scheme field is set),
// Parse returns the URL's generic components in Ref, with the typed fields
// left zero, so that a caller that wants only RFC 3986's answer has it: as
// strconv.ParseInt returns a value beside a range error. Such a URL remembers
// its error (SchemeErr), and fetch.Client refuses it.
//
// Parse takes URIs only; ParseIRI also takes IRIs (RFC 3987).
func Parse(s string) (u URL, err error) {
	// Small enough to inline, which saves one copy of the URL (some 640
	// bytes) on the way back to the caller.
	err = u.parse(s)
	return u, err
}

// parse fills in u, which must be zero. On error it leaves u zero, or with
// only Ref and schemeErr set when the error is the scheme's.
func (u *URL) parse(s string) error {
	if err := u.Ref.parse(s, true); err != nil {
		u.Ref = Ref{}
		return err
	}
	if u.Port > maxPort {
		return u.schemeFailed(errAt(s, portOffset(s, &u.Ref), "port", "port number over 65535"))
	}
	if err := u.parseScheme(s); err != nil {
		return u.schemeFailed(err)
	}
	return nil
}

// schemeFailed records err, the scheme layer's verdict, and keeps only the
// generic components: a parser may have filled some typed fields before it
// failed. It is kept out of line so that Parse's success path is as short
// as it was with one verdict (BenchmarkParse).
//
//go:noinline
func (u *URL) schemeFailed(err error) error {
	e := err.(*Error)
	e.Scheme = u.Scheme
	*u = URL{Ref: u.Ref, schemeErr: e}
	return e
}

// SchemeErr returns the error of the scheme's own syntax that Parse reported
// for u, or nil. A URL with such an error has no typed fields; nothing should
// fetch it.
func (u *URL) SchemeErr() error {
	if u.schemeErr == nil {
		return nil
	}
	return u.schemeErr
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
