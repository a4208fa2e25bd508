package fetch_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Resolve gives a name its address without asking DNS (curl's --resolve):
// the request still names the host, the connection goes to the address.
func ExampleParseResolve() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "Host: %s\n", r.Host)
	}))
	defer srv.Close()
	port := strings.TrimPrefix(srv.URL, "http://127.0.0.1:")

	rule, err := fetch.ParseResolve("www.example.test:" + port + ":127.0.0.1")
	if err != nil {
		log.Fatal(err)
	}
	c := &fetch.Client{Resolve: []fetch.ResolveRule{rule}}
	res, err := c.Open(context.Background(), "http://www.example.test:"+port+"/")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	fmt.Print(strings.Replace(string(body), port, "PORT", 1))
	// Output:
	// Host: www.example.test:PORT
}

// A Trace, carried by the context, hears where each connection went and
// when the reply began: curl's -w %{remote_ip} and %{time_starttransfer}.
func ExampleWithTrace() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "traced\n")
	}))
	defer srv.Close()

	var mu sync.Mutex
	start := time.Now()
	var remote net.Addr
	var firstByte time.Duration
	ctx := fetch.WithTrace(context.Background(), &fetch.Trace{
		Connected: func(local, r net.Addr, data bool) { mu.Lock(); remote = r; mu.Unlock() },
		FirstByte: func() { mu.Lock(); firstByte = time.Since(start); mu.Unlock() },
	})
	res, err := (&fetch.Client{}).Open(ctx, srv.URL+"/")
	if err != nil {
		log.Fatal(err)
	}
	io.ReadAll(res.Body)
	res.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(remote.String() == srv.Listener.Addr().String(), firstByte > 0)
	// Output:
	// true true
}
