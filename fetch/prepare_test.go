package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/urlparse"
)

func mustParse(t *testing.T, s string) *urlparse.URL {
	t.Helper()
	u, err := urlparse.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return &u
}

// Prepare gives what Do gives a Fetcher: credentials from -u, the URL and
// netrc, a Config whose Dialer goes through the SOCKS proxy, the HTTP proxy
// named.
func TestPrepare(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	netrc := filepath.Join(t.TempDir(), "netrc")
	os.WriteFile(netrc, []byte("machine ftp.example login nuser password npass\nmachine other.example login ouser password opass\n"), 0o600)

	for _, tc := range []struct {
		name   string
		c      fetch.Client
		url    string
		user   string
		pass   string
		hasPwd bool
	}{
		{"url", fetch.Client{}, "ftp://u:p@ftp.example/", "u", "p", true},
		{"-u wins", fetch.Client{User: "cu", Password: "cp", HasUser: true, HasPassword: true}, "ftp://u:p@ftp.example/", "cu", "cp", true},
		{"netrc by host", fetch.Client{Netrc: true, NetrcFile: netrc}, "ftp://ftp.example/", "nuser", "npass", true},
		{"netrc password for the URL's user", fetch.Client{Netrc: true, NetrcFile: netrc}, "ftp://ouser@other.example/", "ouser", "opass", true},
		{"no netrc", fetch.Client{NetrcFile: netrc}, "ftp://ftp.example/", "", "", false},
	} {
		r, cfg, err := tc.c.Prepare(mustParse(t, tc.url))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if r.User != tc.user || r.Password != tc.pass || r.HasPassword != tc.hasPwd {
			t.Errorf("%s: user %q password %q (%v), want %q %q (%v)", tc.name, r.User, r.Password, r.HasPassword, tc.user, tc.pass, tc.hasPwd)
		}
		if cfg.Dialer == nil || cfg.TLS == nil || cfg.UserAgent != fetch.DefaultUserAgent || r.Proxy != nil {
			t.Errorf("%s: request not filled in: %+v %+v", tc.name, r, cfg)
		}
	}

	// A netrc file that cannot be read is an error, not "no credentials".
	c := fetch.Client{Netrc: true, NetrcFile: filepath.Join(t.TempDir(), "missing")}
	if _, _, err := c.Prepare(mustParse(t, "ftp://ftp.example/")); fetch.KindOf(err) != fetch.ErrRead {
		t.Errorf("missing netrc: %v, want ErrRead", err)
	}
	// A URL that would break a command line is refused.
	if _, _, err := (&fetch.Client{}).Prepare(mustParse(t, "ftp://h/a%0D%0ADELE%20x")); fetch.KindOf(err) != fetch.ErrMalformed {
		t.Errorf("CR LF in the path: %v, want ErrMalformed", err)
	}
	// An HTTP proxy is named in Proxy.
	hp, _ := fetch.ParseProxy("http://proxy.example:3128")
	r, _, err := (&fetch.Client{Proxy: hp}).Prepare(mustParse(t, "ftp://ftp.example/"))
	if err != nil || r.Proxy == nil || r.Proxy.Host != "proxy.example" {
		t.Errorf("HTTP proxy: %+v %v", r, err)
	}

	// A SOCKS proxy is in the Dialer: the proxy is asked for the URL's
	// name (socks5h) and connects to a local server.
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if nc, err := ln.Accept(); err == nil {
			io.WriteString(nc, "hello")
			nc.Close()
		}
	}()
	s := fetchtest.NewSOCKS5(t, false, func(string) string { return ln.Addr().String() })
	sp, _ := fetch.ParseProxy("socks5h://" + s.Addr)
	r, cfg, err := (&fetch.Client{Proxy: sp}).Prepare(mustParse(t, "ftp://ftp.invalid:2121/"))
	if err != nil || r.Proxy != nil {
		t.Fatalf("SOCKS proxy: %+v %v", r, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	nc, err := cfg.Dialer.DialContext(ctx, "tcp", "ftp.invalid:2121")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(nc)
	nc.Close()
	if string(b) != "hello" || fmt.Sprint(s.Asked()) != "[ftp.invalid:2121]" {
		t.Errorf("through SOCKS: %q, the proxy was asked for %q", b, s.Asked())
	}
}

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&fetch.Error{Kind: fetch.ErrTimeout}, true},
		{&fetch.Error{Kind: fetch.ErrConnect}, true},
		{&fetch.Error{Kind: fetch.ErrResolve}, true},
		{&fetch.Error{Kind: fetch.ErrPartial}, true},
		{&fetch.Error{Kind: fetch.ErrRecv}, true},
		{&fetch.Error{Kind: fetch.ErrSendFailed, Msg: "recipient refused"}, false},
		{&fetch.Error{Kind: fetch.ErrAborted, Err: context.Canceled}, false},
		{&fetch.Error{Kind: fetch.ErrNotFound}, false},
		{&fetch.Error{Kind: fetch.ErrAccessDenied}, false},
		{&fetch.Error{Kind: fetch.ErrLoginDenied}, false},
		{&fetch.Error{Kind: fetch.ErrMalformed}, false},
		{&fetch.Error{Kind: fetch.ErrProtocol, Err: io.ErrUnexpectedEOF}, true},
		{&fetch.Error{Kind: fetch.ErrProtocol, Err: &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ECONNRESET)}}, true},
		{&fetch.Error{Kind: fetch.ErrProtocol, Msg: "malformed reply"}, false},
		{&fetch.Error{Kind: fetch.ErrRetrFailed, Err: transientErr(true)}, true},
		{&fetch.Error{Kind: fetch.ErrRetrFailed, Err: transientErr(false)}, false},
		{&net.DNSError{Name: "x", IsTemporary: true}, true},
		{errors.New("something"), false},
	} {
		if got := fetch.Retryable(tc.err); got != tc.want {
			t.Errorf("Retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// transientErr is a reply error that says whether it is transient (as
// ftp.ReplyError does for 4xx replies).
type transientErr bool

func (t transientErr) Error() string   { return fmt.Sprintf("transient=%v", bool(t)) }
func (t transientErr) Transient() bool { return bool(t) }
