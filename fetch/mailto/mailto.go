package mailto

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Request.Options keys this package reads.
const (
	// OptFrom is the sender: the From field and the envelope sender
	// (--mail-from ADDR; default: the login name at the host name).
	OptFrom = "mail-from"
	// OptAllowBcc lets a URL's bcc field through (--mail-allow-bcc).
	OptAllowBcc = "mail-allow-bcc"
	// OptDryRun makes the composed message the result, sent nowhere
	// (--dry-run).
	OptDryRun = fetch.OptDryRun
	// OptServer is the SMTP server: HOST[:PORT], smtp://HOST[:PORT] or
	// smtps://HOST[:PORT] (--smtp-server).
	OptServer = "smtp-server"
	// OptConfirm is the answer: y or yes (any case), 1, true or on sends
	// (--yes sets it); anything else is ErrAborted.
	OptConfirm = "mail-confirm"
)

// Environment variables naming the SMTP server when Options has none, in
// this order.
const (
	EnvServer   = "SMTP_SERVER"
	EnvMailhost = "MAILHOST"
)

// sendmailPaths are where a local sendmail is looked for when no SMTP
// server is configured (after $PATH); a test points them elsewhere.
var sendmailPaths = []string{"/usr/sbin/sendmail", "/usr/lib/sendmail"}

// Fetcher composes and delivers mail for mailto: URLs. The zero value is
// ready to use.
type Fetcher struct {
	// Config gives the dialer, TLS, the verbose log and the warnings: the
	// URL's header fields that are ignored, the blind copies.
	Config fetch.Config
}

// New is the Fetcher for cfg (fetch.Scheme.New).
func New(cfg fetch.Config) fetch.Fetcher { return Fetcher{Config: cfg} }

func init() {
	sc := []string{"mailto"}
	fetch.Register(fetch.Scheme{Name: "mailto", New: New,
		Caps: fetch.NoProxy | fetch.SendsBody | fetch.Mail | fetch.StartTLS | fetch.Opaque,
		Options: []fetch.Option{
			{Key: OptFrom, Kind: fetch.String, Arg: "ADDR", Default: "login name @ host name",
				Help: "the sender: From field and envelope sender", Schemes: sc},
			{Key: OptServer, Kind: fetch.String, Arg: "HOST[:PORT]",
				Help: "the SMTP server (also smtp:// or smtps:// URL; else $SMTP_SERVER, $MAILHOST, then a local sendmail)", Schemes: sc},
			{Key: OptAllowBcc, Kind: fetch.Bool,
				Help: "send the blind copies a URL's bcc field asks for (refused otherwise)", Schemes: sc},
			{Key: OptDryRun, Kind: fetch.Bool,
				Help:    "write the composed message (mailto) or the article to post (news) instead of sending it",
				Schemes: []string{"mailto", "news", "nntp", "nntps"}},
			{Key: OptConfirm, Flag: "yes", Kind: fetch.Bool, Set: "yes",
				Help: "send without asking on a terminal", Schemes: sc},
		},
		Examples: []fetch.Example{
			{Args: "--mail-from me@example.org 'mailto:joe@example.org?subject=Hi&body=Hello%20Joe'", Help: "send a short mail ($SMTP_SERVER, else $MAILHOST, else sendmail)"},
			{Args: "--smtp-server mail.example.org -T notes.txt 'mailto:joe@example.org?subject=Notes'", Help: "send a file's text through that server"},
			{Args: "-o draft.eml 'mailto:joe@example.org?cc=ann@example.org&subject=Draft'", Help: "write the composed message to a file instead of sending it"},
		}})
}

// SendsBody reports that a mailto URL takes a Request.Body: the text after
// the URL's body= (-T FILE, -T -).
func (Fetcher) SendsBody(u *urlparse.URL) bool { return u.Scheme == "mailto" }

// Open composes the message req.URL describes and, unless
// Options[OptDryRun] is set, delivers it. With OptDryRun the Resource's
// Body is the message (message/rfc822); otherwise it is a delivery report,
// one line per recipient.
func (f Fetcher) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	if req.URL.Scheme != "mailto" {
		return nil, fetch.NewError(fetch.ErrUnsupported, "mailto: not a mailto URL", nil)
	}
	if err := req.URL.CheckLine(); err != nil {
		return nil, fetch.NewError(fetch.ErrMalformed, "mailto: URL refused", err)
	}
	opts := req.Options
	allowBcc, err := opts.Bool(OptAllowBcc)
	if err != nil {
		return nil, err
	}
	dry, err := opts.Bool(OptDryRun)
	if err != nil {
		return nil, err
	}
	msg, err := compose(&req.URL.Mailto, opts.String(OptFrom), allowBcc)
	if err != nil {
		return nil, err
	}
	for _, w := range msg.Warnings {
		f.Config.Warn(w)
	}
	if req.Head {
		return &fetch.Resource{Meta: fetch.Meta{Size: -1, ContentType: "message/rfc822"}, Body: io.NopCloser(strings.NewReader(""))}, nil
	}
	if dry {
		r, err := msg.render(req.Body)
		if err != nil {
			return nil, bodyError(err)
		}
		return &fetch.Resource{Meta: fetch.Meta{Size: r.size(), ContentType: "message/rfc822"}, Body: r.reader()}, nil
	}
	if err := confirm(req, msg); err != nil {
		return nil, err
	}
	how, err := deliveryMethod(req)
	if err != nil {
		return nil, err
	}
	r, err := msg.render(req.Body)
	if err != nil {
		return nil, bodyError(err)
	}
	var report []byte
	if how.sendmail != "" {
		report, err = sendmail(ctx, &f.Config, how.sendmail, msg, r)
	} else {
		report, err = deliverSMTP(ctx, &f.Config, req, how.smtp, msg, r)
	}
	if err != nil {
		return nil, err
	}
	return &fetch.Resource{Meta: fetch.Meta{Size: int64(len(report)), ContentType: "text/plain"},
		Body: io.NopCloser(bytes.NewReader(report))}, nil
}

func bodyError(err error) error {
	var re *bodyReadError
	if errors.As(err, &re) {
		return &fetch.Error{Kind: fetch.ErrRead, Msg: "mailto: reading the message body", Err: re.err}
	}
	return err
}

// confirm asks before sending when the caller can ask
// (fetch.OptInteractive) and has no answer yet (OptConfirm).
func confirm(req *fetch.Request, msg *Message) error {
	need, err := req.Options.Bool(fetch.OptInteractive)
	if err != nil || !need {
		return err
	}
	if !req.Options.Has(OptConfirm) {
		return &fetch.InputNeededError{Key: OptConfirm, Prompt: msg.summary() + "Send this message? [y/N] ",
			Err: fetch.NewError(fetch.ErrAborted, "mailto: not sent: confirm with Options[mail-confirm]=yes", nil)}
	}
	switch strings.ToLower(strings.TrimSpace(req.Options.String(OptConfirm))) {
	case "y", "yes", "1", "true", "on":
		return nil
	}
	return fetch.NewError(fetch.ErrAborted, "mailto: not sent", nil)
}

// method is how a message is delivered: an SMTP server, or a sendmail
// program.
type method struct {
	smtp     server
	sendmail string
}

// deliveryMethod picks the delivery: Options[OptServer], else
// $SMTP_SERVER, else $MAILHOST, else a local sendmail; with none,
// ErrNotConfigured (exit 2) saying how to configure one.
func deliveryMethod(req *fetch.Request) (method, error) {
	for _, c := range []struct{ v, from string }{
		{req.Options.String(OptServer), "Options[smtp-server]"},
		{os.Getenv(EnvServer), "$" + EnvServer},
		{os.Getenv(EnvMailhost), "$" + EnvMailhost},
	} {
		if c.v != "" {
			s, err := parseServer(c.v, c.from)
			return method{smtp: s}, err
		}
	}
	if p := findSendmail(); p != "" {
		return method{sendmail: p}, nil
	}
	return method{}, fetch.NewError(fetch.ErrNotConfigured, "mailto: no way to send mail: give Options[smtp-server] HOST[:PORT] (or smtps://HOST), set "+
		EnvServer+" or "+EnvMailhost+", or install a sendmail; Options[dry-run] writes the message instead", nil)
}

func findSendmail() string {
	if p, err := exec.LookPath("sendmail"); err == nil {
		return p
	}
	for _, p := range sendmailPaths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// deliverSMTP sends the message through srv; the report has one line per
// recipient.
func deliverSMTP(ctx context.Context, cfg *fetch.Config, req *fetch.Request, srv server, msg *Message, r *rendered) ([]byte, error) {
	s, err := dial(ctx, cfg, req, srv)
	if err != nil {
		return nil, err
	}
	defer s.close() // after QUIT, or on any error
	if err := s.auth(); err != nil {
		s.quit()
		return nil, err
	}
	accepted, final, err := s.send(msg, r)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, d := range accepted {
		fmt.Fprintf(&b, "%s: sent via %s (%d %s; %s)\n", fetch.SanitizeLine(d.rcpt, 300), srv, d.code, d.reply, final)
	}
	return b.Bytes(), nil
}

// reader is the message as a stream, for a dry run.
func (r *rendered) reader() io.ReadCloser {
	if r.stream == nil {
		return io.NopCloser(io.MultiReader(bytes.NewReader(r.header), bytes.NewReader(r.body)))
	}
	pr, pw := io.Pipe()
	go func() {
		err := r.writeTo(pw)
		if err != nil {
			err = bodyError(err)
		}
		pw.CloseWithError(err)
	}()
	return pr
}
