// Package mid fetches mid: and cid: URLs (RFC 2392, named in RFC 1630):
//
//	mid:message-id             the news article with that Message-ID, fetched
//	                           through the news server (as news:<message-id>)
//	mid:message-id/content-id  the MIME body part of that article whose
//	                           Content-ID is content-id, decoded (base64,
//	                           quoted-printable)
//	cid:content-id             the body part with that Content-ID of the
//	                           message given by Options["cid-base"] (--base):
//	                           a local file or a mid: URL
//
// The news server is the nntp fetcher's: Options["nntp-server"]
// (--nntp-server HOST[:PORT]) or $NNTPSERVER. The article is streamed and
// its MIME structure walked as it arrives (mime/multipart), at most 16
// multiparts deep, with a header block of at most 1 MiB: nothing is held
// whole. A part that is not there is ErrNotFound; a message that is not
// MIME, or a malformed one, is ErrProtocol.
package mid

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"os"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/nntp"
	"github.com/urlget/urlget/urlparse"
)

// OptBase is the message a cid: URL is resolved in: a local file path or
// a mid: URL (--base).
const OptBase = "cid-base"

// Limits on what is read before a part's body.
const (
	maxDepth  = 16
	maxHeader = 1 << 20
)

// Fetcher fetches mid: and cid: URLs. The zero value is ready to use.
type Fetcher struct {
	Config fetch.Config // that of the news fetcher a mid: URL is fetched with
}

// New is the Fetcher for cfg (fetch.Scheme.New).
func New(cfg fetch.Config) fetch.Fetcher { return Fetcher{Config: cfg} }

func init() {
	fetch.Register(fetch.Scheme{Name: "mid", New: New, Caps: fetch.Opaque,
		Options: []fetch.Option{{Key: OptBase, Flag: "base", Kind: fetch.String, Arg: "FILE|mid:URL",
			Help: "the message a cid: URL refers into: a local file or a mid: URL", Schemes: []string{"cid"}},
		}})
	fetch.Register(fetch.Scheme{Name: "cid", New: New, Caps: fetch.Opaque})
}

// Open fetches req.URL (see the package documentation).
func (f Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	m, err := req.URL.MID()
	if err != nil {
		return nil, fetch.NewError(fetch.ErrMalformed, "malformed "+req.URL.Scheme+" URL", err)
	}
	var msg io.ReadCloser
	var mres *fetch.Resource
	if m.MessageID != "" {
		mres, err = f.article(ctx, req, m.MessageID, m.ContentID == "")
		if err != nil || m.ContentID == "" {
			return mres, err
		}
		msg = mres.Body
	} else {
		base := req.Options.String(OptBase)
		switch {
		case base == "":
			return nil, fetch.NewError(fetch.ErrMalformed, "cid: a cid: URL needs the message it is in: give Options[cid-base] FILE or Options[cid-base] mid:MESSAGE-ID", nil)
		case strings.HasPrefix(strings.ToLower(base), "mid:"):
			bu, err := urlparse.Parse(base)
			if err != nil {
				return nil, fetch.NewError(fetch.ErrMalformed, "cid: Options[cid-base]", err)
			}
			bm, err := bu.MID()
			if err != nil || bm.ContentID != "" {
				return nil, fetch.NewError(fetch.ErrMalformed, "cid: Options[cid-base] must be a mid: URL of a whole message", err)
			}
			if mres, err = f.article(ctx, req, bm.MessageID, false); err != nil {
				return nil, err
			}
			msg = mres.Body
		default:
			f, err := os.Open(base)
			if err != nil {
				k := fetch.ErrFileRead
				if errors.Is(err, os.ErrNotExist) {
					k = fetch.ErrNotFound
				}
				return nil, &fetch.Error{Kind: k, Msg: "cid: Options[cid-base]", Err: err}
			}
			msg = f
		}
	}
	body, ctype, err := findPart(msg, m.ContentID)
	if err != nil {
		msg.Close()
		return nil, err
	}
	meta := fetch.Meta{Size: -1, ContentType: ctype}
	if req.Head {
		msg.Close()
		return &fetch.Resource{Meta: meta, Body: io.NopCloser(strings.NewReader(""))}, nil
	}
	if req.Offset > 0 {
		body = fetch.SkipReader(body, req.Offset, "cid: the part is shorter than the resume offset")
		meta.Offset = req.Offset
	}
	return &fetch.Resource{Meta: meta, Body: struct {
		io.Reader
		io.Closer
	}{body, msg}}, nil
}

// article fetches the news article with this Message-ID through the nntp
// fetcher, as news:<id> on the configured server; head is passed on for a
// whole message.
func (f Fetcher) article(ctx context.Context, req *fetch.Request, id string, head bool) (*fetch.Resource, error) {
	if !strings.Contains(id, "@") || strings.ContainsAny(id, "<> \t") {
		return nil, fetch.NewError(fetch.ErrMalformed, "mid: "+quote(id)+" is not a Message-ID (local@domain)", nil)
	}
	nu, err := urlparse.Parse(urlparse.NewsURL(id))
	if err != nil || nu.News.MessageID != id {
		return nil, fetch.NewError(fetch.ErrMalformed, "mid: "+quote(id)+" cannot be fetched as a news article", err)
	}
	r := *req
	r.URL = &nu
	if !head { // the whole article, to look for a part in
		r.Head, r.Offset, r.Since = false, 0, time.Time{}
	}
	opts := fetch.Options{}
	for k, v := range req.Options {
		opts[k] = v
	}
	// the whole article: a part is looked for in it
	delete(opts, nntp.OptHead)
	delete(opts, nntp.OptBody)
	r.Options = opts
	res, err := nntp.Fetcher{Config: f.Config}.Open(ctx, &r)
	if errors.Is(err, nntp.ErrNoServer) {
		return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "mid: a mid: URL is fetched from a news server: " + nntp.NoServerHint, Err: nntp.ErrNoServer}
	}
	if err != nil {
		return nil, err
	}
	if head {
		res.ContentType = "message/rfc822"
	}
	return res, nil
}

// findPart walks the MIME message r to the body part with Content-ID cid
// and returns its decoded body and its Content-Type.
func findPart(r io.Reader, cid string) (io.Reader, string, error) {
	lim := &switchLimit{r: r, n: maxHeader}
	br := bufio.NewReader(lim)
	h, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil {
		return nil, "", &fetch.Error{Kind: fetch.ErrProtocol, Msg: "cid: reading the message's header (at most 1 MiB)", Err: err}
	}
	lim.n = -1
	body, ctype, found, err := walk(br, h, cid, 0)
	if err != nil {
		return nil, "", err
	}
	if !found {
		return nil, "", &fetch.Error{Kind: fetch.ErrNotFound, Msg: "cid: no body part with Content-ID <" + fetch.SanitizeLine(cid, 200) + "> in the message"}
	}
	return body, ctype, nil
}

// walk looks for cid in the entity with header h and body r.
func walk(r io.Reader, h textproto.MIMEHeader, cid string, depth int) (io.Reader, string, bool, error) {
	ctype := h.Get("Content-Type")
	if ctype == "" {
		ctype = "text/plain"
	}
	if unbracket(strings.TrimSpace(h.Get("Content-Id"))) == cid {
		return decode(r, h.Get("Content-Transfer-Encoding")), ctype, true, nil
	}
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil || !strings.HasPrefix(mt, "multipart/") {
		return nil, "", false, nil
	}
	if depth >= maxDepth {
		return nil, "", false, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "cid: multiparts nested deeper than 16"}
	}
	if params["boundary"] == "" {
		return nil, "", false, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "cid: a multipart without a boundary"}
	}
	mr := multipart.NewReader(r, params["boundary"])
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			return nil, "", false, nil
		}
		if err != nil {
			return nil, "", false, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "cid: malformed multipart", Err: err}
		}
		if body, ct, ok, err := walk(p, p.Header, cid, depth+1); ok || err != nil {
			return body, ct, ok, err
		}
	}
}

// decode undoes a Content-Transfer-Encoding.
func decode(r io.Reader, cte string) io.Reader {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r) // line breaks are skipped
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

func unbracket(s string) string {
	if len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		return s[1 : len(s)-1]
	}
	return s
}

func quote(s string) string { return "\"" + fetch.SanitizeLine(s, 200) + "\"" }

// switchLimit reads at most n bytes from r, then fails; n < 0 lifts the
// limit (after the header block).
type switchLimit struct {
	r io.Reader
	n int64
}

func (l *switchLimit) Read(p []byte) (int, error) {
	if l.n == 0 {
		return 0, errors.New("header block over 1 MiB")
	}
	if l.n > 0 && int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	if l.n > 0 {
		l.n -= int64(n)
	}
	return n, err
}
