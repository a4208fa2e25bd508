package http_test

import (
	"context"
	"fmt"
	"io"
	"log"
	nethttp "net/http"
	"net/http/httptest"
	"os"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/http"
)

// A redirect is the Client's to follow; the reply's header fields come as
// the server sent them, in order and case.
func Example() {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		if r.URL.Path == "/old" {
			nethttp.Redirect(w, r, "/new", nethttp.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("ETag", `"v1"`)
		io.WriteString(w, "the new place\n")
	}))
	defer srv.Close()

	c := &fetch.Client{NoProxy: "*", FollowRedirects: true}
	res, err := c.Open(context.Background(), srv.URL+"/old")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	for _, r := range res.Redirects {
		fmt.Println(r.Status, r.Header.Get("Location"))
	}
	fmt.Println(res.Proto, res.Status, res.Reason, res.Header.Get("etag"))
	io.Copy(os.Stdout, res.Body)
	// Output:
	// 301 /new
	// HTTP/1.1 200 OK "v1"
	// the new place
}
