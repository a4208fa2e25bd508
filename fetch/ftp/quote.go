package ftp

import (
	"context"
	"strings"

	"github.com/urlget/urlget/fetch"
)

// When a quoted command (ftp-quote, curl's -Q) is sent.
type quoteWhen uint8

const (
	quoteLogin quoteWhen = iota // "CMD": right after the login, before the CWDs
	quoteStart                  // "+CMD": after the CWDs and TYPE, just before RETR or STOR
	quoteAfter                  // "-CMD": after a transfer that succeeded
)

// quoteCmd is one command of ftp-quote.
type quoteCmd struct {
	when   quoteWhen
	ignore bool // "*" prefix: a refusal does not fail the transfer
	verb   string
	arg    string
}

// parseQuote reads the ftp-quote lines as curl reads -Q: a leading "-"
// sends the command after the transfer, "+" after the CWDs just before it,
// and then a "*" makes a refusal harmless. An empty command is refused.
func parseQuote(lines []string) ([]quoteCmd, error) {
	var out []quoteCmd
	for _, l := range lines {
		q := quoteCmd{}
		s := l
		switch {
		case strings.HasPrefix(s, "-"):
			q.when, s = quoteAfter, s[1:]
		case strings.HasPrefix(s, "+"):
			q.when, s = quoteStart, s[1:]
		}
		if strings.HasPrefix(s, "*") {
			q.ignore, s = true, s[1:]
		}
		q.verb, q.arg, _ = strings.Cut(s, " ")
		if q.verb == "" {
			return nil, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "option " + OptQuote + ": " + printable(l) + ": no command"}
		}
		out = append(out, q)
	}
	return out, nil
}

// quote sends the quoted commands of one moment (when), in order, each
// answered before the next is sent. A reply of 400 or more to a command
// without "*" stops there: ErrQuote (curl's 21), wrapping the
// *ReplyError.
func (f *Fetcher) quote(ctx context.Context, c *pconn, cmds []quoteCmd, when quoteWhen) error {
	for _, q := range cmds {
		if q.when != when {
			continue
		}
		r, err := c.cmd(q.verb, q.arg, q.arg != "")
		if err != nil {
			return ioError(ctx, fetch.ErrProtocol, q.verb, err)
		}
		if r.code >= 400 && !q.ignore {
			return replyError(fetch.ErrQuote, "ftp: quote command refused", shownCommand(q.verb, q.arg), r)
		}
	}
	return nil
}

// done is the result of a retrieval that needed no data connection (a
// HEAD, a file not modified, nothing left to resume, an empty file), once
// the "-" commands are sent.
func (f *Fetcher) done(ctx context.Context, c *pconn, o *options, m fetch.Meta) (*fetch.Resource, error) {
	return f.doneListing(ctx, c, o, &fetch.Resource{Meta: m})
}

// doneListing gives res an empty Body, once the "-" commands are sent.
func (f *Fetcher) doneListing(ctx context.Context, c *pconn, o *options, res *fetch.Resource) (*fetch.Resource, error) {
	if err := f.quote(ctx, c, o.quote, quoteAfter); err != nil {
		return nil, err
	}
	res.Body = &doneBody{f: f, c: c}
	return res, nil
}
