package http

import (
	"io"
	nethttp "net/http"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Bounds of the idle connections a Fetcher keeps: per host, a few more
// than a mirror's usual parallel workers (-P 4); in all, a crawl over a
// handful of hosts; and how long one may sit unused (nginx closes an idle
// client after its keepalive_timeout, 75 s by default; Apache after 5 s).
const (
	maxIdlePerHost = 8
	maxIdle        = 64
	idleTimeout    = 60 * time.Second
)

// pool is the Transport a Fetcher built by New keeps for its direct
// requests (no HTTP proxy), so that the requests of one Client to a host
// reuse its connections, net/http's keep-alive. Its dialer is the
// Config's Dialer, as for every other request: the Client's connect
// timeout, SOCKS proxy and dialing options apply to pooled connections.
type pool struct {
	tr *nethttp.Transport
	v  io.Writer // the Config's verbose log behind one lock, or nil
}

func newPool(cfg *fetch.Config) *pool {
	p := &pool{}
	if cfg.Verbose != nil {
		p.v = &fetch.SyncWriter{W: cfg.Verbose}
	}
	d := &dialer{cfg: cfg, v: p.v}
	p.tr = &nethttp.Transport{
		DialContext:            d.dial,
		DialTLSContext:         d.dialTLS,
		DisableCompression:     true,
		MaxResponseHeaderBytes: maxHeaderBytes,
		ExpectContinueTimeout:  expectTimeout, // only for a request that expects 100-continue
		MaxIdleConns:           maxIdle,
		MaxIdleConnsPerHost:    maxIdlePerHost,
		IdleConnTimeout:        idleTimeout,
	}
	return p
}

// CloseIdleConnections closes the connections the Fetcher keeps idle,
// leaving those in use; it makes the Fetcher a fetch.IdleCloser, which
// fetch.Client.CloseIdleConnections reaches.
func (f Fetcher) CloseIdleConnections() {
	if f.pool != nil {
		f.pool.tr.CloseIdleConnections()
	}
}
