package urlparse

var _ = defScheme(schemeDef{port: 80, rule: "httpurl", form: formHTTP, inText: true, rootPath: true}, "http")
var _ = defScheme(schemeDef{port: 443, rule: "https-URI", form: formHTTP, inText: true, rootPath: true}, "https")

// parseHTTP: host, port, path and search are all Ref's (RFC 1738 §3.3,
// RFC 9110 §4.2); userinfo is accepted but flagged.
func (u *URL) parseHTTP(s string) error {
	if err := u.needHost(s); err != nil {
		return err
	}
	u.HTTP.Userinfo = u.HasUserinfo
	return nil
}

func (u *URL) httpFields(w FieldWriter) {
	if u.HTTP.Userinfo {
		w.Bool("userinfo", true)
	}
}
