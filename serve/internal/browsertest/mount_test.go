package browsertest

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/serve"
)

// utf8Doc is a gopher text document in UTF-8, which gophernicus serves
// without a word of its charset.
const utf8Doc = "Grüße aus Köln — 日本語のテキスト\n"

// TestBrowserMounted browses the gateway mounted below /gw/ of a
// program's http.ServeMux (http.StripPrefix), every other path of which is
// a 404: the address field, a gophernicus menu, a link, the search form
// and back stay below /gw/ (a page that left it would fail to load). A
// UTF-8 text document shows as its characters, not as mojibake.
func TestBrowserMounted(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	if err := testserver.GopherFixtures(root); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "utf8.txt"), []byte(utf8Doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{root, filepath.Dir(root), filepath.Dir(filepath.Dir(root))} {
		os.Chmod(d, 0o755) // gophernicus runs as nobody
	}
	gs := testserver.StartGophernicus(t, testserver.GopherConfig{Root: root})
	h, err := serve.New(&fetch.Client{NoProxy: "*"}, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/gw/", http.StripPrefix("/gw", h))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "not the gateway", http.StatusNotFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.Close(); h.CloseIdleConnections() })
	gw := srv.URL + "/gw"
	b := startBrowser(t)

	// under checks where a load led (the response's URL: the location
	// of a document, which runs sandboxed, is not asked of the page).
	under := func(what string, res *network.Response) {
		t.Helper()
		if !strings.HasPrefix(res.URL, gw+"/") {
			t.Errorf("%s: at %s, not below %s/", what, res.URL, gw)
		}
	}
	b.load("front page", chromedp.Navigate(gw+"/"))
	menu := b.load("typing a gopher URL", chromedp.SendKeys(chromedp.CSS(`form.addr input[name=u]`), gs.URL("1/menu")+"\n"))
	under("the menu", menu)
	if menu := b.text("menu"); !strings.Contains(menu, "Welcome to the fixture menu") {
		t.Errorf("the menu page lacks its i line:\n%s", menu)
	}
	under("hello.txt", b.load("following Hello", chromedp.Click(link("Hello"))))
	if got := b.text("hello.txt"); strings.TrimSpace(got) != strings.TrimSpace(testserver.GopherHello) {
		t.Errorf("hello.txt shows %q, want %q", got, testserver.GopherHello)
	}
	b.load("back to the menu", chromedp.Navigate(menu.URL))
	under("the search", b.load("a type 7 search", chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "one\n")))
	if res := b.text("search results"); !strings.Contains(res, "docs/one.txt") {
		t.Errorf("the search for \"one\" shows:\n%s", res)
	}
	under("the hit", b.load("a search hit", chromedp.Click(link("docs/one.txt"))))
	b.load("the address field again", chromedp.Navigate(gw+"/"))
	under("utf8.txt", b.load("typing a UTF-8 text's URL", chromedp.SendKeys(chromedp.CSS(`form.addr input[name=u]`), gs.URL("0/utf8.txt")+"\n")))
	if got := b.text("utf8.txt"); strings.TrimSpace(got) != strings.TrimSpace(utf8Doc) {
		t.Errorf("utf8.txt shows %q, want %q", got, utf8Doc)
	}
	b.noProblems("mounted gateway")
}
