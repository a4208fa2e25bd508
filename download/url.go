package download

import (
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// ParseURL reads a URL as curl reads one given to it (fetch.GuessURL:
// curl's guess of a missing scheme, IRIs), with curl's leniency for two
// slips RFC 3986 refuses: one or three slashes after the scheme of a URL
// that names a host ("http:/h/p" is "http://h/p"), and a "#" inside the
// fragment (the fragment starts at the first "#"; later ones are part of
// it). A URL that parses as written is never rewritten.
func ParseURL(raw string) (urlparse.URL, error) {
	u, err := fetch.GuessURL(raw)
	if err == nil {
		return u, nil
	}
	if fixed := curlLenient(raw); fixed != raw {
		if fu, ferr := fetch.GuessURL(fixed); ferr == nil {
			return fu, nil
		}
	}
	return u, err
}

// curlLenient is raw with curl's repairs of ParseURL applied.
func curlLenient(raw string) string {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		raw = raw[:i+1] + strings.ReplaceAll(raw[i+1:], "#", "%23")
	}
	return fetch.FixSlashes(raw)
}
