package fetch_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	_ "github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

func TestParseRouteRules(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // fmt of the rule, or "error"
	}{
		{"example.test:80:127.0.0.1", "{example.test 80 [127.0.0.1] false}"},
		{"+example.test:443:127.0.0.1,::1", "{example.test 443 [127.0.0.1 ::1] false}"},
		{"*:8080:[::1],[127.0.0.2]", "{* 8080 [::1 127.0.0.2] false}"},
		{"[::1]:80:127.0.0.1", "{::1 80 [127.0.0.1] false}"},
		{"example.test:80", "error"},
		{"example.test:http:127.0.0.1", "error"},
		{"example.test:0:127.0.0.1", "error"},
		{"example.test:80:not-an-ip", "error"},
		{"example.test:80:", "error"},
		{"-example.test:80", "{example.test 80 [] true}"},
		{"-example.test:80:127.0.0.1", "error"},
		{"-example.test", "error"},
	} {
		r, err := fetch.ParseResolve(tc.in)
		got := fmt.Sprint(r)
		if err != nil {
			got = "error"
			if fetch.ExitCode(err) != 49 || !strings.Contains(err.Error(), strconv.Quote(tc.in)) {
				t.Errorf("ParseResolve(%q): %v, want exit 49 quoting the rule", tc.in, err)
			}
		}
		if got != tc.want {
			t.Errorf("ParseResolve(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"example.test:443:other.test:8443", "{example.test 443 other.test 8443}"},
		{"::127.0.0.1:2121", "{ 0 127.0.0.1 2121}"},
		{"example.test:::", "{example.test 0  0}"},
		{"[::1]:80:[::2]:81", "{::1 80 ::2 81}"},
		{"a:1:b", "error"},
		{"a:1:b:2:3", "error"},
		{"a:x:b:2", "error"},
		{"a:1:b:70000", "error"},
	} {
		r, err := fetch.ParseConnectTo(tc.in)
		got := fmt.Sprint(r)
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("ParseConnectTo(%q) = %s (%v), want %s", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"4000", "{4000 4000}"}, {"4000-4010", "{4000 4010}"},
		{"4010-4000", "error"}, {"0", "error"}, {"1-", "error"}, {"x", "error"}, {"65536", "error"},
	} {
		r, err := fetch.ParsePortRange(tc.in)
		got := fmt.Sprint(r)
		if err != nil {
			got = "error"
		}
		if got != tc.want {
			t.Errorf("ParsePortRange(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// recordingDialer is a program's Dialer that notes the addresses it is
// asked for and connects with a net.Dialer.
type recordingDialer struct {
	mu    sync.Mutex
	addrs []string
}

func (d *recordingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, network+" "+addr)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func (d *recordingDialer) asked() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// echoPeer is an HTTP server that answers with the client's address.
func echoPeer(t *testing.T) (*httptest.Server, string) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s", r.Host, r.RemoteAddr)
	}))
	t.Cleanup(srv.Close)
	return srv, strings.TrimPrefix(srv.URL, "http://127.0.0.1:")
}

func mustResolve(t *testing.T, s string) fetch.ResolveRule {
	r, err := fetch.ParseResolve(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustConnectTo(t *testing.T, s string) fetch.ConnectToRule {
	r, err := fetch.ParseConnectTo(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestResolveWithoutDNS(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	_, port := echoPeer(t)
	rec := &recordingDialer{}
	c := &fetch.Client{Dialer: rec, Resolve: []fetch.ResolveRule{
		mustResolve(t, "other.test:1:192.0.2.1"),
		mustResolve(t, "*:"+port+":192.0.2.1"), // the wildcard is the last resort
		mustResolve(t, "Example.TEST:"+port+":127.0.0.1"),
	}}
	_, body, err := fetchAll(t, c, "http://example.test.:"+port+"/")
	if err != nil || !strings.HasPrefix(string(body), "example.test.:"+port+" 127.0.0.1:") {
		t.Fatalf("%q %v", body, err)
	}
	if got := rec.asked(); len(got) != 1 || got[0] != "tcp 127.0.0.1:"+port {
		t.Errorf("the dialer was asked for %q, want the address only: the name never reaches a resolver", got)
	}
	// The wildcard, for a name without a rule of its own.
	c = &fetch.Client{Resolve: []fetch.ResolveRule{mustResolve(t, "*:"+port+":127.0.0.1")}}
	if _, body, err = fetchAll(t, c, "http://any.test:"+port+"/"); err != nil || !strings.HasPrefix(string(body), "any.test:") {
		t.Errorf("wildcard: %q %v", body, err)
	}
	// Several addresses: tried in order, one nobody listens on first.
	c = &fetch.Client{Resolve: []fetch.ResolveRule{mustResolve(t, "example.test:"+port+":127.0.0.2,127.0.0.1")}}
	if _, body, err = fetchAll(t, c, "http://example.test:"+port+"/"); err != nil {
		t.Errorf("two addresses: %q %v", body, err)
	}
	c = &fetch.Client{Resolve: []fetch.ResolveRule{mustResolve(t, "example.test:"+port+":127.0.0.2")}}
	_, _, err = fetchAll(t, c, "http://example.test:"+port+"/")
	wantExit(t, "only a dead address", err, 7)
	// -6 leaves out a rule's IPv4 addresses, as curl 7.88: no address.
	c = &fetch.Client{IPVersion: 6, Resolve: []fetch.ResolveRule{mustResolve(t, "example.test:"+port+":127.0.0.1")}}
	_, _, err = fetchAll(t, c, "http://example.test:"+port+"/")
	wantExit(t, "-6 with an IPv4 rule", err, 6)
	c = &fetch.Client{IPVersion: 4, Resolve: []fetch.ResolveRule{mustResolve(t, "example.test:"+port+":::1,127.0.0.1")}}
	if _, body, err = fetchAll(t, c, "http://example.test:"+port+"/"); err != nil {
		t.Errorf("-4 with a rule of both versions: %q %v", body, err)
	}
	// "-HOST:PORT" takes away the rules before it, not those after it
	// (curl's test 2052): the dead address is forgotten, the wildcard used.
	c = &fetch.Client{Resolve: []fetch.ResolveRule{mustResolve(t, "example.test:"+port+":127.0.0.2"),
		mustResolve(t, "-EXAMPLE.test:"+port), mustResolve(t, "*:"+port+":127.0.0.1"), mustResolve(t, "-other.test:"+port)}}
	if _, body, err = fetchAll(t, c, "http://example.test:"+port+"/"); err != nil {
		t.Errorf("a rule removed: %q %v", body, err)
	}
	c = &fetch.Client{Resolve: []fetch.ResolveRule{mustResolve(t, "*:"+port+":127.0.0.2"), mustResolve(t, "-*:"+port),
		mustResolve(t, "*:"+port+":127.0.0.1")}}
	if _, body, err = fetchAll(t, c, "http://example.test:"+port+"/"); err != nil {
		t.Errorf("a wildcard removed: %q %v", body, err)
	}
	// -6 and an IPv4 address in the URL: curl's 7.
	c = &fetch.Client{IPVersion: 6}
	_, _, err = fetchAll(t, c, "http://127.0.0.1:"+port+"/")
	wantExit(t, "-6 to 127.0.0.1", err, 7)
}

func TestConnectTo(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	_, port := echoPeer(t)
	c := &fetch.Client{ConnectTo: []fetch.ConnectToRule{
		mustConnectTo(t, "example.test:80:127.0.0.1:"+port),
	}}
	_, body, err := fetchAll(t, c, "http://example.test/")
	if err != nil || !strings.HasPrefix(string(body), "example.test 127.0.0.1:") {
		t.Fatalf("the request still names example.test, the connection goes to 127.0.0.1: %q %v", body, err)
	}
	// A fetcher that dials on its own (rlogin) asks where to go.
	_, cfg, err := (&fetch.Client{
		ConnectTo: []fetch.ConnectToRule{mustConnectTo(t, "rlogin.test:513:backend.test:1513")},
		Resolve:   []fetch.ResolveRule{mustResolve(t, "backend.test:1513:::1,127.0.0.2")},
		IPVersion: 4,
	}).Prepare(parse(t, "rlogin://rlogin.test/"))
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]string{"rlogin.test:513": "127.0.0.2:1513", "other.test:513": "other.test:513"} {
		if got := fetch.Destination(cfg.Dialer, addr); got != want {
			t.Errorf("Destination(%s) = %s, want %s", addr, got, want)
		}
	}
	if got := fetch.Destination(&recordingDialer{}, "rlogin.test:513"); got != "rlogin.test:513" {
		t.Errorf("Destination with a program's Dialer: %s", got)
	}
	// Resolve applies to the host ConnectTo gives.
	c = &fetch.Client{
		ConnectTo: []fetch.ConnectToRule{mustConnectTo(t, "example.test::backend.test:")},
		Resolve:   []fetch.ResolveRule{mustResolve(t, "backend.test:"+port+":127.0.0.1")},
	}
	if _, body, err = fetchAll(t, c, "http://example.test:"+port+"/"); err != nil || !strings.HasPrefix(string(body), "example.test:"+port+" ") {
		t.Errorf("connect-to then resolve: %q %v", body, err)
	}
}

// An FTP data connection goes where the server says, even under a
// --connect-to rule that matches every host and port: a rule that also
// took the data connection would send it to the control port.
func TestConnectToLeavesFTPDataAlone(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	srv := ftptest.New(t)
	srv.AddFile("/f.txt", []byte("data over the data connection\n"), time.Now())
	c := &fetch.Client{ConnectTo: []fetch.ConnectToRule{mustConnectTo(t, "::127.0.0.1:"+strconv.Itoa(srv.Port))}}
	// A data connection sent to the control port would wait for ever.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, body, err := doAll(c, ctx, &fetch.Request{URL: parse(t, "ftp://ftp.test/f.txt")})
	if err != nil || string(body) != "data over the data connection\n" {
		t.Fatalf("%q %v", body, err)
	}
}

func TestLocalPortAndInterface(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peers := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			peers <- c
		}
	}()
	free, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	lport := free.Addr().(*net.TCPAddr).Port
	free.Close()

	c := &fetch.Client{Interface: "lo", LocalPorts: fetch.PortRange{Low: lport, High: lport}}
	_, cfg, err := c.Prepare(parse(t, "gopher://"+ln.Addr().String()+"/"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	nc, err := cfg.Dialer.DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	peer := <-peers
	defer peer.Close()
	if got := peer.RemoteAddr().String(); got != "127.0.0.1:"+strconv.Itoa(lport) {
		t.Errorf("the server sees %s, want 127.0.0.1:%d", got, lport)
	}
	// The one port is taken (same 4-tuple): curl's 45.
	_, err = cfg.Dialer.DialContext(ctx, "tcp", ln.Addr().String())
	wantExit(t, "port in use", err, 45)

	for _, iface := range []string{"if!no-such-if0", "host!", "bogus!lo"} {
		c := &fetch.Client{Interface: iface}
		_, cfg, _ := c.Prepare(parse(t, "gopher://"+ln.Addr().String()+"/"))
		_, err := cfg.Dialer.DialContext(ctx, "tcp", ln.Addr().String())
		wantExit(t, "--interface "+iface, err, 45)
	}
	// An address of the other version than the target's.
	c = &fetch.Client{Interface: "::1"}
	_, cfg, _ = c.Prepare(parse(t, "gopher://"+ln.Addr().String()+"/"))
	_, err = cfg.Dialer.DialContext(ctx, "tcp", ln.Addr().String())
	wantExit(t, "IPv6 source to an IPv4 server", err, 7)
	// A program's own Dialer cannot bind.
	c = &fetch.Client{Interface: "127.0.0.1", Dialer: &recordingDialer{}}
	_, cfg, _ = c.Prepare(parse(t, "gopher://"+ln.Addr().String()+"/"))
	_, err = cfg.Dialer.DialContext(ctx, "tcp", ln.Addr().String())
	wantExit(t, "program's dialer", err, 45)
}

// Through SOCKS, curl's rules: the proxy's name resolves by Resolve, the
// proxy is asked for the host ConnectTo gives; socks5 resolves that host
// here by Resolve, socks5h sends it as a name.
func TestRouteThroughSOCKS(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	srv, _ := echoPeer(t)
	target := strings.TrimPrefix(srv.URL, "http://")
	for _, scheme := range []string{"socks5h", "socks5"} {
		s := newSOCKS(t, target, false)
		_, sport, _ := net.SplitHostPort(s.Addr)
		proxy, err := fetch.ParseProxy(scheme + "://proxy.test:" + sport)
		if err != nil {
			t.Fatal(err)
		}
		c := &fetch.Client{Proxy: proxy,
			Resolve: []fetch.ResolveRule{
				mustResolve(t, "proxy.test:"+sport+":127.0.0.1"),
				mustResolve(t, "backend.test:8080:127.0.0.9"),
			},
			ConnectTo: []fetch.ConnectToRule{mustConnectTo(t, "example.test:80:backend.test:8080")},
		}
		_, body, err := fetchAll(t, c, "http://example.test/")
		if err != nil || !strings.HasPrefix(string(body), "example.test ") {
			t.Fatalf("%s: %q %v", scheme, body, err)
		}
		want := "backend.test:8080"
		if scheme == "socks5" {
			want = "127.0.0.9:8080"
		}
		if asked := s.Asked(); len(asked) != 1 || asked[0] != want {
			t.Errorf("%s: the proxy was asked for %q, want %s", scheme, asked, want)
		}
	}
}
