package mailto_test

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/mailto"
)

// A dry run: the message a mailto URL composes, without sending it.
func Example() {
	c := fetch.Client{Options: fetch.Options{
		fetch.OptDryRun: "1",
		"mail-from":     "me@example.net",
	}}
	res, err := c.Open(context.Background(),
		"mailto:joe@example.com?cc=bob@example.com&subject=caf%C3%A9&body=send%20current-issue")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	fmt.Println(res.ContentType)
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Date:") || strings.HasPrefix(line, "Message-ID:") {
			continue // they change with every run
		}
		fmt.Println(line) // the message has CRLF line ends; Scanner drops the CR
	}
	// Output:
	// message/rfc822
	// From: me@example.net
	// To: joe@example.com
	// Cc: bob@example.com
	// Subject: =?UTF-8?q?caf=C3=A9?=
	// MIME-Version: 1.0
	// Content-Type: text/plain; charset=UTF-8
	// Content-Transfer-Encoding: 7bit
	//
	// send current-issue
}
