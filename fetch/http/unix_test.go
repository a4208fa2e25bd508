package http_test

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

// serveUnix serves each request's Host and path on a Unix socket listener.
func serveUnix(t *testing.T, network, addr string) {
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Host+" "+r.URL.Path)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
}

// --unix-socket and --abstract-unix-socket: the connection goes to the
// socket, the request names the URL's host (as curl's); a missing socket
// is a connection failure (exit 7).
func TestUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "http.sock")
	serveUnix(t, "unix", path)
	sockets := []string{path}
	if runtime.GOOS == "linux" {
		name := "urlget-test-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		serveUnix(t, "unix", "@"+name)
		sockets = append(sockets, "@"+name)
	}
	for _, s := range sockets {
		c := &fetch.Client{UnixSocket: s}
		for _, host := range []string{"one.example.invalid", "two.example.invalid:8080"} {
			_, got, err := get(t, c, &fetch.Request{URL: parse(t, "http://"+host+"/p")})
			if err != nil || string(got) != host+" /p" {
				t.Errorf("%s, %s: %q %v", s, host, got, err)
			}
		}
		c.CloseIdleConnections()
	}
	c := &fetch.Client{UnixSocket: filepath.Join(t.TempDir(), "none.sock")}
	_, _, err := get(t, c, &fetch.Request{URL: parse(t, "http://example.invalid/")})
	if fetch.KindOf(err) != fetch.ErrConnect {
		t.Errorf("missing socket: %v, want ErrConnect", err)
	}
}
