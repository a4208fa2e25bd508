package prospero_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
	_ "github.com/urlget/urlget/fetch/wais"
	"github.com/urlget/urlget/fetch/wais/waistest"
)

// TestWAIS: a WAIS access method is handed to the wais fetcher (in-tree
// WAIS server): the database, and a search of it.
func TestWAIS(t *testing.T) {
	w := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}})
	_, port, _ := net.SplitHostPort(w.Addr())
	host := "127.0.0.1(" + port + ")"
	e := start(t, &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root + "/db": {Methods: [][]string{{"WAIS", "INTERNET-D", host, "ASCII", "test"}}},
	}})
	res, err := (&fetch.Client{Options: fetch.Options{fetch.OptSearch: "apple"}}).Open(ctxT(t, 30*time.Second), e.url(root+"/db"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.EffectiveURL != w.URL("test") || !res.Dir {
		t.Fatalf("effective URL %q, dir %v", res.EffectiveURL, res.Dir)
	}
	var names []string
	for en, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, en.Name)
	}
	if !strings.Contains(strings.Join(names, "\n"), "apple") {
		t.Errorf("search results %q", names)
	}
}
