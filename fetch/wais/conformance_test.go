package wais_test

import (
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/wais"
	"github.com/urlget/urlget/fetch/wais/waistest"
	"github.com/urlget/urlget/urlparse"
)

// docURL is the URL of a document of the test database on s, with its
// LENGTH or without it.
func docURL(t *testing.T, s *waistest.Server, name string, withLength bool) string {
	t.Helper()
	h, ok := find(search(t, client(wais.Fetcher{}, nil), s.URL("test?"+name)), name)
	if !ok {
		t.Fatalf("no hit for %s", name)
	}
	if withLength {
		return h.URL
	}
	u, _ := urlparse.Parse(h.URL)
	return urlparse.WAISDocFieldsURL(u.Host, u.Port, u.WAIS.Database, u.WAIS.DocType, "", u.WAIS.DocFields)
}

// TestConformance runs the shared suite against waistest, for a document
// URL with its LENGTH (Lynx's form) and without (RFC 1738's).
func TestConformance(t *testing.T) {
	for _, withLength := range []bool{true, false} {
		name := "lynx-form"
		if !withLength {
			name = "rfc-form"
		}
		t.Run(name, func(t *testing.T) {
			s := start(t, waistest.Normal)
			stall := start(t, waistest.Stall)
			stallBody := start(t, waistest.StallMidDocument)
			early := start(t, waistest.CloseMidDocument)
			// The hostile servers' URLs are made on the good one: the
			// DocIDs are the same.
			on := func(srv *waistest.Server, url string) string {
				return "wais://" + srv.Addr() + url[len("wais://")+len(s.Addr()):]
			}
			known := docURL(t, s, "k300.bin", withLength)
			fetchtest.Run(t, fetchtest.Suite{
				Known:       known,
				KnownBody:   docData("k300.bin"),
				Missing:     s.URL("test/TEXT/10/2=/srv/wais/db/test;3=0%2010%20/srv/wais/data/nope;"),
				MissingKind: fetch.ErrNotFound,
				Dir:         s.URL("test?apple"),
				DirNames:    []string{"apple.txt   /srv/wais/data/", "big.txt   /srv/wais/data/"},
				Stall:       stall.URL("test?apple"),
				StallBody:   on(stallBody, known),
				Early:       on(early, known),
				Inject:      s.URL("te%0D%0Ast?apple"),
				Received:    s.RequestCount,
			})
		})
	}
}
