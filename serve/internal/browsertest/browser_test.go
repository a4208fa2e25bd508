package browsertest

// Browser tests: a real headless chromium (see harness_test.go)
// browses the gateway on 127.0.0.1 as a person would, against the real
// servers of internal/testserver (gophernicus, vsftpd, INN) and the in-tree
// WAIS server. They skip under -short, and fail when CI is set and
// chromium or a server is missing.

import (
	"crypto/sha256"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	_ "github.com/urlget/urlget/fetch/all"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/fetch/wais/waistest"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/serve"
	"github.com/urlget/urlget/serve/servetest"
)

// link is the XPath of the link whose text is name (a directory's may end
// in "/").
func link(name string) chromedp.Search {
	return chromedp.Search(`//a[normalize-space()="` + name + `" or normalize-space()="` + name + `/"]`)
}

// links are the texts of the page's links, trimmed.
func (b *browserT) links(what string) []string {
	b.t.Helper()
	return value(b, what, chromedp.Evaluate[[]string](`[...document.links].map(a => a.textContent.trim())`))
}

// hasLinks fails the test unless the page has a link for each name (a
// directory's text may end in "/").
func (b *browserT) hasLinks(what string, names ...string) {
	b.t.Helper()
	have := map[string]bool{}
	for _, l := range b.links(what) {
		have[strings.TrimSuffix(l, "/")] = true
	}
	for _, n := range names {
		if !have[n] {
			b.t.Errorf("%s: no link %q among %q", what, n, b.links(what))
		}
	}
}

// TestBrowser browses the gateway with chromium: the front page's address
// field, a gopher menu, a text document, a type 7 search (labelled
// [IDX]); an ftp listing walked down two directories to a binary
// downloaded whole; a news group and an article; a WAIS search and a hit.
// No page may log an error.
func TestBrowser(t *testing.T) {
	gs := testserver.Gophernicus(t)
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	inn := testserver.INN(t)
	wais := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.TestDB()}})
	gw := servetest.Start(t, nil, serve.Options{}).URL
	b := startBrowser(t)

	t.Run("gopher", func(t *testing.T) {
		b := b.on(t)
		b.load("front page", chromedp.Navigate(gw+"/"))
		b.load("typing a gopher URL", chromedp.SendKeys(chromedp.CSS(`form.addr input[name=u]`), gs.URL("1/menu")+"\n"))
		menu := b.text("menu")
		if !strings.Contains(menu, "Welcome to the fixture menu") {
			t.Errorf("the menu page lacks its i line:\n%s", menu)
		}
		// The type 7 item reads as an index-search, not as a Gopher+ form.
		if !strings.Contains(menu, "[IDX] Search the docs") || strings.Contains(menu, "[ASK]") {
			t.Errorf("the menu's search item is not labelled [IDX]:\n%s", menu)
		}
		b.hasLinks("menu", "Hello", "Docs", "Binary")
		b.screenshot("serve-gopher")
		b.noProblems("gopher menu")
		menuURL := value(b, "location", chromedp.Location())
		b.load("following Hello", chromedp.Click(link("Hello")))
		if got := b.text("hello.txt"); strings.TrimSpace(got) != strings.TrimSpace(testserver.GopherHello) {
			t.Errorf("hello.txt shows %q, want %q", got, testserver.GopherHello)
		}
		b.noProblems("gopher text")
		b.load("back to the menu", chromedp.Navigate(menuURL))
		b.load("a type 7 search", chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "one\n"))
		res := b.text("search results")
		if !strings.Contains(res, `Search results for "one"`) || !strings.Contains(res, "docs/one.txt") || strings.Contains(res, "docs/two.txt") {
			t.Errorf("the search for \"one\" shows:\n%s", res)
		}
		b.load("a search hit", chromedp.Click(link("docs/one.txt")))
		if got := b.text("one.txt"); strings.TrimSpace(got) != strings.TrimSpace(testserver.GopherOne) {
			t.Errorf("docs/one.txt shows %q, want %q", got, testserver.GopherOne)
		}
		b.noProblems("gopher search")
	})

	t.Run("ftp", func(t *testing.T) {
		b := b.on(t)
		data := waistest.Bytes(700_001, 28)
		p := filepath.Join(ftp.Anon, "pub", "a", "b", "data.bin")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		b.load("ftp root", chromedp.Navigate(gw+"/"+ftp.URL+"/"))
		b.load("into pub", chromedp.Click(link("pub")))
		b.hasLinks("pub", "binary.bin", "hello.txt", "a", "empty")
		b.screenshot("serve-ftp")
		b.load("into a", chromedp.Click(link("a")))
		b.load("into b", chromedp.Click(link("b")))
		b.hasLinks("pub/a/b", "data.bin", "c")
		got := b.downloadClick("downloading data.bin", link("data.bin"))
		if sha256.Sum256(got) != sha256.Sum256(data) {
			t.Errorf("data.bin downloaded: %d bytes, sha256 differs from the served %d bytes", len(got), len(data))
		}
		b.noProblems("ftp")
	})

	t.Run("news", func(t *testing.T) {
		b := b.on(t)
		b.load("news group", chromedp.Navigate(gw+"/news://"+inn.Addr+"/local.test"))
		if group := b.text("local.test"); !strings.Contains(group, "Fixture Poster") {
			t.Errorf("the group page shows no author:\n%.3000s", group)
		}
		b.hasLinks("local.test", "Known article one", "Cross-posted article", "A long article")
		b.load("an article", chromedp.Click(link("Known article one")))
		art := b.text("article")
		for _, want := range []string{"Known article one", testserver.INNKnownID, "Fixture Poster <poster@example.net>", "This is the known article.", "and this is the last."} {
			if !strings.Contains(art, want) {
				t.Errorf("the article page lacks %q:\n%s", want, art)
			}
		}
		b.noProblems("news")
	})

	t.Run("wais", func(t *testing.T) {
		b := b.on(t)
		b.load("WAIS database", chromedp.Navigate(gw+"/"+wais.URL("test")))
		b.load("a WAIS search", chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "orchard\n"))
		if hits := b.text("WAIS hits"); !strings.Contains(hits, "apple.txt") || !strings.Contains(hits, "big.txt") || strings.Contains(hits, "one.bin") {
			t.Errorf("the WAIS search for orchard shows:\n%s", hits)
		}
		b.load("a WAIS hit", chromedp.Click(chromedp.Search(`//a[contains(normalize-space(), "apple.txt")]`)))
		if got := b.text("apple.txt"); strings.TrimSpace(got) != strings.TrimSpace(waistest.Apple) {
			t.Errorf("apple.txt shows %q, want %q", got, waistest.Apple)
		}
		b.noProblems("wais")
	})
}

// TestBrowserHostileMenu: a gopher menu with markup and script in every
// field, and h URL:javascript: links, shown in chromium: nothing of it runs
// (the title stays, nothing is fetched from the recorder the scripts
// call), it shows as text, and no javascript: link is made. Then a script
// put into the page by other means (DevTools) is refused by the CSP.
func TestBrowserHostileMenu(t *testing.T) {
	var hits atomic.Int64
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		t.Logf("recorder: %s %s", r.Method, r.URL)
	}))
	defer rec.Close()
	js := `document.title='pwned';fetch('` + rec.URL + `/script')`
	tag := `<script>` + js + `</script><img src="` + rec.URL + `/img" onerror="` + js + `">`
	menu := "i" + tag + "\tfake\t(NULL)\t0\r\n" +
		"0" + tag + "\t/" + tag + "\t127.0.0.1\t70\r\n" +
		"1Menu " + tag + "\t/x\t" + tag + "\t70\r\n" +
		"hLink\tURL:javascript:" + js + "\t127.0.0.1\t70\r\n" +
		"hLink two\tURL:JaVaScRiPt:" + js + "\t127.0.0.1\t70\r\n" +
		"h\"><script>" + js + "</script>\tURL:http://example.invalid/\"><script>" + js + "</script>\t127.0.0.1\t70\r\n" +
		".\r\n"
	hostile := gophertest.Start(t, gophertest.Bytes([]byte(menu)))
	gw := servetest.Start(t, nil, serve.Options{}).URL
	b := startBrowser(t).on(t)

	b.load("hostile menu", chromedp.Navigate(gw+"/"+hostile.URL("1/")))
	if title := value(b, "title", chromedp.Title()); strings.Contains(title, "pwned") {
		t.Errorf("a script of the menu ran: title %q", title)
	}
	if page := b.text("hostile menu"); !strings.Contains(page, "<script>document.title='pwned'") {
		t.Errorf("the markup of the menu is not shown as text:\n%s", page)
	}
	if n := value(b, "javascript: links", chromedp.Evaluate[int](`document.querySelectorAll('a[href^="javascript:" i], [onerror], [onload], script').length`)); n != 0 {
		t.Errorf("%d javascript: links, event handlers or script elements in the page", n)
	}
	b.noProblems("hostile menu")

	// A script element put in by DevTools (as if escaping had failed):
	// the CSP must refuse it, and the harness see the refusal.
	b.step("script put in", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.createElement('script'); s.textContent = "`+js+`"; document.body.appendChild(s) })()`))
	if title := value(b, "title", chromedp.Title()); strings.Contains(title, "pwned") {
		t.Errorf("the CSP let an inline script run: title %q", title)
	}
	if p := b.log.take(); !strings.Contains(strings.Join(p, "\n"), "Content Security Policy") {
		t.Errorf("no CSP refusal reported for the script put in: %q", p)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the recorder was reached %d times: a script or image of the menu was loaded", n)
	}
}
