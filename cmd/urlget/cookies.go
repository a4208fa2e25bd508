package main

import (
	"fmt"
	"io"
	"os"
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
		f, err := os.Open(a)
		if err != nil {
			if os.IsNotExist(err) {
				continue // curl: a missing cookie file is no error (it may be -c's, not written yet)
			}
			return nil, fmt.Errorf("-b/--cookie %s: %v", a, fetch.PathCause(err))
		}
		err = c.Load(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("-b/--cookie %s: %v", a, err)
		}
	}
	return c, nil
}

// saveCookies writes the jar to the -c file ("-": stdout), through a
// temporary file renamed over it.
func saveCookies(c *fetch.CookieJar, name string, stdout io.Writer) error {
	if name == "-" {
		return c.Save(stdout)
	}
	tmp := name + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = c.Save(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
