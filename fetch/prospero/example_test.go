package prospero_test

import (
	"context"
	"fmt"
	"io"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/prospero"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
)

// A file served through Prospero itself (PROSPERO-CONTENTS), and one whose
// access method points elsewhere, resolved without fetching it.
func Example() {
	root := prosperotest.DefaultRoot
	srv := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/hello.txt": {Contents: []byte("Hello from Prospero.\n")},
		root + "/README": {Methods: [][]string{
			{"NFS", "INTERNET-D", "nfs.example", "ASCII", "/export/README", "/export"},
			{"AFTP", "INTERNET-D", "ftp.example", "ASCII", "/pub/README", "TEXT"},
		}},
	}}
	addr, err := srv.Listen()
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	c := &fetch.Client{}
	res, err := c.Open(context.Background(), "prospero://"+addr+"/"+root+"/hello.txt")
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Print(string(b))

	c.Options = fetch.Options{prospero.OptResolve: "1"}
	res, err = c.Open(context.Background(), "prospero://"+addr+"/"+root+"/README")
	if err != nil {
		panic(err)
	}
	b, _ = io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Print(string(b))
	// Output:
	// Hello from Prospero.
	// # NFS: not supported
	// ftp://ftp.example/pub/README;type=a
}
