package http

import (
	"maps"
	"slices"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// maxStale bounds the requests sent again after a 401 that says the nonce
// was stale (RFC 7616 §3.3 stale=true): a server that calls every nonce
// stale does not keep the client asking.
const maxStale = 3

// requestTarget is the request-target of a direct request, the Digest uri.
func requestTarget(req *fetch.Request) string {
	u := req.URL
	t := u.RawPath
	if t == "" {
		t = "/"
	}
	if u.HasQuery {
		t += "?" + u.RawQuery
	}
	return t
}

// noExpect is opts without the Expect lines of OptBodyHeader: a probe has
// no body to wait for.
func noExpect(opts fetch.Options) fetch.Options {
	lines := opts.Strings(OptBodyHeader)
	kept := slices.DeleteFunc(slices.Clone(lines), func(l string) bool {
		name, _, _ := strings.Cut(l, ":")
		return strings.EqualFold(strings.TrimSpace(name), "Expect")
	})
	if len(kept) == len(lines) {
		return opts
	}
	o := maps.Clone(opts)
	o[OptBodyHeader] = strings.Join(kept, "\n")
	return o
}
