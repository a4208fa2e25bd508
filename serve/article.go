package serve

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// maxHeaderLine bounds one header line of an article kept in memory; the
// rest of a longer line is dropped.
const maxHeaderLine = 16 << 10

// article writes a news article as HTML: its header fields in a table,
// Message-IDs (Message-ID, References, In-Reply-To) and groups
// (Newsgroups, Followup-To) as links into the gateway, then, set apart
// below them, the body as preformatted text, streamed line by line.
func (h *Handler) article(w *logWriter, r *http.Request, q *query, u *urlparse.URL, res *fetch.Resource, status int) {
	// Articles and groups are asked of the server the article came from
	// when its URL names one; else of the news server news: URLs reach.
	msgURL, groupURL := urlparse.NewsURL, urlparse.NewsURL
	if u.Scheme == "nntp" {
		port := u.Port
		if port < 0 {
			port = urlparse.DefaultPort("nntp")
		}
		msgURL = func(id string) string { return urlparse.NNTPURL(u.Host, port, "<"+id+">", "") }
		groupURL = func(g string) string { return urlparse.NNTPURL(u.Host, port, g, "") }
	}
	h.stream(w, r, q, res, status, "article", func(p *page, body io.Reader) error {
		br := bufio.NewReaderSize(body, 4096)
		p.raw(`<table class="hdr">` + "\n")
		var field string // the field being read, folded lines joined
		flush := func() {
			if field != "" {
				p.headerRow(field, msgURL, groupURL)
			}
			field = ""
		}
		for {
			line, err := readLine(br, maxHeaderLine)
			if err != nil && (err != io.EOF || line == "") {
				flush()
				p.raw("</table>\n")
				if err == io.EOF {
					return nil
				}
				return err
			}
			if line == "" {
				break
			}
			if line[0] == ' ' || line[0] == '\t' {
				if len(field) < maxHeaderLine {
					field += " " + strings.TrimSpace(line)
				}
				continue
			}
			flush()
			field = line
		}
		flush()
		// The body below the header, set apart from it (a rule and a
		// margin: pre has none), as the text it is.
		p.raw("</table>\n<pre class=\"body\">")
		for {
			line, err := readLine(br, maxHeaderLine)
			if line != "" || err == nil {
				p.text(line)
				p.raw("\n")
			}
			if err != nil {
				p.raw("</pre>\n")
				if err == io.EOF {
					return nil
				}
				return err
			}
		}
	})
}

// readLine reads one line without its line end, keeping at most max bytes
// of it. At the end of the input it returns what was left and io.EOF.
func readLine(br *bufio.Reader, max int) (string, error) {
	var b []byte
	for {
		frag, err := br.ReadSlice('\n')
		if room := max - len(b); room > 0 {
			b = append(b, frag[:min(len(frag), room)]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s := strings.TrimRight(string(b), "\r\n")
		return s, err
	}
}

// headerRow writes one header field; the fields that name articles or
// groups get links.
func (p *page) headerRow(field string, msgURL, groupURL func(string) string) {
	name, value, _ := strings.Cut(field, ":")
	value = strings.TrimSpace(value)
	p.raw("<tr><th>")
	p.text(name)
	p.raw("</th><td>")
	switch strings.ToLower(name) {
	case "message-id", "references", "in-reply-to", "supersedes":
		rest := value
		for {
			i := strings.IndexByte(rest, '<')
			j := strings.IndexByte(rest[max(i, 0):], '>')
			if i < 0 || j < 0 {
				p.text(rest)
				break
			}
			j += i
			p.text(rest[:i])
			id := rest[i : j+1]
			p.link(msgURL(id[1:len(id)-1]), id)
			rest = rest[j+1:]
		}
	case "newsgroups", "followup-to":
		for i, g := range strings.Split(value, ",") {
			if i > 0 {
				p.raw(", ")
			}
			g = strings.TrimSpace(g)
			p.link(groupURL(g), g)
		}
	default:
		p.text(value)
	}
	p.raw("</td></tr>\n")
}
