package serve

import (
	"context"
	"maps"
	"net"
	"net/netip"
	"syscall"

	"github.com/urlget/urlget/fetch"
)

// client returns a copy of c whose connections go through a guard: with
// private false, no connection reaches an address that is not public.
func (h *Handler) client(c *fetch.Client, private bool) *fetch.Client {
	cc := *c // a copy is a Client of its own (fetch.Client)
	// What one client of the gateway asks for is never fetched with the
	// gateway's own credentials or cookies: only a URL's userinfo, which
	// that client wrote, is sent.
	cc.User, cc.Password, cc.HasUser, cc.HasPassword = "", "", false, false
	cc.Netrc, cc.NetrcFile, cc.Jar = false, "", nil
	cc.Fetchers = h.fetchers(c.Fetchers)
	base := c.Dialer
	if base == nil {
		base = &net.Dialer{}
	}
	g := &guard{base: base, resolver: h.opt.Resolver, private: private}
	if nd, ok := base.(*net.Dialer); ok && !private {
		// The address checked is the one the socket connects to: even a
		// name resolved somewhere else than in the guard cannot slip by.
		d := *nd
		prev := d.Control
		d.Control = func(network, address string, rc syscall.RawConn) error {
			if ap, err := netip.ParseAddrPort(address); err == nil && blocked(ap.Addr()) {
				return refusal(address)
			}
			if prev != nil {
				return prev(network, address, rc)
			}
			return nil
		}
		g.base = &d
	}
	cc.Dialer = g
	return &cc
}

// fetchers is Client.Fetchers for the gateway: the schemes it never
// carries out (sessions, mail) have no Fetcher at all, and the file
// Fetcher opens only what fileAllowed allows, so that no way of reaching a
// URL — a name service's referral included — gets round the rules.
func (h *Handler) fetchers(given map[string]func(fetch.Config) fetch.Fetcher) map[string]func(fetch.Config) fetch.Fetcher {
	fs := maps.Clone(given)
	if fs == nil {
		fs = map[string]func(fetch.Config) fetch.Fetcher{}
	}
	for _, name := range fetch.Schemes() {
		sch, _ := fetch.LookupScheme(name)
		build, ok := given[name]
		if !ok {
			build = sch.New
		}
		switch {
		case !gatewayed(name):
			fs[name] = nil
		case sch.Caps.Has(fetch.Local) && build != nil:
			fs[name] = func(cfg fetch.Config) fetch.Fetcher {
				f := build(cfg)
				return fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
					if msg := h.fileAllowed(req.URL); msg != "" {
						return nil, &fetch.Error{Kind: fetch.ErrAccessDenied, Msg: msg}
					}
					return f.Open(ctx, req)
				})
			}
		}
	}
	return fs
}

// guard is the Dialer of the gateway's Clients: it resolves names itself
// (Options.Resolver) and dials addresses, checking each before it is
// dialled when private addresses are refused.
type guard struct {
	base     fetch.Dialer
	resolver Resolver
	private  bool // private addresses allowed
}

func (g *guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return g.base.DialContext(ctx, network, addr)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else {
		fam := "ip"
		switch network {
		case "tcp4", "udp4":
			fam = "ip4"
		case "tcp6", "udp6":
			fam = "ip6"
		}
		ips, err = g.resolver.LookupNetIP(ctx, fam, host)
		if err != nil {
			return nil, err
		}
		if len(ips) == 0 {
			return nil, &net.DNSError{Err: "no address", Name: host, IsNotFound: true}
		}
	}
	var first error
	for _, ip := range ips {
		ip = ip.Unmap()
		a := net.JoinHostPort(ip.String(), port)
		if !g.private && blocked(ip) {
			if first == nil {
				first = refusal(a)
			}
			continue
		}
		c, err := g.base.DialContext(ctx, network, a)
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// refusal is the error for a connection to an address not allowed.
func refusal(addr string) error {
	return &fetch.Error{Kind: fetch.ErrAccessDenied, Msg: "the gateway does not connect to " + addr + " (not a public address)"}
}

var (
	sharedSpace = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	broadcast   = netip.AddrFrom4([4]byte{255, 255, 255, 255})
)

// blocked reports whether ip is an address a gateway serving other
// machines must not reach: loopback, private, link-local, multicast,
// unspecified, this network, shared address space, broadcast. A variable
// so that tests can call a loopback address public.
var blocked = func(ip netip.Addr) bool {
	ip = ip.Unmap()
	return !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		ip.IsUnspecified() || thisNetwork.Contains(ip) || sharedSpace.Contains(ip) || ip == broadcast
}
