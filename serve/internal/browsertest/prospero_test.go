package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/urlget/urlget/fetch/prospero/prosperotest"
	"github.com/urlget/urlget/serve"
	"github.com/urlget/urlget/serve/servetest"
)

// TestBrowserProspero browses a Prospero server that fails as the stock
// dirsrv does: a native directory offers its parent and it works; a
// GOPHER-GW menu shows its text lines as text (no row "file - -" linking
// prospero://NULL/NULL) and offers no parent, whose name would crash the
// server; the server is still answering at the end.
func TestBrowserProspero(t *testing.T) {
	root := prosperotest.DefaultRoot
	s := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root: {Dir: true}, root + "/pub": {Dir: true}, root + "/pub/docs": {Dir: true},
		root + "/pub/docs/one.txt": {Contents: []byte("one\n")},
	}}
	addr := s.Start(t)
	menu := "GOPHER-GW/127.0.0.1(70)/1/"
	s.Set(menu, &prosperotest.Object{Dir: true, Links: []string{
		"LINK L NULL '' NULL NULL NULL NULL 0",
		"LINK L NULL 'Welcome to the gateway menu' NULL NULL NULL NULL 0",
		"LINK L DIRECTORY Docs INTERNET-D " + s.Host() + " ASCII 'GOPHER-GW/127.0.0.1(70)/1/docs' 0",
	}})
	gw := servetest.Start(t, nil, serve.Options{}).URL
	b := startBrowser(t).on(t)

	b.load("a native directory", chromedp.Navigate(gw+"/prospero://"+addr+"/"+root+"/pub/docs"))
	b.hasLinks("docs", "one.txt", "↑ parent directory")
	b.load("its parent", chromedp.Click(link("↑ parent directory")))
	b.hasLinks("pub", "docs")

	b.load("a gateway menu", chromedp.Navigate(gw+"/prospero://"+addr+"/"+menu))
	page := b.text("menu")
	if !strings.Contains(page, "Welcome to the gateway menu") || strings.Contains(page, "NULL") || strings.Contains(page, "file\t-") {
		t.Errorf("the menu page shows:\n%s", page)
	}
	for _, l := range b.links("menu") {
		if strings.Contains(l, "parent") || l == "" {
			t.Errorf("the menu has a link %q: %q", l, b.links("menu"))
		}
	}
	b.hasLinks("menu", "Docs")
	b.screenshot("serve-prospero-gopher-gw")
	b.noProblems("prospero")
	if c := s.Crashed(); c != "" {
		t.Errorf("the server crashed: %s", c)
	}
}
