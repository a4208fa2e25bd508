package http_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	fhttp "github.com/urlget/urlget/fetch/http"
)

// TestHeaderLinesAsGiven: -H lines as curl sends them (its test 4): a
// line with a value goes out byte for byte, trailing space and no space
// after the colon included; "Name:" with only spaces after it sends
// nothing and removes only urlget's own field of that name, not an -H
// line before it; two lines of one name both go; "Name;" is "Name:", and
// "Name;" with anything after it sends nothing.
func TestHeaderLinesAsGiven(t *testing.T) {
	addr, heads := headServer(t)
	c := &fetch.Client{UserAgent: "curl/7.88.1", Options: fetch.Options{
		fhttp.OptHeader: "extra-header:here\nAccept: replaced\nX-Custom-Header;\nX-Test: foo; \nX-Test:\n" +
			"X-Test2: foo;\nX-Test3:  \nX-Test4;  \nX-Test5;ignored\nX-Two: 1\nX-Two: 2",
	}}
	if _, _, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+addr+"/4")}); err != nil {
		t.Fatal(err)
	}
	want := "GET /4 HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: curl/7.88.1\r\n" +
		"extra-header:here\r\nAccept: replaced\r\nX-Custom-Header:\r\nX-Test: foo; \r\nX-Test2: foo;\r\n" +
		"X-Two: 1\r\nX-Two: 2\r\n\r\n"
	if got := <-heads; got != want {
		t.Errorf("request head:\n%q\nwant (curl's):\n%q", got, want)
	}
}

// TestExpectRules: "Expect: 100-continue" goes with a body as curl sends
// it: not in an HTTP/1.0 request, nor with an empty body (curl's tests
// 180 and 1411).
func TestExpectRules(t *testing.T) {
	addr, heads := headServer(t)
	for _, tc := range []struct {
		name    string
		version string
		body    string
		want    bool
	}{
		{"HTTP/1.1", "", "data", true},
		{"HTTP/1.0", "1.0", "data", false},
		{"empty", "", "", false},
	} {
		c := &fetch.Client{Options: fetch.Options{fhttp.OptVersion: tc.version,
			fhttp.OptBodyHeader: "Expect: 100-continue", fetch.OptMethod: "PUT"}}
		req := &fetch.Request{URL: parse(t, "http://"+addr+"/x"), Body: strings.NewReader(tc.body), BodySize: int64(len(tc.body))}
		if _, _, err := get(t, c, req); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(<-heads, "\r\nExpect: 100-continue\r\n"); got != tc.want {
			t.Errorf("%s: Expect sent %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAnyAuthSendsBody: with AnyAuth (curl's --anyauth) the first request
// goes with its body, as curl's does (tests 154, 174: curl does not know
// yet that credentials are wanted); only Digest alone probes with an
// empty one. A server that needs none gets one request.
func TestAnyAuthSendsBody(t *testing.T) {
	d := &fetchtest.DigestAuth{Realm: "r", User: "u", Password: "p", QOP: "auth"}
	var log authLog
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r)
		if r.URL.Path == "/open" || d.Serve(w, r) {
			io.WriteString(w, "ok\n")
		}
	}))
	defer srv.Close()
	c := &fetch.Client{AnyAuth: true, User: "u", Password: "p", HasUser: true, HasPassword: true}
	body := "junkelijunk"
	newReq := func(path string) *fetch.Request {
		return &fetch.Request{URL: parse(t, srv.URL+path), Body: strings.NewReader(body), BodySize: int64(len(body)),
			GetBody: func() (io.Reader, error) { return strings.NewReader(body), nil }}
	}
	_, got, err := get(t, c, newReq("/open"))
	if authz, bodies := log.take(); err != nil || string(got) != "ok\n" || len(bodies) != 1 || bodies[0] != body || authz[0] != "" {
		t.Errorf("no auth needed: %q %v; sent %q with bodies %q; want one request with the body", got, err, authz, bodies)
	}
	_, got, err = get(t, c, newReq("/digest"))
	if authz, bodies := log.take(); err != nil || string(got) != "ok\n" || len(bodies) != 2 || bodies[0] != body || bodies[1] != body ||
		authz[0] != "" || !strings.HasPrefix(authz[1], "Digest ") {
		t.Errorf("digest: %q %v; sent %q with bodies %q; want the body, then the body with the answer", got, err, authz, bodies)
	}
}

// TestDigestDowngradesTo10: a server that answers the first request in
// HTTP/1.0 gets the answer to its challenge in HTTP/1.0, without Expect,
// as curl sends it (test 1071).
func TestDigestDowngradesTo10(t *testing.T) {
	lines := make(chan string, 4)
	s := fetchtest.NewServer(t, func(c net.Conn) {
		h, err := fetchtest.ReadHead(bufio.NewReader(c))
		if err != nil {
			return
		}
		_, expect := fetchtest.HeadField(h, "Expect")
		lines <- fmt.Sprintf("%s expect=%v", h[0], expect)
		if len(lines) == 1 {
			io.WriteString(c, "HTTP/1.0 401 Who\r\nWWW-Authenticate: Digest realm=\"r\", nonce=\"n\"\r\nContent-Length: 0\r\n\r\n")
			return
		}
		io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
	})
	c := &fetch.Client{Digest: true, User: "u", Password: "p", HasUser: true, HasPassword: true,
		Options: fetch.Options{fhttp.OptBodyHeader: "Expect: 100-continue", fetch.OptMethod: "PUT"}}
	body := "data"
	req := &fetch.Request{URL: parse(t, "http://"+s.Addr+"/x"), Body: strings.NewReader(body), BodySize: int64(len(body))}
	if _, got, err := get(t, c, req); err != nil || string(got) != "ok\n" {
		t.Fatalf("%q %v", got, err)
	}
	close(lines)
	var got []string
	for l := range lines {
		got = append(got, l)
	}
	want := []string{"PUT /x HTTP/1.1 expect=false", "PUT /x HTTP/1.0 expect=false"}
	if !slices.Equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
}

// TestCookiesForHostHeader: with a Host field given (-H), the cookies
// sent are those of that host, as curl matches them (tests 62, 1258);
// -b texts go after the jar's as given.
func TestCookiesForHostHeader(t *testing.T) {
	addr, heads := headServer(t)
	jar := fetch.NewCookieJar()
	if err := jar.Load(strings.NewReader(".host.foo.com\tTRUE\t/we/\tFALSE\t0\ttest2\tyes\n127.0.0.1\tFALSE\t/\tFALSE\t0\tnot\tsent\n")); err != nil {
		t.Fatal(err)
	}
	jar.AddText("a=1;b=2")
	c := &fetch.Client{Jar: jar, Options: fetch.Options{fhttp.OptHeader: "Host: www.host.foo.com"}}
	if _, _, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+addr+"/we/want")}); err != nil {
		t.Fatal(err)
	}
	if got := <-heads; !strings.Contains(got, "\r\nCookie: test2=yes; a=1;b=2\r\n") {
		t.Errorf("request head:\n%s\nwant Cookie: test2=yes; a=1;b=2", got)
	}
}

// TestBodyFraming: -H lines frame the body as curl's do (tests 98, 218,
// 1333): "Transfer-Encoding: chunked" sends it chunked, an empty one too;
// "Transfer-Encoding:" with "Content-Length: N" sends an upload of unknown
// size with that length; an empty body goes with "Content-Length: 0"
// whatever the method (1001).
func TestBodyFraming(t *testing.T) {
	addr, heads := headServer(t)
	for _, tc := range []struct {
		name, method, headers, body string
		size                        int64
		want                        string
	}{
		{"chunked", "PUT", "Transfer-Encoding: chunked", "data", 4, "\r\nTransfer-Encoding: chunked\r\n"},
		{"chunked empty", "POST", "Transfer-Encoding: chunked", "", 0, "\r\nTransfer-Encoding: chunked\r\n"},
		{"length given", "PUT", "Transfer-Encoding:\nContent-Length: 4", "data", -1, "\r\nContent-Length: 4\r\n\r\ndata"},
		{"GET empty", "GET", "", "", 0, "\r\nContent-Length: 0\r\n\r\n"},
	} {
		c := &fetch.Client{Options: fetch.Options{fhttp.OptHeader: tc.headers, fetch.OptMethod: tc.method}}
		req := &fetch.Request{URL: parse(t, "http://"+addr+"/x"), Body: strings.NewReader(tc.body), BodySize: tc.size}
		if _, _, err := get(t, c, req); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := <-heads; !strings.Contains(got, tc.want) || strings.Count(got, "Content-Length")+strings.Count(got, "Transfer-Encoding") != 1 {
			t.Errorf("%s: request\n%q\nwant %q and one framing field", tc.name, got, tc.want)
		}
	}
}

// TestDigestProbeLength: --digest's probe goes with "Content-Length: 0",
// once, whatever an -H Content-Length says (curl's test 2068); the
// request that answers the challenge sends the length given.
func TestDigestProbeLength(t *testing.T) {
	addr, heads := headServer(t)
	c := &fetch.Client{Digest: true, User: "u", Password: "p", HasUser: true, HasPassword: true,
		Options: fetch.Options{fhttp.OptHeader: "Content-Length: 4"}}
	req := &fetch.Request{URL: parse(t, "http://"+addr+"/x"), Body: strings.NewReader("data"), BodySize: 4}
	if _, _, err := get(t, c, req); err != nil {
		t.Fatal(err)
	}
	probe := <-heads
	if strings.Count(probe, "Content-Length") != 1 || !strings.Contains(probe, "\r\nContent-Length: 0\r\n") {
		t.Errorf("probe:\n%q\nwant one Content-Length: 0", probe)
	}
	<-heads // headServer answers 200: the body goes again, without credentials
}

// TestHTTP10ReplyDowngradesConnection: after an HTTP/1.0 reply on a kept
// connection, the next request on it goes as HTTP/1.0, as curl sends it
// (its tests 1074, 1078): without the Expect urlget would add, and a body
// of unknown length is refused (ErrUpload), HTTP/1.0 having no chunked
// coding. A new connection speaks HTTP/1.1 again.
func TestHTTP10ReplyDowngradesConnection(t *testing.T) {
	addr, requests := keepAlive10Server(t, "Connection: Keep-Alive")
	c := &fetch.Client{}
	u := parse(t, "http://"+addr+"/x")
	for range 2 {
		if _, got, err := get(t, c, &fetch.Request{URL: u}); err != nil || string(got) != "ok\n" {
			t.Fatalf("GET: %q %v", got, err)
		}
	}
	body := "data"
	if _, got, err := get(t, c, &fetch.Request{URL: u, Body: strings.NewReader(body), BodySize: int64(len(body)),
		Options: fetch.Options{fhttp.OptBodyHeader: "Expect: 100-continue", fetch.OptMethod: "PUT"}}); err != nil || string(got) != "ok\n" {
		t.Fatalf("PUT: %q %v", got, err)
	}
	_, _, err := get(t, c, &fetch.Request{URL: u, Body: strings.NewReader(body), BodySize: -1,
		Options: fetch.Options{fetch.OptMethod: "PUT"}})
	if fetch.KindOf(err) != fetch.ErrUpload {
		t.Errorf("chunked PUT on the HTTP/1.0 connection: %v, want ErrUpload", err)
	}
	if _, got, err := get(t, c, &fetch.Request{URL: u}); err != nil || string(got) != "ok\n" {
		t.Fatalf("GET on a new connection: %q %v", got, err)
	}
	want := []string{"1 GET /x HTTP/1.1 expect=false", "1 GET /x HTTP/1.0 expect=false", "1 PUT /x HTTP/1.0 expect=false", "2 GET /x HTTP/1.1 expect=false"}
	if got := requests(); !slices.Equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
}

// TestGatewayKeepsHTTP10Proxy: requests of another scheme sent to an
// http:// proxy go on one connection while the proxy keeps it, an HTTP/1.0
// reply's "Proxy-Connection: Keep-Alive" keeping it as curl reads it, and
// the request after that reply goes as HTTP/1.0 (curl's test 1077).
func TestGatewayKeepsHTTP10Proxy(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	addr, requests := keepAlive10Server(t, "Proxy-Connection: Keep-Alive")
	p, _ := fetch.ParseProxy("http://" + addr)
	c := &fetch.Client{Proxy: p}
	for _, f := range []string{"a", "b"} {
		if _, got, err := get(t, c, &fetch.Request{URL: parse(t, "ftp://ftp.example/"+f)}); err != nil || string(got) != "ok\n" {
			t.Fatalf("%s: %q %v", f, got, err)
		}
	}
	want := []string{"1 GET ftp://ftp.example/a HTTP/1.1 expect=false", "1 GET ftp://ftp.example/b HTTP/1.0 expect=false"}
	if got := requests(); !slices.Equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
}

// keepAlive10Server answers every request with an HTTP/1.0 200 holding
// the field keep, on the connection it came on; requests returns the
// request lines it has read, each after its connection's number and with
// whether it said Expect.
func keepAlive10Server(t *testing.T, keep string) (addr string, requests func() []string) {
	var (
		mu    sync.Mutex
		conns int
		got   []string
	)
	s := fetchtest.NewServer(t, func(c net.Conn) {
		mu.Lock()
		conns++
		n := conns
		mu.Unlock()
		br := bufio.NewReader(c)
		for {
			h, err := fetchtest.ReadHead(br)
			if err != nil {
				return
			}
			_, expect := fetchtest.HeadField(h, "Expect")
			length := 0
			if v, ok := fetchtest.HeadField(h, "Content-Length"); ok {
				fmt.Sscan(v, &length)
			}
			if _, err := io.CopyN(io.Discard, br, int64(length)); err != nil {
				return
			}
			mu.Lock()
			got = append(got, fmt.Sprintf("%d %s expect=%v", n, h[0], expect))
			mu.Unlock()
			io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n"+keep+"\r\n\r\nok\n")
		}
	})
	return s.Addr, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// TestAnyAuthChunkedTo10: --anyauth sends a body of unknown length at
// once (chunked); the HTTP/1.0 server's 401 would have it sent again as
// HTTP/1.0, which cannot frame it: ErrUpload (curl's 25, its test 1072),
// the 401 among the AuthReplies, nothing sent a second time.
func TestAnyAuthChunkedTo10(t *testing.T) {
	heads := make(chan string, 4)
	s := fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		l, err := br.ReadString('\n')
		if err != nil {
			return
		}
		heads <- strings.TrimSpace(l)
		for l != "0\r\n" { // the head, then the chunked body to its last chunk
			if l, err = br.ReadString('\n'); err != nil {
				return
			}
		}
		io.WriteString(c, "HTTP/1.0 401 Who\r\nWWW-Authenticate: Basic realm=\"r\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	})
	c := &fetch.Client{AnyAuth: true, User: "u", Password: "p", HasUser: true, HasPassword: true,
		Options: fetch.Options{fetch.OptMethod: "PUT"}}
	// No GetBody: a pipe's, which could not go again anyway.
	req := &fetch.Request{URL: parse(t, "http://"+s.Addr+"/x"), Body: strings.NewReader("data"), BodySize: -1}
	_, _, err := get(t, c, req)
	var fe *fetch.Error
	if fetch.KindOf(err) != fetch.ErrUpload || !errors.As(err, &fe) || fe.Reply == nil || len(fe.Reply.AuthReplies) != 1 {
		t.Errorf("%v, want ErrUpload after the 401", err)
	}
	close(heads)
	var got []string
	for h := range heads {
		got = append(got, h)
	}
	if want := []string{"PUT /x HTTP/1.1"}; !slices.Equal(got, want) {
		t.Errorf("requests %q, want %q", got, want)
	}
}

// TestFinalReplyBeforeContinue: a request with "Expect: 100-continue"
// answered 404 before its 100 does not send its body, and its connection
// closes (net/http's Transport would send the body to keep it), as curl
// stops sending (its tests 1129, 1131): the next request goes on a new
// connection.
func TestFinalReplyBeforeContinue(t *testing.T) {
	var (
		mu    sync.Mutex
		after []int // per connection, the bytes read after the first head
	)
	s := fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		if _, err := fetchtest.ReadHead(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 404 No\r\nContent-Length: 6\r\n\r\n-foo-\n")
		n, _ := io.Copy(io.Discard, br) // until urlget closes
		mu.Lock()
		after = append(after, int(n))
		mu.Unlock()
	})
	c := &fetch.Client{Options: fetch.Options{fhttp.OptBodyHeader: "Expect: 100-continue"}}
	body := strings.Repeat("x", 100000)
	for range 2 {
		res, got, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+s.Addr+"/x"), Body: strings.NewReader(body), BodySize: int64(len(body))})
		if err != nil || res.Status != 404 || string(got) != "-foo-\n" {
			t.Fatalf("%v %q", err, got)
		}
	}
	c.CloseIdleConnections()
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(after, []int{0, 0}) {
		t.Errorf("bytes sent after the 404, per connection: %v, want two connections, no body", after)
	}
}

// TestExpectationFailedRetried: a 417 to urlget's "Expect: 100-continue",
// before the body went, has the request sent again without Expect, as
// curl does (its test 357); the 417 comes first among the AuthReplies.
func TestExpectationFailedRetried(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string
	)
	s := fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			expect, length := false, 0
			for {
				l, err := br.ReadString('\n')
				if err != nil {
					return
				}
				expect = expect || strings.HasPrefix(l, "Expect:")
				if v, ok := strings.CutPrefix(l, "Content-Length: "); ok {
					fmt.Sscan(v, &length)
				}
				if l == "\r\n" {
					break
				}
			}
			if expect {
				mu.Lock()
				got = append(got, "expect")
				mu.Unlock()
				io.WriteString(c, "HTTP/1.1 417 No\r\nContent-Length: 0\r\n\r\n")
				continue
			}
			b := make([]byte, length)
			if _, err := io.ReadFull(br, b); err != nil {
				return
			}
			mu.Lock()
			got = append(got, string(b))
			mu.Unlock()
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
		}
	})
	c := &fetch.Client{Options: fetch.Options{fhttp.OptBodyHeader: "Expect: 100-continue", fetch.OptMethod: "PUT"}}
	res, body, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+s.Addr+"/x"), Body: strings.NewReader("data"), BodySize: 4})
	if err != nil || res.Status != 200 || string(body) != "ok\n" || len(res.AuthReplies) != 1 || res.AuthReplies[0].Status != 417 {
		t.Fatalf("%v %q %+v", err, body, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"expect", "data"}; !slices.Equal(got, want) {
		t.Errorf("server got %q, want %q", got, want)
	}
}

// TestHeaderContentTypeKeepsBoundary: an -H Content-Type in place of a
// form's own gets the form's boundary when it names none, as curl's
// (tests 277 and 669); one that names a boundary is sent as given.
func TestHeaderContentTypeKeepsBoundary(t *testing.T) {
	addr, heads := headServer(t)
	for _, tc := range []struct{ header, want string }{
		{"Content-Type: text/info", "\r\nContent-Type: text/info; boundary=abc\r\n"},
		{"Content-type: multipart/form-data; charset=utf-8", "; charset=utf-8; boundary=abc\r\n"},
		{"Content-Type: multipart/form-data; boundary=xyz", "\r\nContent-Type: multipart/form-data; boundary=xyz\r\n"},
	} {
		c := &fetch.Client{Options: fetch.Options{fhttp.OptHeader: tc.header,
			fhttp.OptBodyHeader: "Content-Type: multipart/form-data; boundary=abc"}}
		req := &fetch.Request{URL: parse(t, "http://"+addr+"/x"), Body: strings.NewReader("data"), BodySize: 4}
		if _, _, err := get(t, c, req); err != nil {
			t.Fatal(err)
		}
		if got := <-heads; !strings.Contains(got, tc.want) {
			t.Errorf("-H %q: head\n%q\nwant it to hold %q", tc.header, got, tc.want)
		}
	}
}
