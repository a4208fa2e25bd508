package fetch

import (
	"io"
	"time"

	"github.com/urlget/urlget/urlparse"
)

// Client holds policy and dispatches each URL to its scheme's Fetcher. The
// zero Client is usable: no timeouts beyond the context's, proxies from the
// environment, no redirects, no caps.
type Client struct {
	// ConnectTimeout bounds each connection attempt (0: none beyond ctx).
	ConnectTimeout time.Duration

	// Proxy, when set, overrides the environment (-x): applied to every
	// scheme unless NoProxy matches. ProxyFromEnv is used when nil:
	// http_proxy, https_proxy, ftp_proxy, gopher_proxy, news_proxy,
	// nntp_proxy, wais_proxy, all_proxy, no_proxy.
	Proxy   *urlparse.URL
	NoProxy string // "-" or comma-separated hosts, as --noproxy

	// User and Password (-u) override URL userinfo. With Netrc set,
	// credentials for hosts without them come from NetrcFile (default
	// ~/.netrc).
	User        string
	Password    string
	HasUser     bool
	HasPassword bool
	Netrc       bool
	NetrcFile   string

	// FollowRedirects (-L) follows redirects, at most MaxRedirects
	// (default 50, -1 for no limit), only to http, https and ftp; credentials
	// are never sent to another scheme, host or port.
	FollowRedirects bool
	MaxRedirects    int

	// Fail (-f) turns an HTTP status >= 400 into an ErrHTTP error.
	Fail bool

	// MaxFileSize (--max-filesize) refuses or stops a body larger than this
	// (0: no cap). MaxDecompressed caps a --compressed body after decoding.
	MaxFileSize     int64
	Compressed      bool
	MaxDecompressed int64

	// Insecure skips TLS certificate verification (-k).
	Insecure bool

	UserAgent string
	Verbose   io.Writer         // protocol exchange, passwords masked
	Options   map[string]string // passed to fetchers in Request.Options

	// Progress, when set, is called as body bytes arrive: done so far and
	// the total (-1 when unknown).
	Progress func(done, total int64)

	// Fetchers overrides the registry for these schemes (tests).
	Fetchers map[string]Fetcher
}
