package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/serve"
	"github.com/urlget/urlget/serve/servetest"
)

// TestBrowserNews browses INN's groups as a person does: the group list
// shows each group's article count, status and description; a group page
// of 10 says which articles of how many it shows and pages back and
// forth; an article's body is drawn below its header table, set apart
// from it, not among its rows.
func TestBrowserNews(t *testing.T) {
	inn := testserver.INN(t)
	gw := servetest.Start(t, nil, serve.Options{NewsPage: 10}).URL
	b := startBrowser(t).on(t)

	b.load("the group list", chromedp.Navigate(gw+"/nntp://"+inn.Addr+"/"))
	rows := value(b, "group rows", chromedp.Evaluate[[]string](`[...document.querySelectorAll('table.groups tr')].map(r => [...r.cells].map(c => c.innerText.trim()).join('|'))`))
	want := map[string]bool{
		"local.test|30|1–30|y (posting)|" + testserver.INNGroups[0].Description: false,
		"local.empty|0||y (posting)|" + testserver.INNGroups[2].Description:     false,
	}
	for _, r := range rows {
		if _, ok := want[r]; ok {
			want[r] = true
		}
	}
	for r, seen := range want {
		if !seen {
			t.Errorf("the group list has no row %q: %q", r, rows)
		}
	}
	b.screenshot("serve-news-groups")
	b.noProblems("group list")

	b.load("into local.test", chromedp.Click(link("local.test")))
	if page := b.text("local.test"); !strings.Contains(page, "articles 21–30 of 30") {
		t.Errorf("the group page does not say which articles it shows:\n%.2000s", page)
	}
	b.load("older articles", chromedp.Click(link("← older")))
	if page := b.text("older"); !strings.Contains(page, "articles 11–20 of 30") {
		t.Errorf("the older page:\n%.2000s", page)
	}
	b.load("newer again", chromedp.Click(link("newer →")))
	if page := b.text("newer"); !strings.Contains(page, "articles 21–30 of 30") {
		t.Errorf("newer from the older page:\n%.2000s", page)
	}
	b.noProblems("group pages")

	b.load("an article", chromedp.Navigate(gw+"/news://"+inn.Addr+"/"+strings.Trim(testserver.INNKnownID, "<>")))
	// The body's top is below the table's bottom, with a gap a reader
	// sees, and it is not inside the table.
	gap := value(b, "layout", chromedp.Evaluate[float64](`(() => {
		const t = document.querySelector('table.hdr'), p = document.querySelector('pre.body');
		if (!t || !p || t.contains(p)) return -1000;
		return p.getBoundingClientRect().top - t.getBoundingClientRect().bottom; })()`))
	if gap < 8 {
		t.Errorf("the article's body starts %.0f px below its header table, want a gap of at least 8", gap)
	}
	if body := value(b, "body text", chromedp.Evaluate[string](`document.querySelector('pre.body').innerText`)); !strings.HasPrefix(body, "This is the known article.") {
		t.Errorf("the article's body block holds %.200q", body)
	}
	b.screenshot("serve-news-article")
	b.noProblems("article")
}
