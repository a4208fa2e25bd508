package fetch_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzCookieFile: a cookie file (-b FILE, which may come from anywhere) of
// any bytes loads or fails; what loads, saved (-c) and loaded again, saves
// the same; and the work is bounded by the file.
func FuzzCookieFile(f *testing.F) {
	fuzzcheck.Seeds(f,
		"# Netscape HTTP Cookie File\n#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\told\tv1\n127.0.0.1\tFALSE\t/other\tFALSE\t0\telsewhere\tv2\n127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tv3\n",
		"# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n\n.example.com\tTRUE\t/\tTRUE\t4102444800\tsid\tabc\r\nexample.com\tFALSE\t/p\tFALSE\t0\tnoval\n",
		"a\tb\tc\td\te\tf\tg", "a\tb\tc\td\t-5\tf\tg\n", "a\tb\tc\td\t0\tf\tg\th\n", "#HttpOnly_#x\tTRUE\t/\tTRUE\t0\tn\tv\n",
		"#HttpOnly_\n", "..\tTRUE\t\tTRUE\t9223372036854775807\t\t\r\r\n",
	)
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	load := func(data []byte) (string, error) {
		c := fetch.NewCookieJar()
		fetch.SetCookieClock(c, func() time.Time { return now })
		if err := c.Load(bytes.NewReader(data)); err != nil {
			return "", err
		}
		var saved strings.Builder
		err := c.Save(&saved)
		return saved.String(), err
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var saved string
		var err error
		fuzzcheck.Bounded(t, len(data), func() { saved, err = load(data) })
		if err != nil {
			return
		}
		again, err := load([]byte(saved))
		if err != nil || again != saved {
			t.Fatalf("%q saved as\n%q\nwhich loads and saves as\n%q (%v)", data, saved, again, err)
		}
	})
}

// TestCookieForAnotherDomain: a cookie a server sets for a domain it is
// not in is not kept for the -c file, from which a later -b would load it
// for that domain.
func TestCookieForAnotherDomain(t *testing.T) {
	c := fetch.NewCookieJar()
	u := &url.URL{Scheme: "http", Host: "www.example.net", Path: "/"}
	c.SetCookies(u, []*http.Cookie{{Name: "a", Value: "1", Domain: "example.org"}, {Name: "b", Value: "2", Domain: ".example.net"}})
	var saved strings.Builder
	if err := c.Save(&saved); err != nil {
		t.Fatal(err)
	}
	if s := saved.String(); strings.Contains(s, "example.org") || !strings.Contains(s, ".example.net\tTRUE\t/\tFALSE\t0\tb\t2\n") {
		t.Errorf("saved:\n%s", s)
	}
}

// TestCookieNewSession: with NewSession (curl's -j), the session cookies
// of a file are not loaded, and so not sent nor saved; those with an
// expiry are; a session cookie received afterwards is kept.
func TestCookieNewSession(t *testing.T) {
	file := "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts\n127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tlasting\tl\n"
	u, _ := url.Parse("http://127.0.0.1/")
	for _, ns := range []bool{false, true} {
		c := fetch.NewCookieJar()
		c.NewSession = ns
		if err := c.Load(strings.NewReader(file)); err != nil {
			t.Fatal(err)
		}
		c.SetCookies(u, []*http.Cookie{{Name: "fresh", Value: "f"}})
		var names []string
		for _, k := range c.Cookies(u) {
			names = append(names, k.Name)
		}
		var saved strings.Builder
		c.Save(&saved)
		want := "session lasting fresh"
		if ns {
			want = "lasting fresh"
		}
		if got := strings.Join(names, " "); got != want || strings.Contains(saved.String(), "\tsession\t") == ns {
			t.Errorf("NewSession %v: sends %q, want %q; saves\n%s", ns, got, want, saved.String())
		}
	}
}
