package http_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// hangBound is how long a request that should end at once may take
// before the test calls it stuck: far over any machine's slowness, far
// under forever (a reader held by a raised receive mark waits for bytes
// that never come).
const hangBound = 30 * time.Second

// getBounded is get under hangBound.
func getBounded(t *testing.T, c *fetch.Client, req *fetch.Request) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	res, body, err := fetchtest.Read(c.Do(ctx, req))
	if ctx.Err() != nil {
		t.Fatalf("%s: still not done after %s: %v", req.URL, hangBound, err)
	}
	return res, body, err
}

// bulkNginx serves files and "tiny.txt" ("ok") from nginx, and gives a
// Client, and the check that n requests went out on one connection.
func bulkNginx(t *testing.T, files map[string][]byte) (ng *testserver.NginxServer, c *fetch.Client, oneConn func(n int)) {
	t.Helper()
	root := t.TempDir()
	files["tiny.txt"] = []byte("ok")
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(root, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ng = testserver.StartNginx(t, testserver.NginxConfig{Root: root})
	var verbose bytes.Buffer
	c = &fetch.Client{Verbose: &verbose}
	t.Cleanup(c.CloseIdleConnections)
	return ng, c, func(n int) {
		t.Helper()
		if reused := bytes.Count(verbose.Bytes(), []byte("* Re-using the connection")); reused != n-1 {
			t.Errorf("%d requests, %d on a reused connection, want %d", n, reused, n-1)
		}
	}
}

// Large bodies of known length on a kept-alive connection to nginx (read
// with the receive low-water mark raised), each followed on the same
// connection by a tiny reply and a 304 (a head of some 200 bytes, less
// than any raised mark): every reply is whole and the next request goes
// out and is answered on the one connection. Sizes just under, at and
// just over fetch.BulkReadSize, and several times it.
func TestBulkBodyKeepAliveNginx(t *testing.T) {
	sizes := []int{fetch.BulkReadSize - 1, fetch.BulkReadSize, fetch.BulkReadSize + 1, 64<<10 + 1, 3*fetch.BulkReadSize + 7, 5 << 20}
	bodies := map[string][]byte{}
	for _, n := range sizes {
		bodies[fmt.Sprintf("f%d.bin", n)] = fetchtest.Pattern(n)
	}
	ng, c, oneConn := bulkNginx(t, bodies)
	requests := 0
	for _, n := range sizes {
		name := fmt.Sprintf("f%d.bin", n)
		_, got, err := getBounded(t, c, &fetch.Request{URL: parse(t, ng.URL+"/"+name)})
		requests++
		if err != nil || !bytes.Equal(got, bodies[name]) {
			t.Fatalf("%s: %d bytes, %v", name, len(got), err)
		}
		_, got, err = getBounded(t, c, &fetch.Request{URL: parse(t, ng.URL+"/tiny.txt")})
		requests++
		if err != nil || string(got) != "ok" {
			t.Fatalf("tiny.txt after %s: %q, %v", name, got, err)
		}
		_, got, err = getBounded(t, c, &fetch.Request{URL: parse(t, ng.URL+"/"+name)})
		requests++
		if err != nil || !bytes.Equal(got, bodies[name]) {
			t.Fatalf("%s again: %d bytes, %v", name, len(got), err)
		}
		res, _, err := getBounded(t, c, &fetch.Request{URL: parse(t, ng.URL+"/tiny.txt"), IfNoneMatch: "*"})
		requests++
		if err != nil || res.Status != http.StatusNotModified {
			t.Fatalf("conditional tiny.txt after %s: %v, %v", name, res, err)
		}
	}
	oneConn(requests)
}

// -r ranges from nginx on a kept-alive connection: one part (a 206 of
// that length, read with the mark raised), several parts (multipart, of
// known length too), a resume (Offset); each followed by a tiny reply on
// the same connection.
func TestBulkBodyRangesNginx(t *testing.T) {
	body := fetchtest.Pattern(2<<20 + 3)
	ng, c, oneConn := bulkNginx(t, map[string][]byte{"r.bin": body})
	u := parse(t, ng.URL+"/r.bin")
	rng := func(s string) *fetch.Range {
		r, err := fetch.ParseRange(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	requests := 0
	for _, tc := range []struct {
		name  string
		req   fetch.Request
		check func(res *fetch.Resource, got []byte) bool
	}{
		{"one part", fetch.Request{URL: u, Range: rng("100-400000")}, func(res *fetch.Resource, got []byte) bool {
			return res.Status == 206 && res.Offset == 100 && bytes.Equal(got, body[100:400001])
		}},
		{"one part of BulkReadSize+1", fetch.Request{URL: u, Range: rng(fmt.Sprintf("7-%d", 7+fetch.BulkReadSize))}, func(res *fetch.Resource, got []byte) bool {
			return res.Status == 206 && bytes.Equal(got, body[7:8+fetch.BulkReadSize])
		}},
		{"last bytes", fetch.Request{URL: u, Range: rng("-300000")}, func(res *fetch.Resource, got []byte) bool {
			return res.Status == 206 && bytes.Equal(got, body[len(body)-300000:])
		}},
		{"several parts", fetch.Request{URL: u, Range: rng("0-99,300000-900000")}, func(res *fetch.Resource, got []byte) bool {
			return res.Status == 206 && strings.HasPrefix(res.ContentType, "multipart/byteranges") &&
				bytes.Contains(got, body[:100]) && bytes.Contains(got, body[300000:900001])
		}},
		{"resume", fetch.Request{URL: u, Offset: 1 << 20}, func(res *fetch.Resource, got []byte) bool {
			return res.Status == 206 && res.Offset == 1<<20 && bytes.Equal(got, body[1<<20:])
		}},
	} {
		res, got, err := getBounded(t, c, &tc.req)
		requests++
		if err != nil || !tc.check(res, got) {
			t.Fatalf("%s: %v (%d bytes), %v", tc.name, res, len(got), err)
		}
		_, got, err = getBounded(t, c, &fetch.Request{URL: parse(t, ng.URL+"/tiny.txt")})
		requests++
		if err != nil || string(got) != "ok" {
			t.Fatalf("tiny.txt after %s: %q, %v", tc.name, got, err)
		}
	}
	oneConn(requests)
}

// A body cut short by the server, while the reader waits with the mark
// raised, is a partial transfer (curl's 18), every byte sent kept: the
// close wakes the reader. Cut anywhere: early, one byte short of
// BulkReadSize, one byte short of the end.
func TestBulkBodyCutShort(t *testing.T) {
	const size = 1 << 20
	data := fetchtest.Pattern(size)
	for _, sent := range []int{300 << 10, fetch.BulkReadSize - 1, size - 1} {
		t.Run(fmt.Sprint(sent), func(t *testing.T) {
			head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", size)
			srv := fetchtest.CloseEarly(t, "\r\n\r\n", append([]byte(head), data[:sent]...))
			c := &fetch.Client{}
			defer c.CloseIdleConnections()
			_, got, err := getBounded(t, c, &fetch.Request{URL: parse(t, "http://"+srv.Addr+"/cut")})
			if fetch.KindOf(err) != fetch.ErrPartial || fetch.ExitCode(err) != 18 {
				t.Errorf("error %v (exit %d), want a partial transfer (18)", err, fetch.ExitCode(err))
			}
			if !bytes.Equal(got, data[:sent]) {
				t.Errorf("kept %d bytes, the server sent %d", len(got), sent)
			}
		})
	}
}

// A server that sends a large body slowly, holding the rest back until
// the client has read what came: the first bytes reach the reader
// although far fewer than the raised mark wait (fetch.LowWaterWait), and
// progress follows the bytes as they come.
func TestBulkBodySlowServer(t *testing.T) {
	const size = 1 << 20
	data := fetchtest.Pattern(size)
	paced := fetchtest.NewPaced(data, 5, 1000)
	paced.Bound = hangBound
	srv := fetchtest.NewServer(t, func(c net.Conn) {
		buf := make([]byte, 4096)
		for n := 0; !bytes.Contains(buf[:n], []byte("\r\n\r\n")); {
			k, err := c.Read(buf[n:])
			if err != nil {
				return
			}
			n += k
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", size)
		if paced.Send(c) {
			c.Write(data[len(paced.Data):])
		}
	})
	c := &fetch.Client{}
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), hangBound)
	defer cancel()
	res, err := c.Do(ctx, &fetch.Request{URL: parse(t, "http://"+srv.Addr+"/slow")})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	got, err := paced.Read(res.Body)
	if err != nil {
		t.Fatalf("after %d bytes: %v", len(got), err)
	}
	rest, err := io.ReadAll(res.Body)
	if err != nil || !bytes.Equal(append(got, rest...), data) {
		t.Fatalf("%d bytes, %v", len(got)+len(rest), err)
	}
}
