package serve

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// style is the pages' one style sheet; the Content-Security-Policy allows
// it by its hash, and nothing else.
const style = `body{font-family:sans-serif;margin:1em 2em;max-width:70em}` +
	`form.addr input[name=u]{width:60%}pre{font-family:monospace;margin:0}` +
	`.menu form{display:inline;margin:0}.t{color:#666}.error{color:#a00}` +
	`table{border-collapse:collapse}td,th{padding:.1em .8em;text-align:left;vertical-align:top}` +
	`td.n{text-align:right}tr:nth-child(even){background:#f4f4f4}.hdr th{white-space:nowrap}` +
	`pre.body{margin-top:1em;padding-top:1em;border-top:1px solid #999;white-space:pre-wrap}.nav{margin:.5em 0}`

var styleSrc = func() string {
	sum := sha256.Sum256([]byte(style))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// pageCSP is the Content-Security-Policy of the gateway's own pages: no
// script, no images, no frames, the one style sheet, forms only to the
// gateway (self: the front's origin; a proxy client's pages name the
// gateway's address).
func pageCSP(formTo string) string {
	return "default-src 'none'; style-src " + styleSrc + "; form-action " + formTo +
		"; base-uri 'none'; frame-ancestors 'none'"
}

// page writes one HTML page of the gateway.
type page struct {
	w      io.Writer
	title  string
	q      *query
	search string // the search forms' action
	front  bool   // links go through the web front ("/URL"), not as absolute URLs (proxy clients)
	m      mount  // where the web front is
	// links caches linkKind by scheme for the page's links.
	links map[string]int
	own   string   // the gateway's own paths start so: the mount, or http://ADDR for a proxy client
	news  newsPage // a news listing being written
}

// page sets the header fields of an HTML page and returns it, ready to
// start once the status is written.
func (h *Handler) page(w http.ResponseWriter, r *http.Request, q *query, title string) *page {
	m, _ := h.mountOf(r)
	p := &page{w: w, title: title, q: q, own: m.base, front: q == nil || !q.proxy, m: m}
	formTo := "'self'"
	if !p.front {
		// A proxy client's page has the target's origin: its forms name
		// the gateway by its address.
		if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			p.own = "http://" + a.String()
			formTo = "http://" + a.String()
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", pageCSP(formTo))
	w.Header().Set("Cache-Control", "no-store")
	p.search = p.own + searchPath
	return p
}

func (p *page) raw(s string) { io.WriteString(p.w, s) }

// text writes s escaped for HTML text or a quoted attribute value.
func (p *page) text(s string) { writeEscaped(p.w, s) }

// start writes the head of the page and the address field.
func (p *page) start() {
	p.raw("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>")
	p.text(p.title)
	p.raw("</title><style>" + style + "</style></head><body>\n")
	if p.front {
		p.raw(`<form class="addr" method="get" action="`)
		p.text(p.m.base + "/")
		p.raw(`"><input name="u" size="80" value="`)
		if p.q != nil {
			p.text(p.q.target)
		}
		p.raw(`" placeholder="gopher://, ftp://, news:, wais://, prospero:// …"> <button>Go</button></form>` + "\n")
	}
	p.raw("<h1>")
	p.text(p.title)
	p.raw("</h1>\n")
}

func (p *page) para(class, s string) {
	p.raw(`<p class="`)
	p.text(class)
	p.raw(`">`)
	p.text(s)
	p.raw("</p>\n")
}

func (p *page) end() { p.raw("</body></html>\n") }

// link writes an anchor for u labelled label, or the label alone when u
// may not be a link (see linkTo).
func (p *page) link(u, label string) {
	switch p.linkTo(u) {
	case noLink:
		p.text(label)
		return
	case throughFront:
		p.raw(`<a href="`)
		// The front's path escaped for a quoted attribute value, without
		// building either string: the links of a long listing cost no
		// allocation.
		p.m.writePath(p.w, u, &pathAttrReplace)
	default:
		p.raw(`<a href="`)
		p.text(u)
	}
	p.raw(`">`)
	p.text(label)
	p.raw("</a>")
}

// How a page links to a URL.
const (
	noLink       = iota
	direct       // the URL itself: a proxy client's page, or what the gateway does not fetch
	throughFront // /URL, the web front's
)

// linkTo says how a page links to u: a URL the gateway fetches, through
// it (the front's /URL, or the URL itself for a proxy client, whose next
// request comes back through the proxy); one a browser fetches itself
// (http, https) or the gateway does not carry out (the sessions, mail),
// directly; anything else (javascript:, data:, vbscript:, a scheme urlget
// does not know) is no link. What a scheme is comes from its fetch.Scheme
// record.
func (p *page) linkTo(u string) int {
	scheme, ok := schemeOf(u)
	if !ok {
		return noLink
	}
	k, known := p.links[scheme]
	if !known {
		if p.links == nil {
			p.links = map[string]int{}
		}
		k = linkKind(scheme)
		p.links[scheme] = k
	}
	if k == throughFront && !p.front {
		return direct
	}
	return k
}

// linkKind is how the web front links to URLs of scheme (see linkTo).
func linkKind(scheme string) int {
	s, ok := fetch.LookupScheme(scheme)
	switch {
	case !ok:
		return noLink
	case s.Caps.Has(fetch.SpeaksHTTP) || !gatewayed(scheme):
		return direct
	}
	return throughFront
}

// gatewayed reports whether the gateway fetches URLs of scheme: not the
// interactive sessions (telnet, rlogin, tn3270) nor mail.
func gatewayed(scheme string) bool {
	s, ok := fetch.LookupScheme(scheme)
	return ok && !s.Caps.Has(fetch.Session) && !s.Caps.Has(fetch.Mail)
}

// schemeOf is the scheme of an absolute URL in lower case, when u is one
// that can be a link: a scheme of letters, digits, "+", "-" and "."
// starting with a letter, and no space, control byte or backslash anywhere
// (browsers drop tabs and line ends inside URLs, so "java\tscript:" would
// be javascript:).
func schemeOf(u string) (string, bool) {
	for i := 0; i < len(u); i++ {
		if c := u[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return "", false
		}
	}
	i := strings.IndexByte(u, ':')
	if i <= 0 {
		return "", false
	}
	for j := 0; j < i; j++ {
		c := u[j] | 0x20
		switch {
		case c >= 'a' && c <= 'z':
		case j > 0 && (u[j] >= '0' && u[j] <= '9' || u[j] == '+' || u[j] == '-' || u[j] == '.'):
		default:
			return "", false
		}
	}
	return strings.ToLower(u[:i]), true
}

// searchForm writes a form that fetches u with search words, words
// filled in.
func (p *page) searchForm(u, label, words string) {
	p.raw(`<form method="get" action="`)
	p.text(p.search)
	p.raw(`"><input type="hidden" name="u" value="`)
	p.text(u)
	p.raw(`"><input name="q" size="30" value="`)
	p.text(words)
	p.raw(`" aria-label="`)
	p.text(label)
	p.raw(`"> <button>Search</button></form>`)
}

// searchFirst writes the search form of a page whose URL takes search
// words (query.searchable), with the words of this search.
func (p *page) searchFirst() {
	if p.q != nil && p.q.searchable != "" {
		p.raw("<p>")
		p.searchForm(p.q.searchable, "search words", p.q.search)
		p.raw("</p>\n")
	}
}

// searchPage is the page of a search that cannot be fetched without its
// words: the form alone.
func (h *Handler) searchPage(w *logWriter, r *http.Request, q *query) {
	p := h.page(w, r, q, fetch.SanitizeLine(q.target, 300))
	w.WriteHeader(http.StatusOK)
	if q.head {
		return
	}
	p.start()
	p.searchFirst()
	p.end()
}

// front is the page at "/".
func (h *Handler) front(w *logWriter, r *http.Request) {
	p := h.page(w, r, nil, "urlget serve")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	p.start()
	p.para("", "Type a URL above: gopher://, gophers://, ftp://, news: and nntp://, wais://, prospero://, http:// and https://. Or ask for /URL directly, for example /gopher://gopher.floodgap.com/1/.")
	p.end()
}

// stream writes a page whose body render makes from the resource's body
// as it arrives (a listing, an article, attributes): memory stays flat
// whatever the length, and a browser shows the first lines at once. A read
// error ends the page with a line saying so; a write error cuts the reply.
func (h *Handler) stream(w *logWriter, r *http.Request, q *query, res *fetch.Resource, status int, what string, render func(p *page, body io.Reader) error) {
	p := h.page(w, r, q, fetch.SanitizeLine(q.target, 300))
	w.WriteHeader(status)
	if q.head {
		return
	}
	err := fetch.Buffered(flusher{w}, res.Body, func(bw io.Writer, body io.Reader) error {
		p.w = bw
		p.start()
		p.searchFirst()
		return render(p, body)
	})
	if err != nil {
		if fetch.KindOf(err) == fetch.ErrWrite {
			cut(w)
		}
		p.w = w
		p.para("error", "the "+what+" ended early: "+fetch.SanitizeLine(err.Error(), 300))
	}
	p.end()
}

// listing writes a directory-like result as HTML, entry by entry.
func (h *Handler) listing(w *logWriter, r *http.Request, q *query, res *fetch.Resource, status int) {
	// The listing's form is its scheme's: the one finally fetched (a
	// Prospero name may refer to a gopher menu).
	scheme, _ := schemeOf(q.target)
	if s, ok := schemeOf(res.EffectiveURL); ok {
		scheme = s
	}
	h.stream(w, r, q, res, status, "listing", func(p *page, body io.Reader) error {
		s, _ := fetch.LookupScheme(scheme)
		if parent := parentOf(s, q.target); parent != "" {
			p.raw(`<p>`)
			p.link(parent, "↑ parent directory")
			p.raw("</p>\n")
		}
		var rows func(e fetch.Entry)
		switch s.Layout {
		case fetch.LayoutMenu:
			p.raw(`<pre class="menu">`)
			rows = p.menuItem
			defer p.raw("</pre>\n")
		case fetch.LayoutArticles:
			p.groupNav(q, res, h.opt.NewsPage)
			rows = p.newsRow
			defer p.groupNav(q, res, h.opt.NewsPage)
			defer p.newsEnd()
		case fetch.LayoutHits:
			p.raw("<table><tr><th>Score</th><th>Document</th><th>Size</th></tr>\n")
			rows = p.hitRow
			defer p.raw("</table>\n")
		default:
			p.raw("<table><tr><th>Name</th><th>Size</th><th>Date</th><th>Type</th></tr>\n")
			rows = p.fileRow
			defer p.raw("</table>\n")
		}
		for e, err := range res.EntriesFrom(body) {
			if err != nil {
				return err
			}
			rows(e)
		}
		return nil
	})
}

// flusher writes to the client and sends it at once: fetch.Buffered
// flushes whenever the upstream pauses.
type flusher struct{ w *logWriter }

func (f flusher) Write(b []byte) (int, error) {
	n, err := f.w.Write(b)
	f.w.Flush()
	return n, err
}

// parentOf is the directory above a listing's URL u of scheme s, "" when
// there is none or the scheme's paths are not directories (fetch.DirPaths;
// Scheme.Parent when the scheme says).
func parentOf(s fetch.Scheme, u string) string {
	if !s.Caps.Has(fetch.DirPaths) {
		return ""
	}
	if s.Parent != nil {
		pu, err := urlparse.Parse(u)
		if err != nil {
			return ""
		}
		return s.Parent(&pu)
	}
	i := strings.Index(u, "://")
	if i < 0 {
		return ""
	}
	rest := strings.TrimRight(u[i+3:], "/")
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return ""
	}
	k := strings.LastIndexByte(rest, '/')
	return u[:i+3] + rest[:k+1]
}

// itemLabels mark gopher item types in a menu.
var itemLabels = map[byte]string{
	'0': "TXT", '1': "DIR", '2': "CSO", '3': "ERR", '4': "HQX", '5': "DOS", '6': "UUE",
	'7': "IDX", '8': "TEL", '9': "BIN", '+': "MIR", 'g': "GIF", 'I': "IMG", 'T': "327",
	'h': "WWW", 's': "SND", 'd': "DOC", 'p': "PNG", ';': "MOV", 'r': "RTF", 'P': "PDF", 'c': "CAL", 'M': "MIM",
}

// menuItem writes one line of a gopher menu: info lines as text, the
// others as links into the gateway (h URL: links to their target when
// its scheme is safe; telnet and tn3270 items as session links), search
// items as forms.
func (p *page) menuItem(e fetch.Entry) {
	if e.Unparsed {
		p.raw(`<span class="t">`)
		p.text(e.Raw)
		p.raw("</span>\n")
		return
	}
	label, ok := itemLabels[e.ItemType]
	if !ok {
		label = "?" + string(rune(e.ItemType))
		if e.ItemType >= utf8.RuneSelf || e.ItemType < ' ' {
			label = "???"
		}
	}
	switch e.ItemType {
	case 'i':
		p.raw("      ")
		p.text(e.Name)
	case '3':
		p.raw(`<span class="error">      `)
		p.text(e.Name)
		p.raw("</span>")
	case '7':
		// "IDX", an index-search (RFC 1436): not "ASK", a Gopher+ form.
		p.raw(`<span class="t">[`)
		p.text(label)
		p.raw("]</span> ")
		p.text(e.Name)
		p.raw(" ")
		p.searchForm(e.URL, e.Name, "")
	default:
		u := e.URL
		if e.Target != "" {
			u = e.Target
		}
		p.raw(`<span class="t">[`)
		p.text(label)
		p.raw("]</span> ")
		p.link(u, e.Name)
		if e.Plus != 0 && e.Target == "" {
			if a := attributesURL(e.URL); a != "" {
				p.raw(` <span class="t">`)
				p.link(a, "[Gopher+ attributes and views]")
				p.raw("</span>")
			}
		}
	}
	p.raw("\n")
}

// fileRow writes one entry of a directory listing.
func (p *page) fileRow(e fetch.Entry) {
	switch {
	case e.Unparsed:
		p.unparsed(e.Raw, 4)
		return
	case e.ItemType == 'i':
		// A gopher menu's text line in a directory (a Prospero gopher
		// gateway's): text, as in a menu.
		p.unparsed(e.Name, 4)
		return
	}
	name := e.Name
	if e.Type == fetch.EntryDir {
		name += "/"
	}
	p.raw("<tr><td>")
	p.link(e.URL, name)
	if e.Target != "" {
		p.raw(` <span class="t">→ `)
		p.text(e.Target)
		p.raw("</span>")
	}
	p.raw(`</td><td class="n">`)
	p.size(e.Size)
	p.raw("</td><td>")
	p.date(e.ModTime)
	p.raw("</td><td>")
	p.text(e.Type.String())
	p.raw("</td></tr>\n")
}

// hitRow writes one WAIS search hit.
func (p *page) hitRow(e fetch.Entry) {
	if e.Unparsed {
		p.unparsed(e.Raw, 3)
		return
	}
	p.raw(`<tr><td class="n">`)
	p.raw(strconv.FormatInt(e.Score, 10))
	p.raw("</td><td>")
	p.link(e.URL, e.Name)
	p.raw(`</td><td class="n">`)
	p.size(e.Size)
	p.raw("</td></tr>\n")
}

// unparsed writes a table row holding a line as text: one that did not
// parse, or a text line among files.
func (p *page) unparsed(raw string, cols int) {
	p.raw(`<tr><td colspan="` + strconv.Itoa(cols) + `"><pre class="t">`)
	p.text(raw)
	p.raw("</pre></td></tr>\n")
}

func (p *page) size(n int64) {
	if n >= 0 {
		p.raw(strconv.FormatInt(n, 10))
	}
}

func (p *page) date(t time.Time) {
	if !t.IsZero() {
		p.raw(t.UTC().Format("2006-01-02 15:04"))
	}
}

// writeEscaped writes s escaped for HTML text and quoted attribute
// values: & < > " ' as references, control bytes other than tab as U+FFFD.
func writeEscaped(w io.Writer, s string) { writeReplaced(w, s, &htmlReplace) }

// writeReplaced writes s to w with every byte c for which rep[c] is not
// empty replaced by rep[c], in runs between them, building no string.
func writeReplaced(w io.Writer, s string, rep *[256]string) {
	sw, done := stringWriter(w)
	defer done()
	last := 0
	for i := 0; i < len(s); i++ {
		r := rep[s[i]]
		if r == "" {
			continue
		}
		sw.WriteString(s[last:i])
		sw.WriteString(r)
		last = i + 1
	}
	sw.WriteString(s[last:])
}

// stringWriter is w as an io.StringWriter, through a buffer when it is
// not one; done flushes that buffer.
func stringWriter(w io.Writer) (sw textWriter, done func()) {
	if sw, ok := w.(textWriter); ok {
		return sw, func() {}
	}
	bw := bufio.NewWriter(w)
	return bw, func() { bw.Flush() }
}

// textWriter takes bytes and strings.
type textWriter interface {
	io.Writer
	io.StringWriter
}

// htmlReplace is writeEscaped's replacements.
var htmlReplace = func() (t [256]string) {
	t['&'], t['<'], t['>'], t['"'], t['\''] = "&amp;", "&lt;", "&gt;", "&#34;", "&#39;"
	for c := range 256 {
		if c < ' ' && c != '\t' || c == 0x7f {
			t[c] = "\uFFFD"
		}
	}
	return t
}()

// pathAttrReplace is the links' (mount.writePath): pathReplace's percent-encoding, then &
// and ' as references for the attribute value (the other bytes special
// in HTML are percent-encoded already).
var pathAttrReplace = func() (t [256]string) {
	t = pathReplace
	t['&'], t['\''] = "&amp;", "&#39;"
	return t
}()
