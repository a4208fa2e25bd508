package all_test

import (
	"testing"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all"
)

func TestRegistered(t *testing.T) {
	for _, s := range []string{"file", "ftp", "http", "https", "gopher", "gophers", "news", "nntp", "nntps", "wais", "mailto", "mid", "cid", "telnet", "rlogin", "tn3270"} {
		if _, ok := fetch.Lookup(s); !ok {
			t.Errorf("scheme %s is not registered by fetch/all", s)
		}
	}
}
