package serve

import (
	"net/url"
	"strconv"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/nntp"
)

// pagePath is where a group page's links to older and newer articles go:
// /.articles?u=GROUP-URL&last=N, the page of articles up to N.
const pagePath = "/.articles"

// DefaultNewsPage is how many articles a group page shows when
// Options.NewsPage does not say.
const DefaultNewsPage = nntp.DefaultMaxArticles

// newsOptions asks a news fetch for what the pages show: a page of
// articles (up to q.last when set), groups with their descriptions.
func (h *Handler) newsOptions(q *query, opts fetch.Options) {
	opts[nntp.OptMaxArticles] = strconv.Itoa(h.opt.NewsPage)
	opts[nntp.OptDescribe] = "1"
	if q.last > 0 {
		opts[nntp.OptLast] = strconv.FormatInt(q.last, 10)
	}
}

// newsPage is the state of a group page or a group list being written.
type newsPage struct {
	kind fetch.EntryType // the table's kind once its head is written (EntryDir: groups), else 0
	open bool
}

// groupNav writes where a group page is among the group's articles
// ("articles 53–152 of 152") with links to the older and newer pages,
// when res is a group's listing (nntp.GroupNumbers).
func (p *page) groupNav(q *query, res *fetch.Resource, size int) {
	count, low, high, ok := nntp.GroupNumbers(&res.Meta)
	if !ok {
		return
	}
	last := high
	if q.last > 0 {
		last = min(high, q.last)
	}
	first := max(low, last-int64(size)+1)
	p.raw(`<p class="nav">`)
	switch {
	case count == 0 || high < low || last < low:
		p.raw("no articles")
		if count > 0 && high >= low {
			p.raw(" up to number " + strconv.FormatInt(last, 10) + " (the group holds " + strconv.FormatInt(low, 10) + "–" + strconv.FormatInt(high, 10) + ")")
		}
	default:
		p.raw("articles " + strconv.FormatInt(first, 10) + "–" + strconv.FormatInt(last, 10) + " of " + strconv.FormatInt(count, 10))
	}
	if last >= low && first > low {
		p.raw(" · ")
		p.ownLink(pagePath+"?u="+url.QueryEscape(q.target)+"&last="+strconv.FormatInt(first-1, 10), "← older")
	}
	if last < high {
		p.raw(" · ")
		p.ownLink(pagePath+"?u="+url.QueryEscape(q.target)+"&last="+strconv.FormatInt(min(high, max(last, low-1)+int64(size)), 10), "newer →")
	}
	p.raw("</p>\n")
}

// ownLink writes a link to one of the gateway's own paths (pagePath…).
func (p *page) ownLink(path, label string) {
	p.raw(`<a href="`)
	p.text(p.own + path)
	p.raw(`">`)
	p.text(label)
	p.raw("</a>")
}

// groupStatus says what a LIST ACTIVE status means.
func groupStatus(s string) string {
	switch s {
	case "y":
		return "y (posting)"
	case "n":
		return "n (no posting)"
	case "m":
		return "m (moderated)"
	case "x":
		return "x (no local posting)"
	case "j":
		return "j (junk)"
	}
	if len(s) > 1 && s[0] == '=' {
		return "= (an alias of " + s[1:] + ")"
	}
	return s
}

// newsRow writes one article of a group's overview, or one group of a
// group list (its numbers and status read with nntp.ParseGroupLine),
// starting the table for its kind at the first.
func (p *page) newsRow(e fetch.Entry) {
	kind := e.Type
	if e.Unparsed {
		kind = p.news.kind
	}
	if !p.news.open {
		p.news.open, p.news.kind = true, kind
		if kind == fetch.EntryDir {
			p.raw(`<table class="groups"><tr><th>Group</th><th>Articles</th><th>Numbers</th><th>Status</th><th>Description</th></tr>` + "\n")
		} else {
			p.raw("<table><tr><th>#</th><th>Subject</th><th>From</th><th>Date</th></tr>\n")
		}
	}
	if e.Unparsed {
		p.unparsed(e.Raw, 4)
		return
	}
	if e.Type == fetch.EntryDir {
		g, err := nntp.ParseGroupLine([]byte(e.Raw))
		if err != nil {
			g = nntp.GroupEntry{Name: e.Name, Description: e.Title, High: -1, Low: 0}
		}
		p.raw("<tr><td>")
		p.link(e.URL, e.Name)
		p.raw(`</td><td class="n">`)
		if g.High >= g.Low {
			p.raw(strconv.FormatInt(g.High-g.Low+1, 10))
		} else if g.High >= 0 {
			p.raw("0")
		}
		p.raw(`</td><td class="n">`)
		if g.High >= g.Low {
			p.raw(strconv.FormatInt(g.Low, 10) + "–" + strconv.FormatInt(g.High, 10))
		}
		p.raw("</td><td>")
		p.text(groupStatus(g.Status))
		p.raw("</td><td>")
		p.text(g.Description)
		p.raw("</td></tr>\n")
		return
	}
	p.raw(`<tr><td class="n">`)
	p.text(e.Name)
	p.raw("</td><td>")
	title := e.Title
	if title == "" {
		title = "(no subject)"
	}
	p.link(e.URL, title)
	p.raw("</td><td>")
	p.text(e.Author)
	p.raw("</td><td>")
	p.date(e.ModTime)
	p.raw("</td></tr>\n")
}

// newsEnd ends the table newsRow started, or says there was nothing.
func (p *page) newsEnd() {
	if p.news.open {
		p.raw("</table>\n")
		return
	}
	p.para("t", "nothing listed")
}
