package fetch_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// TestOpenIRIHost fetches from an internationalized host name: Open takes
// the IRI, and the name the Dialer is asked for is its A-label form (a stub
// resolves it to the loopback test server, so nothing leaves the machine).
func TestOpenIRIHost(t *testing.T) {
	var host string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host = r.Host
		io.WriteString(w, "hello from "+r.URL.Path)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	var asked []string
	c := &fetch.Client{Dialer: dialerFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
		asked = append(asked, addr)
		if addr != "xn--bcher-kva.test:"+port {
			return nil, errors.New("stub resolver: no such host " + addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	})}
	res, err := c.Open(context.Background(), "http://BÜCHER.test:"+port+"/ä")
	if err != nil {
		t.Fatalf("Open: %v (dialer asked for %q)", err, asked)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || string(b) != "hello from /ä" {
		t.Errorf("body %q, %v", b, err)
	}
	if host != "xn--bcher-kva.test:"+port {
		t.Errorf("Host header %q", host)
	}
}

// TestDoRefusesSchemeError: a URL whose scheme's rules Parse refused never
// reaches a dialer, even when the caller ignored the error; the message
// masks the password.
func TestDoRefusesSchemeError(t *testing.T) {
	dialed := false
	c := &fetch.Client{Dialer: dialerFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed = true
		return nil, errors.New("must not dial")
	})}
	for _, s := range []string{"http://user:secret@127.0.0.1:80808/", "http:g", "ftp://h/a;type=x"} {
		u, perr := urlparse.Parse(s)
		var pe *urlparse.Error
		if !errors.As(perr, &pe) || pe.Scheme == "" || u.Scheme == "" {
			t.Fatalf("Parse(%q) = %+v, %v; want a scheme error beside the generic components", s, u.Ref, perr)
		}
		_, err := c.Do(context.Background(), &fetch.Request{URL: &u})
		wantExit(t, s, err, 3)
		_, err = c.Open(context.Background(), s)
		wantExit(t, s, err, 3)
		if strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "not a valid "+u.Scheme+" URL") {
			t.Errorf("Open(%q): %v", s, err)
		}
	}
	if dialed {
		t.Error("a URL with a scheme error was dialed")
	}
}
