package all_test

import (
	"testing"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/all"
)

func TestRegistered(t *testing.T) {
	for _, s := range []string{"file", "ftp", "http", "https", "gopher", "gophers", "news", "nntp", "nntps", "wais", "mailto", "mid", "cid", "telnet", "rlogin", "tn3270"} {
		if _, ok := fetch.LookupScheme(s); !ok {
			t.Errorf("scheme %s is not registered by fetch/all", s)
		}
	}
}

func TestGuessScheme(t *testing.T) {
	for in, want := range map[string]string{
		"ftp.example.org/pub/": "ftp", "FTP.example.org": "ftp", "gopher.example.org/1/": "gopher",
		"example.org/": "http", "ftpexample.org": "http", "": "http",
	} {
		if got := fetch.GuessScheme(in); got != want {
			t.Errorf("GuessScheme(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSchemeRecords(t *testing.T) {
	for _, name := range fetch.Schemes() {
		s, ok := fetch.LookupScheme(name)
		if !ok || s.Name != name || s.New == nil {
			t.Errorf("LookupScheme(%q) = %+v, %v", name, s, ok)
		}
		if s.Caps.Has(fetch.Search) != (s.SearchWords != nil) {
			t.Errorf("%s: the Search capability and SearchWords disagree", name)
		}
		if s.Caps.Has(fetch.Gateway) && (s.Caps.Has(fetch.Local) || s.Caps.Has(fetch.NoProxy) || s.Caps.Has(fetch.Session)) {
			t.Errorf("%s: a gateway scheme that is never proxied", name)
		}
	}
	if s, _ := fetch.LookupScheme("nntps"); s.Port != 563 {
		t.Errorf("nntps port %d, want urlparse's 563", s.Port)
	}
}

func TestGuessURL(t *testing.T) {
	for in, want := range map[string]string{
		"ftp.example.org/pub/": "ftp://ftp.example.org/pub/", "example.org:8080/x": "http://example.org:8080/x",
		"gopher://h/1/": "gopher://h/1/", "news:comp.lang.go": "news:comp.lang.go",
	} {
		if u, err := fetch.GuessURL(in); err != nil || u.String() != want {
			t.Errorf("GuessURL(%q) = %q, %v; want %q", in, u.String(), err, want)
		}
	}
	// A known scheme's bad URL is its error, not a host named "http".
	if u, err := fetch.GuessURL("http:/host"); err == nil {
		t.Errorf("GuessURL(http:/host) = %q, want an error", u.String())
	}
}
