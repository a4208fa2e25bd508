package main

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// The HTTP authentication and request-path flags: curl's --digest,
// --oauth2-bearer, --location-trusted, -j/--junk-session-cookies and
// --path-as-is. Each sets a fetch.Client field (-j the cookie jar's); the
// library does the work.

// authOpts holds them as given.
type authOpts struct {
	digest          bool
	bearer          string
	locationTrusted bool
	junkSession     bool
	pathAsIs        bool
}

func addAuthFlags(fs *pflag.FlagSet, o *authOpts) {
	httpOnly := fetch.SchemesWith(fetch.SpeaksHTTP)
	add := func(name string) { fs.SetAnnotation(name, schemesAnnotation, httpOnly) }
	fs.BoolVar(&o.digest, "digest", false, "send the -u credentials by HTTP Digest (RFC 7616), answering the server's 401 challenge")
	add("digest")
	fs.StringVar(&o.bearer, "oauth2-bearer", "", "send the OAuth 2.0 `TOKEN` (\"Authorization: Bearer TOKEN\") instead of -u credentials")
	add("oauth2-bearer")
	fs.BoolVar(&o.locationTrusted, "location-trusted", false, "-L, and send credentials and -H Authorization/Cookie lines to the hosts redirected to as well")
	add("location-trusted")
	fs.BoolVarP(&o.junkSession, "junk-session-cookies", "j", false, "with -b FILE: leave out the file's session cookies (no expiry), as a new session")
	add("junk-session-cookies")
	fs.BoolVar(&o.pathAsIs, "path-as-is", false, "send the URL path as it is: no removal of its /./ and /../ segments")
	add("path-as-is")
}

// apply sets the Client's fields (-j is the jar's: newCookieJar).
func (o *authOpts) apply(cl *fetch.Client) {
	cl.Digest = o.digest
	cl.Bearer = o.bearer
	if o.locationTrusted {
		cl.LocationTrusted, cl.FollowRedirects = true, true
	}
	cl.PathAsIs = o.pathAsIs
}
