package nntp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/nntp"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
)

// A group's listing, one article a line (number 3 has expired; control
// characters in a subject become "?"), then the first article's body.
func Example() {
	srv := &nntptest.Server{Groups: nntptest.Sample()}
	if err := srv.Listen(); err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	c := &fetch.Client{NoProxy: "*"}
	res, err := c.Open(context.Background(), "nntp://"+srv.Addr+"/local.test")
	if err != nil {
		log.Fatal(err)
	}
	var first string
	for e, err := range res.Entries() {
		if err != nil {
			log.Fatal(err)
		}
		a, err := nntp.ParseArticleLine([]byte(e.Raw))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d %s: %s\n", a.Number, a.Date, a.Subject)
		if first == "" {
			first = a.URL
		}
	}
	res.Body.Close()

	c.Options = fetch.Options{nntp.OptBody: "1"}
	art, err := c.Open(context.Background(), first)
	if err != nil {
		log.Fatal(err)
	}
	defer art.Body.Close()
	body, err := io.ReadAll(art.Body)
	if err != nil {
		log.Fatal(err)
	}
	// An article comes as on the wire, its lines ended by CRLF.
	fmt.Print(strings.ReplaceAll(string(body), "\r\n", "\n"))
	// Output:
	// 1 2026-11-21T07:37:18Z: Known article one
	// 2 2026-11-21T07:37:18Z: Cross-posted
	// 4 2026-11-21T07:37:18Z: Dots
	// 5 2026-11-21T07:37:18Z: Odd ?[31mchars?
	// Hello, news.
	// Second line.
}
