package main

import (
	"strings"
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
