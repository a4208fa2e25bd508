package nntp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/internal/lineproto"
	"github.com/urlget/urlget/urlparse"
)

// MaxPostHeader bounds the header block of an article to post: it is read
// whole, checked and completed before any connection is made. The body
// that follows is streamed and has no bound.
const MaxPostHeader = 64 << 10

// SendsBody reports that an article (Request.Body) can be posted to u: a
// URL naming one newsgroup (news:GROUP, nntp://HOST/GROUP), not an
// article, a message-id or a wildmat.
func (Fetcher) SendsBody(u *urlparse.URL) bool {
	switch u.Scheme {
	case "news":
		return u.News.Group != "" && !u.News.All && u.News.MessageID == "" && !isWildmat(u.News.Group)
	case "nntp", "nntps":
		return u.NNTP.Group != "" && !u.NNTP.All && u.NNTP.MessageID == "" && u.NNTP.Article == "" && !isWildmat(u.NNTP.Group)
	}
	return false
}

// article is an article to post: its header block, checked and completed,
// and the body still to be read.
type article struct {
	head  []byte // the header lines as given, each ended by "\n" (a CR before it dropped)
	added []string
	msgID string // with its angle brackets
	body  io.Reader
}

// header is the header block, added fields last, with LF line ends.
func (a *article) header() []byte {
	h := bytes.Clone(a.head)
	for _, f := range a.added {
		h = append(h, f...)
		h = append(h, '\n')
	}
	return h
}

// post sends req.Body as a new article to t's newsgroup (POST, RFC 3977
// §6.3.1), or with Options[fetch.OptDryRun] (or Request.Head) gives it
// back without connecting.
func (f Fetcher) post(ctx context.Context, req *fetch.Request, t *target) (*fetch.Resource, error) {
	if t.group == "" || t.article != "" {
		return nil, &fetch.Error{Kind: fetch.ErrUnsupported, Msg: "nntp: an article is posted to a newsgroup URL (news:GROUP or nntp://HOST/GROUP), not to an article or a list of groups"}
	}
	dry, err := req.Options.Bool(fetch.OptDryRun)
	if err != nil {
		return nil, err
	}
	src := &sourceReader{r: req.Body}
	a, err := readArticle(src, t.group, time.Now())
	if err != nil {
		return nil, err
	}
	meta := fetch.Meta{Size: -1, Header: fetch.Header{{Name: "Message-ID", Value: a.msgID}}}
	if dry || req.Head {
		meta.ContentType = "message/rfc822"
		body := io.Reader(strings.NewReader(""))
		if !req.Head {
			body = io.MultiReader(bytes.NewReader(a.header()), strings.NewReader("\n"), fetch.LFReader(a.body))
		}
		return &fetch.Resource{Meta: meta, Body: io.NopCloser(body)}, nil
	}
	if t.host == "" {
		return nil, malformed("a news: URL names no server: " + NoServerHint)
	}
	c, err := dial(ctx, &f.Config, req, t.host, t.port, t.tls)
	if err != nil {
		return nil, err
	}
	r, err := c.send340(a)
	if err != nil {
		c.close()
		return nil, err
	}
	c.quit()
	report := a.msgID + "\n"
	meta.Status, meta.ContentType, meta.Size = r.code, "text/plain", int64(len(report))
	return &fetch.Resource{Meta: meta, Body: io.NopCloser(strings.NewReader(report))}, nil
}

// send340 sends POST and, once the server invites it (340), the article;
// it returns the server's 240.
func (c *conn) send340(a *article) (reply, error) {
	r, err := c.do("POST")
	if err != nil {
		return r, err
	}
	switch r.code {
	case 340:
	case 440:
		return r, &fetch.Error{Kind: fetch.ErrUpload, Status: r.code,
			Msg: "nntp: the server does not let this client post (nothing sent): " + quote(r.line)}
	default:
		return r, replyError("POST", r)
	}
	dw := lineproto.NewDotWriter(bufio.NewWriterSize(c.nc, 32<<10))
	_, err = dw.Write(a.header())
	if err == nil {
		_, err = dw.Write([]byte("\n"))
	}
	if err == nil {
		_, err = io.Copy(dw, a.body)
	}
	if err == nil {
		err = dw.Close()
	}
	if err != nil {
		// No "." line has gone out: the server drops what it has.
		var se *sourceError
		if errors.As(err, &se) {
			return r, &fetch.Error{Kind: fetch.ErrRead, Msg: "nntp: reading the article failed; the connection was dropped before its end, nothing was posted", Err: se.err}
		}
		return r, c.sendError("while the article was sent (it was not posted)", err)
	}
	c.logf("> (article: %d bytes)", dw.Written())
	r, err = c.readReply()
	if err != nil {
		if fetch.KindOf(err) == fetch.ErrPartial {
			// Not wrapped: the article may have been posted, and a retry
			// (fetch.Retryable sees a reset in the chain) would post it
			// again under a new Message-ID.
			err = &fetch.Error{Kind: fetch.ErrSendFailed,
				Msg: "nntp: the connection was lost after the article, before the server confirmed it (it may have been posted): " + err.Error()}
		}
		return r, err
	}
	switch r.code {
	case 240:
		return r, nil
	case 441:
		return r, &fetch.Error{Kind: fetch.ErrSendFailed, Status: r.code,
			Msg: "nntp: the server refused the article: " + quote(r.line)}
	}
	return r, replyError("the article", r)
}

// sendError is the error for a connection lost while posting: the
// context's, a timeout, else ErrSendFailed.
func (c *conn) sendError(when string, err error) error {
	if c.ctx.Err() != nil {
		return fetch.ContextError(c.ctx)
	}
	if fetch.KindOf(err) == fetch.ErrTimeout {
		return &fetch.Error{Kind: fetch.ErrTimeout, Msg: "nntp: timed out " + when, Err: err}
	}
	return &fetch.Error{Kind: fetch.ErrSendFailed, Msg: "nntp: the connection was lost " + when, Err: err}
}

// sourceReader reads the caller's article and marks its errors, so that a
// failure to read it is told from a failure to send it.
type sourceReader struct{ r io.Reader }

type sourceError struct{ err error }

func (e *sourceError) Error() string { return e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = &sourceError{err}
	}
	return n, err
}

// readArticle reads and checks the header block of an article to post to
// group (RFC 5536 §3): every line a field ("Name: value") or the
// continuation of one, no CR or NUL inside a line, From and Subject
// present, Newsgroups naming group (added when missing), Message-ID and
// Date added when missing. A blank line ends the block; the input may end
// there instead (an article without a body).
func readArticle(r io.Reader, group string, now time.Time) (*article, error) {
	br := bufio.NewReaderSize(r, 16<<10)
	a := &article{}
	fields := map[string]string{} // the fields checked, by lower-case name
	last := ""                    // the field a continuation line continues
	for n := 1; ; n++ {
		line, err := readHeaderLine(br, len(a.head))
		if err != nil {
			var se *sourceError
			if errors.As(err, &se) {
				return nil, &fetch.Error{Kind: fetch.ErrRead, Msg: "nntp: reading the article", Err: se.err}
			}
			if err != io.EOF {
				return nil, err
			}
			if line == nil {
				if n == 1 {
					return nil, badArticle("it is empty")
				}
				break
			}
		}
		if len(line) == 0 {
			if n == 1 {
				return nil, badArticle("it begins with an empty line: the header fields (From, Newsgroups, Subject) come first, then an empty line, then the body")
			}
			break
		}
		if i := bytes.IndexAny(line, "\r\x00"); i >= 0 {
			what := "a bare CR"
			if line[i] == 0 {
				what = "a NUL byte"
			}
			return nil, badArticle("header line " + strconv.Itoa(n) + " holds " + what)
		}
		if line[0] == ' ' || line[0] == '\t' {
			if last == "" {
				return nil, badArticle("line 1 is a continuation line, not a header field")
			}
			if _, ok := fields[last]; ok {
				fields[last] += " " + strings.TrimSpace(string(line))
			}
		} else {
			name, value, ok := bytes.Cut(line, []byte(":"))
			if !ok || !fieldName(name) {
				return nil, badArticle("header line " + strconv.Itoa(n) + " is not a header field (\"Name: value\"): " + quote(string(line)) +
					"; the header comes first, then an empty line, then the body")
			}
			last = strings.ToLower(string(name))
			switch last {
			case "from", "subject", "newsgroups", "message-id", "date":
				if _, dup := fields[last]; dup {
					return nil, badArticle("it has two " + string(name) + " fields")
				}
				fields[last] = strings.TrimSpace(string(value))
			}
		}
		a.head = append(append(a.head, line...), '\n')
		if err == io.EOF {
			break
		}
	}
	for _, f := range []string{"From", "Subject"} {
		if fields[strings.ToLower(f)] == "" {
			return nil, badArticle("it has no " + f + " field (needed: From, Subject; Newsgroups is taken from the URL)")
		}
	}
	if ng, ok := fields["newsgroups"]; !ok {
		a.added = append(a.added, "Newsgroups: "+group)
	} else if !listsGroup(ng, group) {
		return nil, badArticle("its Newsgroups field (" + quote(ng) + ") does not name " + group + ", the group of the URL")
	}
	if id, ok := fields["message-id"]; ok {
		inner, opened := strings.CutPrefix(id, "<")
		if inner, closed := strings.CutSuffix(inner, ">"); !opened || !closed || checkMessageID(inner) != nil {
			return nil, badArticle("its Message-ID " + quote(id) + " is not <id@domain> (RFC 5536 §3.1.3)")
		}
		a.msgID = id
	} else {
		a.msgID = newMessageID(fields["from"], now)
		a.added = append(a.added, "Message-ID: "+a.msgID)
	}
	if _, ok := fields["date"]; !ok {
		a.added = append(a.added, "Date: "+now.UTC().Format(time.RFC1123Z))
	}
	a.body = br
	return a, nil
}

// readHeaderLine reads one header line without its line end (LF or CRLF);
// used is how many header bytes came before it. At the end of the input it
// returns the last line (nil when there is none) and io.EOF.
func readHeaderLine(br *bufio.Reader, used int) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) || used+len(line) > MaxPostHeader {
		return nil, badArticle("its header block is over " + strconv.Itoa(MaxPostHeader) + " bytes (or has no empty line after it)")
	}
	if err != nil && err != io.EOF {
		return nil, err
	}
	if err == io.EOF && len(line) == 0 {
		return nil, io.EOF
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	if len(line) > 0 && line[len(line)-1] == '\r' && err == nil {
		line = line[:len(line)-1]
	}
	return line, err
}

func badArticle(why string) error {
	return &fetch.Error{Kind: fetch.ErrMalformed, Msg: "nntp: article not posted: " + why}
}

// fieldName allows an RFC 5322 field name: printable ASCII but ":".
func fieldName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < 33 || c > 126 || c == ':' {
			return false
		}
	}
	return true
}

// listsGroup reports whether a Newsgroups value names group.
func listsGroup(ng, group string) bool {
	for g := range strings.SplitSeq(ng, ",") {
		if strings.TrimSpace(g) == group {
			return true
		}
	}
	return false
}

// newMessageID makes a unique Message-ID (RFC 5536 §3.1.3) on the domain
// of the From address, else on "urlget.invalid".
func newMessageID(from string, now time.Time) string {
	var rnd [8]byte
	rand.Read(rnd[:])
	return "<urlget." + strconv.FormatInt(now.UnixNano(), 36) + "." + hex.EncodeToString(rnd[:]) + "@" + fromDomain(from) + ">"
}

// fromDomain is the domain of the (last) address in a From field, when it
// is a plain host name.
func fromDomain(from string) string {
	i := strings.LastIndexByte(from, '@')
	if i < 0 {
		return "urlget.invalid"
	}
	d := from[i+1:]
	if j := strings.IndexAny(d, "> \t,()"); j >= 0 {
		d = d[:j]
	}
	if d == "" || len(d) > 200 || net.ParseIP(d) != nil || strings.Trim(d, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") != "" || !strings.Contains(d, ".") {
		return "urlget.invalid"
	}
	return d
}
