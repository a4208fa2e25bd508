package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"syscall"

	"github.com/urlget/urlget/urlparse"
)

// This file is where a connection goes and where it comes from: curl's
// --resolve, --connect-to, -4/-6, --interface and --local-port, applied by
// the Client's Dialer to every connection of every scheme.

// A ResolveRule makes Host, for connections to Port, resolve to Addrs
// without asking DNS (curl's --resolve HOST:PORT:ADDR[,ADDR]…). Host "*"
// matches any host; a rule for the host itself wins over a "*" one. Host
// compares without regard to case or a trailing dot. Addrs are tried in
// order, those of Client.IPVersion only (as curl 7.88 does).
//
// A rule with Remove set (curl's "-HOST:PORT") has no Addrs: it takes
// away the rules for Host and Port that come before it in the list, so
// that Host is looked up again.
type ResolveRule struct {
	Host   string
	Port   int
	Addrs  []netip.Addr
	Remove bool
}

// ParseResolve parses curl's --resolve argument: "[+]HOST:PORT:ADDR[,ADDR]…",
// an IPv6 address in brackets or not, or "-HOST:PORT" (a Remove rule). The
// "+" prefix (curl: the entry expires after a minute) is accepted and
// means nothing here, since a Client caches no name. A bad argument is
// ErrOptionSyntax (curl's 49).
func ParseResolve(s string) (ResolveRule, error) {
	bad := func(why string) (ResolveRule, error) {
		return ResolveRule{}, &Error{Kind: ErrOptionSyntax, Msg: strconv.Quote(s) + ": " + why}
	}
	rest, remove := strings.CutPrefix(s, "-")
	if !remove {
		rest = strings.TrimPrefix(rest, "+")
	}
	host, rest, ok := cutHost(rest)
	if !ok || host == "" {
		return bad("want HOST:PORT:ADDR[,ADDR]... or -HOST:PORT")
	}
	if remove {
		port, err := parsePort(rest)
		if err != nil {
			return bad(err.Error())
		}
		return ResolveRule{Host: host, Port: port, Remove: true}, nil
	}
	portStr, addrs, ok := strings.Cut(rest, ":")
	if !ok {
		return bad("want HOST:PORT:ADDR[,ADDR]...")
	}
	port, err := parsePort(portStr)
	if err != nil {
		return bad(err.Error())
	}
	r := ResolveRule{Host: host, Port: port}
	for _, a := range strings.Split(addrs, ",") {
		a = strings.TrimSpace(a)
		ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(a, "["), "]"))
		if err != nil {
			return bad(strconv.Quote(a) + " is not an IP address")
		}
		r.Addrs = append(r.Addrs, ip.Unmap())
	}
	return r, nil
}

// A ConnectToRule sends the connections for Host:Port to ToHost:ToPort
// instead (curl's --connect-to HOST1:PORT1:HOST2:PORT2). Host "" matches
// any host, Port 0 any port; ToHost "" keeps the host, ToPort 0 the port.
// Host compares as a string with the URL's host (case aside). Only where
// the connection goes changes: TLS still checks the certificate for the
// URL's host, and the protocol still names it.
type ConnectToRule struct {
	Host   string
	Port   int
	ToHost string
	ToPort int
}

// ParseConnectTo parses curl's --connect-to argument,
// "HOST1:PORT1:HOST2:PORT2", each part possibly empty, an IPv6 address in
// brackets. A bad argument is ErrOptionSyntax (curl's 49).
func ParseConnectTo(s string) (ConnectToRule, error) {
	bad := func(why string) (ConnectToRule, error) {
		return ConnectToRule{}, &Error{Kind: ErrOptionSyntax, Msg: strconv.Quote(s) + ": " + why}
	}
	var parts [4]string
	rest, ok := s, true
	for i := 0; i < 3 && ok; i++ {
		if i%2 == 0 {
			parts[i], rest, ok = cutHost(rest)
		} else {
			parts[i], rest, ok = strings.Cut(rest, ":")
		}
	}
	parts[3] = rest
	if !ok || strings.Contains(rest, ":") {
		return bad("want HOST1:PORT1:HOST2:PORT2 (each may be empty)")
	}
	var r ConnectToRule
	r.Host, r.ToHost = parts[0], parts[2]
	for i, p := range []*int{&r.Port, &r.ToPort} {
		if parts[2*i+1] == "" {
			continue
		}
		n, err := parsePort(parts[2*i+1])
		if err != nil {
			return bad(err.Error())
		}
		*p = n
	}
	return r, nil
}

// A PortRange is the local ports a connection may be made from (curl's
// --local-port N[-M]); the zero PortRange lets the system choose.
type PortRange struct{ Low, High int }

// ParsePortRange parses "N" or "N-M" (1 to 65535, N <= M). A bad argument
// is ErrMalformed.
func ParsePortRange(s string) (PortRange, error) {
	lo, hi, ranged := strings.Cut(s, "-")
	if !ranged {
		hi = lo
	}
	l, err1 := parsePort(lo)
	h, err2 := parsePort(hi)
	if err1 != nil || err2 != nil || l > h {
		return PortRange{}, &Error{Kind: ErrMalformed, Msg: strconv.Quote(s) + ": want a port or a range N-M of ports from 1 to 65535"}
	}
	return PortRange{l, h}, nil
}

// cutHost cuts "host:" or "[v6]:" from the front of s.
func cutHost(s string) (host, rest string, ok bool) {
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]:")
		if end < 0 {
			return "", "", false
		}
		return s[1:end], s[end+2:], true
	}
	return strings.Cut(s, ":")
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, errors.New(strconv.Quote(s) + " is not a port (1 to 65535)")
	}
	return n, nil
}

// route is the Client's connection shaping, shared by its Dialers.
type route struct {
	resolve   []ResolveRule
	connectTo []ConnectToRule
	ipVersion int    // 0, 4 or 6
	iface     string // --interface: a name, an address or a host name
	ports     PortRange
}

func (c *Client) route() *route {
	r := &route{resolve: c.Resolve, connectTo: c.ConnectTo, ipVersion: c.IPVersion, iface: c.Interface, ports: c.LocalPorts}
	if len(r.resolve) == 0 && len(r.connectTo) == 0 && r.ipVersion == 0 && r.iface == "" && r.ports == (PortRange{}) {
		return nil
	}
	return r
}

// Redirected is addr after ConnectTo when d is a Client's Dialer (which
// applies it; a DataDialer does not), else addr: the host a connection
// for addr reaches, named as the proxy it goes through is asked for it.
func Redirected(d Dialer, addr string) string {
	if cd, ok := d.(*dialer); ok {
		return cd.target(addr)
	}
	return addr
}

// Destination is where d, a Client's Dialer, connects for addr: addr
// after ConnectTo, its host replaced by the first address a ResolveRule
// gives it (of the IP version asked for). For another Dialer it is addr.
// It is for a fetcher that must dial on its own — rlogin, from a reserved
// port — and still go where the Client's rules send it.
func Destination(d Dialer, addr string) string {
	cd, ok := d.(*dialer)
	if !ok || cd.route == nil {
		return addr
	}
	addr = Redirected(d, addr)
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	port, _ := strconv.Atoi(portStr)
	if addrs := cd.route.filter(cd.route.rule(host, port)); len(addrs) > 0 {
		return net.JoinHostPort(addrs[0].String(), portStr)
	}
	return addr
}

// redirect applies the first ConnectToRule that matches addr.
func (r *route) redirect(addr string) string {
	if r == nil || len(r.connectTo) == 0 {
		return addr
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	port, _ := strconv.Atoi(portStr)
	for _, c := range r.connectTo {
		if (c.Host == "" || strings.EqualFold(c.Host, host)) && (c.Port == 0 || c.Port == port) {
			if c.ToHost != "" {
				host = c.ToHost
			}
			if c.ToPort != 0 {
				port = c.ToPort
			}
			return net.JoinHostPort(host, strconv.Itoa(port))
		}
	}
	return addr
}

// redirects reports whether a ConnectTo rule sends u's connection to
// another host or port.
func (r *route) redirects(u *urlparse.URL) bool {
	if r == nil || len(r.connectTo) == 0 || u.Host == "" {
		return false
	}
	addr := net.JoinHostPort(u.Host, strconv.Itoa(u.PortOrDefault()))
	return r.redirect(addr) != addr
}

// rule is the addresses a ResolveRule gives host:port, nil when none does.
func (r *route) rule(host string, port int) []netip.Addr {
	if r == nil {
		return nil
	}
	h := strings.TrimSuffix(host, ".")
	same := func(e ResolveRule, host string) bool {
		return e.Port == port && strings.EqualFold(strings.TrimSuffix(e.Host, "."), host)
	}
	removed := func(i int, host string) bool {
		for _, later := range r.resolve[i+1:] {
			if later.Remove && same(later, host) {
				return true
			}
		}
		return false
	}
	var wild []netip.Addr
	for i, e := range r.resolve {
		switch {
		case e.Remove || e.Port != port:
		case same(e, h) && !removed(i, h):
			return e.Addrs
		case e.Host == "*" && wild == nil && !removed(i, "*"):
			wild = e.Addrs
		}
	}
	return wild
}

// network narrows "tcp" or "udp" to the IP version asked for.
func (r *route) network(network string) string {
	if r == nil || r.ipVersion == 0 || (network != "tcp" && network != "udp") {
		return network
	}
	return network + strconv.Itoa(r.ipVersion)
}

// filter leaves out the addresses of the other IP version than the one
// asked for.
func (r *route) filter(addrs []netip.Addr) []netip.Addr {
	if r == nil || r.ipVersion == 0 {
		return addrs
	}
	var out []netip.Addr
	for _, a := range addrs {
		if a.Is4() == (r.ipVersion == 4) {
			out = append(out, a)
		}
	}
	return out
}

// binds reports whether connections are made from a chosen address or port.
func (r *route) binds() bool { return r != nil && (r.iface != "" || r.ports != PortRange{}) }

// lookup resolves host for a connection to port: a ResolveRule's
// addresses, the literal address, or DNS (the IP version asked for only).
// nil without error means "let the base dialer resolve it", which it
// does unless force is set or a local address is bound.
func (r *route) lookup(ctx context.Context, network, host string, port int, force bool) ([]netip.Addr, error) {
	if addrs := r.rule(host, port); addrs != nil {
		return addrs, nil
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return []netip.Addr{ip.Unmap()}, nil
	}
	if !r.binds() && !force {
		return nil, nil
	}
	fam := "ip"
	if strings.HasSuffix(network, "4") || strings.HasSuffix(network, "6") {
		fam += network[len(network)-1:]
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, fam, host)
	if err != nil {
		return nil, err
	}
	for i := range ips {
		ips[i] = ips[i].Unmap()
	}
	return ips, nil
}

// localAddrs is the addresses --interface names: an address, an
// interface's addresses ("if!NAME" for an interface only), or a host
// name's ("host!NAME" for a host name only). nil: any.
func (r *route) localAddrs(ctx context.Context) ([]netip.Addr, error) {
	if r == nil || r.iface == "" {
		return nil, nil
	}
	s := r.iface
	fail := func(err error) ([]netip.Addr, error) {
		return nil, &Error{Kind: ErrInterface, Msg: "Client.Interface " + s + ": " + err.Error()}
	}
	kind, name, ok := strings.Cut(s, "!")
	if !ok {
		kind, name = "", s
	}
	if ip, err := netip.ParseAddr(name); err == nil && kind == "" {
		return []netip.Addr{ip.Unmap()}, nil
	}
	if kind == "" || kind == "if" {
		ifi, err := net.InterfaceByName(name)
		if err == nil {
			as, err := ifi.Addrs()
			if err != nil {
				return fail(err)
			}
			var out []netip.Addr
			for _, a := range as {
				if p, err := netip.ParsePrefix(a.String()); err == nil && !p.Addr().IsLinkLocalUnicast() {
					out = append(out, p.Addr().Unmap())
				}
			}
			if len(out) == 0 {
				return fail(errors.New("the interface has no address"))
			}
			return out, nil
		}
		if kind == "if" {
			return fail(errors.New("no such interface"))
		}
	}
	if kind != "" && kind != "host" {
		return fail(errors.New("want an interface name, an address, if!NAME or host!NAME"))
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return fail(errors.New("neither an interface nor a host name that resolves"))
	}
	for i := range ips {
		ips[i] = ips[i].Unmap()
	}
	return ips, nil
}

// dialFrom connects to ip:port from the local address and ports the route
// binds, with base (a *net.Dialer: only it can bind).
func (r *route) dialFrom(ctx context.Context, base Dialer, network string, ip netip.Addr, port int) (net.Conn, error) {
	to := netip.AddrPortFrom(ip, uint16(port)).String()
	if !r.binds() {
		return base.DialContext(ctx, network, to)
	}
	nd, ok := base.(*net.Dialer)
	if !ok {
		return nil, &Error{Kind: ErrInterface, Msg: "a local address or port (Client.Interface, Client.LocalPorts) needs the Client's own dialer, not a Dialer of the program's"}
	}
	locals, err := r.localAddrs(ctx)
	if err != nil {
		return nil, err
	}
	var local netip.Addr
	if locals != nil {
		for _, l := range locals {
			if l.Is4() == ip.Is4() {
				local = l
				break
			}
		}
		if !local.IsValid() {
			// curl's 7, not 45: the interface is fine, this address is not
			// reachable from it.
			return nil, &Error{Kind: ErrConnect, Msg: "could not connect to " + to + ": Client.Interface " + r.iface + " has no IPv" + map[bool]string{true: "4", false: "6"}[ip.Is4()] + " address"}
		}
	}
	low, high := r.ports.Low, r.ports.High
	if low == 0 {
		low, high = 0, 0
	}
	for p := low; p <= high; p++ {
		d := *nd
		udp := strings.HasPrefix(network, "udp")
		var la net.Addr
		if udp {
			la = net.UDPAddrFromAddrPort(netip.AddrPortFrom(local, uint16(p)))
		} else {
			la = net.TCPAddrFromAddrPort(netip.AddrPortFrom(local, uint16(p)))
		}
		if !local.IsValid() {
			// Any local address, this port.
			if udp {
				la = &net.UDPAddr{Port: p}
			} else {
				la = &net.TCPAddr{Port: p}
			}
		}
		d.LocalAddr = la
		if p != 0 {
			d.Control = reuseAddr
		}
		nc, err := d.DialContext(ctx, network, to)
		if err == nil {
			return nc, nil
		}
		if p < high && (errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EADDRNOTAVAIL)) && ctx.Err() == nil {
			continue
		}
		if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EADDRNOTAVAIL) || errors.Is(err, syscall.EACCES) {
			what := "local port " + strconv.Itoa(low)
			if high > low {
				what = "local ports " + strconv.Itoa(low) + "-" + strconv.Itoa(high)
			}
			if low == 0 {
				what = "local address " + local.String()
			}
			return nil, &Error{Kind: ErrInterface, Msg: "cannot connect from " + what, Err: NetCause(err)}
		}
		return nil, err
	}
	panic("unreachable")
}
