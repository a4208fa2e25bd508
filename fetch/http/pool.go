package http

import (
	"io"
	nethttp "net/http"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Bounds of the idle connections a Fetcher keeps: per host, a few more
// than a mirror's usual parallel workers (-P 4), or Config.IdlePerHost
// when more (urlget -Z: a transfer's connection would otherwise be
// closed when many end at once, and another dialled for the next); in
// all, a crawl over a handful of hosts; and how long one may sit unused (nginx closes an idle
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
	p.tr = newTransport(d)
	p.tr.MaxIdleConns = max(maxIdle, cfg.IdlePerHost)
	p.tr.MaxIdleConnsPerHost = max(maxIdlePerHost, cfg.IdlePerHost)
	p.tr.IdleConnTimeout = idleTimeout
	p.tr.MaxConnsPerHost = cfg.MaxPerHost
	return p
}

// newTransport is the Transport of the fetcher's requests, pooled or not:
// d dials (the Config's dialer and TLS), nothing is decoded behind the
// fetcher's back, the reply head is bounded, and a request that sends
// "Expect: 100-continue" (net/http applies the timeout to those only)
// waits expectTimeout for the 100.
func newTransport(d *dialer) *nethttp.Transport {
	return &nethttp.Transport{
		DialContext:            d.dial,
		DialTLSContext:         d.dialTLS,
		DisableCompression:     true,
		MaxResponseHeaderBytes: maxHeaderBytes,
		ExpectContinueTimeout:  expectTimeout,
	}
}

// CloseIdleConnections closes the connections the Fetcher keeps idle,
// leaving those in use; it makes the Fetcher a fetch.IdleCloser, which
// fetch.Client.CloseIdleConnections reaches.
func (f Fetcher) CloseIdleConnections() {
	if f.pool != nil {
		f.pool.tr.CloseIdleConnections()
	}
}
