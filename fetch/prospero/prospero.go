package prospero

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/prospero/ardp"
	"github.com/urlget/urlget/urlparse"
)

// Option keys read from fetch.Request.Options.
const (
	// OptResolve prints the URL(s) the name resolves to instead of
	// fetching (Bool).
	OptResolve = "prospero-resolve"
	// OptTelnet follows a TELNET or TN3270 access method (hands the
	// telnet:// URL to the Client) instead of printing it (Bool).
	OptTelnet = "prospero-telnet"
)

// DefaultPort is the ARDP port of prospero URLs without one.
const DefaultPort = ardp.DefaultPort

// maxReply bounds a reply held in memory to be parsed (everything but
// CONTENTS, which streams).
const maxReply = 1 << 20

func init() {
	s := []string{"prospero"}
	fetch.Register(fetch.Scheme{Name: "prospero", New: New,
		Caps: fetch.ReferralTarget | fetch.Gateway | fetch.Lists | fetch.DirPaths, Parent: Parent,
		Options: []fetch.Option{
			{Key: OptResolve, Kind: fetch.Bool, Schemes: s,
				Help: "print the URL(s) the name resolves to instead of fetching it"},
			{Key: OptTelnet, Kind: fetch.Bool, Schemes: s,
				Help: "follow a TELNET/TN3270 access method instead of printing it"},
		},
		Examples: []fetch.Example{
			{Args: "prospero://archie.example.org/pub/README", Help: "fetch the object a name stands for, through its access method"},
			{Args: "--prospero-resolve prospero://archie.example.org/pub/README", Help: "print the URL(s) the name resolves to instead"},
			{Args: "prospero://archie.example.org/pub/", Help: "list a virtual directory"},
		}})
}

// Parent is the directory above the one u names, as a prospero URL, when
// its hsoname is a path of the server's own tree ("/pub/docs": "/pub");
// "" for a name of one of its databases or gateways (ARCHIE/…,
// GOPHER-GW/host(port)/1/selector, WAIS-GW/…), whose parts are no
// directories: the ISI dirsrv fails an assertion and exits on the parent
// of a GOPHER-GW menu.
func Parent(u *urlparse.URL) string {
	hso := strings.TrimRight(u.Prospero.HSOName, "/")
	i := strings.LastIndexByte(hso, '/')
	if !strings.HasPrefix(hso, "/") || i <= 0 {
		return ""
	}
	return urlparse.ProsperoURL(u.Host, u.Port, hso[:i], nil)
}

// Fetcher resolves prospero URLs. The zero value is ready to use.
type Fetcher struct {
	Config fetch.Config // the dialer, its connect timeout, the user agent, the logs
}

// New is the Fetcher for cfg (fetch.Scheme.New).
func New(cfg fetch.Config) fetch.Fetcher { return Fetcher{Config: cfg} }

// transportConfig, when set, is the base of every transaction's ARDP
// configuration (tests shorten the timers with it).
var transportConfig *ardp.Config

// target is what one request works on.
type target struct {
	url      *urlparse.URL
	host     string // as in the URL
	port     int
	addr     string // host:port to send to
	hsoname  string
	version  string
	software string
	user     string
	cfg      ardp.Config
	verbose  io.Writer
}

func malformed(msg string) error {
	return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "prospero: " + msg}
}

// Open resolves req.URL: see the package documentation.
func (f Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	u := req.URL
	if u == nil || u.Scheme != "prospero" {
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "prospero: not a prospero URL"}
	}
	if err := fetch.CheckURL(u); err != nil {
		return nil, err
	}
	if req.Body != nil {
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "prospero: cannot send a body"}
	}
	resolve, err := req.Options.Bool(OptResolve)
	if err != nil {
		return nil, err
	}
	telnet, err := req.Options.Bool(OptTelnet)
	if err != nil {
		return nil, err
	}
	t := &target{url: u, host: u.Host, port: u.PortOrDefault(), hsoname: u.Prospero.HSOName,
		version: "0", software: cmp.Or(f.Config.UserAgent, fetch.DefaultUserAgent), user: req.User, verbose: f.Config.Verbose}
	if t.port <= 0 {
		t.port = DefaultPort
	}
	if t.user == "" {
		t.user = "anonymous"
	}
	t.addr = net.JoinHostPort(strings.Trim(t.host, "[]"), strconv.Itoa(t.port))
	if v, ok := u.Prospero.Field(urlparse.ObjectVersion); ok {
		if v == "" {
			return nil, malformed("empty " + urlparse.ObjectVersion)
		}
		t.version = v
	}
	for _, fl := range u.Prospero.Fields {
		if !strings.EqualFold(fl.Name, urlparse.ObjectVersion) {
			f.Config.Warn("prospero: field " + fl.Name + "=" + fl.Value + " ignored (only OBJECT-VERSION is used)")
		}
	}
	if transportConfig != nil {
		t.cfg = *transportConfig
	}
	t.cfg.FirstReply = f.Config.ConnectTimeout
	t.cfg.Dial = func(ctx context.Context, addr string) (net.Conn, error) {
		return fetch.DialNetwork(ctx, f.Config.Dialer, "udp", addr, "prospero: opening a socket to")
	}
	if v := f.Config.Verbose; v != nil {
		t.cfg.Verbose = func(line string) { fetch.Logf(v, "%s", line) }
	}

	reply, err := t.ask(ctx, objectInfoRequest(t.software, t.user, "#ALL", t.hsoname, t.version))
	if err != nil {
		return nil, err
	}
	if res, err := t.final(reply); res != nil || err != nil {
		return res, err
	}
	methods := accessMethods(reply.Attrs)
	if len(methods) == 0 {
		if reply.NoneFound || isDir(reply.Attrs) {
			return t.list(ctx, req, resolve)
		}
		return nil, t.noAnswer(reply)
	}
	return t.resolve(ctx, req, reply, methods, resolve, telnet)
}

func (t *target) logf(format string, args ...any) { fetch.Logf(t.verbose, format, args...) }

// ask sends one request and parses the whole reply.
func (t *target) ask(ctx context.Context, msg []byte) (*Reply, error) {
	t.logSent(msg)
	r, err := ardp.Send(ctx, &t.cfg, t.addr, 0, msg)
	if err != nil {
		return nil, err
	}
	b, err := ardp.ReadMessage(r, maxReply)
	if err != nil {
		return nil, err
	}
	t.logReceived(b)
	reply, err := ParseReply(b)
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "prospero: malformed reply from " + t.addr, Err: err}
	}
	return reply, nil
}

func (t *target) logSent(msg []byte) {
	if t.verbose == nil {
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(string(msg), "\n"), "\n") {
		t.logf("> %s", l)
	}
}

// logReceived shows a reply's lines, each cut to a readable length.
func (t *target) logReceived(msg []byte) {
	if t.verbose == nil {
		return
	}
	lines := strings.Split(strings.TrimSuffix(string(msg), "\n"), "\n")
	for i, l := range lines {
		if i == 50 {
			t.logf("< … %d more lines", len(lines)-i)
			break
		}
		t.logf("< %s", fetch.SanitizeLine(l, 200))
	}
}

// final handles the replies that end a request: FORWARDED (a referral to
// the new location) and FAILURE (a typed error). Both nil: go on.
func (t *target) final(r *Reply) (*fetch.Resource, error) {
	if r.Forwarded != nil {
		return t.forwarded(r)
	}
	if r.Failure != nil {
		return nil, t.failure(r)
	}
	return nil, nil
}

// failure types a FAILURE reply.
func (t *target) failure(r *Reply) error {
	f := r.Failure
	msg := "prospero: " + fetch.SanitizeLine(t.hsoname, 200) + ": " + fetch.SanitizeLine(f.Code+" "+f.Text, 200)
	kind := fetch.ErrProtocol
	switch f.Code {
	case "NOT-FOUND", "NOT-A-DIRECTORY":
		kind = fetch.ErrNotFound
	case "NOT-AUTHORIZED":
		kind = fetch.ErrAccessDenied
	case "SERVER-FAILED", "UNIMPLEMENTED":
		kind = fetch.ErrOther
	}
	return &fetch.Error{Kind: kind, Msg: msg}
}

// noAnswer is the error for a reply that neither describes the object nor
// says why not.
func (t *target) noAnswer(r *Reply) error {
	what := "no access method and not a directory"
	switch {
	case len(r.Errors) > 0:
		what = "ERROR " + r.Errors[0]
	case len(r.Other) > 0:
		what = r.Other[0]
	}
	return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "prospero: " + t.addr + ": " + fetch.SanitizeLine(what, 200)}
}

// forwarded turns FORWARDED into a referral to the new location: the
// Client follows it under its redirect policy and hop limit.
func (t *target) forwarded(r *Reply) (*fetch.Resource, error) {
	f := r.Forwarded
	if len(f) < 4 {
		return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "prospero: short FORWARDED reply"}
	}
	host, port, err := hostPort(f[1], DefaultPort)
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "prospero: FORWARDED to a bad host", Err: err}
	}
	version := t.version
	if len(f) > 4 && f[4] != "0" && f[4] != "" {
		version = f[4]
	}
	var fields []urlparse.Field
	if version != "0" {
		fields = []urlparse.Field{{Name: urlparse.ObjectVersion, Value: version}}
	}
	to := urlparse.ProsperoURL(host, port, f[3], fields)
	t.logf("* prospero: FORWARDED to %s", fetch.Sanitize(to))
	return &fetch.Resource{Meta: fetch.Meta{Size: -1, Location: to, Referral: true}}, nil
}

// hostPort reads a Prospero host, "host" or "host(port)".
func hostPort(s string, def int) (string, int, error) {
	host, port := s, def
	if i := strings.IndexByte(s, '('); i >= 0 && strings.HasSuffix(s, ")") {
		p, err := strconv.Atoi(s[i+1 : len(s)-1])
		if err != nil || p <= 0 || p > 65535 {
			return "", 0, fmt.Errorf("bad port in %q", s)
		}
		host, port = s[:i], p
	}
	if host == "" || strings.ContainsAny(host, "/@?#[] \t") && !urlparse.IsIPv6Address(strings.Trim(host, "[]")) {
		return "", 0, fmt.Errorf("bad host %q", s)
	}
	return host, port, nil
}

// ---- access methods ----

// method is one ACCESS-METHOD made usable.
type method struct {
	name string
	url  string // the URL it maps to; "" when it has none
	note string // why it is not used, when it is not
}

// resolve picks the first access method urlget supports, in the server's
// order, except that an AFTP method comes before PROSPERO-CONTENTS (see
// aftpFirst).
func (t *target) resolve(ctx context.Context, req *fetch.Request, r *Reply, values [][]string, resolve, telnet bool) (*fetch.Resource, error) {
	var ms []method
	for _, v := range values {
		ms = append(ms, t.mapMethod(v, telnet))
	}
	if !resolve {
		ms = aftpFirst(ms)
	}
	if resolve {
		var b strings.Builder
		for _, m := range ms {
			if m.url != "" {
				b.WriteString(m.url + "\n")
			} else {
				b.WriteString("# " + m.name + ": " + m.note + "\n")
			}
		}
		return textResource(b.String()), nil
	}
	var printed []string
	for _, m := range ms {
		switch {
		case m.name == "PROSPERO-CONTENTS":
			t.logf("* prospero: access method PROSPERO-CONTENTS")
			return t.contents(ctx, req, r)
		case m.url != "" && m.note == "":
			t.logf("* prospero: access method %s: %s", m.name, fetch.Sanitize(m.url))
			return &fetch.Resource{Meta: fetch.Meta{Size: -1, Location: m.url, Referral: true}}, nil
		case m.url != "":
			printed = append(printed, m.url+"  ("+m.name+": "+m.note+")")
			t.logf("* prospero: access method %s skipped: %s", m.name, m.note)
		default:
			t.logf("* prospero: access method %s skipped: %s", fetch.Sanitize(m.name), m.note)
		}
	}
	if len(printed) > 0 {
		return textResource(strings.Join(printed, "\n") + "\n"), nil
	}
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = fetch.SanitizeLine(m.name, 40)
	}
	return nil, &fetch.Error{Kind: fetch.ErrUnsupported,
		Msg: "prospero: no access method urlget can use (" + strings.Join(names, ", ") + ")"}
}

// aftpFirst moves a usable AFTP method before PROSPERO-CONTENTS: an
// object the server knows by anonymous FTP (an AFTP/… name, a gopher
// gateway's ftp: item) is fetched from its FTP server, as ISI's vget
// follows the object's access method. Asked for the CONTENTS of such an
// object, the stock dirsrv (P53.17May94b) crashes in read_contents and
// answers nothing more, to anyone.
func aftpFirst(ms []method) []method {
	contents := -1
	for i, m := range ms {
		switch {
		case m.name == "PROSPERO-CONTENTS" && contents < 0:
			contents = i
		case m.name == "AFTP" && m.url != "" && m.note == "" && contents >= 0:
			out := append([]method{}, ms[:contents]...)
			out = append(out, m)
			out = append(out, ms[contents:i]...)
			return append(out, ms[i+1:]...)
		}
	}
	return ms
}

func textResource(s string) *fetch.Resource {
	return &fetch.Resource{Meta: fetch.Meta{Size: int64(len(s)), ContentType: "text/plain"},
		Body: io.NopCloser(strings.NewReader(s))}
}

// mapMethod fills an ACCESS-METHOD's empty tokens from the link (this
// URL's host and hsoname) and maps it to a URL (§3.4).
func (t *target) mapMethod(v []string, telnet bool) method {
	m := method{name: v[0]}
	if len(v) < 5 {
		m.note = "malformed (" + strconv.Itoa(len(v)) + " tokens)"
		return m
	}
	host, hso := v[2], v[4]
	if host == "" {
		host = t.host + "(" + strconv.Itoa(t.port) + ")"
	}
	if hso == "" {
		hso = t.hsoname
	}
	extra := ""
	if len(v) > 5 {
		extra = v[5]
	}
	switch m.name {
	case "PROSPERO-CONTENTS":
		m.url = t.url.String()
		return m
	case "LOCAL":
		if !fetch.IsLoopback(t.host) {
			m.note = "the file is on the server's machine, not this one"
			return m
		}
		// The hsoname filled in from the URL may be a gateway's name
		// ("AFTP/pub/file"), not a path: only an absolute path to
		// something on this machine is a file URL.
		if _, err := os.Stat(hso); !path.IsAbs(hso) || err != nil {
			m.note = "no file " + strconv.Quote(fetch.SanitizeLine(hso, 200)) + " on this machine"
			return m
		}
		m.url = urlparse.FileURL(hso)
		return m
	case "WAIS":
		h, p, err := hostPort(host, 210)
		if err != nil {
			m.note = err.Error()
			return m
		}
		m.url = waisURL(h, portOrZero(p, 210), strings.TrimPrefix(hso, "/"))
		return m
	}
	switch m.name {
	case "AFTP", "GOPHER", "TELNET", "TN3270":
	case "FTP":
		m.note = "needs an account on the server"
		return m
	default:
		m.note = "not supported"
		return m
	}
	def := map[string]int{"AFTP": 21, "GOPHER": 70, "TELNET": 23, "TN3270": 23}[m.name]
	h, p, err := hostPort(host, def)
	if err != nil {
		m.note = err.Error()
		return m
	}
	switch m.name {
	case "AFTP":
		var typ byte = 'i'
		if strings.EqualFold(extra, "TEXT") || strings.EqualFold(extra, "ASCII") {
			typ = 'a'
		}
		segs := strings.Split(strings.TrimPrefix(hso, "/"), "/")
		m.url = urlparse.FTPURL(h, portOrZero(p, 21), "", "", segs[:len(segs)-1], segs[len(segs)-1], typ)
	case "GOPHER":
		typ := byte('9')
		switch {
		case len(v) > 5 && strings.EqualFold(extra, "TEXT"):
			typ = '0'
		case len(v) > 5 && strings.EqualFold(extra, "BINARY"):
			typ = '9'
		case len(v) > 5 && len(extra) == 1:
			typ = extra[0]
		case len(v) == 5 && hso != "":
			typ = hso[0]
		}
		if strings.ContainsAny(hso, "\t") {
			m.note = "selector holds a TAB"
			return m
		}
		m.url = urlparse.GopherURL("gopher", h, portOrZero(p, 70), typ, hso)
	case "TELNET", "TN3270":
		m.url = urlparse.TelnetURL(h, portOrZero(p, 23), "", "")
		if m.name == "TN3270" {
			m.url = "tn3270" + strings.TrimPrefix(m.url, "telnet")
		}
		if !telnet {
			m.note = "an interactive session: not opened without --" + OptTelnet
			if extra != "" {
				m.note += "; login: " + fetch.SanitizeLine(extra, 80)
			}
		}
	}
	return m
}

// waisURL maps a WAIS hsoname: "database" is the database,
// "database/TYPE/DOCID" and "database/TYPE/LENGTH/DOCID" a document, as
// in wais URLs. (The ISI WAIS gateway's own hsonames are docids only it
// understands: those fail at the WAIS server, and the next method is not
// tried, since the referral has been handed to the Client.)
func waisURL(host string, port int, hso string) string {
	parts := strings.SplitN(hso, "/", 3)
	if len(parts) < 3 {
		return urlparse.WAISURL(host, port, hso)
	}
	db, typ, rest := parts[0], parts[1], parts[2]
	if n, doc, ok := strings.Cut(rest, "/"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
		return urlparse.WAISDocURL(host, port, db, typ, n, doc)
	}
	return urlparse.WAISDocURL(host, port, db, typ, "", rest)
}

func portOrZero(p, def int) int {
	if p == def {
		return 0
	}
	return p
}

// ---- PROSPERO-CONTENTS ----

// contents fetches the file through Prospero: the data is the last token
// of "ATTRIBUTE … CONTENTS SEQUENCE DATA <data>", unquoted as it streams.
func (t *target) contents(ctx context.Context, req *fetch.Request, info *Reply) (*fetch.Resource, error) {
	meta := fetch.Meta{Size: sizeOf(info.Attrs), EffectiveURL: t.url.String()}
	if a, ok := attr(info.Attrs, "LAST-MODIFIED"); ok && len(a.Values) > 0 {
		if tm, err := time.Parse("20060102150405Z", a.Values[0]); err == nil {
			meta.ModTime = tm
		}
	}
	if req.Head {
		return &fetch.Resource{Meta: meta}, nil
	}
	msg := objectInfoRequest(t.software, t.user, "CONTENTS", t.hsoname, t.version)
	t.logSent(msg)
	r, err := ardp.Send(ctx, &t.cfg, t.addr, 0, msg)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(r, 4096)
	// The line up to the data token is short: read it token by token.
	const prefix = "ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA "
	head, err := br.Peek(len(prefix))
	if err != nil || !bytes.Equal(head, []byte(prefix)) {
		// Not the data: a failure, an error, or another attribute form.
		rest, rerr := io.ReadAll(io.LimitReader(br, maxReply))
		r.Close()
		if rerr != nil {
			return nil, rerr
		}
		t.logReceived(rest)
		reply, perr := ParseReply(rest)
		if perr == nil && reply.Failure != nil {
			return nil, t.failure(reply)
		}
		return nil, &fetch.Error{Kind: fetch.ErrProtocol,
			Msg: "prospero: " + t.addr + ": no CONTENTS DATA in the reply: " + fetch.SanitizeLine(string(rest[:min(len(rest), 120)]), 120)}
	}
	br.Discard(len(prefix))
	t.logf("< %s<data>", prefix)
	if req.Offset > 0 {
		meta.Offset = req.Offset
		if meta.Size >= 0 {
			meta.Size = max(meta.Size-req.Offset, 0)
		}
	}
	body := &contentsReader{br: br, r: r, size: sizeOf(info.Attrs)}
	res := &fetch.Resource{Meta: meta, Body: body}
	if req.Offset > 0 {
		res.Body = struct {
			io.Reader
			io.Closer
		}{fetch.SkipReader(body, req.Offset, "prospero: the file is shorter than the resume offset"), body}
	}
	return res, nil
}

// contentsReader unquotes the data token as it arrives: a "'" opens a
// quoted run in which a doubled quote is one "'"; outside quotes the token ends at a
// space, tab or LF. The data must be the size the SIZE attribute stated,
// when it stated one: fewer or more bytes are ErrPartial.
type contentsReader struct {
	br     *bufio.Reader
	r      *ardp.Reply
	size   int64 // the SIZE attribute's, -1 for none
	n      int64 // data bytes returned
	quoted bool
	end    bool
	err    error
}

func (c *contentsReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n := 0
	for n < len(p) && !c.end {
		// Fast path: a run of data bytes already buffered is copied whole
		// (inside quotes up to the next quote; outside, up to a quote or
		// a blank).
		if k := c.br.Buffered(); k > 0 {
			buf, _ := c.br.Peek(k)
			stop := quoteOrBlank
			if c.quoted {
				stop = "'"
			}
			i := bytes.IndexAny(buf, stop)
			if i < 0 {
				i = len(buf)
			}
			if i > 0 {
				m := copy(p[n:], buf[:i])
				c.br.Discard(m)
				n += m
				continue
			}
		}
		b, err := c.br.ReadByte()
		if err != nil {
			if err == io.EOF {
				if c.quoted {
					err = &fetch.Error{Kind: fetch.ErrPartial, Msg: "prospero: CONTENTS data ends inside quotes"}
				} else {
					c.end = true
					break
				}
			}
			c.err = err
			return n, err
		}
		switch {
		case b == '\'' && c.quoted:
			next, err := c.br.Peek(1)
			if err == nil && next[0] == '\'' {
				c.br.ReadByte()
				p[n] = '\''
				n++
				continue
			}
			c.quoted = false
		case b == '\'':
			c.quoted = true
		case !c.quoted && (b == ' ' || b == '\t' || b == '\n'):
			c.end = true
		default:
			p[n] = b
			n++
		}
	}
	c.n += int64(n)
	if c.end && c.err == nil {
		c.err = c.finish()
		if c.err == io.EOF {
			c.err = c.checkSize()
		}
		if n == 0 {
			return 0, c.err
		}
	}
	return n, nil
}

// checkSize is io.EOF when the data are the size the SIZE attribute
// stated (or it stated none), else ErrPartial.
func (c *contentsReader) checkSize() error {
	switch {
	case c.size < 0 || c.n == c.size:
		return io.EOF
	case c.n < c.size:
		return &fetch.Error{Kind: fetch.ErrPartial,
			Msg: fmt.Sprintf("prospero: CONTENTS data end with %d bytes remaining to read (SIZE attribute: %d bytes)", c.size-c.n, c.size)}
	}
	return &fetch.Error{Kind: fetch.ErrPartial,
		Msg: fmt.Sprintf("prospero: CONTENTS data are %d bytes more than the server stated (SIZE attribute: %d bytes)", c.n-c.size, c.size)}
}

// quoteOrBlank are the bytes that end a run of unquoted data.
const quoteOrBlank = "' \t\n"

// maxTrailer bounds what may follow the data token in the reply.
const maxTrailer = 64 << 10

// finish reads the rest of the reply after the data token, so that the
// transaction completes (the server gets its last ACK) and a reply that
// never ends is an error, not a silently short file.
func (c *contentsReader) finish() error {
	n, err := io.Copy(io.Discard, io.LimitReader(c.br, maxTrailer+1))
	switch {
	case err != nil:
		return err
	case n > maxTrailer:
		return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "prospero: more than 64 KiB after the CONTENTS data"}
	}
	return io.EOF
}

func (c *contentsReader) Close() error { return c.r.Close() }

// ---- directories ----

// list lists a directory (DIRECTORY + LIST ATTRIBUTES COMPONENTS).
func (t *target) list(ctx context.Context, req *fetch.Request, resolve bool) (*fetch.Resource, error) {
	r, err := t.ask(ctx, listRequest(t.software, t.user, t.hsoname, t.version))
	if err != nil {
		return nil, err
	}
	if res, err := t.final(r); res != nil || err != nil {
		return res, err
	}
	var b strings.Builder
	for i := range r.Links {
		e := t.entry(&r.Links[i])
		if resolve {
			b.WriteString(e.URL + "\n")
		} else {
			b.WriteString(formatEntry(e))
		}
	}
	if resolve {
		return textResource(b.String()), nil
	}
	res := textResource(b.String())
	res.Dir = true
	res.ContentType = ""
	res.Listing = ParseEntry
	if req.Head {
		res.Body = nil
	}
	return res, nil
}

// entry makes a listing entry of a LINK: a prospero URL for Prospero
// objects, the access-method URL for EXTERNAL ones.
func (t *target) entry(l *Link) fetch.Entry {
	e := fetch.Entry{Name: l.Name, Size: sizeOf(l.Attrs), Type: fetch.EntryFile}
	if isInfo(l) {
		return fetch.Entry{Name: l.Name, Size: -1, Type: fetch.EntryOther, ItemType: 'i'}
	}
	switch {
	case strings.Contains(l.Target, "DIRECTORY") || isDir(l.Attrs):
		e.Type = fetch.EntryDir
	case l.Target == "SYMBOLIC":
		e.Type = fetch.EntryLink
	}
	if a, ok := attr(l.Attrs, "LAST-MODIFIED"); ok && len(a.Values) > 0 {
		if tm, err := time.Parse("20060102150405Z", a.Values[0]); err == nil {
			e.ModTime = tm
		}
	}
	if l.Target == "EXTERNAL" {
		lt := &target{url: t.url, host: t.host, port: t.port, hsoname: l.HSOName}
		if h, p, err := hostPort(l.Host, DefaultPort); err == nil {
			lt.host, lt.port = h, p
		}
		for _, v := range accessMethods(l.Attrs) {
			if m := lt.mapMethod(v, false); m.url != "" && m.name != "PROSPERO-CONTENTS" {
				e.URL = m.url
				break
			}
		}
		return e
	}
	if h, p, err := hostPort(l.Host, DefaultPort); err == nil {
		var fields []urlparse.Field
		if l.Version != "0" && l.Version != "" {
			fields = []urlparse.Field{{Name: urlparse.ObjectVersion, Value: l.Version}}
		}
		e.URL = urlparse.ProsperoURL(h, portOrZero(p, DefaultPort), l.HSOName, fields)
	}
	return e
}

// isInfo reports whether a LINK is a gopher menu's text line as the ISI
// gopher gateway (GOPHER-GW) gives one: target, host and hsoname "NULL"
// (OBJECT-INTERPRETATION VOID), a name that is the text, nothing to fetch.
func isInfo(l *Link) bool {
	return l.Target == "NULL" && l.Host == "NULL" && l.HSOName == "NULL"
}

var entryTypeNames = map[fetch.EntryType]string{fetch.EntryFile: "file", fetch.EntryDir: "dir", fetch.EntryLink: "link"}

// infoType is a text line's type in a listing line.
const infoType = "info"

// formatEntry writes one listing line: type, size ("-" when unknown),
// modification time ("-"), the name (sanitized), a TAB, and the URL.
func formatEntry(e fetch.Entry) string {
	size, mod := "-", "-"
	if e.Size >= 0 {
		size = strconv.FormatInt(e.Size, 10)
	}
	if !e.ModTime.IsZero() {
		mod = e.ModTime.UTC().Format(time.RFC3339)
	}
	typ := entryTypeNames[e.Type]
	if e.ItemType == 'i' {
		typ = infoType
	}
	return fmt.Sprintf("%-4s %12s %-20s %s\t%s\n", typ, size, mod, fetch.Sanitize(e.Name), e.URL)
}

// ParseEntry reads a line of a prospero directory listing (the Body of a
// directory: "type size mtime name<TAB>url").
func ParseEntry(line []byte) fetch.Entry {
	e := fetch.Entry{Raw: string(line), Size: -1}
	left, url, ok := strings.Cut(string(line), "\t")
	f := strings.Fields(left)
	if !ok || len(f) < 4 && (len(f) < 3 || f[0] != infoType) {
		e.Unparsed = true
		return e
	}
	switch f[0] {
	case infoType:
		e.Type, e.ItemType = fetch.EntryOther, 'i'

	case "file":
		e.Type = fetch.EntryFile
	case "dir":
		e.Type = fetch.EntryDir
	case "link":
		e.Type = fetch.EntryLink
	}
	if n, err := strconv.ParseInt(f[1], 10, 64); err == nil && n >= 0 {
		e.Size = n
	}
	if tm, err := time.Parse(time.RFC3339, f[2]); err == nil {
		e.ModTime = tm
	}
	// The name is what follows the third field, spaces kept.
	rest := left
	for i := 0; i < 3; i++ {
		rest = strings.TrimLeft(rest, " ")
		if j := strings.IndexByte(rest, ' '); j >= 0 {
			rest = rest[j+1:]
		} else {
			rest = ""
		}
	}
	e.Name = strings.TrimLeft(rest, " ")
	e.URL = url
	return e
}
