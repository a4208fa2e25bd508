package fetch

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/urlget/urlget/urlparse"
)

// dedot is u without the dot segments of its path, unless PathAsIs or
// u's scheme does not speak HTTP (see PathAsIs).
func (c *Client) dedot(u *urlparse.URL) *urlparse.URL {
	if c.PathAsIs || !HasCaps(u.Scheme, SpeaksHTTP) {
		return u
	}
	p := urlparse.RemoveDotSegments(u.RawPath)
	if p == u.RawPath {
		return u
	}
	r := u.Ref
	r.RawPath = p
	d, err := urlparse.Parse(r.String())
	if err != nil {
		return u
	}
	return &d
}

// redirectBody is req with the body the request after a redirect with
// status sends to next: none after a 303, or a 301 or 302 to a POST
// (unless KeepPost names it), so that the next request is a GET; the same
// body again otherwise (a 307 or 308, a PUT after a 301 or 302, or when
// KeepPost keeps it).
func (c *Client) redirectBody(ctx context.Context, slow *lowSpeed, req *Request, status int, next *urlparse.URL) (*Request, error) {
	r := *req
	// curl's rule: a 303 makes any request a GET, a 301 or 302 a POST
	// only (a PUT is sent again, body and all).
	toGet := status == 303 || (status == 301 || status == 302) && c.Method(req) == "POST"
	if toGet && !slices.Contains(c.KeepPost, status) {
		r.Body, r.BodySize, r.GetBody = nil, 0, nil
		if r.Options.Has(OptMethod) && !c.Options.Has(OptMethod) {
			// The method the body implied (PUT for an upload).
			r.Options = maps.Clone(r.Options)
			delete(r.Options, OptMethod)
		}
		if c.Verbose != nil {
			Logf(c.Verbose, "* Switching to GET after a %d: the body is not sent again", status)
		}
		return &r, nil
	}
	if req.GetBody == nil {
		return nil, &Error{Kind: ErrRewind, URL: Redacted(next),
			Msg: "cannot send the body again after a " + strconv.Itoa(status) + " redirect: it was read from a pipe"}
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, wrapError(ctx, Redacted(next), err)
	}
	r.Body = c.pacedBody(ctx, slow, body)
	if c.Verbose != nil {
		Logf(c.Verbose, "* Sending the body again after a %d", status)
	}
	return &r, nil
}

// checkReferral applies redirect policy to a referral (Meta.Referral): the
// hop limit, redirects and referrals counted together (MaxRedirects, so
// that NoRedirects follows none, but never more than DefaultMaxRedirects,
// since a name server can refer in circles), the schemes registered as a
// ReferralTarget, and a Local scheme (file) only from a loopback host.
func (c *Client) checkReferral(first, cur, next *urlparse.URL, hops, limit int) error {
	limit = min(limit, DefaultMaxRedirects)
	if hops >= limit {
		return &Error{Kind: ErrTooManyRedirects, URL: Redacted(first),
			Msg: "maximum (" + strconv.Itoa(limit) + ") redirects and referrals followed"}
	}
	sc, _ := LookupScheme(next.Scheme)
	if !sc.Caps.Has(ReferralTarget) {
		return &Error{Kind: ErrUnsupported, URL: Redacted(next),
			Msg: "referral to a " + next.Scheme + ": URL refused"}
	}
	if sc.Caps.Has(Local) && !IsLoopback(cur.Host) {
		return &Error{Kind: ErrAccessDenied, URL: Redacted(next),
			Msg: "referral to a file: URL refused: " + cur.Host + " is not this machine"}
	}
	return nil
}

// maxRedirectDrain is how much of a reply's own body is read before it is
// closed unused (a redirect's, a 401 answered): a short one read to its
// end leaves the connection to carry the next request (a kept-alive HTTP
// connection to the same server), as net/http's Client does; a longer one
// is not worth the wait.
const maxRedirectDrain = 4 << 10

// origin identifies where credentials may go: scheme, host and port.
type origin struct {
	scheme, host string
	port         int
}

func originOf(u *urlparse.URL) origin {
	return origin{u.Scheme, strings.ToLower(strings.TrimSuffix(u.Host, ".")), u.PortOrDefault()}
}

func isRedirect(status int) bool {
	switch status {
	case 301, 302, 303, 307, 308:
		return true
	}
	return false
}

// redirectTarget resolves a Location value against the URL that produced
// it. Bytes that RFC 3986 does not allow but servers send anyway (spaces,
// non-ASCII) are percent-encoded first, as browsers and curl do; one or
// three slashes after an http scheme are two (FixSlashes), as curl takes
// them; and an http or https URL with an empty path gets "/" (curl's
// %{redirect_url}). A Location that is no URL even so is curl's exit 3.
func redirectTarget(base *urlparse.URL, loc string, asIs bool) (*urlparse.URL, error) {
	loc = escapeLax(strings.TrimSpace(loc))
	u, err := resolveLocation(base, loc, asIs)
	if err != nil {
		if fixed := FixSlashes(loc); fixed != loc {
			if fu, ferr := resolveLocation(base, fixed, asIs); ferr == nil {
				return fu, nil
			}
		}
		return nil, &Error{Kind: ErrMalformed, URL: Redacted(base), Msg: "malformed redirect Location", Err: err}
	}
	return u, nil
}

// resolveLocation is redirectTarget for a Location already repaired.
func resolveLocation(base *urlparse.URL, loc string, asIs bool) (*urlparse.URL, error) {
	ref, err := urlparse.ParseRef(loc)
	if err != nil {
		return nil, err
	}
	abs := base.Ref.Resolve(&ref)
	if asIs && !ref.IsAbsolute() && !ref.HasAuth && ref.RawPath != "" && !strings.HasPrefix(ref.RawPath, "/") {
		abs.RawPath = joinAsIs(base.RawPath, ref.RawPath)
	}
	if abs.RawPath == "" && abs.HasAuth && HasCaps(abs.Scheme, SpeaksHTTP) {
		abs.RawPath = "/" // the path an HTTP request asks for, as curl writes the URL
	}
	u, err := urlparse.Parse(abs.String())
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// joinAsIs is curl's join of a relative path with the path of the URL it
// is relative to, under --path-as-is (PathAsIs): the base's directory, one
// segment less for each leading "../" of rel, then rel without its
// leading "./" and "../"; the base's own dot segments stay.
func joinAsIs(base, rel string) string {
	dir := base[:strings.LastIndexByte(base, '/')+1]
	for {
		switch {
		case strings.HasPrefix(rel, "./"):
			rel = rel[2:]
		case strings.HasPrefix(rel, "../"):
			rel = rel[3:]
			if d := strings.TrimSuffix(dir, "/"); d != "" {
				dir = d[:strings.LastIndexByte(d, '/')+1]
			}
		default:
			return cmp.Or(dir, "/") + rel
		}
	}
}

// escapeLax percent-encodes the bytes no URL may hold literally, as curl
// repairs a Location: lower-case hex digits, and a space in the query
// (after the first "?") becomes "+", a space before it "%20".
func escapeLax(s string) string {
	need := false
	for i := 0; i < len(s) && !need; i++ {
		need = laxEscape(s[i])
	}
	if !need {
		return s
	}
	var b strings.Builder
	query := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' && query:
			b.WriteByte('+')
		case laxEscape(c):
			b.WriteByte('%')
			b.WriteByte(hexLower[c>>4])
			b.WriteByte(hexLower[c&15])
		default:
			query = query || c == '?'
			b.WriteByte(c)
		}
	}
	return b.String()
}

func laxEscape(c byte) bool {
	return c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0
}
