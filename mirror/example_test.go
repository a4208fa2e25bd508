package mirror_test

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/mirror"
)

// serveGopher answers gopher requests from items (selector → reply) until
// ln is closed: a gopher hole in a few lines, for the example.
func serveGopher(ln net.Listener, items map[string]string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			sel, _ := bufio.NewReader(c).ReadString('\n')
			reply, ok := items[strings.TrimRight(sel, "\r\n")]
			if !ok {
				reply = "3Not found\t\terror.host\t1\r\n.\r\n"
			}
			c.Write([]byte(reply))
		}()
	}
}

// Run copies a gopher hole (or an FTP tree) into a directory; a second
// run fetches only what changed, and the manifest in the directory says
// what each local file is.
func Example() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	item := func(typ, title, sel string) string {
		return typ + title + "\t" + sel + "\t" + host + "\t" + port + "\r\n"
	}
	go serveGopher(ln, map[string]string{
		"":                "iA small hole\t\terror.host\t1\r\n" + item("0", "About", "/about.txt") + item("1", "Docs", "/docs") + ".\r\n",
		"/about.txt":      "About this hole.\n",
		"/docs":           item("0", "Guide", "/docs/guide.txt") + ".\r\n",
		"/docs/guide.txt": "The guide.\n",
	})

	dir, err := os.MkdirTemp("", "mirror-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	opt := mirror.Options{
		URL:          "gopher://" + ln.Addr().String() + "/1",
		Dir:          dir,
		Parallel:     1, // one connection: the events come in order
		IgnoreRobots: true,
		Event: func(ev mirror.Event) {
			if ev.Kind != mirror.EventDir {
				fmt.Println(ev.Kind, ev.Path)
			}
		},
	}
	for run := 1; run <= 2; run++ {
		sum, err := mirror.Run(context.Background(), opt)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("run %d: %d new, %d unchanged, %d menus\n", run, sum.New, sum.Unchanged, sum.Dirs)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "docs", "guide.txt"))
	fmt.Printf("%s", b)
	// Output:
	// new about.txt
	// new docs/guide.txt
	// run 1: 2 new, 0 unchanged, 2 menus
	// unchanged about.txt
	// unchanged docs/guide.txt
	// run 2: 0 new, 2 unchanged, 2 menus
	// The guide.
}

// String is the summary line urlget mirror prints at the end of a run;
// Event.Line and Progress.Line give its other lines.
func ExampleSummary_String() {
	sum := mirror.Summary{URL: "ftp://ftp.example.org/pub/", Dir: "pub", New: 2, Unchanged: 5, Dirs: 3, Bytes: 3 << 20, Seconds: 1.25}
	fmt.Println(sum)
	sum.DryRun = true
	fmt.Println(sum)
	// Output:
	// mirrored ftp://ftp.example.org/pub/ into pub: 2 new, 0 changed, 5 unchanged, 0 deleted, 0 failed; 3 directories; 3.0 MiB in 1.2 s
	// dry run (nothing written) of ftp://ftp.example.org/pub/ into pub: 2 new, 0 changed, 5 unchanged, would delete 0, 0 failed; 3 directories; 3.0 MiB in 1.2 s
}
