package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// TestReplyFramingBesideCurl: replies net/http alone refuses, read as
// curl reads them, beside curl: a chunked body with LF line ends, chunk
// extensions and a trailer section (-i writes the trailer after the body,
// -D after the head), gzip transfer codings (--tr-encoding asks for
// them), a reply without a status line (--http0.9), a Content-Length
// ignored (--ignore-content-length) or past 2^63.
func TestReplyFramingBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("line 1\n line 2\n"))
	zw.Close()
	chunk := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", gz.Len(), gz.Bytes())
	rec := newRecorder(t)
	url := "http://" + rec.addr + "/f"
	for _, tc := range []struct {
		name  string
		reply string
		args  []string
	}{
		{"trailer", "HTTP/1.1 200 funky\r\nTransfer-Encoding: chunked\r\nTrailer: t1\r\n\r\n" +
			"4;ext=1\naaa\n\n3\r\nbb\n\r\n0\nt1: one\r\nt2: two\n\n", nil},
		{"gzip until the close", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 9\r\n\r\n" + gz.String(), nil},
		{"gzip, chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n" + chunk, []string{"--tr-encoding"}},
		{"HTTP/0.9", "no head at all\n", []string{"--http0.9"}},
		{"HTTP/0.9 refused", "no head at all\n", nil},
		{"ignored length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\ngrowing\n", []string{"--ignore-content-length"}},
		{"length past 2^63", "HTTP/1.1 200 OK\r\nContent-Length: 36893488147419103232\r\n\r\n-foo-\n", nil},
		{"length past 2^63, --max-filesize", "HTTP/1.1 200 OK\r\nContent-Length: 36893488147419103232\r\n\r\n-foo-\n", []string{"--max-filesize", "2000"}},
	} {
		rec.setAnswer(func([]byte) string { return tc.reply })
		var out [2]string
		var code [2]int
		var heads [2][]byte
		var reqs [2]string
		for i, client := range []string{"curl", "urlget"} {
			d := filepath.Join(t.TempDir(), "heads")
			code[i], out[i] = runClient(t, curl, client, append([]string{"-s", "-i", "-D", d, url}, tc.args...)...)
			heads[i], _ = os.ReadFile(d)
			if r := rec.take(); len(r) == 1 {
				reqs[i] = comparableRequest(r[0])
			}
		}
		if code[0] != code[1] || out[0] != out[1] || !bytes.Equal(heads[0], heads[1]) || reqs[0] != reqs[1] {
			t.Errorf("%s: urlget exit %d, curl %d\nurlget -i:\n%q\ncurl -i:\n%q\nurlget -D:\n%q\ncurl -D:\n%q\nurlget sent:\n%s\ncurl sent:\n%s",
				tc.name, code[1], code[0], out[1], out[0], heads[1], heads[0], reqs[1], reqs[0])
		}
		if tc.name == "trailer" && !strings.Contains(out[1], "aaa\nbb\nt1: one\r\nt2: two\r\n") {
			t.Errorf("trailer: -i wrote %q", out[1])
		}
	}
}
