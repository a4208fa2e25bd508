package fetch

import (
	"strings"

	"github.com/urlget/urlget/urlparse"
)

// credentials chooses the credentials for u: -u first, then the URL's
// userinfo (with the password from netrc when the URL names only a user that
// netrc knows), then netrc by host.
func (c *Client) credentials(u *urlparse.URL, opts Options) (cred, error) {
	if c.NoURLUser && u.HasUserinfo {
		return cred{}, &Error{Kind: ErrLoginDenied, URL: Redacted(u), Msg: "the URL holds a user name (Client.NoURLUser)"}
	}
	cr, err := c.userinfo(u)
	if pw, ok := mergeOptions(c.Options, opts)[OptPassword]; ok && cr.set {
		// The answer to an InputNeededError for OptPassword.
		cr.pass, cr.hasPass = pw, true
	}
	return cr, err
}

// userinfo is credentials without an answered password.
func (c *Client) userinfo(u *urlparse.URL) (cred, error) {
	if c.HasUser || c.User != "" || c.HasPassword {
		return cred{set: true, user: c.User, pass: c.Password, hasPass: c.HasPassword || c.Password != ""}, nil
	}
	if HasCaps(u.Scheme, Local) {
		return cred{}, nil
	}
	if u.HasUserinfo {
		cr := cred{set: true, user: u.User, pass: u.Password, hasPass: u.HasPassword}
		// netrc gives the user's password when the URL has none; a
		// netrc required (not NetrcOptional) gives it over the URL's, as
		// curl's -n.
		if c.Netrc && (!u.HasPassword || !c.NetrcOptional) {
			n, err := c.netrc()
			if err != nil {
				return cred{}, err
			}
			if m, ok := n.Lookup(u.Host, u.User); ok && m.HasPassword {
				cr.pass, cr.hasPass = m.Password, true
			}
		}
		return cr, nil
	}
	return c.netrcHost(u)
}

// netrcHost is the netrc entry of u's host (any login) as credentials,
// none without Netrc or a host.
func (c *Client) netrcHost(u *urlparse.URL) (cred, error) {
	if !c.Netrc || u.Host == "" {
		return cred{}, nil
	}
	n, err := c.netrc()
	if err != nil {
		return cred{}, err
	}
	if m, ok := n.Lookup(u.Host, ""); ok {
		return cred{set: true, user: m.Login, pass: m.Password, hasPass: m.HasPassword}, nil
	}
	return cred{}, nil
}

// netrcFor gives r, a redirect to another origin u, the credentials netrc
// holds for u's host, as curl looks them up for each host it is sent to;
// none when the caller gave its own (User, Password).
func (c *Client) netrcFor(u *urlparse.URL, r *Request) error {
	if c.HasUser || c.User != "" || c.HasPassword || HasCaps(u.Scheme, Local) {
		return nil
	}
	cr, err := c.netrcHost(u)
	cr.apply(r)
	return err
}

// netrc reads the Client's netrc file. A missing default ~/.netrc is an
// empty one; a missing NetrcFile is an error unless NetrcOptional.
func (c *Client) netrc() (*Netrc, error) {
	path := c.NetrcFile
	explicit := path != ""
	if !explicit {
		p, err := DefaultNetrcPath()
		if err != nil {
			return &Netrc{}, nil
		}
		path = p
	}
	n, err := ReadNetrc(path)
	if err != nil {
		if (!explicit || c.NetrcOptional) && isNotExist(err) {
			return &Netrc{}, nil
		}
		return nil, &Error{Kind: ErrRead, Msg: "netrc", Err: err}
	}
	return n, nil
}

// cred is a chosen set of credentials.
type cred struct {
	set     bool
	user    string
	pass    string
	hasPass bool
}

func (c cred) apply(r *Request) {
	if c.set {
		r.User, r.Password, r.HasPassword = c.user, c.pass, c.hasPass
	}
}

// Redacted returns u as a string with its password, if any, replaced by
// "****": the form used in errors, verbose output and Meta.EffectiveURL.
func Redacted(u *urlparse.URL) string {
	if u == nil {
		return ""
	}
	return u.Redacted()
}

// redactString masks the password of a URL that may not parse.
func redactString(s string) string { return maskPassword(s, true) }

// maskPassword finds the password of a URL that may not parse and replaces
// it with "****" (short) or with as many '*' as it has bytes.
func maskPassword(s string, short bool) string {
	i := strings.Index(s, "://")
	if i < 0 {
		return s
	}
	rest := s[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return s
	}
	colon := strings.IndexByte(rest[:at], ':')
	if colon < 0 {
		return s
	}
	stars := "****"
	if !short {
		stars = strings.Repeat("*", at-colon-1)
	}
	return s[:i+3] + rest[:colon+1] + stars + rest[at:]
}
