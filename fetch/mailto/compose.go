package mailto

import (
	"crypto/rand"
	"encoding/hex"
	"mime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// SafeFields are the header fields taken from a mailto URL (RFC 6068 §7):
// the ones RFC 6068 names as safe, plus the addressing fields a mail
// client must honour. bcc is taken only with Options[OptAllowBcc]; any
// other field is ignored with a warning.
var SafeFields = []string{"to", "cc", "subject", "body", "in-reply-to", "references", "keywords", "comments"}

// Message is a mail composed from a mailto URL, before its body is read.
type Message struct {
	From       address
	To, Cc     []address
	Bcc        []address // on the envelope only, never in the header
	Subject    string    // decoded; encoded as RFC 2047 words when not ASCII
	InReplyTo  string
	References string
	Keywords   string
	Comments   string
	Text       string // the body= text, line ends not yet normalised
	Date       time.Time
	MessageID  string // without the angle brackets
	// Warnings holds one line for each header field of the URL that was
	// not taken (RFC 6068 §7), and one for blind copies.
	Warnings []string
}

// Hooks for tests: the clock and the Message-ID's left part.
var (
	now         = time.Now
	newUniqueID = func() string {
		var b [12]byte
		rand.Read(b[:])
		return strconv.FormatInt(now().Unix(), 36) + "." + hex.EncodeToString(b[:])
	}
)

// compose builds the message a mailto URL describes. from is the sender
// (--mail-from; "" for the login name at the host name). allowBcc lets a
// bcc field through. Every error is ErrMalformed, before any connection.
func compose(m *urlparse.Mailto, from string, allowBcc bool) (*Message, error) {
	msg := &Message{Date: now()}
	if from == "" {
		from = fetch.DefaultAddress()
	}
	a, err := parseAddress(from, "sender (Options[mail-from])")
	if err != nil {
		return nil, err
	}
	msg.From = a
	add := func(list *[]address, value, what string) error {
		for _, s := range splitAddresses(value) {
			if s == "" {
				continue
			}
			a, err := parseAddress(s, what)
			if err != nil {
				return err
			}
			*list = append(*list, a)
		}
		return nil
	}
	for _, s := range m.To {
		a, err := parseAddress(s, "to")
		if err != nil {
			return nil, err
		}
		msg.To = append(msg.To, a)
	}
	single := map[string]*string{
		"subject": &msg.Subject, "in-reply-to": &msg.InReplyTo, "references": &msg.References,
		"body": &msg.Text, "comments": &msg.Comments,
	}
	seen := map[string]bool{}
	for _, h := range m.Headers {
		name := strings.ToLower(h.Name)
		if name != "body" {
			if i := controlAt(h.Value); i >= 0 {
				return nil, fetch.NewError(fetch.ErrMalformed, "mailto: header field "+quote(h.Name)+": control character in its value", nil)
			}
		} else if strings.IndexByte(h.Value, 0) >= 0 {
			return nil, fetch.NewError(fetch.ErrMalformed, "mailto: body: NUL byte", nil)
		}
		if !utf8.ValidString(h.Value) {
			return nil, fetch.NewError(fetch.ErrMalformed, "mailto: header field "+quote(h.Name)+": not UTF-8", nil)
		}
		switch name {
		case "to":
			err = add(&msg.To, h.Value, "to")
		case "cc":
			err = add(&msg.Cc, h.Value, "cc")
		case "bcc":
			if !allowBcc {
				return nil, fetch.NewError(fetch.ErrMalformed, "mailto: the URL asks for a blind copy to "+
					quote(h.Value)+": refused; give Options[mail-allow-bcc] to send it", nil)
			}
			err = add(&msg.Bcc, h.Value, "bcc")
			msg.Warnings = append(msg.Warnings, "mailto: blind copy to "+quote(h.Value)+" (Options[mail-allow-bcc])")
		case "keywords":
			if msg.Keywords != "" {
				msg.Keywords += ", "
			}
			msg.Keywords += h.Value
		default:
			p, ok := single[name]
			switch {
			case !ok:
				msg.Warnings = append(msg.Warnings, "mailto: header field "+quote(h.Name)+
					" ignored: only "+strings.Join(SafeFields, ", ")+" are taken from a URL (RFC 6068 §7)")
			case seen[name]:
				msg.Warnings = append(msg.Warnings, "mailto: header field "+quote(h.Name)+" repeated: the first one is used")
			default:
				*p = h.Value
			}
			seen[name] = true
		}
		if err != nil {
			return nil, err
		}
	}
	for _, f := range []struct{ name, v string }{{"In-Reply-To", msg.InReplyTo}, {"References", msg.References}} {
		if !isASCII(f.v) {
			return nil, fetch.NewError(fetch.ErrMalformed, "mailto: "+f.name+": message IDs are ASCII", nil)
		}
	}
	if len(msg.To)+len(msg.Cc)+len(msg.Bcc) == 0 {
		return nil, fetch.NewError(fetch.ErrMalformed, "mailto: no recipient: give an address (mailto:user@example.org)", nil)
	}
	msg.MessageID = newUniqueID() + "@" + strings.Trim(msg.From.Domain, "[]")
	return msg, nil
}

// recipients are the envelope's RCPT addresses: To, Cc and Bcc, each once.
func (m *Message) recipients() []address {
	var out []address
	seen := map[string]bool{}
	for _, list := range [][]address{m.To, m.Cc, m.Bcc} {
		for _, a := range list {
			k := a.Local + "@" + strings.ToLower(a.Domain)
			if !seen[k] {
				seen[k] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// needsUTF8 reports whether an address has a non-ASCII local part: the
// header then holds UTF-8 (RFC 6532) and the envelope needs SMTPUTF8.
func (m *Message) needsUTF8() bool {
	if m.From.utf8Local() {
		return true
	}
	for _, a := range m.recipients() {
		if a.utf8Local() {
			return true
		}
	}
	return false
}

// header is the header block, blank line included, for a body with the
// given Content-Transfer-Encoding.
func (m *Message) header(cte string) []byte {
	var b []byte
	field := func(name, value string) {
		if value != "" {
			b = fold(b, name, value)
		}
	}
	addrs := func(list []address) string {
		s := make([]string, len(list))
		for i, a := range list {
			s[i] = a.String()
		}
		return strings.Join(s, ", ")
	}
	field("Date", m.Date.Format(time.RFC1123Z))
	field("From", m.From.String())
	field("To", addrs(m.To))
	field("Cc", addrs(m.Cc))
	field("Subject", encodeText(m.Subject))
	field("Message-ID", "<"+m.MessageID+">")
	field("In-Reply-To", m.InReplyTo)
	field("References", m.References)
	field("Keywords", encodeText(m.Keywords))
	field("Comments", encodeText(m.Comments))
	field("MIME-Version", "1.0")
	field("Content-Type", "text/plain; charset=UTF-8")
	field("Content-Transfer-Encoding", cte)
	return append(b, "\r\n"...)
}

// encodeText is an unstructured field value as RFC 2047 Q-encoded words
// when it is not printable ASCII, unchanged otherwise (an encoded word
// given in the URL, RFC 6068 §6.3, stays as it is).
func encodeText(s string) string {
	return mime.QEncoding.Encode("UTF-8", s)
}

// maxLine is RFC 5322's limit for a line, CRLF excluded.
const maxLine = 998

// fold appends "Name: value" CRLF, folded at spaces before column 78 where
// the value has spaces (RFC 5322 §2.2.3). A word longer than a line cannot
// be folded and is written as it is; the values given here never hold
// one: addresses are capped, text is in encoded words of 75 bytes.
func fold(b []byte, name, value string) []byte {
	line := len(name) + 1
	b = append(b, name...)
	b = append(b, ':')
	for i, w := range strings.Split(value, " ") {
		if i > 0 && line+1+len(w) > 78 && line > len(name)+1 {
			b = append(b, "\r\n"...)
			line = 0
		}
		b = append(b, ' ')
		b = append(b, w...)
		line += 1 + len(w)
	}
	return append(b, "\r\n"...)
}

// summary is the confirmation text shown before sending: From, To, Cc
// (and Bcc) and Subject, one line each, safe for a terminal.
func (m *Message) summary() string {
	var b strings.Builder
	line := func(name string, list []address) {
		if len(list) == 0 {
			return
		}
		s := make([]string, len(list))
		for i, a := range list {
			s[i] = a.String()
		}
		b.WriteString(name + ": " + fetch.SanitizeLine(strings.Join(s, ", "), 500) + "\n")
	}
	line("From", []address{m.From})
	line("To", m.To)
	line("Cc", m.Cc)
	line("Bcc", m.Bcc)
	b.WriteString("Subject: " + fetch.SanitizeLine(m.Subject, 500) + "\n")
	return b.String()
}
