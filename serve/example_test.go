package serve_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all"
	"github.com/urlget/urlget/serve"
)

// ExampleHandler_serveMux mounts the gateway at "/" of a program's
// http.ServeMux, beside the program's own pages. Options.Base "/" tells
// the gateway that a mux routes to it: its links are written so that the
// mux's path cleaning leaves them alone. A URL asked of the address form
// (/?u=URL) is redirected to its page.
func ExampleHandler_serveMux() {
	dir, _ := os.MkdirTemp("", "serve-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644)

	gw, err := serve.New(&fetch.Client{}, serve.Options{Base: "/", AllowFile: dir})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.Handle("/", gw)
	srv := httptest.NewServer(mux) // on 127.0.0.1: a client of this machine
	defer srv.Close()

	res, err := http.Get(srv.URL + "/?u=" + url.QueryEscape("file://"+filepath.Join(dir, "hello.txt")))
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Printf("%d %s %q\n", res.StatusCode, res.Header.Get("Content-Type"), body)
	// Output: 200 text/plain; charset=utf-8 "hello, world\n"
}

// ExampleHandler_stripPrefix mounts the gateway below /gw/ with
// http.StripPrefix: the gateway finds the prefix from what StripPrefix left
// of the request's path, and its pages, links and forms stay below it.
func ExampleHandler_stripPrefix() {
	dir, _ := os.MkdirTemp("", "serve-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, world\n"), 0o644)

	gw, err := serve.New(&fetch.Client{}, serve.Options{AllowFile: dir})
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/gw/", http.StripPrefix("/gw", gw))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// The client does not follow the redirect, to show where it goes.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(srv.URL + "/gw/?u=" + url.QueryEscape("file:///example/hello.txt"))
	if err != nil {
		log.Fatal(err)
	}
	res.Body.Close()
	fmt.Println(res.StatusCode, res.Header.Get("Location"))

	res, err = http.Get(srv.URL + "/gw/?u=" + url.QueryEscape("file://"+filepath.Join(dir, "hello.txt")))
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Printf("%d %q\n", res.StatusCode, body)
	// Output:
	// 303 /gw/file%3A%2F%2F/example/hello.txt
	// 200 "hello, world\n"
}
