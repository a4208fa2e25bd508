package main

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// The HTTP authentication and request-path flags: curl's --digest,
// --oauth2-bearer, --location-trusted, -j/--junk-session-cookies and
// --path-as-is. Each is a fetch.Client field (-j the cookie jar's); the
// library does the work.

// addAuthFlags defines them, bound to cl's fields (-j to the request
// flags', which make the cookie jar).
func addAuthFlags(fs *pflag.FlagSet, r *reqOpts, cl *fetch.Client) {
	httpOnly := fetch.SchemesWith(fetch.SpeaksHTTP)
	add := func(name string) { cli.SetTopics(fs, name, httpOnly...) }
	fs.BoolVar(&cl.Digest, "digest", false, "send the -u credentials by HTTP Digest (RFC 7616), answering the server's 401 challenge")
	add("digest")
	fs.StringVar(&cl.Bearer, "oauth2-bearer", "", "send the OAuth 2.0 `TOKEN` (\"Authorization: Bearer TOKEN\") instead of -u credentials")
	add("oauth2-bearer")
	fs.BoolVar(&cl.LocationTrusted, "location-trusted", false, "-L, and send credentials and -H Authorization/Cookie lines to the hosts redirected to as well")
	add("location-trusted")
	fs.BoolVarP(&r.junkSession, "junk-session-cookies", "j", false, "with -b FILE: leave out the file's session cookies (no expiry), as a new session")
	add("junk-session-cookies")
	fs.BoolVar(&cl.PathAsIs, "path-as-is", false, "send the URL path as it is: no removal of its /./ and /../ segments")
	add("path-as-is")
}
