package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// bigTime is big.bin's modification time on the server, and that of the
// part of it a resume holds (urlget sends it as If-Range, curl does not).
var bigTime = time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)

// nginxHTTP2 starts nginx serving a small tree over http (HTTP/1.1 only),
// over https with HTTP/2 (ALPN "h2"), over https without it, and in h2c
// with prior knowledge only; it returns the nginx server and the three
// other base URLs.
func nginxHTTP2(t *testing.T, pki *fetchtest.PKI) (s *testserver.NginxServer, h2, tlsOnly, h2c string) {
	t.Helper()
	testserver.Require(t, "nginx")
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "small.txt"), []byte("small file\n"), 0o644)
	big := fetchtest.Pattern(300 << 10)
	os.WriteFile(filepath.Join(root, "big.bin"), big, 0o644)
	os.Chtimes(filepath.Join(root, "big.bin"), bigTime, bigTime)
	p1, p2, p3 := testserver.FreePort(t), testserver.FreePort(t), testserver.FreePort(t)
	s = testserver.StartNginx(t, testserver.NginxConfig{Root: root, Extra: fmt.Sprintf(`
        location = /old { return 301 /small.txt; }
        listen 127.0.0.1:%d ssl http2;
        listen 127.0.0.1:%d ssl;
        listen 127.0.0.1:%d http2;
        ssl_certificate %s;
        ssl_certificate_key %s;
`, p1, p2, p3, pki.ServerCert, pki.ServerKey)})
	for _, p := range []int{p1, p2, p3} {
		if err := testserver.WaitPort("127.0.0.1:"+strconv.Itoa(p), 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	return s, "https://127.0.0.1:" + strconv.Itoa(p1), "https://127.0.0.1:" + strconv.Itoa(p2), "http://127.0.0.1:" + strconv.Itoa(p3)
}

// TestHTTPVersionBesideCurl: --http1.1, --http2 and
// --http2-prior-knowledge against nginx with HTTP/2 on TLS, without it,
// in h2c, and on plain http, beside curl: the same output (-i's HTTP/2
// header blocks as curl shows them), files, -w values and exit codes; and
// nginx logs the same request lines from both.
func TestHTTPVersionBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	pki := fetchtest.NewPKI(t)
	s, h2, tlsOnly, h2c := nginxHTTP2(t, pki)
	ca := []string{"--cacert", pki.CA}
	with := func(args ...string) []string { return append(append([]string{}, ca...), args...) }
	wo := "%{http_code} %{http_version} %{size_header} %{size_download} %{num_redirects}\\n"
	before, _ := s.Requests()
	if len(before) == 1 && before[0] == "" {
		before = nil // an empty log
	}
	runSideBySide(t, curl, []sideCase{
		{name: "--http2", args: with("--http2", h2+"/small.txt")},
		{name: "--http2 -i", args: with("--http2", "-i", h2+"/small.txt"), normalize: dropDate},
		{name: "--http2 -I", args: with("--http2", "-I", h2+"/small.txt"), normalize: dropDate},
		{name: "--http2 -i 404", args: with("--http2", "-i", h2+"/missing"), normalize: dropDate},
		{name: "--http2 -f 404", args: with("--http2", "-f", h2+"/missing"), code: 22},
		{name: "--http2 -w", args: with("--http2", "-o", "out", "-w", wo, h2+"/big.bin")},
		{name: "--http2 -L -i", args: with("--http2", "-L", "-i", h2+"/old"), normalize: dropDate},
		{name: "--http2 -C -", args: with("--http2", "-C", "-", "-o", "out", h2+"/big.bin"),
			prep: func(dir string) {
				os.WriteFile(filepath.Join(dir, "out"), fetchtest.Pattern(300 << 10)[:1000], 0o644)
				os.Chtimes(filepath.Join(dir, "out"), bigTime, bigTime)
			}},
		{name: "--http2 POST", args: with("--http2", "-d", "a=1", "-w", wo, h2+"/small.txt")},
		{name: "--http2 -w two URLs", args: with("--http2", "-w", wo, h2+"/small.txt", h2+"/small.txt")},
		{name: "--http1.1", args: with("--http1.1", "-i", "-w", wo, h2+"/small.txt"), normalize: dropDate},
		{name: "--http2, no h2 offered", args: with("--http2", "-i", "-w", wo, tlsOnly+"/small.txt"), normalize: dropDate},
		{name: "--http2 plain http", args: []string{"--http2", "-i", "-w", wo, s.URL + "/small.txt"}, normalize: dropDate},
		{name: "--http2-prior-knowledge", args: []string{"--http2-prior-knowledge", "-i", "-w", wo, h2c + "/small.txt"}, normalize: dropDate},
		{name: "--http2-prior-knowledge https", args: with("--http2-prior-knowledge", "-w", wo, h2+"/small.txt")},
		{name: "--http2-prior-knowledge -o", args: []string{"--http2-prior-knowledge", "-o", "out", h2c + "/big.bin"}},
		{name: "--http2-prior-knowledge to HTTP/1.1", args: []string{"--http2-prior-knowledge", s.URL + "/small.txt"}, code: 52, ucode: 8},
	})
	// -w %{json}'s values that do not depend on timing or ports.
	us, cs, ucode, ccode := writeOutBoth(t, curl, "%{json}", with("--http2", h2+"/small.txt")...)
	var um, cm map[string]any
	if err := json.Unmarshal([]byte(us), &um); err != nil || json.Unmarshal([]byte(cs), &cm) != nil || ucode != ccode {
		t.Fatalf("-w %%{json}: urlget %q (exit %d), curl %q (exit %d)", us, ucode, cs, ccode)
	}
	for _, k := range []string{"http_version", "http_code", "size_header", "num_headers", "size_download", "scheme", "method", "content_type", "num_connects", "num_redirects", "remote_ip", "url_effective"} {
		if fmt.Sprint(um[k]) != fmt.Sprint(cm[k]) {
			t.Errorf("-w %%{json} %s: urlget %v, curl %v", k, um[k], cm[k])
		}
	}

	// nginx's log: the same request lines, statuses and sizes from each,
	// in the same order (the runs alternate), HTTP/2.0 where asked. nginx
	// logs a request once it is done: the last ones may take a moment.
	var byCurl, byUrlget []string
	h2Lines := 0
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		after, _ := s.Requests()
		byCurl, byUrlget, h2Lines = nil, nil, 0
		for _, l := range after[len(before):] {
			i := strings.LastIndex(l, ` "`)
			if i < 0 {
				continue
			}
			what, ua := l[:i], l[i:]
			switch {
			case strings.HasPrefix(ua, ` "curl/`):
				byCurl = append(byCurl, what)
			case strings.HasPrefix(ua, ` "urlget/`):
				byUrlget = append(byUrlget, what)
				if strings.Contains(what, " HTTP/2.0\"") {
					h2Lines++
				}
			}
		}
		if slices.Equal(byCurl, byUrlget) || time.Now().After(deadline) {
			break
		}
	}
	if !slices.Equal(byCurl, byUrlget) {
		t.Errorf("nginx logged\nfrom urlget:\n%s\nfrom curl:\n%s", strings.Join(byUrlget, "\n"), strings.Join(byCurl, "\n"))
	}
	if h2Lines < 10 {
		t.Errorf("%d HTTP/2 requests from urlget logged", h2Lines)
	}
}
