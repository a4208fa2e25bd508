package urlparse

import "strings"

var (
	_ = defScheme(schemeDef{port: 119, rule: "newsurl", form: formNews, inText: true, messageID: true}, "news")
	_ = defScheme(schemeDef{port: 119, rule: "nntpurl", form: formNNTP, inText: true, messageID: true}, "nntp")
	_ = defScheme(schemeDef{port: 563, rule: "nntpurl", form: formNNTP, inText: true, messageID: true}, "nntps")
)

// parseNews reads news:<newsgroup>, news:<message-id> or news:*
// (RFC 1738 §3.6). An "@" in the decoded grouppart makes it a message-id
// (written without angle brackets; encoded ones, "news:%3Cid@host%3E", are
// dropped); "*" alone is every group. The article form allows "?" and "/",
// so the query belongs to the grouppart. The RFC 5538 form
// news://server/grouppart is read the same way after the "/".
func (u *URL) parseNews(s string) error {
	var v pview
	v.init(s, &u.Ref, true)
	a := v.po
	if u.HasAuth {
		var err error
		if a, err = u.urlPath(s, &v); err != nil {
			return err
		}
		if a < 0 {
			a = v.po
		}
	}
	if a == v.end {
		return errAt(s, a, "grouppart", "empty news URL (want a newsgroup, a message-id or \"*\")")
	}
	d := v.dec(a, v.end)
	n := &u.News
	switch {
	case d == "*":
		n.All = true
	case strings.IndexByte(d, '@') >= 0:
		n.MessageID = bareMessageID(d)
	default:
		n.Group = d
	}
	return nil
}

// bareMessageID drops the angle brackets around a decoded message-id.
func bareMessageID(d string) string {
	if len(d) > 2 && d[0] == '<' && d[len(d)-1] == '>' {
		return d[1 : len(d)-1]
	}
	return d
}

// parseNNTP reads nntp://host:port/group/article (RFC 1738 §3.7; nntps
// the same); nntp://host/ without a group names the server's group list. The article number is decimal digits as written, no escapes.
// A message-id (holding "@", with or without angle brackets, which may be
// encoded) is taken where people paste one: in place of the article
// (nntp://host/group/id@host) or of the group (nntp://host/id@host).
func (u *URL) parseNNTP(s string) error {
	if err := u.needHost(s); err != nil {
		return err
	}
	var v pview
	v.init(s, &u.Ref, false)
	if u.HasQuery {
		return errAt(s, v.pe, "nntpurl", "an nntp URL has no query")
	}
	if len(u.RawPath) < 2 {
		u.NNTP.All = true // no group: the server's group list
		return nil
	}
	a := v.po + 1
	ge := v.pe
	k := strings.IndexByte(s[a:v.pe], '/')
	if k >= 0 {
		ge = a + k
	}
	if ge == a {
		return errAt(s, a, "group", "empty newsgroup")
	}
	u.NNTP.Group = v.dec(a, ge)
	if k < 0 && strings.IndexByte(u.NNTP.Group, '@') >= 0 {
		u.NNTP.Group, u.NNTP.MessageID = "", bareMessageID(u.NNTP.Group)
		return nil
	}
	if k >= 0 && strings.ContainsAny(s[ge+1:v.pe], "@%") {
		if d := v.dec(ge+1, v.pe); strings.IndexByte(d, '@') >= 0 {
			u.NNTP.MessageID = bareMessageID(d)
			return nil
		}
	}
	if k >= 0 {
		for i := ge + 1; i < v.pe; i++ {
			if c := s[i]; c < '0' || c > '9' {
				return errAt(s, i, "digits", "article number holds "+quoteByte(c)+", not only digits")
			}
		}
		u.NNTP.Article = s[ge+1 : v.pe]
	}
	return nil
}

// checkNews is CheckLine for the fields of news URLs.
func (u *URL) checkNews() error {
	return checkFields(u.Scheme, maskNews, "group", u.News.Group, "message-id", u.News.MessageID)
}

// checkNNTP is CheckLine for the fields of nntp and nntps URLs.
func (u *URL) checkNNTP() error {
	n := &u.NNTP
	return checkFields(u.Scheme, maskNews, "group", n.Group, "article", n.Article, "message-id", n.MessageID)
}

// NNTPURL returns nntp://host:port/group/article (article "" leaves out
// the "/article"; it should be decimal digits). Port 0 or 119 is left out.
func NNTPURL(host string, port int, group, article string) string {
	b := start("nntp", len(host)+len(group)+len(article))
	b = appendAuthority(b, "nntp", "", "", host, port)
	b = append(b, '/')
	b = appendEscaped(b, group, keepGroup)
	if article != "" {
		b = append(b, '/')
		b = appendEscaped(b, article, keepGroup)
	}
	return string(b)
}

// NewsURL returns news:grouppart for a newsgroup, a message-id (without
// angle brackets) or "*".
func NewsURL(grouppart string) string {
	b := start("news", len(grouppart))
	return string(appendEscaped(b, grouppart, keepNews))
}

func (u *URL) newsFields(w FieldWriter) {
	n := &u.News
	switch {
	case n.All:
		w.Bool("all", true)
	case n.MessageID != "":
		w.String("message_id", n.MessageID)
	default:
		w.String("group", n.Group)
	}
}

func (u *URL) nntpFields(w FieldWriter) {
	n := &u.NNTP
	w.String("group", n.Group)
	w.String("article", n.Article)
	if n.MessageID != "" {
		w.String("message_id", n.MessageID)
	}
}
