package serve

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// maxHeaderLine bounds one header line of an article kept in memory; the
// rest of a longer line is dropped.
const maxHeaderLine = 16 << 10

// article writes a news article as HTML: its header fields in a table,
// Message-IDs (Message-ID, References, In-Reply-To) and groups
// (Newsgroups, Followup-To) as links into the gateway, then the body as
// preformatted text, streamed line by line.
func (h *Handler) article(w *logWriter, r *http.Request, q *query, res *fetch.Resource, status int) {
	p := h.page(w, r, q, fetch.SanitizeLine(q.target, 300))
	w.WriteHeader(status)
	if q.head {
		return
	}
	err := fetch.Buffered(flusher{w}, res.Body, func(bw io.Writer, body io.Reader) error {
		p.w = bw
		p.start()
		br := bufio.NewReaderSize(body, 4096)
		p.raw(`<table class="hdr">` + "\n")
		var field string // the field being read, folded lines joined
		flush := func() {
			if field != "" {
				p.headerRow(field)
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
		p.raw("</table>\n<pre>")
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
	if err != nil {
		if fetch.KindOf(err) == fetch.ErrWrite {
			h.cut(r, err)
		}
		p.w = w
		p.para("error", "the article ended early: "+fetch.SanitizeLine(err.Error(), 300))
	}
	p.end()
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
func (p *page) headerRow(field string) {
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
			p.link("news:"+escapeMsgID(id[1:len(id)-1]), id)
			rest = rest[j+1:]
		}
	case "newsgroups", "followup-to":
		for i, g := range strings.Split(value, ",") {
			if i > 0 {
				p.raw(", ")
			}
			g = strings.TrimSpace(g)
			p.link("news:"+escapeMsgID(g), g)
		}
	default:
		p.text(value)
	}
	p.raw("</td></tr>\n")
}

// escapeMsgID percent-encodes what cannot stand in a news: URL.
func escapeMsgID(s string) string {
	var b strings.Builder
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("%/?#<>\"\\^`{|}[]", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
