package urlparse

// The interactive-session schemes of RFC 1630 ("telnet, rlogin and tn3270
// — reference to interactive sessions"): telnet (RFC 1738 §3.8), rlogin
// and tn3270 share telnet's form, //user:password@host:port/ with nothing
// after the optional "/". Their fields are all in Ref; the user is
// advisory (a login to suggest, or rlogin's remote user name).

// parseSession checks a telnet, rlogin or tn3270 URL.
func (u *URL) parseSession(s string) error {
	if err := u.needHost(s); err != nil {
		return err
	}
	po := pathOffset(&u.Ref)
	if len(u.RawPath) > 1 {
		return errAt(s, po+1, u.rule(), "a "+u.Scheme+" URL has no path after the \"/\"")
	}
	if u.HasQuery {
		return errAt(s, po+len(u.RawPath), u.rule(), "a "+u.Scheme+" URL has no query")
	}
	return nil
}

// sessionRule names the production of the rlogin and tn3270 schemes
// (RFC 1738 style; RFC 1630 gives them no grammar of their own).
func sessionRule(scheme string) string { return scheme + "url" }
