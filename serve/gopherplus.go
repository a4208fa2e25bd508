package serve

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/urlparse"
)

// attributesURL is the URL that asks a Gopher+ server for the attributes
// of the item at u (gopher+ string "!"), "" when u is not a gopher URL.
func attributesURL(u string) string {
	p, err := urlparse.Parse(u)
	if err != nil || (p.Scheme != "gopher" && p.Scheme != "gophers") {
		return ""
	}
	return urlparse.GopherPlusURL(p.Scheme, p.Host, p.Port, p.Gopher.Type, p.Gopher.Selector, "", "!")
}

// isAttributes reports whether u asks for Gopher+ attributes ("!", or "$"
// for every item of a menu).
func isAttributes(u *urlparse.URL) bool {
	return (u.Scheme == "gopher" || u.Scheme == "gophers") && u.Gopher.HasPlus &&
		(strings.HasPrefix(u.Gopher.Plus, "!") || strings.HasPrefix(u.Gopher.Plus, "$"))
}

// attributes writes a Gopher+ attribute reply as HTML, one item at a
// time: its +INFO as a link, +VIEWS as links to each view, +ABSTRACT,
// +ADMIN and the other blocks as text.
func (h *Handler) attributes(w *logWriter, r *http.Request, q *query, u *urlparse.URL, res *fetch.Resource, status int) {
	h.stream(w, r, q, res, status, "attributes", func(p *page, body io.Reader) error {
		ar := gopher.NewAttributeReader(body)
		for {
			a, err := ar.Next()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			p.item(u.Scheme, &a)
		}
	})
}

// item writes the attributes of one Gopher+ item.
func (p *page) item(scheme string, a *gopher.Attributes) {
	e := a.Info.Entry(scheme)
	p.raw("<h2>")
	if e.Unparsed {
		p.text("(an item without +INFO)")
	} else {
		label := e.Name
		if label == "" {
			label = e.URL
		}
		p.link(e.URL, label)
	}
	p.raw("</h2>\n")
	for _, b := range a.Blocks {
		switch b.Name {
		case "INFO":
			continue
		case "ASK":
			if !e.Unparsed {
				p.askForm(urlparse.GopherPlusURL(scheme, a.Info.Host, a.Info.Port, a.Info.Type, a.Info.Selector, "", "?"), gopher.ParseAsk(b))
			}
			continue
		case "VIEWS":
			p.raw("<h3>Views</h3>\n<ul>\n")
			for _, v := range a.Views() {
				label := v.Type
				if v.Language != "" {
					label += " (" + v.Language + ")"
				}
				if v.Size != "" {
					label += " <" + v.Size + ">"
				}
				p.raw("<li>")
				if e.Unparsed {
					p.text(label)
				} else {
					p.link(urlparse.GopherPlusURL(scheme, a.Info.Host, a.Info.Port, a.Info.Type, a.Info.Selector, "", v.Param()), label)
				}
				p.raw("</li>\n")
			}
			p.raw("</ul>\n")
			continue
		}
		p.raw("<h3>+")
		p.text(b.Name)
		if b.Value != "" {
			p.raw(" ")
			p.text(b.Value)
		}
		p.raw("</h3>\n")
		if len(b.Lines) > 0 {
			p.raw("<pre>")
			for _, l := range b.Lines {
				p.text(l)
				p.raw("\n")
			}
			p.raw("</pre>\n")
		}
	}
}

// askPath is where +ASK forms send their answers.
const askPath = "/.ask"

// askForm writes a Gopher+ +ASK block as a form: one field "a" per
// question that takes an answer, in order (what gopher.OptAsk wants),
// notes as text. The answers go to askPath, which fetches u (the item
// with the gopher+ string "?") with them.
func (p *page) askForm(u string, qs []gopher.Question) {
	p.raw("<h3>Form</h3>\n")
	p.raw(`<form method="get" action="`)
	p.text(strings.TrimSuffix(p.search, searchPath) + askPath)
	p.raw(`"><input type="hidden" name="u" value="`)
	p.text(u)
	p.raw("\">\n")
	for _, q := range qs {
		p.raw("<p>")
		switch {
		case !q.NeedsAnswer():
			p.text(q.Prompt)
		case q.Kind == "Choose" && len(q.Choices) > 0:
			p.raw("<label>")
			p.text(q.Prompt)
			p.raw(` <select name="a">`)
			for _, c := range q.Choices {
				p.raw(`<option value="`)
				p.text(c)
				p.raw(`">`)
				p.text(c)
				p.raw("</option>")
			}
			p.raw("</select></label>")
		default:
			kind := "text"
			if q.Kind == "AskP" {
				kind = "password"
			}
			p.raw("<label>")
			p.text(q.Prompt)
			p.raw(` <input type="`)
			p.text(kind)
			p.raw(`" name="a" size="40" value="`)
			p.text(q.Default)
			p.raw(`"></label>`)
		}
		p.raw("</p>\n")
	}
	p.raw("<p><button>Send</button></p></form>\n")
}
