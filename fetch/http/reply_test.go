package http_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	fhttp "github.com/urlget/urlget/fetch/http"
)

// onceHTTP answers each connection's request with reply and closes: the
// request's head is sent on heads.
func onceHTTP(t *testing.T, reply []byte) (*fetchtest.Server, chan string) {
	heads := make(chan string, 4)
	s := fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		var head strings.Builder
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				return
			}
			head.WriteString(l)
			if l == "\r\n" {
				break
			}
		}
		heads <- head.String()
		c.Write(reply)
		c.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, c)
	})
	return s, heads
}

func gzipped(t *testing.T, s string) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	io.WriteString(w, s)
	w.Close()
	return b.Bytes()
}

func chunked(b []byte) []byte {
	return fmt.Appendf(nil, "%x\r\n%s\r\n0\r\n\r\n", len(b), b)
}

// Transfer codings are read as curl reads them: gzip and deflate decoded
// (chunked or until the close, whatever Content-Length says; several
// fields joined), five at most, none other (61); OptRaw keeps the bytes.
// The head stays as received.
func TestTransferCodings(t *testing.T) {
	const text = "line 1\n line 2\n"
	gz := gzipped(t, text)
	var zb bytes.Buffer
	zw := zlib.NewWriter(&zb)
	io.WriteString(zw, text)
	zw.Close()
	for _, tc := range []struct {
		name  string
		head  string
		body  []byte
		opts  fetch.Options
		want  []byte
		code  int
		field string // a field of Meta.Header, as received
	}{
		{"gzip until the close", "Transfer-Encoding: gzip\r\nContent-Length: 5", gz, nil, []byte(text), 0, "Transfer-Encoding: gzip"},
		{"gzip, chunked", "Transfer-Encoding: gzip, chunked", chunked(gz), nil, []byte(text), 0, "Transfer-Encoding: gzip, chunked"},
		{"two fields", "Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked", chunked(zb.Bytes()), nil, []byte(text), 0, "Transfer-Encoding: chunked"},
		{"raw", "Transfer-Encoding: gzip\r\nContent-Length: 5", gz, fetch.Options{fetch.OptRaw: "1"}, gz, 0, "Content-Length: 5"},
		{"six codings", "Transfer-Encoding: gzip\r\n" + strings.Repeat("Transfer-Encoding: gzip,gzip\r\n", 2) + "Transfer-Encoding: gzip", gz, nil, nil, 61, ""},
		{"compress", "Transfer-Encoding: compress", gz, nil, nil, 61, ""},
	} {
		s, _ := onceHTTP(t, append([]byte("HTTP/1.1 200 OK\r\n"+tc.head+"\r\n\r\n"), tc.body...))
		res, got, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+s.Addr+"/"), Options: tc.opts})
		if code := fetch.ExitCode(err); code != tc.code {
			t.Errorf("%s: %v: exit %d, want %d", tc.name, err, code, tc.code)
			continue
		}
		if tc.code != 0 {
			continue
		}
		if !bytes.Equal(got, tc.want) {
			t.Errorf("%s: body %q, want %q", tc.name, got, tc.want)
		}
		if fs := fields(res.Header); !strings.Contains(strings.Join(fs, "\n"), tc.field) {
			t.Errorf("%s: header %q, want %q in it", tc.name, fs, tc.field)
		}
	}
}

// OptTransferCoding asks for gzip, as curl's --tr-encoding: "Connection:
// TE" (after a -H Connection value) and "TE: gzip" after Accept.
func TestTransferCodingRequest(t *testing.T) {
	reply := append([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), chunked(gzipped(t, "hi\n"))...)
	for _, tc := range []struct {
		header string
		want   string
	}{
		{"", "Accept: */*\r\nConnection: TE\r\nTE: gzip\r\n\r\n"},
		{"Connection: close", "Accept: */*\r\nConnection: close, TE\r\nTE: gzip\r\n\r\n"},
		{"Connection:", "Accept: */*\r\nConnection: TE\r\nTE: gzip\r\n\r\n"},
	} {
		s, heads := onceHTTP(t, reply)
		opts := fetch.Options{fhttp.OptTransferCoding: "1"}
		if tc.header != "" {
			opts[fhttp.OptHeader] = tc.header
		}
		_, got, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+s.Addr+"/"), Options: opts})
		if err != nil || string(got) != "hi\n" {
			t.Errorf("%q: %q, %v", tc.header, got, err)
		}
		if h := <-heads; !strings.HasSuffix(h, tc.want) {
			t.Errorf("%q: request\n%s\nwant it to end\n%s", tc.header, h, tc.want)
		}
	}
}

// A reply without a status line is HTTP/0.9: refused (1) unless OptHTTP09
// takes it as the body, with no head; to HEAD it is a weird reply (8).
func TestHTTP09(t *testing.T) {
	const body = "no headers at all\nswsclose\n"
	s, _ := onceHTTP(t, []byte(body))
	u := parse(t, "http://"+s.Addr+"/")
	on := fetch.Options{fhttp.OptHTTP09: "1"}
	if _, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: u}); fetch.ExitCode(err) != 1 {
		t.Errorf("without OptHTTP09: %v, want exit 1", err)
	}
	res, got, err := get(t, &fetch.Client{}, &fetch.Request{URL: u, Options: on})
	if err != nil || string(got) != body {
		t.Fatalf("with OptHTTP09: %q, %v", got, err)
	}
	if res.Status != 200 || len(res.Head) != 0 || len(res.Header) != 0 {
		t.Errorf("with OptHTTP09: status %d, head %q, header %q; want 200 and none", res.Status, res.Head, res.Header)
	}
	if _, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: u, Options: on, Head: true}); fetch.ExitCode(err) != 8 {
		t.Errorf("HEAD with OptHTTP09: %v, want exit 8", err)
	}
	short, _ := onceHTTP(t, []byte("ok\n")) // shorter than "HTTP/"
	if _, got, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+short.Addr+"/"), Options: on}); err != nil || string(got) != "ok\n" {
		t.Errorf("a short HTTP/0.9 reply: %q, %v", got, err)
	}
}

// OptIgnoreLength reads until the close, past Content-Length; a
// Content-Length past 2^63 is read so too, as curl reads it.
func TestIgnoreContentLength(t *testing.T) {
	s, _ := onceHTTP(t, []byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\ngrowing file"))
	u := parse(t, "http://"+s.Addr+"/")
	if _, got, err := get(t, &fetch.Client{}, &fetch.Request{URL: u}); err != nil || string(got) != "gro" {
		t.Errorf("without OptIgnoreLength: %q, %v", got, err)
	}
	res, got, err := get(t, &fetch.Client{}, &fetch.Request{URL: u, Options: fetch.Options{fhttp.OptIgnoreLength: "1"}})
	if err != nil || string(got) != "growing file" {
		t.Errorf("with OptIgnoreLength: %q, %v", got, err)
	}
	if res != nil && !strings.Contains(string(res.Head), "Content-Length: 3\r\n") {
		t.Errorf("head %q: want it as received", res.Head)
	}
	huge, _ := onceHTTP(t, []byte("HTTP/1.1 200 OK\r\nContent-Length: 36893488147419103232\r\n\r\n-foo-\n"))
	if _, got, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+huge.Addr+"/")}); err != nil || string(got) != "-foo-\n" {
		t.Errorf("Content-Length past 2^63: %q, %v", got, err)
	}
	if _, _, err := get(t, &fetch.Client{MaxFileSize: 2000}, &fetch.Request{URL: parse(t, "http://"+huge.Addr+"/")}); fetch.ExitCode(err) != 63 {
		t.Errorf("Content-Length past 2^63 with a MaxFileSize: %v, want exit 63", err)
	}
}

// A chunked body is read as curl reads it: chunk lines ending in LF or
// CRLF, with extensions; its trailer section is Resource.Trailer once the
// body is read, each line ending in CRLF. On a kept connection the next
// reply is read as usual after it; a chunk line without a size is still
// exit 56.
func TestChunkedAsCurlReads(t *testing.T) {
	reply := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"4;name=value\naaa\n\n3\r\nbb\n\r\n0\nt1: one\r\nt2: two\n\n"
	s := fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			if _, err := fetchtest.ReadHead(br); err != nil {
				return
			}
			io.WriteString(c, reply)
		}
	})
	f := fhttp.New(fetch.Config{UserAgent: "test"})
	defer f.(interface{ CloseIdleConnections() }).CloseIdleConnections()
	for i := range 2 {
		res, err := f.Open(t.Context(), &fetch.Request{URL: parse(t, "http://"+s.Addr+"/")})
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || string(body) != "aaa\nbb\n" {
			t.Errorf("request %d: body %q, %v", i, body, err)
		}
		if got := string(res.Trailer()); got != "t1: one\r\nt2: two\r\n" {
			t.Errorf("request %d: trailer %q", i, got)
		}
	}
	bad, _ := onceHTTP(t, []byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"))
	if _, _, err := get(t, &fetch.Client{}, &fetch.Request{URL: parse(t, "http://"+bad.Addr+"/")}); fetch.ExitCode(err) != 56 {
		t.Errorf("a chunk line without a size: %v, want exit 56", err)
	}
}
