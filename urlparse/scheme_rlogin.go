package urlparse

// The interactive-session schemes of RFC 1630 ("telnet, rlogin and tn3270
// — reference to interactive sessions"): telnet (RFC 1738 §3.8), rlogin
// and tn3270 share telnet's form, //user:password@host:port/ with nothing
// after the optional "/". Their fields are all in Ref; the user is
// advisory (a login to suggest, or rlogin's remote user name).

// rlogin and tn3270 take their production's name in RFC 1738's style
// (RFC 1630 gives them no grammar of their own).
var (
	_ = defScheme(schemeDef{port: 23, rule: "telneturl", form: formSession, inText: true}, "telnet")
	_ = defScheme(schemeDef{port: 513, rule: "rloginurl", form: formSession}, "rlogin")
	_ = defScheme(schemeDef{port: 23, rule: "tn3270url", form: formSession}, "tn3270")
)

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

// SessionURL returns scheme://user@host:port/ for an interactive session
// (telnet, tn3270, rlogin): the user is left out when empty, the port when
// it is 0 or the scheme's default (telnet and tn3270 23, rlogin 513).
func SessionURL(scheme, user, host string, port int) string {
	b := start(scheme, len(user)+len(host)+8)
	b = appendAuthority(b, scheme, user, "", host, port)
	return string(append(b, '/'))
}

// TelnetURL returns telnet://user:password@host:port/.
func TelnetURL(host string, port int, user, password string) string {
	b := start("telnet", len(host)+len(user)+len(password))
	b = appendAuthority(b, "telnet", user, password, host, port)
	return string(append(b, '/'))
}
