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
	"github.com/urlget/urlget/fetch/fetchtest"
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

// HTTP Digest authentication (curl's --digest): the first request goes
// without credentials, the 401's challenge is answered; the 401 is kept in
// AuthReplies.
func Example_digest() {
	auth := &fetchtest.DigestAuth{Realm: "files", User: "alice", Password: "s3cret", Algorithm: "SHA-256", QOP: "auth"}
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		if auth.Serve(w, r) {
			io.WriteString(w, "the report\n")
		}
	}))
	defer srv.Close()

	c := &fetch.Client{NoProxy: "*", Digest: true, User: "alice", Password: "s3cret", HasUser: true, HasPassword: true}
	res, err := c.Open(context.Background(), srv.URL+"/report.txt")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	for _, r := range res.AuthReplies {
		fmt.Println(r.Status, r.Header.Get("WWW-Authenticate")[:6])
	}
	fmt.Println(res.Status)
	io.Copy(os.Stdout, res.Body)
	// Output:
	// 401 Digest
	// 200
	// the report
}
