package http_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	_ "github.com/urlget/urlget/fetch/http"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/urlparse"
)

var modTime = time.Date(2023, 6, 7, 8, 9, 10, 0, time.UTC)

// failureServers gives the Suite's stalling and closing-early endpoints,
// speaking just enough HTTP.
func failureServers(t *testing.T, s *fetchtest.Suite) {
	s.Stall = "http://" + fetchtest.Stall(t, "\r\n\r\n", nil).Addr + "/stall"
	s.StallBody = "http://" + fetchtest.Stall(t, "\r\n\r\n",
		[]byte("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nthe start of it")).Addr + "/stall-body"
	s.StallBodyBytes = len("the start of it")
	s.Early = "http://" + fetchtest.CloseEarly(t, "\r\n\r\n",
		[]byte("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly this much")).Addr + "/early"
}

func TestConformanceHTTPTest(t *testing.T) {
	body := fetchtest.Pattern(1 << 20)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/known.bin":
			http.ServeContent(w, r, "known.bin", modTime, bytes.NewReader(body))
		default:
			http.NotFound(w, r)
		}
	}))
	l, count := fetchtest.CountingListener(srv.Listener)
	srv.Listener = l
	srv.Start()
	defer srv.Close()
	s := fetchtest.Suite{
		Known:       srv.URL + "/known.bin",
		KnownBody:   body,
		Missing:     srv.URL + "/missing",
		MissingKind: fetch.ErrHTTP,
		Inject:      "http://evil%0D%0AX-Injected:%201@" + srv.Listener.Addr().String() + "/known.bin",
		Received:    count,
		Cannot:      map[fetchtest.Case]string{fetchtest.CaseDir: "HTTP has no listing format (an index page is a document)"},
	}
	failureServers(t, &s)
	fetchtest.Run(t, s)
}

// TestConformanceHTTPS runs every case over TLS: the failures happen
// after the handshake, in the encrypted stream.
func TestConformanceHTTPS(t *testing.T) {
	fetchtest.Run(t, tlsSuite(t, false, nil))
}

// tlsSuite is the Suite against net/http's server over TLS, in HTTP/1.1,
// or in HTTP/2 when h2 is set (the Client's options then say
// OptVersion): the known file, a stall, a stalled body, and a body cut
// short (HTTP/1.1: the connection closed; HTTP/2: the stream reset).
func tlsSuite(t *testing.T, h2 bool, opts fetch.Options) fetchtest.Suite {
	body := fetchtest.Pattern(300 << 10)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/known.bin":
			http.ServeContent(w, r, "known.bin", modTime, bytes.NewReader(body))
		case "/stall": // no reply until the client goes
			<-r.Context().Done()
		case "/stall-body": // the start of a body, then nothing
			w.Header().Set("Content-Length", "100000")
			io.WriteString(w, "the start of it")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/early": // 14 bytes of 1000, then the connection closes
			if h2 {
				w.Header().Set("Content-Length", "1000")
				io.WriteString(w, "only this much")
				w.(http.Flusher).Flush()
				panic(http.ErrAbortHandler)
			}
			c, rw, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			rw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly this much")
			rw.Flush()
			c.Close()
		default:
			http.NotFound(w, r)
		}
	}))
	srv.EnableHTTP2 = h2
	l, count := fetchtest.CountingListener(srv.Listener)
	srv.Listener = l
	srv.StartTLS()
	t.Cleanup(srv.Close)
	c := &fetch.Client{TLS: srv.Client().Transport.(*http.Transport).TLSClientConfig, Options: opts}
	return fetchtest.Suite{
		Client:         c,
		Known:          srv.URL + "/known.bin",
		KnownBody:      body,
		Missing:        srv.URL + "/nope",
		MissingKind:    fetch.ErrHTTP,
		Stall:          srv.URL + "/stall",
		StallBody:      srv.URL + "/stall-body",
		StallBodyBytes: len("the start of it"),
		Early:          srv.URL + "/early",
		Inject:         "https://evil%0D%0AX-Injected:%201@" + srv.Listener.Addr().String() + "/known.bin",
		Received:       count,
		Cannot:         map[fetchtest.Case]string{fetchtest.CaseDir: "HTTP has no listing format (an index page is a document)"},
	}
}

// startNginx serves a directory with a known file through the harness.
func startNginx(t *testing.T, extra string) (*testserver.NginxServer, string, []byte) {
	t.Helper()
	root := t.TempDir()
	body := fetchtest.Pattern(3<<20 + 17)
	p := filepath.Join(root, "known.bin")
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, modTime, modTime); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "new.txt"), []byte("the new place\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ng := testserver.StartNginx(t, testserver.NginxConfig{Root: root, Extra: extra})
	return ng, root, body
}

func TestConformanceNginx(t *testing.T) {
	ng, _, body := startNginx(t, "")
	received := func() int {
		lines, err := ng.Requests()
		if err != nil {
			return 0 // no request logged yet
		}
		n := 0
		for _, l := range lines {
			if l != "" {
				n++
			}
		}
		return n
	}
	s := fetchtest.Suite{
		Known:       ng.URL + "/known.bin",
		KnownBody:   body,
		Missing:     ng.URL + "/missing.bin",
		MissingKind: fetch.ErrHTTP,
		Inject:      "http://evil%0D%0AX-Injected:%201@" + ng.Addr + "/known.bin",
		Received:    received,
		Cannot:      map[fetchtest.Case]string{fetchtest.CaseDir: "HTTP has no listing format (an index page is a document)"},
	}
	failureServers(t, &s)
	fetchtest.Run(t, s)
}

func parse(t *testing.T, s string) *urlparse.URL {
	t.Helper()
	u, err := urlparse.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return &u
}

func get(t *testing.T, c *fetch.Client, req *fetch.Request) (*fetch.Resource, []byte, error) {
	t.Helper()
	return fetchtest.Read(c.Do(context.Background(), req))
}

// Resume against nginx: If-Range with the file's Last-Modified resumes;
// with another date the whole file comes back; at the end, 416 is done.
func TestResumeNginx(t *testing.T) {
	ng, _, body := startNginx(t, "")
	u := parse(t, ng.URL+"/known.bin")
	c := &fetch.Client{Fail: true}
	off := int64(len(body) - 1000)
	for _, tc := range []struct {
		name     string
		off      int64
		since    time.Time
		wantOff  int64
		wantBody []byte
		status   int
	}{
		{"no If-Range", off, time.Time{}, off, body[off:], 206},
		{"unchanged", off, modTime, off, body[off:], 206},
		{"changed", off, modTime.Add(-time.Hour), 0, body, 200},
		{"complete", int64(len(body)), modTime, int64(len(body)), nil, 416},
	} {
		cl := c
		if tc.status == 416 {
			cl = &fetch.Client{} // Fail fails a 416, as curl's -f
		}
		res, got, err := get(t, cl, &fetch.Request{URL: u, Offset: tc.off, Since: tc.since})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if res.Status != tc.status || res.Offset != tc.wantOff || !bytes.Equal(got, tc.wantBody) {
			t.Errorf("%s: status %d Offset %d body %d bytes; want %d, %d, %d bytes",
				tc.name, res.Status, res.Offset, len(got), tc.status, tc.wantOff, len(tc.wantBody))
		}
	}
	if want := fmt.Sprintf(`"bytes=%d-"`, off); !strings.Contains(waitLog(ng, want), want) {
		t.Errorf("nginx did not log the Range header:\n%s", waitLog(ng, want))
	}
	// Past the end: the local part is larger than the resource.
	_, _, err := get(t, c, &fetch.Request{URL: u, Offset: int64(len(body)) + 5})
	if fetch.KindOf(err) != fetch.ErrResume {
		t.Errorf("resume past the end: %v, want ErrResume", err)
	}
}

// waitLog returns nginx's access log once it holds want, or after a while.
// nginx writes a request's line just after its response.
func waitLog(ng *testserver.NginxServer, want string) string {
	var log string
	for range 100 {
		lines, _ := ng.Requests()
		log = strings.Join(lines, "\n")
		if strings.Contains(log, want) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return log
}

func TestRedirectNginx(t *testing.T) {
	ng, _, _ := startNginx(t, "location = /old { return 301 /new.txt; }\nlocation = /loop { return 302 /loop; }")
	c := &fetch.Client{FollowRedirects: true}
	res, got, err := get(t, c, &fetch.Request{URL: parse(t, ng.URL+"/old")})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "the new place\n" || res.EffectiveURL != ng.URL+"/new.txt" || res.Status != 200 {
		t.Errorf("followed /old: %q, EffectiveURL %q, status %d", got, res.EffectiveURL, res.Status)
	}
	c.MaxRedirects = 5
	_, _, err = get(t, c, &fetch.Request{URL: parse(t, ng.URL+"/loop")})
	if fetch.ExitCode(err) != 47 {
		t.Errorf("redirect loop: %v (exit %d), want 47", err, fetch.ExitCode(err))
	}
	res, _, err = get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, ng.URL+"/old")})
	if err != nil || res.Status != 301 || res.Location != ng.URL+"/new.txt" {
		t.Errorf("without -L: status %d Location %q err %v", res.Status, res.Location, err)
	}
}

func TestHead(t *testing.T) {
	ng, _, body := startNginx(t, "")
	res, got, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, ng.URL+"/known.bin"), Head: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || res.Size != int64(len(body)) || !res.ModTime.Equal(modTime) || res.Status != 200 {
		t.Errorf("HEAD: %d body bytes, Meta %+v", len(got), res.Meta)
	}
	if log := waitLog(ng, `"HEAD /known.bin HTTP/1.1"`); !strings.Contains(log, `"HEAD /known.bin HTTP/1.1"`) {
		t.Errorf("nginx log has no HEAD:\n%s", log)
	}
}

func TestUserAgentAndVerbose(t *testing.T) {
	var mu sync.Mutex
	var seen http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("X-Reply", "yes")
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	var v bytes.Buffer
	c := &fetch.Client{UserAgent: "urlget-test/1", Verbose: &v, User: "alice", Password: "s3cret-pw", HasUser: true, HasPassword: true}
	_, got, err := get(t, c, &fetch.Request{URL: parse(t, srv.URL+"/p?q=1")})
	if err != nil || string(got) != "ok" {
		t.Fatalf("%q %v", got, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen.Get("User-Agent") != "urlget-test/1" {
		t.Errorf("User-Agent %q", seen.Get("User-Agent"))
	}
	if u, p, ok := (&http.Request{Header: seen}).BasicAuth(); !ok || u != "alice" || p != "s3cret-pw" {
		t.Errorf("Authorization %q", seen.Get("Authorization"))
	}
	if seen.Get("Accept-Encoding") != "" {
		t.Errorf("Accept-Encoding %q sent without Compressed", seen.Get("Accept-Encoding"))
	}
	out := v.String()
	for _, want := range []string{"> GET /p?q=1 HTTP/1.1\n", "> User-Agent: urlget-test/1\n", "> Authorization: Basic ****\n", "< HTTP/1.1 200 OK\n", "< X-Reply: yes\n", "* Connected to "} {
		if !strings.Contains(out, want) {
			t.Errorf("verbose output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret-pw") || strings.Contains(out, "YWxpY2U6czNjcmV0LXB3") {
		t.Errorf("verbose output shows the password:\n%s", out)
	}
}

func TestCompressed(t *testing.T) {
	plain := bytes.Repeat([]byte("compressible text\n"), 10000)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
			return
		}
		w.Write(plain)
	}))
	defer srv.Close()
	u := parse(t, srv.URL+"/")
	res, got, err := get(t, &fetch.Client{Compressed: true}, &fetch.Request{URL: u})
	if err != nil || !bytes.Equal(got, plain) || res.Size != -1 {
		t.Errorf("compressed: %d bytes (want %d), Size %d, %v", len(got), len(plain), res.Size, err)
	}
	_, got, err = get(t, &fetch.Client{}, &fetch.Request{URL: u})
	if err != nil || !bytes.Equal(got, plain) {
		t.Errorf("uncompressed: %d bytes, %v", len(got), err)
	}
	// A decompression bomb stops at the cap.
	_, got, err = get(t, &fetch.Client{Compressed: true, MaxDecompressed: 1000}, &fetch.Request{URL: u})
	if fetch.ExitCode(err) != 63 || len(got) != 1000 {
		t.Errorf("capped: %d bytes, %v (exit %d); want 1000 bytes and exit 63", len(got), err, fetch.ExitCode(err))
	}
	// The same through io.Copy.
	res, err = (&fetch.Client{Compressed: true, MaxDecompressed: 1000}).Do(context.Background(), &fetch.Request{URL: u})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, err = io.Copy(&buf, res.Body)
	res.Body.Close()
	if fetch.ExitCode(err) != 63 || buf.Len() != 1000 {
		t.Errorf("capped copy: %d bytes, %v", buf.Len(), err)
	}
}

func TestCorruptGzip(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write([]byte("this is not gzip at all"))
	}))
	defer srv.Close()
	_, _, err := get(t, &fetch.Client{Compressed: true}, &fetch.Request{URL: parse(t, srv.URL)})
	if fetch.KindOf(err) != fetch.ErrBadEncoding || fetch.ExitCode(err) != 61 || strings.Contains(err.Error(), "gzip:") {
		t.Errorf("corrupt gzip: %v, want ErrBadEncoding (exit 61, curl's) in our words, not the decoder's", err)
	}
}

func TestTLSErrors(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure") }))
	defer srv.Close()
	u := parse(t, srv.URL)
	_, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: u})
	if fetch.ExitCode(err) != 60 || err.Error() != "SSL certificate problem: self-signed certificate" {
		t.Errorf("untrusted certificate: %v (exit %d), want 60 and curl's line", err, fetch.ExitCode(err))
	}
	_, got, err := get(t, &fetch.Client{Insecure: true}, &fetch.Request{URL: u})
	if err != nil || string(got) != "secure" {
		t.Errorf("-k: %q %v", got, err)
	}
}

func TestServerClosesWithoutReply(t *testing.T) {
	s := fetchtest.CloseEarly(t, "\r\n\r\n", nil)
	_, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+s.Addr+"/")})
	if fetch.KindOf(err) != fetch.ErrGotNothing || fetch.ExitCode(err) != 52 {
		t.Errorf("no reply: %v (kind %d), want ErrGotNothing, curl's 52", err, fetch.KindOf(err))
	}
}

func TestConnectRefused(t *testing.T) {
	s := fetchtest.Stall(t, "", nil)
	addr := s.Addr
	s.Close() // nothing listens there now
	_, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+addr+"/")})
	if fetch.ExitCode(err) != 7 {
		t.Errorf("refused: %v (exit %d), want 7", err, fetch.ExitCode(err))
	}
}

// Replies that make no sense are exit 8 (curl's "weird server reply"): a
// malformed status line; a connection reset before the reply is 56. An
// endless stream of header lines is 56 past 300 KiB and one header line
// longer than 100 KiB 27, curl 7.88's bounds and codes.
func TestWeirdReplies(t *testing.T) {
	// The servers answer once the request has come: a reply before it is
	// one net/http drops as unsolicited (exit 8), which would make the
	// test a race.
	readRequest := func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			l, err := br.ReadString('\n')
			if err != nil || l == "\r\n" {
				return
			}
		}
	}
	endless := fetchtest.NewServer(t, func(c net.Conn) {
		readRequest(c)
		io.WriteString(c, "HTTP/1.1 200 OK\r\n")
		line := []byte("X-Filler: " + strings.Repeat("y", 100) + "\r\n")
		for {
			if _, err := c.Write(line); err != nil {
				return
			}
		}
	})
	long := fetchtest.NewServer(t, func(c net.Conn) {
		readRequest(c)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Long: ")
		chunk := bytes.Repeat([]byte("z"), 64<<10)
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
	garbage := fetchtest.CloseEarly(t, "\r\n\r\n", []byte("SSH-2.0-OpenSSH_9.2\r\n\r\n"))
	// An ftp server on the port greets before the request: read as the
	// reply, as curl reads it, every time (not as the Transport's
	// unsolicited response when the greeting beats the request out).
	greets := fetchtest.NewServer(t, func(c net.Conn) {
		io.WriteString(c, "220 ftp ready\r\n")
		time.Sleep(100 * time.Millisecond)
	})
	reset := fetchtest.NewServer(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		c.Read(buf)
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	})
	for _, tc := range []struct {
		name string
		addr string
		code int
	}{
		{"endless header lines", endless.Addr, 56},
		{"one endless header line", long.Addr, 27},
		{"not HTTP", garbage.Addr, 1}, // HTTP/0.9, refused as curl refuses it
		{"reset", reset.Addr, 56},
	} {
		_, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+tc.addr+"/")})
		if got := fetch.ExitCode(err); got != tc.code {
			t.Errorf("%s: %v: exit %d, want %d", tc.name, err, got, tc.code)
		}
	}
	for i := 0; i < 10; i++ {
		_, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+greets.Addr+"/")})
		if got := fetch.ExitCode(err); got != 1 || !strings.Contains(fmt.Sprint(err), "HTTP/0.9") {
			t.Fatalf("a server that greets first, try %d: %v: exit %d, want 1 (HTTP/0.9 refused)", i, err, got)
		}
	}
}

// Retry-After reaches Meta.Header, and ParseRetryAfter reads both of its
// forms (and refuses junk).
func TestRetryAfter(t *testing.T) {
	when := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/secs":
			w.Header().Set("Retry-After", "120")
		case "/date":
			w.Header().Set("Retry-After", when)
		case "/junk":
			w.Header().Set("Retry-After", "soon")
		}
		w.WriteHeader(503)
	}))
	defer s.Close()
	for path, want := range map[string][2]time.Duration{
		"/secs": {120 * time.Second, 120 * time.Second},
		"/date": {80 * time.Second, 90 * time.Second},
		"/junk": {0, 0},
		"/none": {0, 0},
	} {
		res, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, s.URL+path)})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := fetch.ParseRetryAfter(res.Header.Get("Retry-After"), time.Now())
		if got < want[0] || got > want[1] {
			t.Errorf("%s: Retry-After %q gives %v, want %v..%v", path, res.Header.Get("Retry-After"), got, want[0], want[1])
		}
	}
}

// Conditional requests against nginx: the ETag or the Last-Modified that
// the server gave makes a 304, NotModified with an empty body; an older
// date or another ETag gets the resource.
func TestConditionalNginx(t *testing.T) {
	ng, _, body := startNginx(t, "")
	u := parse(t, ng.URL+"/known.bin")
	c := &fetch.Client{Fail: true}
	res, _, err := get(t, c, &fetch.Request{URL: u, Head: true})
	if err != nil {
		t.Fatal(err)
	}
	etag := res.Header.Get("ETag")
	if etag == "" {
		t.Fatal("nginx sent no ETag")
	}
	for _, tc := range []struct {
		name  string
		since time.Time
		inm   string
		head  bool
		want  bool
		// ok200: nginx answers 200 (its default "if_modified_since
		// exact"), and its Last-Modified makes the result NotModified,
		// as curl treats it.
		ok200 bool
	}{
		{"same date", modTime, "", false, true, false},
		{"later date", modTime.Add(time.Hour), "", false, true, true},
		{"older date", modTime.Add(-time.Second), "", false, false, false},
		{"same etag", time.Time{}, etag, false, true, false},
		{"etag in a list", time.Time{}, `"x", ` + etag, false, true, false},
		{"other etag", time.Time{}, `"nope"`, false, false, false},
		{"other etag, same date", modTime, `"nope"`, false, false, false}, // If-None-Match wins (RFC 9110 §13.2.2)
		{"other etag, later date", modTime.Add(time.Hour), `"nope"`, false, false, false},
		{"HEAD, same etag", time.Time{}, etag, true, true, false},
	} {
		res, got, err := get(t, c, &fetch.Request{URL: u, Head: tc.head, IfModifiedSince: tc.since, IfNoneMatch: tc.inm})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		wantBody := body
		if tc.want || tc.head {
			wantBody = nil
		}
		if res.NotModified != tc.want || (res.Status == 304) != (tc.want && !tc.ok200) || !bytes.Equal(got, wantBody) {
			t.Errorf("%s: NotModified %v status %d body %d bytes; want NotModified %v, body %d bytes",
				tc.name, res.NotModified, res.Status, len(got), tc.want, len(wantBody))
		}
	}
	_, _, err = get(t, c, &fetch.Request{URL: u, IfNoneMatch: "\"a\"\r\nX-Injected: 1"})
	if fetch.KindOf(err) != fetch.ErrMalformed {
		t.Errorf("If-None-Match with CR LF: %v, want ErrMalformed", err)
	}
}
