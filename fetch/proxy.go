package fetch

import (
	"net/netip"
	"os"
	"strings"

	"github.com/urlget/urlget/urlparse"
)

// defaultProxyPort is the port of a proxy URL without one, as in curl.
const defaultProxyPort = 1080

// ProxyFor returns the proxy the Client uses for u, or nil for a direct
// connection: Client.Proxy when set, else the environment (ProxyFromEnv),
// unless the host matches Client.NoProxy (or, when that is empty and not
// HasNoProxy, the no_proxy environment variable). file and mailto URLs are never proxied.
//
// What a proxy does depends on its scheme. socks5:// and socks5h:// carry
// the connections of every scheme. An http:// or https:// proxy carries
// http and https (the latter with CONNECT), and acts as a gateway for ftp,
// gopher, gophers, news, nntp, nntps, wais and prospero URLs, which the
// Client then sends to it as "GET <URL> HTTP/1.1" (RFC 1630); telnet does
// not go through an HTTP proxy. With Client.HasProxyUser a proxy URL
// without userinfo carries ProxyUser and ProxyPassword as its userinfo
// (the proxy URL's own win, as in curl).
func (c *Client) ProxyFor(u *urlparse.URL) (*urlparse.URL, error) {
	p, err := c.proxyFor(u)
	if p != nil && c.HasProxyUser && !p.HasUserinfo {
		withUser := *p
		withUser.User, withUser.Password = c.ProxyUser, c.ProxyPassword
		withUser.HasUserinfo, withUser.HasPassword = true, true
		p = &withUser
	}
	return p, err
}

func (c *Client) proxyFor(u *urlparse.URL) (*urlparse.URL, error) {
	if !proxiable(u.Scheme) {
		return nil, nil
	}
	noProxy := c.NoProxy
	if noProxy == "" && !c.HasNoProxy {
		noProxy = getenvEither("no_proxy")
	}
	if NoProxyMatch(noProxy, u.Host) {
		return nil, nil
	}
	if c.Proxy != nil {
		if err := checkProxy(c.Proxy); err != nil {
			return nil, err
		}
		return c.Proxy, nil
	}
	p, err := envProxy(u.Scheme)
	if p == nil && err == nil && c.PreProxy != nil {
		return c.PreProxy, nil // no HTTP proxy to go before: the SOCKS proxy alone
	}
	return p, err
}

// ParsePreProxy parses a SOCKS proxy to go through to an HTTP proxy
// (Client.PreProxy, curl's --preproxy): "[scheme://][user:password@]host[:port]",
// the scheme socks4 (when absent), socks4a, socks5 or socks5h. Another
// scheme is ErrUnsupported.
func ParsePreProxy(s string) (*urlparse.URL, error) {
	if !strings.Contains(s, "://") {
		s = "socks4://" + strings.TrimSpace(s)
	}
	p, err := ParseProxy(s)
	if err == nil && !isSOCKS(p) {
		return nil, &Error{Kind: ErrUnsupported, URL: Redacted(p), Msg: "a proxy before the proxy is a SOCKS one (socks4, socks4a, socks5, socks5h), not " + p.Scheme}
	}
	return p, err
}

// ProxyFromEnv returns the proxy that the environment names for u, or nil,
// following the conventions of curl and lynx:
//
//   - <scheme>_proxy names the proxy for that scheme (http_proxy,
//     https_proxy, ftp_proxy, gopher_proxy, news_proxy, nntp_proxy,
//     wais_proxy, …); the upper-case name is tried after the lower-case one,
//     except HTTP_PROXY, which is ignored (a CGI program's environment
//     carries it from the client's "Proxy:" header);
//   - all_proxy (or ALL_PROXY) is the proxy for schemes without their own;
//   - a variable that is set but empty means no proxy, without falling back
//     to all_proxy;
//   - a value without "scheme://" is an HTTP proxy; a proxy without a port
//     uses 1080;
//   - no_proxy (or NO_PROXY) lists hosts reached directly; see NoProxyMatch.
//
// file and mailto URLs are never proxied.
func ProxyFromEnv(u *urlparse.URL) (*urlparse.URL, error) {
	if !proxiable(u.Scheme) || NoProxyMatch(getenvEither("no_proxy"), u.Host) {
		return nil, nil
	}
	return envProxy(u.Scheme)
}

func proxiable(scheme string) bool {
	return scheme != "" && !HasCaps(scheme, Local) && !HasCaps(scheme, NoProxy)
}

func envProxy(scheme string) (*urlparse.URL, error) {
	name := scheme + "_proxy"
	v, ok := os.LookupEnv(name)
	if !ok && scheme != "http" {
		v, ok = os.LookupEnv(strings.ToUpper(name))
	}
	if !ok {
		name = "all_proxy"
		v, ok = os.LookupEnv(name)
		if !ok {
			name = "ALL_PROXY"
			v, ok = os.LookupEnv(name)
		}
	}
	if !ok || strings.TrimSpace(v) == "" {
		return nil, nil
	}
	p, err := ParseProxy(v)
	if err != nil {
		if fe, ok := err.(*Error); ok {
			fe.Msg = "proxy from $" + name + ": " + fe.Msg
		}
		return nil, err
	}
	return p, nil
}

func getenvEither(lower string) string {
	if v, ok := os.LookupEnv(lower); ok {
		return v
	}
	return os.Getenv(strings.ToUpper(lower))
}

// ParseProxy parses a proxy as -x or a *_proxy variable gives it:
// "[scheme://][user:password@]host[:port]", the scheme one of http, https,
// socks5, socks5h, socks4 and socks4a (http when absent). A bad URL is ErrMalformed; another
// scheme is ErrUnsupported.
func ParseProxy(s string) (*urlparse.URL, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := urlparse.Parse(s)
	if err != nil {
		return nil, &Error{Kind: ErrMalformed, URL: redactString(s), Msg: "malformed proxy", Err: err}
	}
	if err := checkProxy(&u); err != nil {
		return nil, err
	}
	return &u, nil
}

func checkProxy(p *urlparse.URL) error {
	switch p.Scheme {
	case "http", "https", "socks5", "socks5h", "socks4", "socks4a":
	default:
		return &Error{Kind: ErrUnsupported, URL: Redacted(p),
			Msg: "proxy scheme " + p.Scheme + ": not supported (http, https, socks5, socks5h, socks4, socks4a are)"}
	}
	if p.Host == "" {
		return &Error{Kind: ErrMalformed, URL: Redacted(p), Msg: "proxy URL names no host"}
	}
	return nil
}

// NoProxyMatch reports whether host is to be reached without a proxy
// according to list, a no_proxy value: entries separated by commas or
// spaces, each
//
//   - "*": every host;
//   - a host name or domain, matching itself and every name under it
//     ("example.com" and ".example.com" both match example.com and
//     www.example.com, but not badexample.com); a leading "*." is the same
//     as ".";
//   - an IP address, matching that address;
//   - a CIDR block ("10.0.0.0/8", "fd00::/8"), matching the addresses in it.
//
// Names compare without regard to case or a trailing dot; ports are not
// part of the match.
func NoProxyMatch(list, host string) bool {
	if list == "" || host == "" {
		return false
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	hostIP, ipErr := netip.ParseAddr(host)
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if e == "*" {
			return true
		}
		if pfx, err := netip.ParsePrefix(e); err == nil {
			if ipErr == nil && pfx.Contains(hostIP.Unmap()) {
				return true
			}
			continue
		}
		if ip, err := netip.ParseAddr(strings.Trim(e, "[]")); err == nil {
			if ipErr == nil && ip.Unmap() == hostIP.Unmap() {
				return true
			}
			continue
		}
		e = strings.ToLower(strings.TrimSuffix(e, "."))
		e = strings.TrimPrefix(strings.TrimPrefix(e, "*"), ".")
		if e == "" {
			continue
		}
		if host == e || strings.HasSuffix(host, "."+e) {
			return true
		}
	}
	return false
}
