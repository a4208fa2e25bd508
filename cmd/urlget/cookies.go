package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// newCookieJar makes the jar from the -b arguments: one with "=" is
// cookies to send as they are, any other a Netscape cookie file to load
// (without its session cookies with newSession: -j).
func newCookieJar(args []string, newSession bool) (*fetch.CookieJar, error) {
	c := fetch.NewCookieJar()
	c.NewSession = newSession
	for _, a := range args {
		if strings.Contains(a, "=") {
			c.AddText(a)
			continue
		}
		if err := c.LoadFile(a); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // curl: a missing cookie file is no error (it may be -c's, not written yet)
			}
			return nil, fmt.Errorf("-b/--cookie %s: %v", a, fetch.PathCause(err))
		}
	}
	return c, nil
}

// saveCookies writes the jar to the -c file ("-": stdout).
func saveCookies(c *fetch.CookieJar, name string, stdout io.Writer) error {
	if name == "-" {
		return c.Save(stdout)
	}
	return c.SaveFile(name)
}
