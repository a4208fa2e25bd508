package wais_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/wais"
	"github.com/urlget/urlget/fetch/wais/waistest"
)

// A search, then the first document it found, through its URL.
func Example() {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := waistest.New(ln, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}})
	defer srv.Close()

	c := &fetch.Client{}
	res, err := c.Open(context.Background(), srv.URL("test?apple+orchard"))
	if err != nil {
		fmt.Println(err)
		return
	}
	var first string
	for e, err := range res.Entries() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s (%d bytes)\n", e.Name, e.Size)
		if first == "" {
			first = e.URL
		}
	}
	res.Body.Close()

	doc, err := c.Open(context.Background(), first)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer doc.Body.Close()
	io.Copy(os.Stdout, doc.Body)
	// Output:
	// apple.txt   /srv/wais/data/ (124 bytes)
	// big.txt   /srv/wais/data/ (63237 bytes)
	// long.txt   /srv/wais/data/a-rather-long-directory-name/a-rather-long-directory-name/a-rather-long-directory-name/a-rather-long-directory-name/a-rather-long-directory-name/a-rather-long-directory-name/ (47 bytes)
	// Apples and orchards
	// The apple is a sweet fruit grown in orchards around the world.
	// Orchards of apple trees bloom in spring.
}
