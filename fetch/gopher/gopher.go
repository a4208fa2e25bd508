// Package gopher fetches gopher:// and gophers:// URLs: RFC 1436 gopher,
// the Gopher+ extensions ("upward compatible enhancements to the Internet
// Gopher protocol", 1993), and gophers, gopher inside TLS (default port 70
// for both).
//
// # The request
//
// One line is sent: the decoded selector, then TAB and the search string
// when the URL has one (…%09search), then TAB and the gopher+ string when
// it has one (…%09search%09+), then CRLF. An empty search before a gopher+
// string (…%09%09+, which the URL syntax needs) is left out for items
// other than searches: "selector TAB +" is the Gopher+ request for them.
// An empty gopher-path is a type 1 item with an empty selector. A Gopher+
// request is only made when the URL carries a gopher+ string or
// Request.Options["gopher-plus"] asks for one. A gopher+ string beginning
// with "?" answers the item's +ASK form (see the Options and AskError).
//
// Connections go through Config.Dialer; gophers wraps them in TLS with
// Config.TLS (ServerName set to the URL's host when empty). Cancelling
// the context closes the connection, which ends any read or write stalled
// on it. A Head request makes no connection (gopher has no metadata-only
// request). A resume (Request.Offset) reads and drops the start of the item.
// A time condition (Request.IfModifiedSince, IfUnmodifiedSince: curl's -z,
// which curl itself ignores for gopher) first asks for the item's
// attributes ("!"): an item whose Gopher+ Mod-Date fails it is
// Meta.NotModified with an empty body; without a Mod-Date (a server
// without Gopher+) the item comes as usual.
//
// Options (fetch.Request.Options; the CLI flag that sets each is in
// parentheses):
//
//	gopher-search      search string for a type 7 URL without one (-d/--data)
//	gopher-plus        gopher+ string to send when the URL has none: "+",
//	                   "+text/plain", "!", "!+ABSTRACT", "$", "?" ("" means "+")
//	gopher-ask         answers to a +ASK form, one per line, in order (--ask-answer, stdin)
//	gopher-allow-port  "1": allow the RefusedPorts (--gopher-allow-port)
//	gopher-raw         "1": the body is the reply exactly as received: no
//	                   Gopher+ header or "." handling, no error detection (--raw)
//	gopher-text        how a type 0 text ends: "auto" (default) or "rfc1436"
//
// # The reply
//
// Menus (types 1 and 7) give a Resource with Dir set and a Listing that
// parses each line (see Item, ParseItem, MenuReader, Render); the body is
// the menu as sent, up to but without the "." line that ends it (read no
// further, so a server that never closes does not stall the transfer).
//
// Text (type 0) is passed on with its CRLF line ends made LF
// (fetch.TextReader; fetch.OptCRLF keeps them), byte for byte otherwise (a Gopher+ reply's data, framed
// by its byte count, is passed on as sent). Its end: neither pygopherd nor
// gophernicus sends the RFC 1436 "." line after a text, and neither
// dot-stuffs, so in the default "auto" mode a lone "." line is removed only
// when it is the very last line before the server closes (it is then the
// terminator), and a line beginning with ".." is left alone. With
// gopher-text "rfc1436" the first lone "." ends the text and a leading ".."
// is unstuffed to ".", for servers that follow RFC 1436 to the letter
// (undoing dot-stuffing blindly would eat a dot from every "..." line
// that the real servers send).
//
// Every other type (4, 5, 6, 9, g, I, s, h, d, …) is read to the close, byte
// for byte. Types 8 and T (telnet and tn3270 sessions) and 2 (CSO
// phone-book servers) are not gopher requests and are refused
// (ErrUnsupported) before connecting.
//
// A Gopher+ reply header is removed and obeyed: "+N" is exactly N bytes
// (fewer: ErrPartial; Resource.Size is N), "+-1" ends with a "." line
// (missing: ErrPartial), "+-2" ends at the close. When a "+" request gets a
// reply without a header (gophernicus has no Gopher+), the reply is read as
// plain gopher. A "!+NAME…" request that gets no header is retried as "!"
// and the blocks are filtered here (pygopherd only understands a bare "!").
// Any other Gopher+ request without a header in the reply is ErrProtocol:
// the server does not speak Gopher+ and its reply is not what was asked.
//
// # Errors
//
// Refused before connecting, Kind ErrMalformed (exit 3): a type 7 URL
// without a search string (wraps ErrNeedSearch); a port in RefusedPorts
// (wraps *PortError); CR, LF, NUL or TAB in an option that goes on the wire.
// A +ASK form without the answers it needs is ErrMalformed too (wraps a
// *fetch.InputNeededError for OptAsk, the form for a person to fill in,
// which wraps *AskError, which lists the questions).
//
// Reported by the server (wraps *ServerError): an error item (type 3) in
// place of the resource — a reply whose first line is a complete type 3
// item and whose other lines, if any, are info lines — a Gopher+ error
// reply ("--2", "-1 …"), or gophernicus's plain-text "Error: …" page. The
// Kind is ErrNotFound (exit 78) for Gopher+ code 1 and whenever the text
// says "not found", "does not exist" or "no such"; ErrAccessDenied (exit 9)
// when it says "access denied", "forbidden" or "not allowed"; ErrNotFound
// for code 3 (moved: the new location is in ServerError.Item); ErrOther
// otherwise (code 2, "try again later", included).
package gopher

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Option names read from fetch.Request.Options.
const (
	OptSearch    = fetch.OptSearch // the search string of a type 7 item
	OptPlus      = "gopher-plus"
	OptAsk       = "gopher-ask"
	OptAllowPort = "gopher-allow-port"
	OptRaw       = fetch.OptRaw // the menu as sent, closing "." included
	OptText      = "gopher-text"
)

// DefaultPort is the port of gopher and gophers URLs without one.
const DefaultPort = 70

// ErrNeedSearch is wrapped by the error for a type 7 (search) URL that has
// no search string and no Options["search"] (a *fetch.InputNeededError).
var ErrNeedSearch error = fetch.Sentinel("gopher: a type 7 item is a search: it needs a search string")

func init() {
	schemes := []string{"gopher", "gophers"}
	fetch.Register(fetch.Scheme{Name: "gopher", New: New, HostPrefix: "gopher.",
		Caps:         fetch.ReferralTarget | fetch.Gateway | fetch.Search | fetch.Lists,
		Layout:       fetch.LayoutMenu,
		SearchWords:  searchWords,
		GatewayReply: gatewayReply,
		Options: []fetch.Option{
			{Key: OptAsk, Flag: "ask-answer", Kind: fetch.Strings, Arg: "ANSWER", Schemes: schemes,
				Help: "an answer to the next +ASK question (repeat in order; \"-\": read the answers from stdin)"},
			{Key: OptAllowPort, Kind: fetch.Bool, Schemes: schemes,
				Help: "allow ports of line-based services (21, 25, 119, 6379, ...)"},
			{Key: OptText, Kind: fetch.String, Arg: "MODE", Default: "auto", Schemes: schemes,
				Help: "\"rfc1436\" ends text at the first lone \".\" and undoes dot-stuffing"},
		},
		Examples: []fetch.Example{
			{Args: "gopher://gopher.floodgap.com/", Help: "a menu, as readable text"},
			{Args: "--json-lines gopher://gopher.floodgap.com/1/world", Help: "a menu as JSON lines, one item each"},
			{Args: `-d "rfc 1436" gopher://gopher.floodgap.com/7/v2/vs`, Help: "a search (type 7); --search WORDS does the same"},
			{Args: "--raw -o menu.txt gopher://gopher.floodgap.com/", Help: "the menu as the server sent it"},
			{Args: "mirror gopher://gopher.example.org/1/pub pub", Help: "mirror a gopher hole (see urlget help mirror)"},
		}})
	fetch.Register(fetch.Scheme{Name: "gophers", New: New,
		Caps:         fetch.ReferralTarget | fetch.Gateway | fetch.Search | fetch.Lists,
		Layout:       fetch.LayoutMenu,
		SearchWords:  searchWords,
		GatewayReply: gatewayReply})
}

// Fetcher fetches gopher and gophers URLs. The zero value is ready to use;
// New builds the one a Client uses, for both schemes.
type Fetcher struct {
	Config fetch.Config // the dialer, TLS and verbose log
}

// New is the Fetcher for cfg (fetch.Scheme.New).
func New(cfg fetch.Config) fetch.Fetcher { return Fetcher{Config: cfg} }

// Limits on server replies held in memory.
const (
	// maxErrorReply bounds the Gopher+ error text kept for a message.
	maxErrorReply = 64 << 10
	// errorPeek is how much of a plain reply is looked at to tell an
	// error item from a resource.
	errorPeek = 8 << 10
	// bufSize is the connection's read buffer.
	bufSize = 64 << 10
)

// plan is one request, worked out from the URL and options.
type plan struct {
	url       string
	scheme    string
	secure    bool
	host      string
	port      int
	typ       byte
	selector  string
	search    string
	hasSearch bool
	plus      string
	hasPlus   bool
	raw       bool
	asSent    bool // fetch.OptAsSent: a menu's or text's "." line and CRLF kept
	text      dotMode
	opts      map[string]string
}

func malformed(msg string, err error) error {
	return &fetch.Error{Kind: fetch.ErrMalformed, Msg: msg, Err: err}
}

// checkOption refuses bytes that would break the request line.
func checkOption(name, v string, tab bool) error {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\r' || c == '\n' || c == 0 || (tab && c == '\t') {
			return malformed(fmt.Sprintf("gopher: option %s contains %s at byte %d", name, byteName(c), i), nil)
		}
	}
	return nil
}

func byteName(c byte) string {
	switch c {
	case '\r':
		return "CR"
	case '\n':
		return "LF"
	case 0:
		return "NUL"
	case '\t':
		return "TAB"
	}
	return fmt.Sprintf("byte 0x%02X", c)
}

func makePlan(req *fetch.Request) (*plan, error) {
	u := req.URL
	if u == nil {
		return nil, malformed("gopher: no URL", nil)
	}
	p := &plan{url: u.String(), scheme: u.Scheme, opts: req.Options}
	switch u.Scheme {
	case "gopher":
	case "gophers":
		p.secure = true
	default:
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "gopher: cannot fetch a " + u.Scheme + " URL"}
	}
	// The Client has checked already; a direct caller may not have.
	if err := fetch.CheckURL(u); err != nil {
		return nil, err
	}
	if u.Host == "" {
		return nil, malformed("gopher: the URL has no host", nil)
	}
	p.host = u.Host
	p.port = u.Port
	if p.port < 0 {
		p.port = DefaultPort
	}
	if p.port == 0 || p.port > 65535 {
		return nil, malformed("gopher: bad port "+strconv.Itoa(p.port), nil)
	}
	if err := checkPort(p.port, req.Options[OptAllowPort] == "1"); err != nil {
		return nil, malformed("", err)
	}
	g := u.Gopher
	p.typ = g.Type
	if p.typ == 0 {
		p.typ = TypeMenu
	}
	switch p.typ {
	case TypeTelnet, TypeTN3270:
		target, _ := Item{Type: p.typ, Selector: u.Gopher.Selector, Host: p.host, Port: p.port}.SessionURL()
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: fmt.Sprintf("gopher: item type %c is an interactive session, not a document: open %s instead", p.typ, target)}
	case TypeCSO:
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "gopher: item type 2 is a CSO phone-book server, which urlget does not speak"}
	}
	p.selector = g.Selector
	p.search, p.hasSearch = g.Search, g.HasSearch
	if !p.hasSearch && p.typ == TypeSearch {
		s, ok := req.Options[OptSearch]
		if !ok {
			return nil, &fetch.InputNeededError{Key: OptSearch, Prompt: "Search: ",
				Err: malformed("gopher: "+p.url+" is a search (type 7): give the search words in the URL (…%09words) or with -d WORDS", ErrNeedSearch)}
		}
		if err := checkOption(OptSearch, s, true); err != nil {
			return nil, err
		}
		p.search, p.hasSearch = s, true
	}
	p.plus, p.hasPlus = g.Plus, g.HasPlus
	if !p.hasPlus {
		if s, ok := req.Options[OptPlus]; ok {
			if err := checkOption(OptPlus, s, true); err != nil {
				return nil, err
			}
			if s == "" {
				s = "+"
			}
			p.plus, p.hasPlus = s, true
		}
	}
	var err error
	if p.raw, err = req.Options.Bool(OptRaw); err != nil {
		return nil, err
	}
	if p.asSent, err = req.Options.Bool(fetch.OptAsSent); err != nil {
		return nil, err
	}
	switch t := req.Options[OptText]; t {
	case "", "auto":
		p.text = dotAuto
	case "rfc1436":
		p.text = dotStrict
	default:
		return nil, malformed("gopher: option gopher-text must be auto or rfc1436, not "+strconv.Quote(t), nil)
	}
	return p, nil
}

// sendSearch reports whether the search field goes on the wire. The URL
// syntax (RFC 1738 §3.4) makes a gopher+ string follow a search, possibly
// empty ("…%09%09+"); for an item that is not a search (type 7) an empty
// search is left out, as the Gopher+ request for such items is "selector
// TAB +…" and a Gopher+ server would take an empty second field for a
// search.
func (p *plan) sendSearch() bool {
	return p.hasSearch && !(p.hasPlus && p.search == "" && p.typ != TypeSearch)
}

// line is the request line: selector [TAB search] [TAB gopher+] CRLF.
func (p *plan) line() string {
	var b strings.Builder
	b.WriteString(p.selector)
	if p.sendSearch() {
		b.WriteByte('\t')
		b.WriteString(p.search)
	}
	if p.hasPlus {
		b.WriteByte('\t')
		b.WriteString(p.plus)
	}
	b.WriteString("\r\n")
	return b.String()
}

func isMenuType(t byte) bool { return t == TypeMenu || t == TypeSearch }

// contentType is the MIME type an item type implies ("" when unknown).
func contentType(t byte) string {
	switch t {
	case TypeText:
		return "text/plain"
	case TypeMenu, TypeSearch:
		return "application/gopher-menu"
	case TypeBinHex:
		return "application/mac-binhex40"
	case TypeUUencoded:
		return "text/x-uuencode"
	case TypeBinary, TypeDOS:
		return "application/octet-stream"
	case TypeGIF:
		return "image/gif"
	case TypeHTML:
		return "text/html"
	case 'p':
		return "image/png"
	}
	return ""
}

func (p *plan) meta() fetch.Meta {
	return fetch.Meta{
		Size:         -1,
		ItemType:     p.typ,
		ContentType:  contentType(p.typ),
		EffectiveURL: p.url,
		Dir:          isMenuType(p.typ) && (!p.hasPlus || isMenuView(p.plus)),
	}
}

// Open fetches req.URL. See the package documentation. A menu's Resource
// renders itself (Resource.Render) as Readable text or JSON lines.
func (f Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	res, err := f.open(ctx, req)
	if err == nil && res.Dir && res.Render == nil {
		res.Render = menuRender(req.URL)
	}
	return res, err
}

// menuRender is the Resource.Render of a menu fetched from the URL from.
func menuRender(from *urlparse.URL) func(w io.Writer, body io.Reader, f fetch.Format) error {
	return func(w io.Writer, body io.Reader, f fetch.Format) error {
		mode := Readable
		if f == fetch.FormatJSON {
			mode = JSON
		}
		return fetch.Buffered(w, body, func(w io.Writer, body io.Reader) error {
			return RenderFrom(w, body, mode, from)
		})
	}
}

// gatewayReply is the Scheme's GatewayReply: an HTTP proxy gateway's
// reply for a menu (Content-Type application/gopher-menu, or none and
// the URL's type 1 or 7) is a menu, presented as a direct fetch's is,
// its body ending at the "." line; for a text (text/plain, or none and
// type 0) its "." line is taken off and its CRLF made LF. Either stays
// as sent when req asks for it (fetch.OptAsSent; OptRaw leaves the
// reply its bytes, not a menu, as a direct fetch). A gateway sends
// either as the server sent it (urlget serve does, to a client that does
// not ask for HTML).
func gatewayReply(res *fetch.Resource, req *fetch.Request) {
	p, err := makePlan(req)
	if err != nil || p.hasPlus {
		return
	}
	ct, _, _ := strings.Cut(res.ContentType, ";")
	ct = strings.ToLower(strings.TrimSpace(ct))
	switch {
	case p.raw:
	case isMenuType(p.typ) && (ct == "application/gopher-menu" || ct == ""):
		res.Dir, res.ItemType = true, p.typ
		res.Listing, res.Render = listing(p), menuRender(req.URL)
		if !p.asSent {
			// As a direct fetch's body: it ends at the "." line. A
			// renderer stops there; were the body to go on past it,
			// fetch.Buffered's read-ahead would still be reading the
			// reply's end when the caller closes the body.
			res.Body = struct {
				io.Reader
				io.Closer
			}{newDotReader(bufio.NewReader(res.Body), dotEnd, false, "menu"), res.Body}
			res.Size = -1
		}
	case p.typ == TypeText && (ct == "text/plain" || ct == "") && !p.asSent:
		br := bufio.NewReader(res.Body)
		res.Body = struct {
			io.Reader
			io.Closer
		}{fetch.TextReader(newDotReader(br, p.text, p.text == dotStrict, "text"), req.Options), res.Body}
		res.Size = -1
	}
}

func (f Fetcher) open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	p, err := makePlan(req)
	if err != nil {
		return nil, err
	}
	if req.Head {
		// Gopher has no metadata-only request.
		return &fetch.Resource{Meta: p.meta(), Body: io.NopCloser(strings.NewReader(""))}, nil
	}
	if p.hasPlus && strings.HasPrefix(p.plus, "?") && !p.raw {
		return f.askForm(ctx, req, p)
	}
	if (!req.IfModifiedSince.IsZero() || !req.IfUnmodifiedSince.IsZero()) && !strings.ContainsAny(p.plus[:min(len(p.plus), 1)], "!$") {
		// A time condition (curl's -z): the Gopher+ Mod-Date tells,
		// where the server gives one; otherwise the item comes as usual.
		attrs, err := f.attributes(ctx, req, p, "the time condition")
		if mod, ok := attrs.ModDate(); err == nil && ok && req.Unchanged(mod) {
			m := p.meta()
			m.Size, m.ModTime, m.NotModified = 0, mod, true
			return &fetch.Resource{Meta: m, Body: io.NopCloser(strings.NewReader(""))}, nil
		} else if err != nil {
			fetch.Logf(f.Config.Verbose, "* no Gopher+ Mod-Date (%v): the condition cannot be told", err)
		}
	}
	res, err := f.exchange(ctx, req, p, p.line(), nil, nil)
	if errors.Is(err, errNoPlusHeader) && strings.HasPrefix(p.plus, "!") && len(p.plus) > 1 {
		// "!+ABSTRACT…" to a server that only knows a bare "!": ask for
		// every block and keep the named ones here.
		q := *p
		q.plus = "!"
		fetch.Logf(f.Config.Verbose, "* no Gopher+ reply to %q: asking for all attributes (\"!\") and keeping the named blocks", p.plus)
		res, err = f.exchange(ctx, req, &q, q.line(), nil, nil)
		if err == nil {
			res.Body = &filteredBody{r: newBlockFilter(res.Body, blockNames(p.plus[1:])), c: res.Body}
			res.Size = -1
		}
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// conn is one connection to the server.
type conn struct {
	ctx     context.Context
	nc      net.Conn
	br      *bufio.Reader
	verbose io.Writer
}

func (c *conn) close() { c.nc.Close() }

func (f Fetcher) dial(ctx context.Context, req *fetch.Request, p *plan) (*conn, error) {
	addr := net.JoinHostPort(p.host, strconv.Itoa(p.port))
	nc, err := fetch.Connect(ctx, f.Config.Dialer, addr, "gopher: connecting to")
	if err != nil {
		return nil, err
	}
	fetch.Logf(f.Config.Verbose, "* connected to %s", addr)
	if p.secure {
		tc, err := fetch.HandshakeTLS(ctx, f.Config.TLS, nc, p.host, "gopher: "+addr)
		if err != nil {
			return nil, err
		}
		st := tc.ConnectionState()
		fetch.Logf(f.Config.Verbose, "* TLS %s, %s", tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite))
		nc = tc
	}
	c := &conn{ctx: ctx, nc: nc, verbose: f.Config.Verbose}
	// Closing the connection is what ends a read or write stalled on a
	// server that sends nothing: do it when the context ends.
	c.br = bufio.NewReaderSize(netReader{ctx: ctx, c: nc}, bufSize)
	return c, nil
}

func (c *conn) send(line string, data []byte) error {
	buf := make([]byte, 0, len(line)+len(data))
	buf = append(buf, line...)
	buf = append(buf, data...)
	if _, err := c.nc.Write(buf); err != nil {
		return ioError(c.ctx, err, "sending the request")
	}
	return nil
}

// exchange makes one request and interprets the reply. data, when not nil,
// is sent after the line (a Gopher+ data block); logData, when not nil, is
// what the verbose log shows of it.
func (f Fetcher) exchange(ctx context.Context, req *fetch.Request, p *plan, line string, data []byte, logData []string) (*fetch.Resource, error) {
	c, err := f.dial(ctx, req, p)
	if err != nil {
		return nil, err
	}
	fetch.Logf(c.verbose, "> %s", strings.TrimSuffix(line, "\r\n"))
	for _, l := range logData {
		fetch.Logf(c.verbose, "> %s", l)
	}
	if err := c.send(line, data); err != nil {
		c.close()
		return nil, err
	}
	res, err := reply(c, req, p)
	if err != nil {
		c.close()
		return nil, err
	}
	if req.Offset > 0 {
		// Gopher cannot resume: the start of the item is read and dropped,
		// so that the body still begins at the offset asked for.
		if res.Size >= 0 {
			if req.Offset > res.Size {
				c.close()
				return nil, &fetch.Error{Kind: fetch.ErrResume, Msg: fmt.Sprintf("gopher: resume offset %d is past the end of the item (%d bytes)", req.Offset, res.Size)}
			}
			res.Size -= req.Offset
		}
		b := res.Body.(*body)
		b.r = fetch.SkipReader(b.r, req.Offset, "gopher: the item is shorter than the resume offset")
		res.Offset = req.Offset
	}
	return res, nil
}

// searchWords is the Scheme record's SearchWords: a type 7 item without a
// search string of its own takes the words.
func searchWords(u *urlparse.URL) (bool, string) {
	switch {
	case u.Gopher.Type != '7':
		return false, "is not a gopher search (type 7)"
	case u.Gopher.HasSearch:
		return false, "holds its search words already"
	}
	return true, ""
}
