package http_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	_ "github.com/urlget/urlget/fetch/ftp" // an HTTP proxy is a gateway for the schemes registered with fetch.Gateway
)

// rawHTTP answers every request on a connection with head (status line
// and fields, CRLF line ends, without the empty line) and body.
func rawHTTP(t *testing.T, head, body string) *fetchtest.Server {
	return fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			io.WriteString(c, head+"\r\n\r\n")
			if req.Method != "HEAD" {
				io.WriteString(c, body)
			}
		}
	})
}

func fields(h fetch.Header) []string {
	var s []string
	for _, f := range h {
		s = append(s, f.Name+": "+f.Value)
	}
	return s
}

func TestHeaderAsReceived(t *testing.T) {
	head := "HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n" +
		"HTTP/1.1 200 Fine Thanks\r\n" +
		"zeta: last letter first\r\n" +
		"ETag: \"abc\"\r\n" +
		"Content-Length: 5\r\n" +
		"X-Folded: one\r\n\t two\r\n" +
		"Set-Cookie: a=1\r\n" +
		"set-cookie: b=2\r\n" +
		"Connection: keep-alive"
	s := rawHTTP(t, head, "hello")
	want := []string{"zeta: last letter first", `ETag: "abc"`, "Content-Length: 5", "X-Folded: one two",
		"Set-Cookie: a=1", "set-cookie: b=2", "Connection: keep-alive"}
	for _, method := range []string{"GET", "HEAD"} {
		var v bytes.Buffer
		c := &fetch.Client{Verbose: &v}
		res, body, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+s.Addr+"/x"), Head: method == "HEAD"})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if got := fields(res.Header); !slices.Equal(got, want) {
			t.Errorf("%s: Header\n%q\nwant\n%q", method, got, want)
		}
		if res.Proto != "HTTP/1.1" || res.Reason != "Fine Thanks" || !res.IsHTTP() || res.Status != 200 {
			t.Errorf("%s: Proto %q Reason %q Status %d", method, res.Proto, res.Reason, res.Status)
		}
		if res.Header.Get("etag") != `"abc"` || len(res.Header.Values("SET-COOKIE")) != 2 {
			t.Errorf("%s: Get/Values do not ignore case", method)
		}
		if _, ok := res.Header.Lookup("X-Interim"); ok {
			t.Errorf("%s: the interim reply's field is in Header", method)
		}
		if method == "GET" && string(body) != "hello" {
			t.Errorf("body %q", body)
		}
		verbose := "< HTTP/1.1 200 Fine Thanks\n< zeta: last letter first\n< ETag: \"abc\"\n< Content-Length: 5\n< X-Folded: one two\n"
		if !strings.Contains(v.String(), verbose) {
			t.Errorf("%s: verbose output lacks the head in wire order:\n%s", method, v.String())
		}
	}
	// The request asked for a persistent connection (as curl does), and the
	// connection is closed with the Body: nothing is left open.
	if n := s.Accepted(); n != 2 {
		t.Errorf("%d connections for 2 requests", n)
	}
}

// The verbose log shows server text sanitized: no escape sequence reaches
// the terminal. Meta.Header keeps the bytes as sent.
func TestHeaderVerboseSanitized(t *testing.T) {
	s := rawHTTP(t, "HTTP/1.1 200 O\x1bK\r\nX-Esc: a\u009b31mb\tc\r\nContent-Length: 0", "")
	var v bytes.Buffer
	c := &fetch.Client{Verbose: &v}
	res, _, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+s.Addr+"/")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.String(), "< HTTP/1.1 200 O?K\n< X-Esc: a?31mb?c\n") || strings.ContainsAny(v.String(), "\x1b\u009b\t") {
		t.Errorf("verbose output:\n%q", v.String())
	}
	if res.Header.Get("X-Esc") != "a\u009b31mb\tc" || res.Reason != "O\x1bK" {
		t.Errorf("Header value %q", res.Header.Get("X-Esc"))
	}
}

func TestHeaderTooLarge(t *testing.T) {
	s := rawHTTP(t, "HTTP/1.1 200 OK\r\nX-Big: "+strings.Repeat("a", 2<<20), "")
	c := &fetch.Client{}
	_, _, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+s.Addr+"/")})
	if k := fetch.KindOf(err); k != fetch.ErrHeaderLine {
		t.Errorf("a 2 MiB header: %v (kind %d), want ErrHeaderLine (curl's 27)", err, k)
	}
}

// The head is read as sent over TLS too, directly and through a CONNECT
// tunnel, and a gateway's reply has one as well.
func TestHeaderHTTPSAndProxies(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["x-lower"] = []string{"1"}
		w.Header()["X-UPPER"] = []string{"2"}
		io.WriteString(w, "secure")
	}))
	srv.StartTLS()
	defer srv.Close()
	tlsConf := srv.Client().Transport.(*http.Transport).TLSClientConfig
	proxy := fetchtest.NewProxy(t, nil)
	for _, viaProxy := range []bool{false, true} {
		c := &fetch.Client{TLS: tlsConf}
		if viaProxy {
			p, err := fetch.ParseProxy("http://u:pw@" + proxy.Addr)
			if err != nil {
				t.Fatal(err)
			}
			c.Proxy = p
		}
		var v bytes.Buffer
		c.Verbose = &v
		res, body, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/s")})
		if err != nil || string(body) != "secure" {
			t.Fatalf("proxy %v: %q %v", viaProxy, body, err)
		}
		if res.Header.Get("X-Lower") != "1" || !slices.ContainsFunc(res.Header, func(f fetch.HeaderField) bool { return f.Name == "x-lower" }) ||
			!slices.ContainsFunc(res.Header, func(f fetch.HeaderField) bool { return f.Name == "X-UPPER" }) {
			t.Errorf("proxy %v: Header %q", viaProxy, fields(res.Header))
		}
		if viaProxy {
			if !strings.Contains(v.String(), "> CONNECT ") || !strings.Contains(v.String(), "< HTTP/1.1 200 Connection established") ||
				strings.Contains(v.String(), "pw") {
				t.Errorf("verbose CONNECT exchange:\n%s", v.String())
			}
		}
	}
	// A CONNECT refused is ErrRecv (curl's 56) naming the proxy's answer.
	c := &fetch.Client{TLS: tlsConf}
	p, _ := fetch.ParseProxy("http://" + rawHTTP(t, "HTTP/1.1 407 Who Are You\r\nContent-Length: 0", "").Addr)
	c.Proxy = p
	_, _, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/s")})
	if k := fetch.KindOf(err); k != fetch.ErrRecv || !strings.Contains(err.Error(), "407 Who Are You") {
		t.Errorf("CONNECT refused: %v (kind %d)", err, k)
	}
}

func TestHeaderOfGatewayReply(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	gw := rawHTTP(t, "HTTP/1.0 404 No Such File\r\nServer: gw/1\r\ncontent-type: text/plain\r\nContent-Length: 4\r\nConnection: close", "gone")
	p, _ := fetch.ParseProxy("http://" + gw.Addr)
	c := &fetch.Client{Proxy: p}
	res, body, err := get(t, c, &fetch.Request{URL: parse(t, "ftp://ftp.example/missing")})
	if err != nil || string(body) != "gone" {
		t.Fatalf("%q %v", body, err)
	}
	want := []string{"Server: gw/1", "content-type: text/plain", "Content-Length: 4", "Connection: close"}
	if !res.IsHTTP() || res.Proto != "HTTP/1.0" || res.Status != 404 || !slices.Equal(fields(res.Header), want) {
		t.Errorf("gateway reply: %q %d %q", res.Proto, res.Status, fields(res.Header))
	}
	// With Fail, the Client decides from the reply, not from ftp://.
	c.Fail = true
	_, _, err = get(t, c, &fetch.Request{URL: parse(t, "ftp://ftp.example/missing")})
	if k := fetch.KindOf(err); k != fetch.ErrHTTP {
		t.Errorf("Fail on a gateway's 404: %v (kind %d), want ErrHTTP", err, k)
	}
}

// Through an https:// proxy (TLS to the proxy): a gateway request and an
// http request in absolute form (both answered by the proxy), and an https
// request tunnelled inside the proxy's TLS; each reply's head is read as
// sent.
func TestHTTPSProxy(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["x-origin"] = []string{r.URL.Scheme + "-ok"}
		io.WriteString(w, "origin")
	}))
	srv.StartTLS()
	defer srv.Close()
	gw := fetchtest.NewProxy(t, func(w io.Writer, req *http.Request) {
		io.WriteString(w, "HTTP/1.1 200 OK\r\nx-gateway: yes\r\nContent-Length: 7\r\n\r\ngateway")
	})
	// TLS in front of the proxy, with the origin's certificate (valid for
	// 127.0.0.1), so that the client trusts both.
	front := fetchtest.NewServer(t, func(c net.Conn) {
		tc := tls.Server(c, srv.TLS)
		defer tc.Close()
		up, err := net.Dial("tcp", gw.Addr)
		if err != nil {
			return
		}
		go func() {
			io.Copy(up, tc)
			up.Close()
		}()
		io.Copy(tc, up)
	})
	p, err := fetch.ParseProxy("https://" + front.Addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &fetch.Client{Proxy: p, TLS: srv.Client().Transport.(*http.Transport).TLSClientConfig}
	for _, tc := range []struct{ url, body, field, value string }{
		{"ftp://ftp.example/f", "gateway", "X-Gateway", "yes"},
		{"http://origin.example/p", "gateway", "X-Gateway", "yes"},
		{srv.URL + "/s", "origin", "X-Origin", "-ok"},
	} {
		res, body, err := get(t, c, &fetch.Request{URL: parse(t, tc.url)})
		if err != nil || string(body) != tc.body {
			t.Errorf("%s through an https proxy: %q %v", tc.url, body, err)
			continue
		}
		if res.Header.Get(tc.field) != tc.value || strings.ToLower(tc.field) != res.Header[0].Name {
			t.Errorf("%s through an https proxy: Header %q", tc.url, fields(res.Header))
		}
	}
	if reqs := gw.Requests(); len(reqs) != 3 || reqs[0].Line != "GET ftp://ftp.example/f HTTP/1.1" ||
		reqs[1].Line != "GET http://origin.example/p HTTP/1.1" || !strings.HasPrefix(reqs[2].Line, "CONNECT ") {
		t.Errorf("the proxy got %q", reqs)
	}
}
