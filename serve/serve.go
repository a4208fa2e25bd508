// Package serve is urlget's web gateway: an http.Handler that fetches any
// URL the fetch package can open and shows it to a web browser as HTML, or
// hands its bytes to an HTTP client that asks for them as from a proxy.
//
// It serves two ways on one listener:
//
//   - a web front: "/" is a page with an address field (a plain GET form,
//     no script); "/<URL>" (for example /gopher://host/1/sel, the URL
//     percent-encoded where it must be) fetches URL and shows gopher menus,
//     ftp and file directory listings, news group lists and articles, WAIS
//     results and Prospero directories as HTML whose links stay in the
//     gateway, rendered entry by entry as the listing arrives (a news
//     group Options.NewsPage articles at a time, linking to the older and
//     newer ones; the group list with each group's count, status and
//     description); documents
//     stream through with their Content-Type, Content-Length and
//     Last-Modified, HEAD, and Range carried out as the protocol's resume
//     (Request.Offset);
//   - an RFC 1630 proxy gateway: an absolute-form request ("GET
//     gopher://host/1/ HTTP/1.1", as lynx's gopher_proxy, curl -x for ftp
//     and urlget -x send) gets the HTML when the client's Accept puts
//     text/html first, else the bytes a direct retrieval writes to a file
//     (fetch.OptAsSent, the rule of download.Downloader for output no
//     person reads): a gopher menu or text as the server sent it, its "."
//     line and CRLF included, as curl writes it; an ftp listing, an ftp
//     ASCII transfer and a news article with their lines ending in LF, as
//     curl and urlget write them (vsftpd sends CRLF). So curl -x GATEWAY URL
//     gives what curl URL gives, and urlget -x GATEWAY URL > FILE what
//     urlget URL > FILE writes. (Squid 5.7's ftp gateway answers an HTML
//     page for a listing whatever the client accepts; the wire's CRLF is
//     urlget --raw's alone, which only a direct retrieval can give.)
//     CONNECT is refused (405): the gateway never tunnels.
//
// # Safety
//
// A gateway fetches what its clients name, so it is careful by default:
// only clients on this machine and in Options.AllowFrom are served; for a
// client that is not on this machine, targets whose address is loopback,
// private, link-local, multicast or unspecified are refused unless
// Options.AllowPrivate, checked on the address actually dialled (so a name
// that resolves first to a public address, then to 127.0.0.1, gains
// nothing); file URLs only below Options.AllowFile; mailto, telnet, rlogin
// and tn3270 are never carried out, only shown as links (a referral, a
// Prospero LOCAL method, obeys the same rules). The web front answers only
// to IP addresses, localhost and Options.AllowHosts, so that another
// site's name pointed at the gateway's address gets nothing, and refuses
// what a browser asks for another site's page (Sec-Fetch-Site). Every byte
// from a server is escaped, only links of safe schemes are made, and every
// page is sent with a Content-Security-Policy that allows no script at
// all. Concurrency is bounded per client, per upstream host and in total,
// every request and its reply by Options.Timeout. A server that wants a
// login (an ftp or news server's refusal, an http server's 401 offering
// Basic) gets the client a 401 Basic challenge naming it; the answer is
// used for that server (an http origin) alone, never logged, and only
// where Options.AllowCredentials or serving this machine alone allows.
//
// # Why the pages are not written with html/template
//
// The pages are written by hand, through one escaping path: page.text
// (every byte special in HTML text or a quoted attribute a reference,
// control bytes U+FFFD) for whatever a server or a client sent, the
// links' writePath (percent-encoding, then & and ' as references) for
// hrefs, and page.raw only for the gateway's own constant markup (a test
// reads the source to hold it so); which URLs may be links at all is
// decided by scheme (linkTo), before any escaping. html/template's
// contextual escaping was measured against it (BenchmarkRenderListing, a
// 10,000-entry ftp listing streamed a row at a time, on this 2-core
// machine under load): 7.5–29 ms, 0.64 MB and 20,000 allocations a page
// by hand; 100–180 ms, 13.4 MB and 460,000 allocations through
// html/template, some 13 times the time and 21 times the garbage. The
// gateway's targets (listings at twice Squid's requests a second, 32 MiB
// with 50 transfers; bench/serve.sh) leave no room for that, and the
// pages hold no script context that contextual escaping would be needed
// for: the Content-Security-Policy allows no script at all.
//
// A Go program serves the gateway on a listener until ctx is done (Serve
// sets the time limits of a server open to the network, and stops
// gracefully):
//
//	h, err := serve.New(&fetch.Client{}, serve.Options{})
//	if err != nil { ... }
//	ln, err := net.Listen("tcp", "127.0.0.1:7070")
//	if err != nil { ... }
//	err = h.Serve(ctx, ln, serve.DefaultGrace)
//
// or as the Handler of its own http.Server, or mounted in a program's
// router: at "/" of an http.ServeMux, or below a prefix, with or without
// http.StripPrefix (see Options.Base and the Examples). An http.ServeMux
// cleans the paths it routes ("/gopher://host/" becomes "/gopher:/host/",
// after a redirect): the Handler takes such a path back as the URL it was
// ("gopher://host/"), and a mounted Handler writes its links so that no
// cleaning changes them ("/gw/gopher%3A%2F/host/1/sel", the URL decoded
// once). The proxy gateway needs the Handler at the root of its server:
// an absolute-form request has no path of the mount's.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/urlparse"
)

// DefaultPort is the port the urlget serve command listens on when not told
// otherwise (127.0.0.1:7070).
const DefaultPort = 7070

// Defaults of the Options limits left at zero.
const (
	DefaultMaxPerClient = 16
	DefaultMaxPerHost   = 8
	DefaultMaxTotal     = 256
	DefaultTimeout      = 10 * time.Minute
)

// DefaultCharset is the charset of text documents that declare none and
// are not UTF-8, when Options.Charset does not say.
const DefaultCharset = "ISO-8859-1"

// DefaultGrace is the time the urlget serve command lets requests run on
// once it is told to stop (Serve's grace).
const DefaultGrace = 10 * time.Second

// ErrCut is wrapped by the error Serve returns when it cut requests that
// were still running at the end of the grace period.
var ErrCut = errors.New("cut")

// Options shape a Handler. The zero Options serve loopback clients only,
// with the default limits.
type Options struct {
	// AllowFrom are the client addresses served besides this machine's
	// (loopback: 127.0.0.0/8, ::1), which always are; others get 403.
	AllowFrom []netip.Prefix
	// AllowPrivate lets clients that are not on this machine reach
	// loopback, private, link-local, multicast and unspecified addresses.
	// A client on this machine (loopback) always may.
	AllowPrivate bool
	// AllowCredentials lets the clients' ftp, news and http logins reach
	// servers when the gateway serves other machines too (AllowFrom): a
	// 401 challenge for a server that wants a password, the answer, a proxy client's
	// Authorization or Proxy-Authorization. A gateway serving this machine
	// alone always carries them. A URL's own userinfo is carried either
	// way.
	AllowCredentials bool
	// AllowFile is the directory whose files and subdirectories file URLs
	// may show; "" refuses file URLs.
	AllowFile string

	// MaxPerClient, MaxPerHost and MaxTotal bound the requests being
	// carried out at once: from one client address, to one upstream
	// host:port, and in all. A request over a limit is answered 503 at
	// once. 0: the Default values.
	MaxPerClient, MaxPerHost, MaxTotal int
	// Timeout bounds each request from start to the last byte (0:
	// DefaultTimeout).
	Timeout time.Duration

	// AllowHosts are the host names the web front answers to besides
	// IP addresses and "localhost" (the Host of a request in origin form,
	// /URL). A page of another site whose name an attacker points at the
	// gateway's address (DNS rebinding) is refused: its Host is not one of
	// these.
	AllowHosts []string

	// AccessLog, when set, receives one line per request in Common Log
	// Format.
	AccessLog io.Writer

	// Charset is the charset said of a text document that declares
	// none and whose first bytes are not UTF-8 (those that are get
	// charset=utf-8): the 8-bit charset of the servers the gateway is for.
	// "": DefaultCharset.
	Charset string

	// Base is the path the Handler is mounted at when it is not the
	// whole server's: "/" for the pattern "/" of an http.ServeMux, "/gw/"
	// for "/gw/", whether or not http.StripPrefix takes it off first.
	// Set, the pages' links, forms and redirects stay below it, written so
	// that a router that cleans paths leaves them as they are (an
	// http.ServeMux turns "//" into "/"). Under http.StripPrefix the
	// prefix is found without it, from what StripPrefix left of the
	// request's path. "": the Handler is the server's (New checks that
	// Base starts with "/").
	Base string

	// NewsPage is how many articles a news group's page shows; the page
	// links to the older and newer ones. 0: DefaultNewsPage.
	NewsPage int

	// Resolver, when set, resolves the host names of targets instead of
	// the system's resolver (net.DefaultResolver): tests give a stub, a
	// program its own DNS. Every address it returns is checked as it is
	// dialled.
	Resolver Resolver
}

// A Resolver gives a host name's addresses; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Handler is the gateway, an http.Handler.
type Handler struct {
	opt Options
	// local fetches for clients on this machine; remote for the others,
	// through a dialer that refuses private addresses (unless
	// AllowPrivate).
	local, remote *fetch.Client
	lim           *limits
	logMu         sync.Mutex
	logins        logins
}

// New returns the gateway fetching with a copy of c: c itself is not
// changed, and its Dialer (nil: a net.Dialer) is wrapped so that the
// addresses dialled are checked. The copy drops c's credentials (User,
// Password, Netrc) and cookie jar: what a client asks for is fetched with
// that client's URL alone. An Options value that makes no sense
// (AllowFile not a directory) is an error.
func New(c *fetch.Client, o Options) (*Handler, error) {
	if c == nil {
		c = &fetch.Client{}
	}
	if o.MaxPerClient <= 0 {
		o.MaxPerClient = DefaultMaxPerClient
	}
	if o.MaxPerHost <= 0 {
		o.MaxPerHost = DefaultMaxPerHost
	}
	if o.MaxTotal <= 0 {
		o.MaxTotal = DefaultMaxTotal
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.NewsPage <= 0 {
		o.NewsPage = DefaultNewsPage
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.Charset == "" {
		o.Charset = DefaultCharset
	}
	if !validCharset(o.Charset) {
		return nil, fmt.Errorf("serve: charset %q: want a charset name (ISO-8859-1, windows-1252, KOI8-R…)", o.Charset)
	}
	if o.Base != "" && !strings.HasPrefix(o.Base, "/") {
		return nil, fmt.Errorf("serve: Base %q: want a path starting with /", o.Base)
	}
	if o.AllowFile != "" {
		dir, err := checkDir(o.AllowFile)
		if err != nil {
			return nil, err
		}
		o.AllowFile = dir
	}
	h := &Handler{opt: o, lim: newLimits(o)}
	h.local = h.client(c, true)
	h.remote = h.client(c, o.AllowPrivate)
	return h, nil
}

// validCharset reports whether name can be a charset's name (RFC 2978:
// letters, digits and a few marks).
func validCharset(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'+-^_`{}~.", c) >= 0) {
			return false
		}
	}
	return name != "" && len(name) <= 40
}

// Serve answers requests on ln until ctx is done, with the time limits of
// a server open to the network (a request's header within 30 s, an idle
// client connection closed after 2 minutes). Then it stops accepting,
// lets the requests in flight run on for grace (0: none), cuts those still
// running, and ends the upstream connections kept. It returns nil after
// such a stop, an error wrapping ErrCut when it cut requests, or the error
// that ended the serving before (ln failed). On Linux, a client on this
// machine is sent to without the pacing of a congestion control that paces
// (BBR: on loopback, which has no link to pace for, it only costs the
// gateway a pacing timer per send): its connection uses reno.
func (h *Handler) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	defer h.CloseIdleConnections()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			unpace(c)
			return ctx
		},
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
		return fmt.Errorf("requests still running after %s: %w", grace, ErrCut)
	}
	return nil
}

// CloseIdleConnections ends the upstream connections kept between requests.
func (h *Handler) CloseIdleConnections() {
	h.local.CloseIdleConnections()
	h.remote.CloseIdleConnections()
}

// ServeHTTP answers one request: the front page, a URL shown through the
// web front (/URL), an absolute-form proxy request, or a refusal.
func (h *Handler) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &logWriter{ResponseWriter: rw, status: http.StatusOK}
	if h.opt.AccessLog != nil {
		start := time.Now()
		defer func() { h.logAccess(r, w, start) }()
	}
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	client, _ := netip.ParseAddrPort(r.RemoteAddr)
	cip := client.Addr().Unmap()
	if !h.allowed(cip) {
		h.fail(w, r, nil, http.StatusForbidden, "your address may not use this gateway")
		return
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		// A browser fetching for a page of another site (an image, a
		// form): the gateway is not a service for other sites' pages.
		h.fail(w, r, nil, http.StatusForbidden, "the gateway answers no request made by another site's page")
		return
	}
	if r.Method == http.MethodConnect {
		hdr.Set("Allow", "GET, HEAD")
		h.fail(w, r, nil, http.StatusMethodNotAllowed, "this gateway does not tunnel (CONNECT): ask it for the URL itself (GET gopher://host/1/ HTTP/1.1)")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		h.fail(w, r, nil, http.StatusMethodNotAllowed, "this gateway answers GET and HEAD only")
		return
	}
	q := &query{local: cip.IsLoopback(), head: r.Method == http.MethodHead}
	if strings.HasPrefix(r.RequestURI, "/") && !h.hostAllowed(r.Host) {
		h.fail(w, r, nil, http.StatusMisdirectedRequest, "the gateway does not answer to the name "+r.Host)
		return
	}
	m, path := h.mountOf(r)
	switch {
	case !strings.HasPrefix(r.RequestURI, "/"):
		// RFC 1630: "GET gopher://host/1/ HTTP/1.1" to a gateway.
		q.target, q.proxy = r.RequestURI, true
		q.html = acceptsHTML(r.Header.Get("Accept"))
	case path == "/" && r.URL.RawQuery == "":
		h.front(w, r)
		return
	case path == "/":
		// The front page's form: /?u=URL.
		u := strings.TrimSpace(r.URL.Query().Get("u"))
		if u == "" {
			h.front(w, r)
			return
		}
		if g, err := fetch.GuessURL(u); err == nil {
			// Typed as into a browser, perhaps without a scheme: curl's
			// guess (gopher.example.org is gopher, ftp.example.org ftp).
			u = g.String()
		}
		// Not http.Redirect: it would clean "//" out of the path.
		w.Header().Set("Location", m.path(u))
		w.WriteHeader(http.StatusSeeOther)
		return
	case path == askPath:
		// A Gopher+ +ASK form: the item's URL and the answers.
		v := r.URL.Query()
		q.target, q.answers, q.html = v.Get("u"), v["a"], true
		if q.answers == nil {
			q.answers = []string{}
		}
	case path == pagePath:
		// A group page's older or newer articles: the group's URL and
		// the last article number.
		v := r.URL.Query()
		n, err := strconv.ParseInt(v.Get("last"), 10, 64)
		if err != nil || n < 1 {
			h.fail(w, r, nil, http.StatusBadRequest, "last: want an article number")
			return
		}
		q.target, q.last, q.html = v.Get("u"), n, true
	case path == searchPath:
		// A search form (gopher type 7, WAIS): the item's URL and the words.
		v := r.URL.Query()
		q.target, q.search, q.html = v.Get("u"), v.Get("q"), true
	default:
		q.target, q.html = frontTarget(targetPath(r, path)), true
	}
	h.fetch(w, r, q)
}

// writeMargin is how long past Options.Timeout a reply may still be
// written.
const writeMargin = 10 * time.Second

// frontTarget is the URL a web-front path names: the path itself
// (/gopher://host/1/sel), or, when the URL's colon was percent-encoded
// (/gopher%3A%2F%2Fhost%2F1%2Fsel, as a form or a script may send it, and
// a mounted Handler's links are written: mount.path), that URL decoded
// once. A path a router cleaned ("gopher:/host/1/sel": http.ServeMux
// makes one "/" of the "//") is the URL with its "//" back, for the
// schemes whose URLs name a host (those with a port).
func frontTarget(p string) string {
	i := strings.IndexAny(p, ":/%")
	if i > 0 && strings.HasPrefix(strings.ToUpper(p[i:]), "%3A") {
		if d, err := url.PathUnescape(p); err == nil {
			return d
		}
	}
	if i > 0 && p[i] == ':' && strings.HasPrefix(p[i+1:], "/") && !strings.HasPrefix(p[i+1:], "//") {
		if s, ok := fetch.LookupScheme(strings.ToLower(p[:i])); ok && s.Port != 0 {
			return p[:i+1] + "/" + p[i+1:]
		}
	}
	return p
}

// targetPath is the web front's request target below the mount: path
// (the escaped path below it) without its "/", and the query.
func targetPath(r *http.Request, path string) string {
	t := path[1:]
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		t += "?" + r.URL.RawQuery
	}
	return t
}

// mount is where the Handler sits in its server's paths.
type mount struct {
	base string // the prefix of its paths, "" at the root ("/gw": /gw/URL)
	// safe: its links must survive a router's cleaning (mount.path).
	safe bool
}

// mountOf is where r found the Handler, and r's escaped path below it
// (starting with "/"): Options.Base taken off the path, or the prefix
// http.StripPrefix took off, which is the part of the request target
// the URL's path no longer holds.
func (h *Handler) mountOf(r *http.Request) (mount, string) {
	p := r.URL.EscapedPath()
	sent, _, _ := strings.Cut(r.RequestURI, "?")
	base := strings.TrimSuffix(h.opt.Base, "/")
	m := mount{base: base, safe: h.opt.Base != ""}
	switch {
	case len(sent) > len(p) && strings.HasSuffix(sent, p) && strings.HasPrefix(sent, "/"):
		m = mount{base: strings.TrimSuffix(sent[:len(sent)-len(p)], "/"), safe: true}
		p = "/" + strings.TrimPrefix(p, "/")
	case base != "" && (p == base || strings.HasPrefix(p, base+"/")):
		p = "/" + strings.TrimPrefix(p[len(base):], "/")
	case p == "":
		p = "/"
	}
	return m, p
}

// path is the web front's path for a URL: base, "/", the URL with the
// bytes that cannot stand in a request target percent-encoded (pathOf).
// For a mounted Handler the URL's colon is "%3A", so that the path is the
// URL decoded once (frontTarget), its "%" "%25" and a "/" before a "/" or
// a "." "%2F": a router that cleans paths (dot segments, "//") finds
// nothing to clean.
func (m mount) path(u string) string {
	var b strings.Builder
	m.writePath(&b, u, &pathReplace)
	return b.String()
}

// writePath writes m.path(u) with the replacements rep (pathReplace, or
// pathAttrReplace in an attribute), building no string.
func (m mount) writePath(iw io.Writer, u string, rep *[256]string) {
	w, done := stringWriter(iw)
	defer done()
	writeReplaced(w, m.base, rep)
	w.WriteString("/")
	i := strings.IndexByte(u, ':')
	if !m.safe || i <= 0 {
		writeReplaced(w, u, rep)
		return
	}
	w.WriteString(u[:i])
	w.WriteString("%3A")
	rest, last := u[i+1:], 0
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		r := rep[c]
		switch {
		case c == '%':
			r = "%25"
		case c == '/' && j+1 < len(rest) && (rest[j+1] == '/' || rest[j+1] == '.'):
			r = "%2F"
		case r == "":
			continue
		}
		w.WriteString(rest[last:j])
		w.WriteString(r)
		last = j + 1
	}
	w.WriteString(rest[last:])
}

// searchPath is where the search forms send their words.
const searchPath = "/.search"

// query is one retrieval asked of the gateway.
type query struct {
	target string // the URL as asked
	search string // search words (fetch.OptSearch), "" when none
	// answers are the answers to a Gopher+ +ASK form (gopher.OptAsk), in
	// order; nil when none were given.
	answers []string
	proxy   bool // asked as a proxy (absolute form), not through the front
	html    bool // the client wants listings as HTML
	// searchable is the URL to search when the target takes search words
	// (a WAIS database, a gopher type 7 item): its page starts with a
	// search form.
	searchable string
	// last is the highest article a group page shows (pagePath); 0: the
	// newest.
	last  int64
	local bool // the client is on this machine
	head  bool
}

// allowed reports whether a client at ip may use the gateway: one on
// this machine, or in AllowFrom.
func (h *Handler) allowed(ip netip.Addr) bool {
	if ip.IsLoopback() {
		return true
	}
	for _, p := range h.opt.AllowFrom {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// hostAllowed reports whether the web front answers to host (a request's
// Host: an IP address, localhost or one of Options.AllowHosts, with any
// port).
func (h *Handler) hostAllowed(host string) bool {
	if hp, _, err := net.SplitHostPort(host); err == nil {
		host = hp
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if _, err := netip.ParseAddr(host); err == nil || strings.EqualFold(host, "localhost") {
		return true
	}
	for _, a := range h.opt.AllowHosts {
		if strings.EqualFold(host, strings.TrimSuffix(a, ".")) {
			return true
		}
	}
	return false
}

// acceptsHTML reports whether an Accept field puts text/html first.
func acceptsHTML(accept string) bool {
	first, _, _ := strings.Cut(accept, ",")
	first, _, _ = strings.Cut(first, ";")
	return strings.EqualFold(strings.TrimSpace(first), "text/html")
}

// fetch carries out q and writes the reply.
func (h *Handler) fetch(w *logWriter, r *http.Request, q *query) {
	u, err := fetch.GuessURL(q.target)
	if err != nil || u.Scheme == "" {
		h.fail(w, r, q, http.StatusBadRequest, "not a URL the gateway can fetch: "+q.target)
		return
	}
	sch, ok := fetch.LookupScheme(u.Scheme)
	switch {
	case !ok:
		h.fail(w, r, q, http.StatusNotImplemented, "the gateway does not know the scheme "+u.Scheme+":")
		return
	case !gatewayed(u.Scheme):
		h.fail(w, r, q, http.StatusForbidden, "the gateway does not carry out "+u.Scheme+": URLs; open it with a program of your own: "+u.String())
		return
	case sch.Caps.Has(fetch.Local):
		if msg := h.fileAllowed(&u); msg != "" {
			h.fail(w, r, q, http.StatusForbidden, msg)
			return
		}
	}
	if q.html && sch.Caps.Has(fetch.Search) && sch.SearchWords != nil {
		if takes, _ := sch.SearchWords(&u); takes {
			// A search (gopher type 7, a WAIS database): its page starts
			// with a form for the words (this search's results, with
			// them).
			q.searchable = u.String()
		}
	}
	cip, _ := netip.ParseAddrPort(r.RemoteAddr)
	port := u.Port
	if port < 0 {
		port = sch.Port
	}
	upstream := u.Scheme + "://" + net.JoinHostPort(u.Host, strconv.Itoa(port))
	if msg := h.lim.acquire(cip.Addr().String(), upstream); msg != "" {
		w.Header().Set("Retry-After", "5")
		h.fail(w, r, q, http.StatusServiceUnavailable, msg)
		return
	}
	defer h.lim.release(cip.Addr().String(), upstream)

	ctx, cancel := context.WithTimeout(r.Context(), h.opt.Timeout)
	defer cancel()
	// The reply too is bounded: a client that stops reading does not hold
	// the request much past Timeout (the margin lets an error reply for
	// the timeout itself go out).
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(h.opt.Timeout + writeMargin))
	opts := fetch.Options{}
	u = h.login(r, q, u, upstream, opts)
	req := &fetch.Request{URL: &u, Head: q.head, Options: opts}
	if !q.html {
		// What a direct retrieval writes to a file (the Downloader's
		// rule for output no person reads): a gopher menu or text as
		// the server sent it, an ftp listing's or a news article's CRLF
		// as LF.
		req.Options[fetch.OptAsSent] = "1"
	} else {
		h.newsOptions(q, opts)
	}
	if q.search != "" {
		req.Options[fetch.OptSearch] = q.search
	}
	if q.answers != nil {
		for _, a := range q.answers {
			if strings.ContainsAny(a, "\r\n") {
				h.fail(w, r, q, http.StatusBadRequest, "an answer may not hold a line end")
				return
			}
		}
		req.Options[gopher.OptAsk] = strings.Join(q.answers, "\n")
	}
	rng, ranged := parseRange(r.Header.Get("Range"))
	if ranged && !q.head {
		req.Offset = rng.first
	}
	c := h.remote
	if q.local {
		c = h.local
	}
	res, err := c.Do(ctx, req)
	if err == nil && req.Offset > 0 && res.Offset != req.Offset {
		// The resource came whole (the server cannot resume, or it
		// changed): it is sent whole, with 200, as servers do.
		ranged = false
	} else if err == nil && req.Offset > 0 && res.Size < 0 {
		// Resumed, but a 206 needs the length: ask again for all of it.
		res.Body.Close()
		req.Offset, ranged = 0, false
		res, err = c.Do(ctx, req)
	}
	if err != nil && q.searchable != "" && q.search == "" && fetch.KindOf(err) == fetch.ErrMalformed {
		// It cannot be fetched without words (gopher type 7): the form
		// alone.
		h.searchPage(w, r, q)
		return
	}
	if err != nil {
		if !h.challenge(w, r, q, &u, upstream, refusedLogin(nil, err)) {
			h.failErr(w, r, q, err)
		}
		return
	}
	defer res.Body.Close()
	if h.challenge(w, r, q, &u, upstream, refusedLogin(res, nil)) {
		// An http server's 401: the gateway's own challenge, for its
		// origin, in place of the server's page.
		return
	}
	if ranged {
		h.partial(w, q, res, rng)
		return
	}
	h.reply(w, r, q, &u, res)
}

// pathReplace percent-encodes the bytes the web front's path for a URL
// cannot hold as they are: those that cannot stand in a request target,
// and "#", which would end it.
var pathReplace = func() (t [256]string) {
	for c := range 256 {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}#", byte(c)) >= 0 {
			t[c] = fmt.Sprintf("%%%02X", c)
		}
	}
	return t
}()

// fileAllowed says why a file URL may not be shown ("" when it may): only
// a file below Options.AllowFile, symbolic links resolved.
func (h *Handler) fileAllowed(u *urlparse.URL) string {
	if h.opt.AllowFile == "" {
		return "the gateway shows no file: URLs"
	}
	if !u.File.Local {
		return "the gateway shows only local files"
	}
	p, err := filepath.EvalSymlinks(filepath.FromSlash(u.File.Path))
	if err != nil {
		return "no such file: " + u.File.Path
	}
	rel, err := filepath.Rel(h.opt.AllowFile, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "the gateway shows only files below the directory it was given"
	}
	return ""
}

// checkDir makes sure dir is a directory, and returns it absolute with its
// symbolic links resolved, as fileAllowed compares paths.
func checkDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("serve: serve.Options.AllowFile %s: no such directory", dir)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("serve: serve.Options.AllowFile %s: not a directory", dir)
	}
	return abs, nil
}
