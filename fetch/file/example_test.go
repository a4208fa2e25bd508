package file_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/file"
	"github.com/urlget/urlget/urlparse"
)

// A directory is a listing, one entry a line; a file streams from where a
// resume asks.
func Example() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("0123456789\n"), 0o644)

	c := &fetch.Client{}
	res, err := c.Open(context.Background(), urlparse.FileURL(dir)+"/")
	if err != nil {
		log.Fatal(err)
	}
	for e, err := range res.Entries() {
		if err != nil {
			log.Fatal(err)
		}
		if e.Type == fetch.EntryDir {
			fmt.Println("directory", e.Name)
		} else {
			fmt.Println("file", e.Name, e.Size)
		}
	}
	res.Body.Close()

	u, err := urlparse.Parse(urlparse.FileURL(filepath.Join(dir, "notes.txt")))
	if err != nil {
		log.Fatal(err)
	}
	res, err = c.Do(context.Background(), &fetch.Request{URL: &u, Offset: 6})
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	fmt.Println(res.Offset, res.Size)
	io.Copy(os.Stdout, res.Body)
	// Output:
	// file notes.txt 11
	// directory src
	// 6 5
	// 6789
}
