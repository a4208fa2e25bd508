package serve

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/internal/testserver"
)

// bigGroup is a group of n articles numbered 1..n, with the sample groups.
func bigGroup(n int) []*nntptest.Group {
	g := &nntptest.Group{Name: "local.big", Description: "A <big> group", Status: "m"}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("<big-%d@example.net>", i)
		g.Articles = append(g.Articles, &nntptest.Article{MessageID: id, Head: []string{
			"From: Poster <p@example.net>", "Newsgroups: local.big", fmt.Sprintf("Subject: Article %d", i),
			"Date: Sat, 21 Nov 2026 07:37:18 +0000", "Message-ID: " + id}, Body: []string{"text"}})
	}
	return append(nntptest.Sample(), g)
}

// subjects are the article numbers a group page lists, in order.
func subjects(body string) []string {
	var got []string
	for _, m := range regexp.MustCompile(`>Article ([0-9]+)</a>`).FindAllStringSubmatch(body, -1) {
		got = append(got, m[1])
	}
	return got
}

// hrefOf is the target of the link labelled label, unescaped.
func hrefOf(t *testing.T, body, label string) string {
	t.Helper()
	m := regexp.MustCompile(`<a href="([^"]*)">` + regexp.QuoteMeta(label) + `</a>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// A group of 152 articles: the page shows the newest 100 and says which
// of how many; "older" leads to 1–52, and from there "newer" back to the
// newest page; none of the pages has a link past either end.
func TestNewsPaging(t *testing.T) {
	n := (&nntptest.Server{Groups: bigGroup(152)}).Start(t)
	_, srv := gateway(t, Options{})
	_, body := get(t, srv, "/nntp://"+n.Addr+"/local.big", "")
	if got := subjects(body); len(got) != 100 || got[0] != "53" || got[99] != "152" {
		t.Fatalf("the newest page lists %d articles %v…, want 53–152", len(got), got[:min(len(got), 3)])
	}
	if !strings.Contains(body, "articles 53–152 of 152") {
		t.Errorf("the page does not say which articles it shows:\n%.2000s", body)
	}
	if hrefOf(t, body, "newer →") != "" {
		t.Errorf("the newest page links to newer articles")
	}
	older := hrefOf(t, body, "← older")
	if older != "/.articles?u="+"nntp%3A%2F%2F"+strings.ReplaceAll(n.Addr, ":", "%3A")+"%2Flocal.big&last=52" {
		t.Fatalf("older link %q", older)
	}
	_, body = get(t, srv, older, "")
	if got := subjects(body); len(got) != 52 || got[0] != "1" || got[51] != "52" {
		t.Fatalf("the older page lists %v, want 1–52", got)
	}
	if !strings.Contains(body, "articles 1–52 of 152") || hrefOf(t, body, "← older") != "" {
		t.Errorf("the oldest page:\n%.2000s", body)
	}
	newer := hrefOf(t, body, "newer →")
	_, body = get(t, srv, newer, "")
	if got := subjects(body); len(got) != 100 || got[0] != "53" {
		t.Errorf("newer from the oldest page (%s) lists %v…", newer, got[:min(len(got), 3)])
	}
	checkPage(t, body, "a")
	if res, _ := get(t, srv, "/.articles?u=nntp://"+n.Addr+"/local.big&last=x", ""); res.StatusCode != 400 {
		t.Errorf("a bad last: %d", res.StatusCode)
	}
}

// The group list: each group with its article count, numbers, status and
// description (LIST ACTIVE and LIST NEWSGROUPS, as urlget news:*
// --describe prints them), escaped.
func TestNewsGroupList(t *testing.T) {
	n := (&nntptest.Server{Groups: bigGroup(152)}).Start(t)
	_, srv := gateway(t, Options{})
	_, body := get(t, srv, "/nntp://"+n.Addr+"/", "")
	for _, want := range []string{
		`<th>Group</th><th>Articles</th><th>Numbers</th><th>Status</th><th>Description</th>`,
		`<tr><td><a href="/nntp://` + n.Addr + `/local.big">local.big</a></td><td class="n">152</td><td class="n">1–152</td><td>m (moderated)</td><td>A &lt;big&gt; group</td></tr>`,
		`<tr><td><a href="/nntp://` + n.Addr + `/local.test">local.test</a></td><td class="n">5</td><td class="n">1–5</td><td>y (posting)</td><td>Local test group</td></tr>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("group list lacks %s:\n%s", want, body)
		}
	}
	checkPage(t, body, "a")
}

// The news pages against INN: a group page of 10 (Options.NewsPage) says
// "articles 21–30 of 30" and pages back to 11–20; the group list shows
// INN's counts, statuses and descriptions; an article's body follows its
// header table in a pre of its own.
func TestNewsINN(t *testing.T) {
	inn := testserver.INN(t)
	_, srv := gateway(t, Options{NewsPage: 10})
	_, body := get(t, srv, "/news://"+inn.Addr+"/local.test", "")
	if !strings.Contains(body, "articles 21–30 of 30") {
		t.Errorf("local.test's page:\n%.3000s", body)
	}
	older := hrefOf(t, body, "← older")
	_, body = get(t, srv, older, "")
	if !strings.Contains(body, "articles 11–20 of 30") || hrefOf(t, body, "newer →") == "" || hrefOf(t, body, "← older") == "" {
		t.Errorf("the older page (%s):\n%.3000s", older, body)
	}
	_, body = get(t, srv, "/nntp://"+inn.Addr+"/", "")
	for _, g := range testserver.INNGroups {
		want := `>` + g.Name + `</a></td><td class="n">`
		if !strings.Contains(body, want) || !strings.Contains(body, "<td>y (posting)</td><td>"+html.EscapeString(g.Description)+"</td>") {
			t.Errorf("the group list lacks %s with its status and description:\n%s", g.Name, body)
		}
	}
	if !strings.Contains(body, `>local.test</a></td><td class="n">30</td><td class="n">1–30</td>`) ||
		!strings.Contains(body, `>control</a></td><td class="n">0</td><td class="n"></td><td>n (no posting)</td><td>Various control messages.</td>`) {
		t.Errorf("the group list's counts:\n%s", body)
	}
	_, body = get(t, srv, "/nntp://"+inn.Addr+"/"+url.PathEscape(testserver.INNKnownID), "")
	if i, j := strings.Index(body, "</table>"), strings.Index(body, `<pre class="body">This is the known article.`); i < 0 || j < i {
		t.Errorf("the article's body does not follow its header table:\n%s", body)
	}
	checkPage(t, body, "a")
}

// Mounted below /gw/ of an http.ServeMux, a group page's older and newer
// links stay below the mount and reach the Handler uncleaned.
func TestNewsPagingMounted(t *testing.T) {
	n := (&nntptest.Server{Groups: bigGroup(152)}).Start(t)
	for _, c := range []struct {
		name string
		opt  Options
		mnt  func(mux *http.ServeMux, h *Handler)
	}{
		{"StripPrefix", Options{}, func(mux *http.ServeMux, h *Handler) { mux.Handle("/gw/", http.StripPrefix("/gw", h)) }},
		{"Base", Options{Base: "/gw/"}, func(mux *http.ServeMux, h *Handler) { mux.Handle("/gw/", h) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.opt.Resolver = newStub(nil)
			h, err := New(&fetch.Client{NoProxy: "*"}, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			mux := http.NewServeMux()
			c.mnt(mux, h)
			srv := httptest.NewServer(mux)
			defer srv.Close()
			cl := noCleaning(srv)
			_, body := getWith(t, cl, srv.URL+"/gw/nntp%3A%2F%2F"+n.Addr+"/local.big")
			older := hrefOf(t, body, "← older")
			if !strings.HasPrefix(older, "/gw/.articles?") {
				t.Fatalf("older link %q:\n%.2000s", older, body)
			}
			res, body := getWith(t, cl, srv.URL+older)
			if res.StatusCode != 200 || !strings.Contains(body, "articles 1–52 of 152") {
				t.Errorf("%s: %d\n%.2000s", older, res.StatusCode, body)
			}
		})
	}
}
