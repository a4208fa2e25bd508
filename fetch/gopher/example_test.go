package gopher_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
)

// A menu, read entry by entry, then the text its first entry names.
func Example() {
	srv, err := gophertest.Listen(&gophertest.Site{Items: map[string]*gophertest.Item{
		"": {Type: '1', Menu: []string{
			"0About this server\t/about",
			"1Documents\t/docs",
		}},
		"/about": {Type: '0', Data: []byte("A gopher server on this machine.\n")},
	}}, false)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	c := &fetch.Client{NoProxy: "*"}
	res, err := c.Open(context.Background(), srv.URL(""))
	if err != nil {
		log.Fatal(err)
	}
	var first string
	for e, err := range res.Entries() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%c %s\n", e.Raw[0], e.Name)
		if first == "" {
			first = e.URL
		}
	}
	res.Body.Close()

	doc, err := c.Open(context.Background(), first)
	if err != nil {
		log.Fatal(err)
	}
	defer doc.Body.Close()
	fmt.Println(doc.ContentType)
	io.Copy(os.Stdout, doc.Body)
	// Output:
	// 0 About this server
	// 1 Documents
	// text/plain
	// A gopher server on this machine.
}
