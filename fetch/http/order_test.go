package http_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	fhttp "github.com/urlget/urlget/fetch/http"
)

// headServer answers every request with "ok" and sends each request it
// reads (head and Content-Length body), as received, to the channel.
func headServer(t *testing.T) (string, <-chan string) {
	heads := make(chan string, 8)
	s := fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		var head strings.Builder
		n := 0
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			head.WriteString(line)
			if _, err := fmt.Sscanf(strings.ToLower(line), "content-length: %d", &n); err != nil {
				n = max(n, 0)
			}
			if line == "\r\n" {
				break
			}
		}
		body, _ := io.ReadAll(io.LimitReader(br, int64(n)))
		heads <- head.String() + string(body)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	})
	return s.Addr, heads
}

// TestCurlHeaderOrder: the request head goes out with its fields in curl
// 7.88's order (its test suite compares heads byte for byte: tests 3, 4
// ...), not net/http's (Host, User-Agent, Content-Length, the rest sorted):
// the credentials before User-Agent, then Accept, Referer, Cookie, the -H
// fields in the order given (an -H field curl writes itself too goes there),
// then the body's Content-Length and Content-Type; "-H Name;" is "Name:".
func TestCurlHeaderOrder(t *testing.T) {
	addr, heads := headServer(t)
	c := &fetch.Client{UserAgent: "curl/7.88.1", User: "fake", Password: "-user", HasUser: true, HasPassword: true,
		Options: fetch.Options{
			fhttp.OptHeader:     "Zeta: last given first\nAccept: replaced\nX-Empty;\nAlpha: 1",
			fhttp.OptReferer:    "http://example.org/from",
			fhttp.OptBodyHeader: "Content-Type: application/x-www-form-urlencoded",
		}}
	body := "a=b&c=d"
	req := &fetch.Request{URL: parse(t, "http://"+addr+"/3"), Body: strings.NewReader(body), BodySize: int64(len(body))}
	if _, got, err := get(t, c, req); err != nil || string(got) != "ok" {
		t.Fatalf("%q %v", got, err)
	}
	want := "POST /3 HTTP/1.1\r\n" +
		"Host: " + addr + "\r\n" +
		"Authorization: Basic ZmFrZTotdXNlcg==\r\n" +
		"User-Agent: curl/7.88.1\r\n" +
		"Referer: http://example.org/from\r\n" +
		"Zeta: last given first\r\n" +
		"Accept: replaced\r\n" +
		"X-Empty:\r\n" +
		"Alpha: 1\r\n" +
		"Content-Length: 7\r\n" +
		"Content-Type: application/x-www-form-urlencoded\r\n" +
		"\r\n" + body
	if got := <-heads; got != want {
		t.Errorf("request head:\n%s\nwant (curl's order):\n%s", got, want)
	}
}

// TestUploadResumeContentRange: an upload resumed at byte N (curl's -T
// with -C N) skips the body's first N bytes and sends the rest with
// "Content-Range: bytes N-LAST/TOTAL" in Range's place, no Range field;
// UploadAtEnd (-C -) sends the whole body as "bytes 0-LAST/TOTAL", as curl
// 7.88 does (its tests 33 and 1041).
func TestUploadResumeContentRange(t *testing.T) {
	addr, heads := headServer(t)
	c := &fetch.Client{UserAgent: "curl/7.88.1", Options: fetch.Options{fetch.OptMethod: "PUT"}}
	const body = "0123456789"
	for _, tc := range []struct {
		offset int64
		want   string
	}{
		{4, "Content-Range: bytes 4-9/10\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\nContent-Length: 6\r\n\r\n456789"},
		{fetch.UploadAtEnd, "Content-Range: bytes 0-9/10\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\nContent-Length: 10\r\n\r\n0123456789"},
	} {
		req := &fetch.Request{URL: parse(t, "http://"+addr+"/up"), Body: strings.NewReader(body), BodySize: int64(len(body)), Offset: tc.offset}
		if _, got, err := get(t, c, req); err != nil || string(got) != "ok" {
			t.Fatalf("offset %d: %q %v", tc.offset, got, err)
		}
		want := "PUT /up HTTP/1.1\r\nHost: " + addr + "\r\n" + tc.want
		if got := <-heads; got != want {
			t.Errorf("offset %d: request\n%q\nwant\n%q", tc.offset, got, want)
		}
	}
}

// TestUserAgentAsGiven: a User-Agent with a tab or spaces at its ends goes
// out as given, as curl sends it (its test 17); net/http would trim them.
func TestUserAgentAsGiven(t *testing.T) {
	addr, heads := headServer(t)
	for _, ua := range []string{"agent007 license to drill\t", "  spaced  "} {
		c := &fetch.Client{UserAgent: ua}
		if _, _, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+addr+"/ua")}); err != nil {
			t.Fatal(err)
		}
		want := "GET /ua HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: " + ua + "\r\nAccept: */*\r\n\r\n"
		if got := <-heads; got != want {
			t.Errorf("request\n%q\nwant\n%q", got, want)
		}
	}
}

// TestEmptyHost: -H "Host;" sends the Host field empty, as curl (its test
// 1292); a later Host line changes nothing.
func TestEmptyHost(t *testing.T) {
	addr, heads := headServer(t)
	c := &fetch.Client{UserAgent: "ua", Options: fetch.Options{fhttp.OptHeader: "Host;\nAccept;\nHost: other"}}
	if _, _, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+addr+"/h")}); err != nil {
		t.Fatal(err)
	}
	if got, want := <-heads, "GET /h HTTP/1.1\r\nHost:\r\nUser-Agent: ua\r\nAccept:\r\n\r\n"; got != want {
		t.Errorf("request\n%q\nwant\n%q", got, want)
	}
}

// TestHTTP10UnknownLength: HTTP/1.0 has no chunked coding, so a body of
// unknown length (-T - with -0) is refused before anything is sent:
// ErrUpload, curl's 25 (its test 1069).
func TestHTTP10UnknownLength(t *testing.T) {
	addr, heads := headServer(t)
	c := &fetch.Client{Options: fetch.Options{fetch.OptMethod: "PUT", fhttp.OptVersion: "1.0"}}
	req := &fetch.Request{URL: parse(t, "http://"+addr+"/up"), Body: strings.NewReader("data"), BodySize: -1}
	if _, _, err := get(t, c, req); fetch.KindOf(err) != fetch.ErrUpload {
		t.Errorf("HTTP/1.0, unknown length: %v, want ErrUpload", err)
	}
	select {
	case h := <-heads:
		t.Errorf("a request was sent: %q", h)
	default:
	}
}
