// Package nntp fetches Usenet articles and listings by URL: news: (RFC 1738
// §3.6), nntp:// (RFC 1738 §3.7) and nntps:// (RFC 5538), over NNTP
// (RFC 3977) with AUTHINFO USER/PASS (RFC 4643) and STARTTLS (RFC 4642).
//
// What each URL gives:
//
//	news:<message-id>            the article (ARTICLE); its header block (HEAD) with
//	                             Options["nntp-head"]="1", its body (BODY) with
//	                             Options["nntp-body"]="1"; Request.Head sends HEAD
//	                             and gives metadata only (ModTime from Date)
//	news:group                   the newest articles of the group, one line each (a listing)
//	news:*  news:comp.*          the groups matching the wildmat (LIST ACTIVE), a listing
//	nntp://host:port/group/N     article N of group (GROUP, then ARTICLE N)
//	nntp://host:port/group       as news:group on that host
//	nntp://host:port/id@domain   as news:<id@domain> on that host (as lynx does)
//	nntp://host:port/            as news:* on that host: every group (as lynx does)
//	nntps://…                    the same over TLS from the start (port 563)
//
// A news: URL names no server: it comes from Options["nntp-server"]
// (HOST[:PORT], the CLI's --nntp-server), else from $NNTPSERVER; with
// neither, Open fails with ErrMalformed (exit 3) saying how to set one. A
// news://host/… URL (RFC 5538) uses its own host.
//
// Articles are streamed with dot-stuffing undone and their lines ending in
// LF, as a person or a pipe expects (fetch.TextReader: Options["raw"]
// keeps the wire's CRLF); a resume offset counts those bytes. Nothing is ever
// buffered whole.
//
// A group listing's Meta.Header holds the GROUP reply's numbers (fields
// Count: the server's estimate of the articles, Low and High: the lowest
// and highest article numbers), so that a program can show "articles
// 53–152 of 152" and page back with Options["nntp-last"]; -i shows them.
//
// Listings are text, one tab-separated line per item, "\n"-terminated:
//
//	article:  NUMBER  DATE  AUTHOR  SUBJECT  URL
//	group:    GROUP  HIGH  LOW  STATUS  DESCRIPTION  URL
//
// DATE is RFC 3339 in UTC when the article's Date parses (the server's text
// otherwise), URL is nntp://host:port/group/NUMBER (nntps:// over TLS) or
// nntp://host:port/group, DESCRIPTION is empty unless
// Options["nntp-describe"]="1". Control characters in server text become
// "?". Resource.Listing parses these lines; ParseArticleLine,
// ParseGroupLine and WriteJSON give them to programs.
//
// Posting (RFC 3977 §6.3.1 POST): a Request.Body sent to a URL naming one
// newsgroup (news:GROUP, nntp://HOST/GROUP; the Fetcher is a
// fetch.BodySender) is posted as an article there. The body is the
// article: header fields, an empty line, the text. The header is read
// (at most MaxPostHeader bytes) and checked before connecting: every line
// a field or a field's continuation, no CR or NUL inside a line, From and
// Subject present, Newsgroups naming the URL's group (added when missing),
// a Message-ID of the form <id@domain>; Message-ID (on the From address's
// domain) and Date are added when missing. A bad article is ErrMalformed
// (exit 3), saying why. On the wire every line ends in CRLF and a line
// starting with "." is dot-stuffed. The result is the article's Message-ID
// on one line (also Meta.Header's Message-ID), Meta.Status 240.
// Options[fetch.OptDryRun] gives the article as it would be posted
// (message/rfc822) and connects nowhere. The server's 440 (posting not
// permitted) is ErrUpload (25), nothing sent; 441 (the article refused)
// is ErrSendFailed (55), as is a connection lost before the server
// confirmed the article; an article that cannot be read is ErrRead (26),
// the connection then dropped before the final "." so that nothing partial
// is posted.
//
// Errors: 411 (no such group), 420/423/430 (no such article) are
// ErrNotFound; 480 without credentials and 481/482 are ErrLoginDenied;
// 502 and 483 are ErrAccessDenied; anything unexpected is ErrProtocol
// quoting (truncated) the server's line.
package nntp

import (
	"context"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// Request.Options keys this package reads.
const (
	// OptServer is the server for news: URLs, HOST[:PORT] (--nntp-server).
	OptServer = "nntp-server"
	// OptMaxArticles is how many of a group's newest articles a group
	// listing shows (--max-articles); default DefaultMaxArticles, "0" for all.
	OptMaxArticles = "nntp-max-articles"
	// OptLast is the highest article number a group listing shows: with
	// OptMaxArticles the N articles up to it, not the newest N (an older
	// page, as urlget serve's group pages link to). Programs set it; the
	// CLI has no flag for it.
	OptLast = "nntp-last"
	// OptDescribe, "1", adds group descriptions (LIST NEWSGROUPS) to group
	// listings (--describe).
	OptDescribe = "nntp-describe"
	// OptBody, "1", fetches only an article's body (BODY) (--body).
	OptBody = "nntp-body"
	// OptHead, "1", fetches only an article's header block (HEAD) as the
	// body (--article-head). Request.Head (-I) sends HEAD too but gives
	// metadata only, as for every scheme.
	OptHead = "nntp-head"
	// OptSSL is "try" or "required": STARTTLS on a plain connection
	// (--ssl, --ssl-reqd).
	OptSSL = fetch.OptSSL
)

// EnvServer names the environment variable giving the server for news:
// URLs when Options has none.
const EnvServer = "NNTPSERVER"

// DefaultMaxArticles is the default size of a group listing.
const DefaultMaxArticles = 100

// Fetcher serves the news, nntp and nntps schemes. The zero value is ready
// to use.
type Fetcher struct {
	Config fetch.Config // the dialer, TLS and verbose log
}

// New is the Fetcher for cfg (fetch.Scheme.New).
func New(cfg fetch.Config) fetch.Fetcher { return Fetcher{Config: cfg} }

func init() {
	schemes := []string{"news", "nntp", "nntps"}
	fetch.Register(fetch.Scheme{Name: "news", New: New,
		Caps: fetch.Gateway | fetch.Lists | fetch.Opaque | fetch.SendsBody, Layout: fetch.LayoutArticles,
		Options: []fetch.Option{
			{Key: OptServer, Kind: fetch.String, Arg: "HOST[:PORT]", Schemes: append(slices.Clip(schemes), "mid", "cid"),
				Help: "the server for news: and mid: URLs (else $" + EnvServer + ")"},
			{Key: OptMaxArticles, Flag: "max-articles", Kind: fetch.Int, Arg: "N", Schemes: schemes,
				Default: strconv.Itoa(DefaultMaxArticles), Help: "list a group's newest N articles (0: all)"},
			{Key: OptDescribe, Flag: "describe", Kind: fetch.Bool, Schemes: schemes,
				Help: "add group descriptions to group lists"},
			{Key: OptBody, Flag: "body", Kind: fetch.Bool, Schemes: schemes,
				Help: "fetch an article's body only (BODY)"},
			{Key: OptHead, Flag: "article-head", Kind: fetch.Bool, Schemes: schemes,
				Help: "fetch an article's header block only (HEAD)"},
		},
		Examples: []fetch.Example{
			{Args: "--nntp-server news.example.org news:comp.lang.go", Help: "the newest articles of a group"},
			{Args: "nntp://news.example.org/comp.lang.go/42", Help: "article 42 of a group"},
			{Args: "news:*", Help: "the groups of $NNTPSERVER"},
			{Args: "nntp://news.example.org/", Help: "the groups of that server"},
			{Args: "-T article.txt --nntp-server news.example.org news:misc.test", Help: "post an article (Message-ID and Date added)"},
			{Args: "--dry-run -T article.txt news:misc.test", Help: "show the article as it would be posted"},
		}})
	fetch.Register(fetch.Scheme{Name: "nntp", New: New,
		Caps: fetch.Gateway | fetch.StartTLS | fetch.Lists | fetch.SendsBody, Layout: fetch.LayoutArticles,
		Examples: []fetch.Example{
			{Args: "nntp://news.example.org/comp.lang.go", Help: "the newest articles of a group on that server"},
			{Args: "nntp://news.example.org/comp.lang.go/42", Help: "article 42 of a group"},
			{Args: "--body nntp://news.example.org/comp.lang.go/42", Help: "its body only"},
			{Args: "--json-lines --max-articles 20 nntp://news.example.org/comp.lang.go", Help: "20 articles as JSON lines"},
		}})
	fetch.Register(fetch.Scheme{Name: "nntps", New: New,
		Caps: fetch.Gateway | fetch.Lists | fetch.SendsBody, Layout: fetch.LayoutArticles})
}

// target is what a URL asks for, decided before connecting.
type target struct {
	host     string
	port     int
	tls      bool
	msgID    string // without angle brackets
	group    string
	article  string // digits
	wildmat  string // LIST ACTIVE argument; "" with list for all groups
	list     bool
	scheme   string // for the URLs in listings: nntp or nntps
	maxArts  int64
	last     int64 // OptLast; 0: the newest
	describe bool
	body     bool
	head     bool
}

// Open fetches the URL in req.
func (f Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	t, err := resolve(req)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fetch.ContextError(ctx)
	}
	if req.Body != nil {
		return f.post(ctx, req, t)
	}
	c, err := dial(ctx, &f.Config, req, t.host, t.port, t.tls)
	if err != nil {
		return nil, err
	}
	var res *fetch.Resource
	switch {
	case t.msgID != "":
		res, err = openArticle(c, req, t, "<"+t.msgID+">")
	case t.list:
		res, err = openGroups(c, req, t)
	case t.article != "":
		if _, err = selectGroup(c, t.group); err == nil {
			res, err = openArticle(c, req, t, t.article)
		}
	default:
		res, err = openGroup(c, req, t)
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return res, nil
}

func malformed(msg string) error {
	return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "nntp: " + msg}
}

// resolve decides server and target from the request and checks every
// field that goes on the wire, before any connection is made.
func resolve(req *fetch.Request) (*target, error) {
	if req == nil || req.URL == nil {
		return nil, malformed("no URL")
	}
	u := req.URL
	t := &target{scheme: "nntp", maxArts: DefaultMaxArticles}
	switch u.Scheme {
	case "news":
		if u.HasAuth && u.Host != "" {
			t.host, t.port = u.Host, u.PortOrDefault()
		} else if err := serverFromOptions(req, t); err != nil {
			if dry, _ := req.Options.Bool(fetch.OptDryRun); !dry || req.Body == nil {
				return nil, err
			}
			t.port = 119 // a dry run of a posting connects nowhere
		}
		switch {
		case u.News.All:
			t.list = true
		case u.News.MessageID != "":
			t.msgID = u.News.MessageID
		case isWildmat(u.News.Group):
			t.list, t.wildmat = true, u.News.Group
		default:
			t.group = u.News.Group
		}
	case "nntp", "nntps":
		if u.Host == "" {
			return nil, malformed(u.Scheme + " URL without a host")
		}
		t.host, t.port = u.Host, u.PortOrDefault()
		if u.Scheme == "nntps" {
			t.tls, t.scheme = true, "nntps"
		}
		switch {
		case u.NNTP.All:
			t.list = true // nntp://host/: the groups, as news:*
		case u.NNTP.MessageID != "":
			t.msgID = u.NNTP.MessageID
		case u.NNTP.Article == "" && isWildmat(u.NNTP.Group):
			t.list, t.wildmat = true, u.NNTP.Group
		default:
			t.group, t.article = u.NNTP.Group, u.NNTP.Article
		}
	default:
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "nntp: scheme " + strconv.Quote(u.Scheme) + " is not news, nntp or nntps"}
	}
	if t.port <= 0 || t.port > 65535 {
		return nil, malformed("port out of range")
	}
	switch {
	case t.msgID != "":
		if err := checkMessageID(t.msgID); err != nil {
			return nil, err
		}
	case t.list:
		if t.wildmat != "" {
			if err := checkName("wildmat", t.wildmat); err != nil {
				return nil, err
			}
		}
	default:
		if t.group == "" {
			return nil, malformed("the URL names no newsgroup")
		}
		if err := checkName("newsgroup", t.group); err != nil {
			return nil, err
		}
		if t.article != "" {
			if err := checkNumber(t.article); err != nil {
				return nil, err
			}
		}
	}
	if req.Options.Has(OptMaxArticles) {
		n, err := req.Options.Int(OptMaxArticles, t.maxArts)
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, malformed("max-articles must be 0 (all) or more, not " + strconv.FormatInt(n, 10))
		}
		t.maxArts = n
	}
	if req.Options.Has(OptLast) {
		n, err := req.Options.Int(OptLast, 0)
		if err != nil {
			return nil, err
		}
		if n < 1 {
			return nil, malformed("the last article of a listing must be 1 or more, not " + strconv.FormatInt(n, 10))
		}
		t.last = n
	}
	for _, b := range []struct {
		key string
		v   *bool
	}{{OptDescribe, &t.describe}, {OptBody, &t.body}, {OptHead, &t.head}} {
		var err error
		if *b.v, err = req.Options.Bool(b.key); err != nil {
			return nil, err
		}
	}
	for _, s := range []string{req.User, req.Password} {
		if strings.ContainsAny(s, "\r\n\x00") {
			return nil, malformed("user name or password holds CR, LF or NUL")
		}
	}
	return t, nil
}

// ErrNoServer is wrapped by the error of a news: URL when no server is
// given; NoServerHint says how to give one.
const ErrNoServer = fetch.Sentinel("no news server given")

// NoServerHint says how to give a news server.
const NoServerHint = "give one with Options[nntp-server] HOST[:PORT] or set " + EnvServer + "=HOST[:PORT]"

// serverFromOptions sets the server of a news: URL from Options or the
// environment.
func serverFromOptions(req *fetch.Request, t *target) error {
	s, from := req.Options[OptServer], "Options[nntp-server]"
	if s == "" {
		s, from = os.Getenv(EnvServer), "$"+EnvServer
	}
	if s == "" {
		return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "nntp: a news: URL names no server: " + NoServerHint + " (or use nntp://HOST/…)", Err: ErrNoServer}
	}
	host, port, err := splitServer(s)
	if err != nil {
		return malformed("bad server " + strconv.Quote(s) + " from " + from + ": " + err.Error())
	}
	t.host, t.port = host, port
	return nil
}

type serverError string

func (e serverError) Error() string { return string(e) }

// splitServer parses HOST, HOST:PORT, [V6], [V6]:PORT or a bare IPv6
// address.
func splitServer(s string) (string, int, error) {
	if strings.ContainsAny(s, " \t\r\n\x00/") {
		return "", 0, serverError("want HOST[:PORT]")
	}
	host, port := s, 119
	if strings.HasPrefix(s, "[") {
		i := strings.IndexByte(s, ']')
		if i < 0 {
			return "", 0, serverError("missing ]")
		}
		host = s[1:i]
		rest := s[i+1:]
		if rest != "" {
			if rest[0] != ':' {
				return "", 0, serverError("want [ADDRESS]:PORT")
			}
			p, err := parsePort(rest[1:])
			if err != nil {
				return "", 0, err
			}
			port = p
		}
	} else if strings.Count(s, ":") == 1 {
		i := strings.IndexByte(s, ':')
		host = s[:i]
		p, err := parsePort(s[i+1:])
		if err != nil {
			return "", 0, err
		}
		port = p
	}
	if host == "" {
		return "", 0, serverError("empty host")
	}
	return host, port, nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 || s[0] == '+' {
		return 0, serverError("port must be 1 to 65535")
	}
	return p, nil
}

// isWildmat tells a group pattern from a group name.
func isWildmat(s string) bool { return strings.ContainsAny(s, "*?[") }

// checkMessageID allows what RFC 3977 §9.8 allows between the angle
// brackets: 1 to 248 octets of %x21-3D / %x3F-7E.
func checkMessageID(id string) error {
	if len(id) == 0 || len(id) > 248 {
		return malformed("a message-id must be 1 to 248 bytes long")
	}
	for i := 0; i < len(id); i++ {
		if b := id[i]; b < 0x21 || b > 0x7e || b == '>' {
			return malformed("refusing message-id " + strconv.Quote(id) + ": byte " + strconv.Itoa(i) + " is not allowed (RFC 3977 §3.6)")
		}
	}
	return nil
}

// checkName refuses a group name or wildmat that could not be one
// argument of one command line: control characters, space, DEL and ">".
func checkName(what, s string) error {
	if len(s) > 497 {
		return malformed(what + " too long")
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; b <= 0x20 || b == 0x7f || b == '>' {
			return malformed("refusing " + what + " " + strconv.Quote(s) + ": byte " + strconv.Itoa(i) + " is not allowed")
		}
	}
	return nil
}

// checkNumber allows an article number: 1 to 16 digits (RFC 3977 §3.6).
func checkNumber(s string) error {
	if len(s) == 0 || len(s) > 16 {
		return malformed("an article number has 1 to 16 digits")
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return malformed("refusing article number " + strconv.Quote(s) + ": not all digits")
		}
	}
	return nil
}

// hostPort formats the server for URLs.
func (t *target) hostPort() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }
