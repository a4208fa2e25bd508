package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// TestReplyHeadsBesideCurl: -i writes every head curl writes (issue 40),
// each beside curl on the same server: the interim (1xx) replies before
// the final one, a 304 and a 200 that -z finds not newer, the redirects
// followed up to --max-redirs when the next one is refused (exit 47,
// -w %{redirect_url}), a proxy's reply to CONNECT, given or refused (exit
// 56, -w %{http_connect}).
func TestReplyHeadsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	proxy := fetchtest.NewProxy(t, nil)
	refusing := fetchtest.CloseEarly(t, "\r\n\r\n", []byte("HTTP/1.1 405 Not Here\r\nX-Why: test\r\n\r\nignored body"))
	url := "http://" + rec.addr + "/f"
	for _, tc := range []struct {
		name, reply string
		args        []string
		code        int
	}{
		{"interim replies", "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n",
			[]string{"-i", url}, 0},
		{"a 304", "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\nConnection: close\r\n\r\n",
			[]string{"-i", "-H", "If-None-Match: \"x\"", url}, 0},
		{"a 200 not newer", "HTTP/1.1 200 OK\r\nLast-Modified: Tue, 13 Jun 1990 12:10:00 GMT\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n",
			[]string{"-i", "-z", "dec 12 11:00:00 1999 GMT", url}, 0},
		{"redirects past --max-redirs", "HTTP/1.1 301 Again\r\nLocation: /f\r\nContent-Length: 2\r\nConnection: close\r\n\r\nr\n",
			[]string{"-i", "-L", "--max-redirs", "2", "-w", "%{redirect_url} %{num_redirects}\n", url}, 47},
		{"a tunnel", "",
			[]string{"-i", "-p", "-x", "http://" + proxy.Addr, "-w", "%{http_connect}\n", "http://" + rec.addr + "/t"}, 0},
		{"a refused tunnel", "",
			[]string{"-i", "-p", "-x", "http://" + refusing.Addr, "-w", "%{http_code} %{http_connect}\n", "http://" + rec.addr + "/t"}, 56},
	} {
		rec.setAnswer(func([]byte) string { return tc.reply })
		var outs [2]string
		for i, client := range []string{"curl", "urlget"} {
			code, out := runClient(t, curl, client, append([]string{"-s"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("%s: %s exit %d, want %d", tc.name, client, code, tc.code)
			}
			outs[i] = strings.ReplaceAll(out, rec.addr, "ADDR")
		}
		if outs[0] != outs[1] {
			t.Errorf("%s: urlget wrote\n%q\ncurl\n%q", tc.name, outs[1], outs[0])
		}
	}
	// To a file: the heads are the whole output, under its name.
	rec.setAnswer(func([]byte) string { return "HTTP/1.1 301 Again\r\nLocation: /f\r\nContent-Length: 0\r\n\r\n" })
	ucode, ccode, ufiles, cfiles := runBoth(t, curl, nil, "-i", "-L", "--max-redirs", "1", "-o", "out", url)
	if ucode != 47 || ccode != 47 || !mapsEqual(ufiles, cfiles) || !strings.HasPrefix(ufiles["out"], "HTTP/1.1 301 Again\r\n") {
		t.Errorf("-o past --max-redirs: urlget exit %d, files %q; curl %d, %q", ucode, ufiles, ccode, cfiles)
	}
	rec.take()
}

// TestBrokenRepliesBesideCurl: a reply curl refuses ends as curl's does
// (issue 40), beside curl on the same replies: a status line that is
// none (HTTP/0.9) or malformed, or of a version not spoken, exit 1; a
// connection closed after a 1xx only, 52, that head shown; a malformed
// Content-Length, 8, the lines before it shown; a chunk length too large,
// 56. urlget's messages name no net/http internals.
func TestBrokenRepliesBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	url := "http://" + rec.addr + "/b"
	const rest = "Content-Length: 3\r\nConnection: close\r\n\r\nok\n"
	for _, tc := range []struct {
		name, reply string
		code        int
	}{
		{"no status line", "-foo- swsclose\r\n", 1},
		{"a negative status", "HTTP/1.1 -12 OK\r\n" + rest, 1},
		{"a one-digit status", "HTTP/1.1 2 OK\r\n" + rest, 1},
		{"a four-digit status", "HTTP/1.1 2000 OK\r\n" + rest, 1},
		{"a long version", "HTTP/1.01 200 OK\r\n" + rest, 1},
		{"HTTP/1.2", "HTTP/1.2 200 OK\r\n" + rest, 1},
		{"a 100 then the close", "HTTP/1.1 100 Continue\r\nX-A: b\r\n\r\n", 52},
		{"a negative Content-Length", "HTTP/1.1 200 OK\r\nDate: Tue, 09 Nov 2010 14:49:00 GMT\r\nContent-Length: -6\r\nConnection: close\r\n\r\nmooo", 8},
		{"a chunk too large", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n12345678123456789\r\naaaa\r\n0\r\n\r\n", 56},
	} {
		rec.setAnswer(func([]byte) string { return tc.reply })
		ccode, cout := runClient(t, curl, "curl", "-s", "-i", url)
		ucode, uout, uerr := runOut(t, "-sS", "-i", url)
		if ucode != tc.code || ccode != tc.code {
			t.Errorf("%s: urlget exit %d (%s), curl %d; want %d", tc.name, ucode, strings.TrimSpace(uerr), ccode, tc.code)
		}
		if tc.code != 56 && uout != cout {
			t.Errorf("%s: urlget wrote %q, curl %q", tc.name, uout, cout)
		}
		if strings.Contains(uerr, "net/http") || strings.Contains(uerr, "transport") {
			t.Errorf("%s: %s", tc.name, strings.TrimSpace(uerr))
		}
	}
	rec.take()
}

// TestEncodingsBesideCurl: --compressed decodes a gzip body whose header
// has a name and a comment of any length and an extra field, as curl's
// zlib does (compress/gzip alone refuses names over 512 bytes); a body
// that is not gzip, and a Transfer-Encoding urlget does not decode, are
// curl's 61.
func TestEncodingsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	url := "http://" + rec.addr + "/z"
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Name = strings.Repeat("long-name-", 300)
	zw.Comment = strings.Repeat("a comment ", 100)
	zw.Extra = []byte("an extra field")
	io.WriteString(zw, "decoded\n")
	zw.Close()
	for _, tc := range []struct {
		name, reply string
		code        int
	}{
		{"a long gzip header", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: " + strconv.Itoa(z.Len()) + "\r\nConnection: close\r\n\r\n" + z.String(), 0},
		{"not gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 12\r\nConnection: close\r\n\r\nnot gzipped\n", 61},
		{"transfer codings", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,gzip,gzip,gzip,gzip,gzip,chunked\r\nConnection: close\r\n\r\n0\r\n\r\n", 61},
	} {
		rec.setAnswer(func([]byte) string { return tc.reply })
		ccode, cout := runClient(t, curl, "curl", "-s", "--compressed", url)
		ucode, uout, uerr := runOut(t, "-sS", "--compressed", url)
		if ucode != tc.code || ccode != tc.code || tc.code == 0 && (uout != cout || uout != "decoded\n") {
			t.Errorf("%s: urlget exit %d (%s) %q, curl %d %q; want %d", tc.name, ucode, strings.TrimSpace(uerr), uout, ccode, cout, tc.code)
		}
	}
	rec.take()
}

// TestDigestThenNothingBesideCurl: --digest answered by a 401, then by a
// close without a reply: exit 52, and -i shows the 401's head, as curl.
func TestDigestThenNothingBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	var n atomic.Int32
	srv := fetchtest.NewServer(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadString('\n')
			if err != nil || line == "\r\n" {
				break
			}
		}
		if n.Add(1)%2 == 1 {
			io.WriteString(c, "HTTP/1.1 401 Who\r\nWWW-Authenticate: Digest realm=\"r\", nonce=\"1\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		}
	})
	args := []string{"-s", "-i", "--digest", "-u", "u:p", "http://" + srv.Addr + "/d"}
	ccode, cout := runClient(t, curl, "curl", args...)
	ucode, uout, uerr := runOut(t, args...)
	if ucode != 52 || ccode != 52 || uout != cout || !strings.HasPrefix(uout, "HTTP/1.1 401 Who\r\n") {
		t.Errorf("urlget exit %d (%s) %q, curl %d %q; want 52 and the 401's head", ucode, strings.TrimSpace(uerr), uout, ccode, cout)
	}
}

// TestTunnelReplyFieldsBesideCurl: a proxy's 2xx reply to CONNECT has no
// body whatever its Content-Length and Transfer-Encoding say (RFC 9110
// §9.3.6): the tunnel starts after its head, as curl takes it.
func TestTunnelReplyFieldsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	rec := newRecorder(t)
	proxy := fetchtest.NewServer(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		up, err := net.Dial("tcp", rec.addr)
		if err != nil {
			return
		}
		defer up.Close()
		io.WriteString(c, "HTTP/1.1 200 Fine\r\nContent-Length: 123\r\nTransfer-Encoding: chunked\r\n\r\n")
		go io.Copy(up, br)
		io.Copy(c, up)
	})
	args := []string{"-s", "-i", "-p", "-x", "http://" + proxy.Addr, "http://" + rec.addr + "/t"}
	ccode, cout := runClient(t, curl, "curl", args...)
	ucode, uout, uerr := runOut(t, args...)
	if ucode != 0 || ccode != 0 || uout != cout || !strings.HasSuffix(uout, "\r\n\r\nok\n") {
		t.Errorf("urlget exit %d (%s) %q, curl %d %q", ucode, strings.TrimSpace(uerr), uout, ccode, cout)
	}
	rec.take()
}
