package fetch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"maps"
	nethttp "net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/urlparse"
)

// Client holds policy and dispatches each URL to its scheme's Fetcher. The
// zero Client is usable: no timeouts beyond the context's, proxies from the
// environment, no redirects, no caps.
//
// A Client builds the Fetcher of each scheme it meets from its own fields
// (a Config: Dialer, TLS, UserAgent, Jar, Verbose, Warnings, Terminal,
// Compressed), the first time it needs it, and keeps it for its later
// requests, as an http.Client keeps its Transport's connections. A Client
// is safe for concurrent use as long as its fields are not changed once it
// has made a request. A copy of a Client (a struct copy) is a Client of its
// own: it builds its own Fetchers, from its own fields.
type Client struct {
	// ConnectTimeout bounds each connection attempt (0: none beyond ctx):
	// the TCP connect, and through a SOCKS proxy the connection to the
	// proxy and the SOCKS handshake. It does not bound a TLS handshake or
	// the transfer; use the context for those.
	ConnectTimeout time.Duration

	// Proxy, when set, overrides the environment (-x): applied to every
	// scheme unless NoProxy matches. ProxyFromEnv is used when nil:
	// http_proxy, https_proxy, ftp_proxy, gopher_proxy, news_proxy,
	// nntp_proxy, wais_proxy, all_proxy, no_proxy.
	//
	// NoProxy is a --noproxy list: host names, domain suffixes, IP
	// addresses and CIDR blocks separated by commas, or "*" for every host.
	// When non-empty, or when HasNoProxy says it was given empty (curl's
	// --noproxy ""), it replaces the no_proxy environment variable. It
	// applies to Proxy as well as to proxies from the environment.
	Proxy      *urlparse.URL
	NoProxy    string
	HasNoProxy bool
	// ProxyUser and ProxyPassword (curl's -U/--proxy-user), when
	// HasProxyUser, are the credentials of every proxy whose URL has no
	// userinfo of its own.
	ProxyUser     string
	ProxyPassword string
	HasProxyUser  bool
	// ProxyTunnel (curl's -p) sends every connection through an HTTP
	// proxy's CONNECT tunnel (RFC 9110 §9.3.6), whatever the scheme — an
	// http request too, and an FTP data connection — instead of handing
	// the proxy the request (an absolute-form request, a gateway request
	// for another scheme). The target is then spoken to as without a
	// proxy; only the proxy learns where to.
	ProxyTunnel bool
	// PreProxy (curl's --preproxy) is a SOCKS proxy (ParsePreProxy)
	// through which the connections to an HTTP proxy go; without an HTTP
	// proxy it is the proxy itself. A SOCKS Proxy leaves it unused.
	PreProxy *urlparse.URL
	// UnixSocket (curl's --unix-socket; "@NAME": --abstract-unix-socket)
	// is the Unix domain socket every direct TCP connection goes to in
	// place of the URL's host and port, which the request still names
	// (http's Host). A connection through a proxy goes to the proxy.
	UnixSocket string
	// HSTS, when set (curl's --hsts), asks for http URLs of the hosts it
	// holds by https, the first and every redirect, and keeps what https
	// replies' Strict-Transport-Security fields say (RFC 6797).
	HSTS *HSTS

	// User and Password (-u) override URL userinfo. With Netrc set,
	// credentials for hosts without them come from NetrcFile (default
	// ~/.netrc). HasUser says -u was given (User may be empty);
	// HasPassword tells an empty password from none.
	User        string
	Password    string
	HasUser     bool
	HasPassword bool
	Netrc       bool
	NetrcFile   string
	// NetrcOptional (curl's --netrc-optional) makes a missing NetrcFile
	// an empty one, as a missing ~/.netrc always is.
	NetrcOptional bool
	// NoURLUser (curl's --disallow-username-in-url) refuses a URL with
	// userinfo: ErrLoginDenied before anything is sent.
	NoURLUser bool

	// Bearer is an OAuth 2.0 Bearer token (RFC 6750, curl's
	// --oauth2-bearer): http and https send "Authorization: Bearer
	// TOKEN" in place of Basic credentials. Like them it goes only to the
	// first URL's origin unless LocationTrusted.
	Bearer string
	// Digest sends http and https credentials by HTTP Digest (RFC 7616,
	// curl's --digest) instead of Basic: the first request goes without
	// them, and the server's 401 challenge is answered (Request.Digest).
	Digest bool
	// AnyAuth (curl's --anyauth, or --digest with --basic) lets the
	// server choose: the first request goes without the credentials and
	// its 401 challenge is answered by Digest when offered, else by Basic
	// (Request.AnyAuth).
	AnyAuth bool
	// NTLM sends http and https credentials by NTLM (curl's --ntlm): the
	// first request carries the NEGOTIATE message, the 401's challenge is
	// answered on the same connection (Request.NTLM). With AnyAuth, NTLM
	// is answered when the 401 offers it and not Digest.
	NTLM bool
	// ProxyNTLM (curl's --proxy-ntlm) sends the proxy credentials (the
	// proxy URL's userinfo, ProxyUser) by NTLM, and ProxyAnyAuth
	// (--proxy-anyauth) first sends none and answers the proxy's 407 by
	// Digest when offered, else NTLM, else Basic (Request.ProxyNTLM,
	// ProxyAnyAuth). ProxyDigest (--proxy-digest) first sends none and
	// answers the proxy's 407 Digest challenge (RFC 7616): the request's
	// URI for a request sent to the proxy, the CONNECT's host:port for a
	// tunnel.
	ProxyNTLM    bool
	ProxyAnyAuth bool
	ProxyDigest  bool
	// ProxyHTTP10 (curl's --proxy1.0) sends the CONNECT of an HTTP
	// proxy's tunnels as an HTTP/1.0 request; what goes through the tunnel,
	// and a request sent to the proxy itself, are not changed.
	ProxyHTTP10 bool
	// ProxyHeader holds header lines (curl's --proxy-header, read as
	// HeaderLine does) sent to an HTTP proxy only: in the CONNECT of its
	// tunnels, and in a request sent to it (after the request's own
	// lines); never to a server through a tunnel.
	ProxyHeader []string
	// LocationTrusted (curl's --location-trusted) sends the credentials
	// (User and Password, the URL's or netrc's, Bearer) and the caller's
	// own Authorization and Cookie header lines to every host a redirect
	// leads to. By default they go only to the first URL's origin
	// (scheme, host and port); a request elsewhere is marked
	// Request.OtherOrigin.
	LocationTrusted bool

	// Protocols, when not nil, are the only schemes fetched (curl's
	// --proto), a redirect's target included; RedirectProtocols, when not
	// nil, the only schemes a redirect is followed to (--proto-redir),
	// among the RedirectTarget ones. A scheme left out is ErrUnsupported
	// before anything is sent.
	Protocols         []string
	RedirectProtocols []string

	// PathAsIs (curl's --path-as-is) sends an http or https URL's path as
	// it is. By default the Client removes its "." and ".." segments first
	// (RFC 3986 §5.2.4), as curl does: "/a/../b" asks for "/b", and
	// Meta.EffectiveURL says so. Percent-encoded dots ("%2e") are not
	// dot segments and stay. With PathAsIs a relative Location is joined
	// as curl joins it, the dot segments kept ("../b" from "/../../a" is
	// "/../b").
	PathAsIs bool

	// FollowRedirects (-L) follows redirects, only to http, https and
	// ftp; credentials are not sent to another scheme, host or port
	// (unless LocationTrusted). At
	// most MaxRedirects are followed: 0 means DefaultMaxRedirects, and
	// NoRedirects (any negative value) none, so that a redirect is then
	// ErrTooManyRedirects (curl -L --max-redirs 0). For no limit, use
	// math.MaxInt. Without FollowRedirects a 3xx reply is the result, as
	// with net/http's ErrUseLastResponse. A name service's referrals
	// (Meta.Referral) are followed without FollowRedirects, under the same
	// limit (NoRedirects: none), but never more than DefaultMaxRedirects.
	//
	// A request with a Body follows curl: after a 303, and after a 301 or
	// 302 to a POST, the next request is a GET without the body (an
	// OptMethod given stays), unless KeepPost names that status
	// (--post301, --post302, --post303); otherwise (a 307 or 308, a PUT
	// after a 301 or 302) the body is sent again (Request.GetBody), and a
	// body that cannot be replayed is an ErrRewind error (curl's 65).
	FollowRedirects bool
	MaxRedirects    int
	KeepPost        []int

	// Fail (-f) turns an HTTP status >= 400 into an ErrHTTP error: for
	// every HTTP response (Meta.IsHTTP), a gateway's reply to an ftp or
	// gopher URL included. The error (FailError) carries the reply's Meta
	// (Error.Reply); its body is closed unread.
	//
	// FailWithBody (--fail-with-body) is Fail keeping the body: Do returns
	// the Resource as usual, and its Body, read to its end, fails with that
	// ErrHTTP error in place of io.EOF.
	Fail         bool
	FailWithBody bool

	// MaxFileSize (--max-filesize) refuses or stops a body larger than this
	// (0: no cap). It counts the whole resource: a resumed body may bring
	// it up to MaxFileSize bytes, counting from the resume offset.
	// Compressed and MaxDecompressed are the fetchers' (Config).
	MaxFileSize     int64
	Compressed      bool
	MaxDecompressed int64

	// Insecure skips TLS certificate verification (-k), an https://
	// proxy's too; ProxyInsecure (curl's --proxy-insecure) skips the
	// proxy's only.
	Insecure      bool
	ProxyInsecure bool

	// PinnedPubKeys, when set, accepts only a server whose certificate's
	// public key (its SubjectPublicKeyInfo) has one of these SHA-256
	// hashes (curl's --pinnedpubkey; ParsePinnedPubKey), checked with
	// Insecure too; another key fails the handshake with ErrPinnedKey
	// (curl's 90).
	PinnedPubKeys [][sha256.Size]byte

	// CRLs, when set, are certificate revocation lists (curl's
	// --crlfile; LoadCRLs) the server's certificate chain is checked
	// against, unless Insecure: every certificate of it but the root
	// must be covered by a current list from its issuer and not be
	// listed in it, as curl (OpenSSL's CRL_CHECK_ALL) has it; else the
	// handshake fails with ErrCertificate (curl's 60). An https://
	// proxy's chain is not checked (curl's --proxy-crlfile, which urlget
	// lacks).
	CRLs []*x509.RevocationList

	// TLS, when set, is the base TLS configuration (root CAs, client
	// certificates, versions, cipher suites: see LoadClientCert,
	// ParseTLSVersion, CipherSuites). It is cloned for the fetchers'
	// Config; Insecure and PinnedPubKeys still apply on top.
	TLS *tls.Config

	// Dialer, when set, opens the network connections instead of a
	// net.Dialer. ConnectTimeout, SOCKS proxies and context cancellation
	// are still applied on top of it, and the fields below: a Dialer that
	// is not a *net.Dialer is given addresses for the ResolveRules, but
	// cannot bind (Interface, LocalPorts: ErrInterface).
	Dialer Dialer

	// Resolve, ConnectTo, IPVersion, Interface and LocalPorts shape every
	// connection the Client's fetchers make, for every scheme — an FTP
	// data connection and a SOCKS proxy's included — as curl's --resolve,
	// --connect-to, -4/-6, --interface and --local-port do:
	//
	//   - ConnectTo (ParseConnectTo) sends the connection for a URL's
	//     host:port elsewhere; the first matching rule applies. It does not
	//     apply to a data connection (to an address the server gave), nor to
	//     the connection to a proxy: through a SOCKS proxy the proxy is
	//     asked for the new host and port, as curl does.
	//   - Resolve (ParseResolve) gives names their addresses without asking
	//     DNS: the URL's host (after ConnectTo), a proxy's, and through a
	//     socks5:// proxy the target's (socks5h:// sends the proxy the name).
	//   - IPVersion 4 or 6 uses only addresses of that version (0: both),
	//     a ResolveRule's too (as curl 7.88): none left is ErrResolve, an
	//     address literal of the other version ErrConnect.
	//   - Interface connects from an address: an IP address, an interface's
	//     address ("if!eth0" for an interface only), or a host name's
	//     ("host!NAME"), the first one of the remote address's version.
	//   - LocalPorts connects from the first free port of the range.
	//
	// Failing to bind is ErrInterface (curl's 45).
	Resolve    []ResolveRule
	ConnectTo  []ConnectToRule
	IPVersion  int
	Interface  string
	LocalPorts PortRange

	// UserAgent ("": DefaultUserAgent), Verbose (the protocol exchange,
	// passwords masked, and the Client's own "* " notes), Warnings and
	// Terminal are the fetchers' (Config).
	UserAgent string
	Verbose   io.Writer
	Warnings  io.Writer
	Terminal  Terminal
	// Replies is the fetchers' Config.Replies: an ftp server's replies,
	// as curl's -D writes them.
	Replies io.Writer
	// IdlePerHost is the fetchers' Config.IdlePerHost: how many
	// connections to a host are kept for the next requests (0: each
	// fetcher's default), so that a program running N requests at once
	// (urlget -Z) keeps N rather than dialling again.
	IdlePerHost int
	// MaxPerHost is the fetchers' Config.MaxPerHost: at most this many
	// connections to one host at once (0: no bound), for a program that
	// promises a number of connections (the mirror's Parallel).
	MaxPerHost int

	Options Options // passed to fetchers in Request.Options

	// Progress, when set, is called as body bytes arrive: done so far and
	// the total (-1 when unknown). Both count the bytes of the body, not
	// the part of the resource held before a resume.
	Progress func(done, total int64)

	// LimitRate, when set, paces every Body the Client opens and every
	// Request.Body it sends (curl's --limit-rate): transfers at once share
	// its rate.
	LimitRate *Limiter

	// LowSpeedLimit and LowSpeedTime (curl's -Y and -y): a request that
	// moves fewer than LowSpeedLimit body bytes a second (received, or sent
	// from Request.Body) over
	// LowSpeedTime fails with ErrTimeout ("operation too slow"), whether it
	// is still connecting, waiting for a reply or reading the Body. Setting
	// only one gives the other curl's default: 1 byte/s, 30 s.
	LowSpeedLimit int64
	LowSpeedTime  time.Duration
	// MaxTime (curl's --max-time) gives each request at most this long,
	// its Body included (0: no limit): past it, Do or the Body's Read fails
	// with ErrTimeout saying what arrived of what ("operation timed out
	// after 500 milliseconds with 10 out of 100 bytes received"). Closing
	// the Body ends the clock.
	MaxTime time.Duration

	// Fetchers builds the Fetchers of these schemes instead of the
	// registry's Scheme.New (tests; a nil function: no Fetcher).
	Fetchers map[string]func(Config) Fetcher

	// Jar, when set, keeps cookies across requests and redirects (-b, -c):
	// the fetchers' (Config).
	Jar nethttp.CookieJar

	built *builtFetchers // set on first use, under builtMu
}

// builtFetchers are the Fetchers a Client has built, by scheme and SOCKS
// proxy (a Dialer applies one proxy, so a Fetcher that keeps connections
// never mixes them).
type builtFetchers struct {
	owner *Client // a copy of the Client has others
	mu    sync.Mutex
	m     map[builtKey]Fetcher
}

type builtKey struct{ scheme, via string }

// builtMu guards the first use of every Client (Client.built).
var builtMu sync.Mutex

// DefaultMaxRedirects is the redirect limit when Client.MaxRedirects is 0.
const DefaultMaxRedirects = 50

// NoRedirects as Client.MaxRedirects follows no redirect: with
// FollowRedirects, the first one is ErrTooManyRedirects; so is the first
// referral.
const NoRedirects = -1

// DefaultUserAgent is sent when Client.UserAgent is empty.
const DefaultUserAgent = "urlget"

// Open parses rawURL, a URL or an IRI (urlparse.ParseIRI), and fetches it
// with Do. A URL that does not parse, or that its scheme's rules refuse, is
// an *Error of kind ErrMalformed.
func (c *Client) Open(ctx context.Context, rawURL string) (*Resource, error) {
	u, err := urlparse.ParseIRI(rawURL)
	if err != nil {
		return nil, malformedURL(rawURL, err)
	}
	return c.Do(ctx, &Request{URL: &u})
}

// malformedURL is the ErrMalformed for raw, which urlparse refused with err.
func malformedURL(raw string, err error) *Error {
	var pe *urlparse.Error
	if errors.As(err, &pe) {
		// Mask the password byte for byte, so that the offset the
		// message names still points at the right byte.
		masked := *pe
		masked.Input = maskPassword(pe.Input, false)
		err = &masked
	}
	return &Error{Kind: ErrMalformed, URL: redactString(raw), Err: err}
}

// Do fetches req.URL. The caller sets URL, Head, Offset, Since and Body,
// and may set Options for this request alone (they override the Client's);
// Do fills in the rest of a copy of req (credentials, Proxy, Options) and
// hands it to the scheme's Fetcher, built from the Client's fields.
//
// Before any Fetcher runs, Do refuses with ErrMalformed a URL that its
// scheme's rules refused (urlparse.URL.SchemeErr) and one whose decoded
// fields hold CR, LF or NUL (urlparse.URL.CheckLine), and it does so for
// every redirect target too. It follows redirects only with
// FollowRedirects, applies Fail and MaxFileSize, and wraps the Body so that
// it reports progress, stops at the size cap, turns a body that ends early
// into ErrPartial, and fails with ErrAborted or ErrTimeout once ctx is done.
// Every error Do returns, or the Body's Read returns, is an *Error (except
// io.EOF at the end of a complete body).
//
// The context governs the whole transfer, body included: cancelling it
// closes the connection under a blocked Read.
func (c *Client) Do(ctx context.Context, req *Request) (*Resource, error) {
	if req == nil || req.URL == nil {
		return nil, &Error{Kind: ErrMalformed, Msg: "no URL to fetch"}
	}
	if ctx.Err() != nil {
		return nil, ctxError(ctx, Redacted(req.URL))
	}
	stop := context.CancelFunc(func() {})
	if c.MaxTime > 0 {
		ctx, stop = context.WithTimeoutCause(ctx, c.MaxTime, errMaxTime)
	}
	var slow *lowSpeed
	if c.LowSpeedLimit > 0 || c.LowSpeedTime > 0 {
		ctx, slow = watchLowSpeed(ctx, c.LowSpeedLimit, c.LowSpeedTime)
	}
	if req.Body != nil {
		r := *req
		r.Body = c.pacedBody(ctx, slow, req.Body)
		req = &r
	}
	res, err := c.do(ctx, req, slow)
	if err != nil {
		slow.done()
		if errors.Is(context.Cause(ctx), errMaxTime) {
			err = maxTimeError(c.MaxTime, 0, -1)
		}
		stop()
		return nil, err
	}
	if b, ok := res.Body.(*body); ok {
		b.maxTime, b.stop = c.MaxTime, stop
	} else {
		res.Body = stopOnClose{res.Body, stop}
	}
	return res, nil
}

// stopOnClose ends Client.MaxTime's clock when the body is closed.
type stopOnClose struct {
	io.ReadCloser
	stop context.CancelFunc
}

func (s stopOnClose) Close() error {
	err := s.ReadCloser.Close()
	s.stop()
	return err
}

// errMaxTime is the cause of a context ended by Client.MaxTime.
var errMaxTime = errors.New("Client.MaxTime passed")

// maxTimeError is a request cut by Client.MaxTime after d, in curl's
// words: got bytes received of size (-1: unknown).
func maxTimeError(d time.Duration, got, size int64) error {
	of := ""
	if size >= 0 {
		of = fmt.Sprintf(" out of %d", size)
	}
	return &Error{Kind: ErrTimeout, Msg: fmt.Sprintf("operation timed out after %d milliseconds with %d%s bytes received", d.Milliseconds(), got, of)}
}

// pacedBody is a request body paced by LimitRate and counted as progress
// by the low-speed watchdog, like a download, and reported to the
// context's Trace (BodySent).
func (c *Client) pacedBody(ctx context.Context, slow *lowSpeed, body io.Reader) io.Reader {
	if tr := ContextTrace(ctx); tr != nil && tr.BodySent != nil {
		body = &countingBody{r: body, tr: tr}
	}
	if slow == nil && c.LimitRate == nil {
		return body
	}
	return &pacedReader{r: body, pace: pace{ctx: ctx, rate: c.LimitRate, slow: slow}}
}

// do is Do after the low-speed watchdog, if any, has started; the Body it
// returns stops slow when closed.
func (c *Client) do(ctx context.Context, req *Request, slow *lowSpeed) (*Resource, error) {
	first := c.dedot(req.URL)
	if up := c.HSTS.Upgrade(first); up != nil {
		first = up
	}
	if c.Protocols != nil && !slices.Contains(c.Protocols, first.Scheme) {
		return nil, &Error{Kind: ErrUnsupported, URL: Redacted(first), Msg: first.Scheme + ": not among the allowed protocols (Client.Protocols)"}
	}
	cred, err := c.credentials(first, req.Options)
	if err != nil {
		return nil, err
	}
	origin := originOf(first)
	limit := c.MaxRedirects
	switch {
	case limit == 0:
		limit = DefaultMaxRedirects
	case limit < 0:
		limit = 0
	}
	var via []Meta
	cur := first
	for hops := 0; ; hops++ {
		if up := c.HSTS.Upgrade(cur); up != nil {
			cur = up
		}
		r := *req
		r.URL = cur
		r.User, r.Password, r.HasPassword = "", "", false
		r.Bearer, r.Digest, r.AnyAuth, r.NTLM, r.OtherOrigin = "", c.Digest, c.AnyAuth, c.NTLM, false
		r.ProxyNTLM, r.ProxyAnyAuth, r.ProxyDigest, r.ProxyHeader = c.ProxyNTLM, c.ProxyAnyAuth, c.ProxyDigest, c.ProxyHeader
		r.ProxyHTTP10 = c.ProxyHTTP10
		if c.LocationTrusted || originOf(cur) == origin {
			cred.apply(&r)
			r.Bearer = c.Bearer
		} else {
			r.OtherOrigin = true
			if err := c.netrcFor(cur, &r); err != nil {
				return nil, err
			}
		}
		res, err := c.open(ctx, &r)
		if err != nil {
			return nil, err
		}
		c.HSTS.Observe(cur, res.Header)
		if res.Location != "" {
			next, nerr := redirectTarget(cur, res.Location, c.PathAsIs)
			if nerr == nil {
				res.Location = next.String()
			}
			if c.FollowRedirects && res.IsHTTP() && isRedirect(res.Status) {
				if endsKnown(&res.Meta) {
					DrainClose(res.Body)
				} else {
					res.Body.Close()
				}
				if nerr != nil {
					// -i and -D tell of the reply whose Location it is, as curl's.
					m := res.Meta
					m.EffectiveURL, m.Redirects, m.Method = Redacted(cur), via, c.Method(&r)
					e := nerr.(*Error)
					e.Status, e.Reply = res.Status, &m
					return nil, e
				}
				if hops >= limit {
					// The redirect not followed is the reply the request
					// failed on: -i, -D and -w tell of it, as curl's.
					m := res.Meta
					m.EffectiveURL, m.Redirects, m.Method = Redacted(cur), via, c.Method(&r)
					return nil, &Error{Kind: ErrTooManyRedirects, URL: Redacted(first), Status: res.Status, Reply: &m,
						Msg: "maximum (" + strconv.Itoa(limit) + ") redirects followed"}
				}
				if !HasCaps(next.Scheme, RedirectTarget) {
					return nil, &Error{Kind: ErrUnsupported, URL: Redacted(next),
						Msg: "redirect to a " + next.Scheme + ": URL refused: only " + nameList(RedirectTarget) + " redirects are followed"}
				}
				if c.RedirectProtocols != nil && !slices.Contains(c.RedirectProtocols, next.Scheme) ||
					c.Protocols != nil && !slices.Contains(c.Protocols, next.Scheme) {
					return nil, &Error{Kind: ErrUnsupported, URL: Redacted(next),
						Msg: "redirect to a " + next.Scheme + ": URL refused: not among the allowed protocols (Client.Protocols, Client.RedirectProtocols)"}
				}
				if c.Verbose != nil {
					Logf(c.Verbose, "* Following redirect (%d) to %s", res.Status, Redacted(next))
				}
				if req.Body != nil {
					if req, err = c.redirectBody(ctx, slow, req, res.Status, next); err != nil {
						return nil, err
					}
				}
				m := res.Meta
				m.EffectiveURL = Redacted(cur)
				via = append(via, m)
				cur = next
				if tr := ContextTrace(ctx); tr != nil && tr.Redirect != nil {
					tr.Redirect(Redacted(next))
				}
				continue
			}
			if res.Referral && !res.IsHTTP() {
				res.Body.Close()
				if nerr != nil {
					return nil, nerr
				}
				if err := c.checkReferral(first, cur, next, hops, limit); err != nil {
					return nil, err
				}
				if c.Verbose != nil {
					Logf(c.Verbose, "* Following referral from %s to %s", Redacted(cur), Redacted(next))
				}
				cur = next
				if tr := ContextTrace(ctx); tr != nil && tr.Redirect != nil {
					tr.Redirect(Redacted(next))
				}
				continue
			}
		}
		res.Redirects = via
		return c.finish(ctx, &r, res, slow)
	}
}

// IsLoopback reports whether host (a URL's host) names this machine:
// "localhost" or a loopback address literal.
func IsLoopback(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(h, "[]"))
	return err == nil && a.Unmap().IsLoopback()
}

// open makes one request, without redirects: the CR/LF/NUL check, proxy
// choice, fetcher lookup, and the fetcher's Open.
func (c *Client) open(ctx context.Context, r *Request) (*Resource, error) {
	u := r.URL
	if err := u.SchemeErr(); err != nil {
		return nil, malformedURL(u.String(), err)
	}
	if err := CheckURL(u); err != nil {
		return nil, wrapError(ctx, Redacted(u), err)
	}
	proxy, err := c.ProxyFor(u)
	if err != nil {
		return nil, err
	}
	var via *urlparse.URL // a proxy the Dialer goes through
	name := u.Scheme
	gateway := false
	r.Proxy = nil
	if proxy != nil {
		switch {
		case c.dialsThrough(proxy, u):
			via = proxy
		default:
			switch {
			case HasCaps(u.Scheme, SpeaksHTTP):
				r.Proxy = proxy
			case HasCaps(u.Scheme, Gateway):
				r.Proxy = proxy
				gateway, name = true, "http"
			}
			if r.Proxy != nil && c.PreProxy != nil {
				via = c.PreProxy // the connections to the HTTP proxy
			}
		}
	}
	f := c.fetcher(name, via)
	if f == nil {
		msg := "unsupported URL scheme " + strconv.Quote(u.Scheme)
		if gateway {
			msg = "an HTTP proxy gateway needs the http fetcher, which is not registered (import github.com/urlget/urlget/fetch/http)"
		}
		return nil, &Error{Kind: ErrUnsupported, URL: Redacted(u), Msg: msg}
	}
	if r.Body != nil && !gateway {
		if err := checkBody(f, u); err != nil {
			return nil, err
		}
	}
	if r.Offset < 0 && (r.Body == nil || gateway || !HasCaps(u.Scheme, ResumesUpload)) {
		return nil, &Error{Kind: ErrResume, URL: Redacted(u), Msg: "cannot resume: a negative offset (UploadAtEnd) is for an upload to " + nameList(ResumesUpload)}
	}
	r.Options = mergeOptions(c.Options, r.Options)
	if gateway && r.Body != nil && r.Options.String(OptBodyMethod) == "" {
		// What is sent to another scheme's URL is an upload: the proxy
		// gets a PUT of it, as curl sends (Expect: 100-continue too).
		o := maps.Clone(r.Options)
		if o == nil {
			o = Options{}
		}
		o[OptBodyMethod] = "PUT"
		AddBodyHeader(o, "Expect", "100-continue")
		r.Options = o
	}
	if c.Verbose != nil && proxy != nil {
		how := "proxy"
		if gateway {
			how = "HTTP proxy gateway"
		}
		Logf(c.Verbose, "* Using %s %s", how, Redacted(proxy))
	}
	res, err := f.Open(ctx, r)
	if err != nil {
		return nil, wrapError(ctx, Redacted(u), err)
	}
	if res == nil {
		return nil, &Error{Kind: ErrOther, URL: Redacted(u), Msg: "fetcher for " + u.Scheme + " returned no resource"}
	}
	if res.Body == nil {
		res.Body = emptyBody{}
	}
	if gateway && res.IsHTTP() && res.Status == 200 && !r.Head {
		if s, ok := LookupScheme(u.Scheme); ok && s.GatewayReply != nil {
			s.GatewayReply(res, r)
		}
	}
	return res, nil
}

// CheckURL refuses, with an ErrMalformed *Error, a URL whose decoded fields
// hold CR, LF or NUL where they would go on the wire
// (urlparse.URL.CheckLine). The Client calls it before any Fetcher runs;
// a Fetcher calls it too, first thing in Open, for callers that use it
// without a Client.
func CheckURL(u *urlparse.URL) error {
	if err := u.CheckLine(); err != nil {
		return &Error{Kind: ErrMalformed, Msg: "URL refused", Err: err}
	}
	return nil
}

// Config is the configuration the Client builds its Fetchers from: a
// Dialer with the connect timeout and the proxy via (newDialer; nil: none),
// TLS (Insecure applied), and its UserAgent, Jar, Verbose, Warnings,
// Terminal, Compressed, MaxDecompressed, MaxFileSize, IdlePerHost and MaxPerHost.
func (c *Client) config(via *urlparse.URL) Config {
	return Config{
		Dialer:          c.newDialer(via),
		ConnectTimeout:  c.ConnectTimeout,
		TLS:             c.tlsConfig(),
		ProxyTLS:        c.proxyTLSConfig(),
		UserAgent:       cmp.Or(c.UserAgent, DefaultUserAgent),
		Jar:             c.Jar,
		Compressed:      c.Compressed,
		MaxDecompressed: c.MaxDecompressed,
		MaxFileSize:     c.MaxFileSize,
		Verbose:         c.Verbose,
		Warnings:        c.Warnings,
		Terminal:        c.Terminal,
		Replies:         c.Replies,
		IdlePerHost:     c.IdlePerHost,
		MaxPerHost:      c.MaxPerHost,
	}
}

// Prepare returns the Request that Do would hand to u's Fetcher and the
// Config the Client builds that Fetcher from, for a program that speaks
// u's protocol itself (the mirror): u checked with the scheme's rules and
// CheckURL (ErrMalformed), the credentials chosen from -u, the URL and
// netrc (a netrc file that cannot be read is an error), Options, and a
// Config whose Dialer applies the connect timeout and the SOCKS proxy
// ProxyFor names. When ProxyFor names an HTTP proxy, Proxy is set to it:
// Do would send the request through that proxy, which a program speaking
// u's protocol cannot do.
func (c *Client) Prepare(u *urlparse.URL) (*Request, Config, error) {
	if u == nil {
		return nil, Config{}, &Error{Kind: ErrMalformed, Msg: "no URL to fetch"}
	}
	if err := u.SchemeErr(); err != nil {
		return nil, Config{}, malformedURL(u.String(), err)
	}
	if err := CheckURL(u); err != nil {
		return nil, Config{}, wrapError(context.Background(), Redacted(u), err)
	}
	cred, err := c.credentials(u, nil)
	if err != nil {
		return nil, Config{}, err
	}
	proxy, err := c.ProxyFor(u)
	if err != nil {
		return nil, Config{}, err
	}
	r := &Request{URL: u, Options: c.Options}
	cred.apply(r)
	var via *urlparse.URL
	if proxy != nil {
		switch {
		case c.dialsThrough(proxy, u):
			via = proxy
		default:
			r.Proxy = proxy
		}
	}
	return r, c.config(via), nil
}

// dialsThrough reports whether the fetchers' Dialer goes through proxy
// for u (a SOCKS proxy, or an HTTP proxy's tunnel with ProxyTunnel or
// when ConnectTo sends u's connection elsewhere, as curl switches to a
// tunnel then) rather than the http fetcher sending it the request.
func (c *Client) dialsThrough(proxy, u *urlparse.URL) bool {
	return isSOCKS(proxy) || c.ProxyTunnel || c.route().redirects(u)
}

// endsKnown reports whether a reply's body ends where the reply says
// (Content-Length, chunked) on a connection the server keeps: only then
// is a redirect's body worth reading before the next request. A body
// that only the server's close would end is not read at all, as curl
// follows at once there: the server may keep the connection open.
func endsKnown(m *Meta) bool {
	if strings.Contains(strings.ToLower(m.Header.Get("Connection")), "close") {
		return false
	}
	_, hasLength := m.Header.Lookup("Content-Length")
	return hasLength || strings.Contains(strings.ToLower(m.Header.Get("Transfer-Encoding")), "chunked")
}

// DrainClose reads what is left of a body not used (a redirect's, a 401
// that a fetcher answers), up to a few KiB, and closes it.
func DrainClose(rc io.ReadCloser) {
	io.CopyN(io.Discard, rc, maxRedirectDrain)
	rc.Close()
}

// finish applies the policy that needs the reply: Fail, the size cap, and
// the Body wrapper.
func (c *Client) finish(ctx context.Context, r *Request, res *Resource, slow *lowSpeed) (*Resource, error) {
	url := Redacted(r.URL)
	res.EffectiveURL = url
	res.Method = c.Method(r)
	var failed error
	if c.Fail || c.FailWithBody {
		failed = FailError(res, failOffset(res, r.Offset))
		if failed != nil && !c.FailWithBody {
			res.Body.Close()
			return nil, failed
		}
	}
	if c.MaxFileSize > 0 && !r.Head && res.Size >= 0 && res.Offset+res.Size > c.MaxFileSize {
		res.Body.Close()
		return nil, &Error{Kind: ErrTooLarge, URL: url,
			Msg: fmt.Sprintf("resource is %d bytes, over the maximum file size %d", res.Offset+res.Size, c.MaxFileSize)}
	}
	b := &body{rc: res.Body, ctx: ctx, url: url, size: res.Size, limit: -1, progress: c.progress(ctx), pace: pace{ctx: ctx, rate: c.LimitRate, slow: slow}, failed: failed}
	if r.Head {
		b.size = -1
	}
	if c.MaxFileSize > 0 {
		b.limit = max(c.MaxFileSize-res.Offset, 0)
	}
	res.Body = b
	return res, nil
}

// progress is what a Body opened under ctx reports to: Client.Progress
// and the context's Trace.Progress.
func (c *Client) progress(ctx context.Context) func(done, total int64) {
	tr := ContextTrace(ctx)
	switch {
	case tr == nil || tr.Progress == nil:
		return c.Progress
	case c.Progress == nil:
		return tr.Progress
	}
	return func(done, total int64) {
		c.Progress(done, total)
		tr.Progress(done, total)
	}
}

// failOffset is the resume offset Client.Fail judges a reply by, as curl's
// -f does: a 416 to a resume says the file is whole, unless it carries a
// Content-Range that names no start ("bytes */N", what nginx and net/http
// send): curl then forgets the resume, and -f fails the 416 (exit 22).
func failOffset(res *Resource, offset int64) int64 {
	if v, ok := res.Header.Lookup("Content-Range"); ok && res.Status == 416 {
		v = strings.TrimLeftFunc(v, func(r rune) bool { return r != '*' && (r < '0' || r > '9') })
		if v == "" || v[0] == '*' {
			return 0
		}
	}
	return offset
}

// FailError is what Client.Fail (curl's -f) makes of a reply: for an HTTP
// reply with a status of 400 or more, an *Error of kind ErrHTTP carrying
// the status, the server's Retry-After and the reply's Meta (Reply); nil
// for any other reply, and for a 416 to a resume (offset > 0), which says
// the file is whole (Client.Fail passes the offset failOffset gives).
func FailError(res *Resource, offset int64) error {
	if !res.IsHTTP() || res.Status < 400 || res.Status == 416 && offset > 0 {
		return nil
	}
	m := res.Meta
	return &Error{Kind: ErrHTTP, URL: res.EffectiveURL, Status: res.Status, retryAfter: res.RetryAfter(), Reply: &m,
		Msg: "The requested URL returned error: " + strconv.Itoa(res.Status)}
}

// RetryAfter is the wait the reply's Retry-After header asks for (RFC 9110
// §10.2.3), from now: 0 when there is none, or it cannot be read.
func (r *Resource) RetryAfter() time.Duration {
	d, _ := ParseRetryAfter(r.Header.Get("Retry-After"), time.Now())
	return d
}

// IdleCloser is implemented by a Fetcher that keeps connections open
// between requests (the ftp fetcher's pool of logged-in connections, the
// http fetcher's kept-alive ones), as net/http's transports do:
// CloseIdleConnections closes those not in use.
type IdleCloser interface {
	CloseIdleConnections()
}

// CloseIdleConnections closes the idle connections of every Fetcher the
// Client has built that keeps some: each one implementing IdleCloser.
// Connections in use are left alone. Call it when done with the Client, so
// that servers see a proper goodbye (ftp QUIT) rather than a connection
// dropped at exit.
func (c *Client) CloseIdleConnections() {
	var fs []Fetcher
	if b := c.builtFetchers(); b != nil {
		b.mu.Lock()
		fs = slices.Collect(maps.Values(b.m))
		b.mu.Unlock()
	}
	for _, f := range fs {
		if ic, ok := f.(IdleCloser); ok {
			ic.CloseIdleConnections()
		}
	}
}

// fetcher returns the Fetcher for scheme whose Dialer goes through the
// proxy via (a SOCKS proxy, or an HTTP proxy's tunnel; nil: none), built
// from the Client's Config on first use by Client.Fetchers or else the
// registry's Scheme.New; nil when there is neither.
func (c *Client) fetcher(scheme string, via *urlparse.URL) Fetcher {
	build, ok := c.Fetchers[scheme]
	if !ok {
		sc, _ := LookupScheme(scheme)
		build = sc.New
	}
	if build == nil {
		return nil
	}
	key := builtKey{scheme: scheme}
	if via != nil {
		key.via = via.String()
	}
	builtMu.Lock()
	if c.built == nil || c.built.owner != c {
		c.built = &builtFetchers{owner: c, m: map[builtKey]Fetcher{}}
	}
	b := c.built
	builtMu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	f, ok := b.m[key]
	if !ok {
		f = build(c.config(via))
		b.m[key] = f
	}
	return f
}

// builtFetchers is c.built, nil before the first request (of this copy).
func (c *Client) builtFetchers() *builtFetchers {
	builtMu.Lock()
	defer builtMu.Unlock()
	if c.built == nil || c.built.owner != c {
		return nil
	}
	return c.built
}

// emptyBody is the Body of a resource without one.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyBody) Close() error             { return nil }

// checkBody refuses a request body that f cannot send to u.
func checkBody(f Fetcher, u *urlparse.URL) error {
	if bs, ok := f.(BodySender); !ok || !bs.SendsBody(u) {
		return &Error{Kind: ErrUnsupported, URL: Redacted(u), Msg: "cannot send data to this " + u.Scheme + ": URL"}
	}
	return nil
}

// Method is the method req is sent with (Request.Method) once the Client's
// Options are applied: a -X given to the Client counts as the request's own.
func (c *Client) Method(req *Request) string {
	r := *req
	r.Options = mergeOptions(c.Options, req.Options)
	return r.Method()
}

// mergeOptions gives the Client's options overlaid with the request's own
// (the request wins); it allocates only when both have some.
func mergeOptions(client, req Options) Options {
	if len(req) == 0 {
		return client
	}
	if len(client) == 0 {
		return req
	}
	m := make(Options, len(client)+len(req))
	for k, v := range client {
		m[k] = v
	}
	for k, v := range req {
		m[k] = v
	}
	return m
}
