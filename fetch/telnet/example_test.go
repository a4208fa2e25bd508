package telnet_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	_ "github.com/urlget/urlget/fetch/telnet"
	"github.com/urlget/urlget/fetch/telnet/telnettest"
)

// A scripted session: Request.Body is what is typed, Resource.Body what
// the server sends, the protocol taken out, until it closes.
func Example() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	sh := &telnettest.Shell{}
	srv := fetchtest.Serve(ln, sh.Handle)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &fetch.Client{}
	u := "telnet://" + srv.Addr() + "/"
	res, err := c.Do(ctx, &fetch.Request{URL: mustParse(u), Body: strings.NewReader("echo MARK42\nexit\n"), BodySize: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	fmt.Printf("%q %v\n", out, err)
	// Output: "$ MARK42\n$ logout\n" <nil>
}
