package mailto

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-sasl"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/internal/lineproto"
	"github.com/urlget/urlget/urlparse"
)

// This file is urlget's SMTP client (RFC 5321), written here rather than
// taken from emersion/go-smtp: go-smtp bounds the length of a reply line
// but not the number of lines of a reply (net/textproto gathers endless
// "250-" lines into one string), a bound below its TLS layer cannot count
// lines after STARTTLS, and its debug log mixes both directions and shows
// AUTH credentials. The SASL mechanisms come from emersion/go-sasl.

// Bounds on what a server may send (RFC 5321 §4.5.3.1.5 allows 512-byte
// reply lines; a few times that is room for real servers).
const (
	maxReplyLine  = 2048
	maxReplyLines = 100
)

// RFC 5321 §4.5.3.2 timeouts: for each reply, and for the reply to the
// final "." of the message. The context's deadline (--max-time) applies on
// top of both.
var (
	replyTimeout = 5 * time.Minute
	dataTimeout  = 10 * time.Minute
)

// server is where mail goes over SMTP.
type server struct {
	host     string
	port     int
	implicit bool   // smtps://: TLS from the start
	helo     string // the EHLO name from the URL's path (as curl), or ""
	from     string // where the setting came from, for messages
}

func (s server) addr() string { return net.JoinHostPort(s.host, strconv.Itoa(s.port)) }

func (s server) String() string {
	sc := "smtp"
	if s.implicit {
		sc = "smtps"
	}
	return sc + "://" + s.addr()
}

// parseServer reads HOST[:PORT], smtp://HOST[:PORT][/EHLO-NAME] or
// smtps://HOST[:PORT][/EHLO-NAME]; from names the setting.
func parseServer(s, from string) (server, error) {
	bad := func(why string) (server, error) {
		return server{}, fetch.NewError(fetch.ErrMalformed, "mailto: bad SMTP server "+quote(s)+" from "+from+": "+why, nil)
	}
	raw := s
	if !strings.Contains(s, "://") {
		raw = "smtp://" + s
	}
	u, err := urlparse.Parse(raw)
	if err != nil {
		return bad(err.Error())
	}
	srv := server{host: u.Host, from: from}
	switch u.Scheme {
	case "smtp":
		srv.port = 25
	case "smtps":
		srv.port, srv.implicit = 465, true
	default:
		return bad("not smtp:// or smtps://")
	}
	if u.Host == "" || u.HasUserinfo || u.HasQuery || u.Port > 65535 {
		return bad("want HOST[:PORT]")
	}
	if u.Port >= 0 {
		srv.port = u.Port
	}
	srv.helo = strings.TrimPrefix(u.Path, "/")
	if controlAt(srv.helo) >= 0 || strings.ContainsAny(srv.helo, " /") {
		return bad("bad EHLO name in the path")
	}
	return srv, nil
}

// session is one SMTP connection.
type session struct {
	ctx      context.Context
	req      *fetch.Request
	srv      server
	nc       net.Conn
	br       *bufio.Reader
	ext      map[string]string // EHLO keywords (upper case) and their parameters
	tls      bool
	tlsCfg   *tls.Config
	verbose  io.Writer
	loopback bool
}

// close closes the connection (TLS or not) and releases the watch on the
// context.
func (s *session) close() { s.nc.Close() }

// smtpError is a reply the client did not want.
type smtpError struct {
	code int
	text string // the reply's lines joined with " ", sanitised
}

func (e *smtpError) Error() string { return strconv.Itoa(e.code) + " " + e.text }

// dial connects, reads the greeting, says EHLO (HELO when EHLO is not
// understood), and starts TLS: smtps:// from the start, STARTTLS when the
// server offers it or Options["ssl"] is "required".
func dial(ctx context.Context, cfg *fetch.Config, req *fetch.Request, srv server) (*session, error) {
	nc, err := fetch.Connect(ctx, cfg.Dialer, srv.addr(), "smtp: connecting to")
	if err != nil {
		return nil, err
	}
	s := &session{ctx: ctx, req: req, srv: srv, nc: nc, tlsCfg: cfg.TLS, verbose: cfg.Verbose}
	if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		s.loopback = true
	}
	if srv.implicit {
		tc, err := fetch.HandshakeTLS(ctx, cfg.TLS, nc, srv.host, "smtp")
		if err != nil {
			nc.Close()
			return nil, err
		}
		s.nc, s.tls = tc, true
	}
	s.br = bufio.NewReaderSize(s.nc, maxReplyLine)
	if _, err := s.expect(replyTimeout, "greeting", 220); err != nil {
		s.close()
		return nil, err
	}
	if err := s.hello(); err != nil {
		s.close()
		return nil, err
	}
	ssl := req.Options.String(fetch.OptSSL)
	if ssl != "" && ssl != "try" && ssl != "required" {
		s.close()
		return nil, fetch.NewError(fetch.ErrMalformed, "smtp: option ssl must be try or required, not "+quote(ssl), nil)
	}
	if !s.tls {
		_, offered := s.ext["STARTTLS"]
		switch {
		case offered:
			if err := s.startTLS(); err != nil {
				s.close()
				return nil, err
			}
		case ssl == "required":
			s.close()
			return nil, &fetch.Error{Kind: fetch.ErrTLS, Msg: "smtp: " + srv.String() + " does not offer STARTTLS (Options[ssl]=required)"}
		}
	}
	return s, nil
}

func (s *session) hello() error {
	name := s.srv.helo
	if name == "" {
		name = heloName(s.nc)
	}
	code, lines, err := s.cmd(replyTimeout, "EHLO "+name)
	if err != nil {
		return err
	}
	s.ext = map[string]string{}
	switch {
	case code == 250:
		for _, l := range lines[1:] {
			k, v, _ := strings.Cut(l, " ")
			s.ext[strings.ToUpper(k)] = v
		}
		return nil
	case code == 500 || code == 502:
		_, err = s.expect(replyTimeout, "HELO "+name, 250)
		return err
	}
	return s.refused("EHLO", code, lines)
}

// heloName is the name urlget gives in EHLO: the host name when it looks
// like a domain, else the local address as a literal (RFC 5321 §4.1.3).
func heloName(nc net.Conn) string {
	if h, err := os.Hostname(); err == nil && strings.Contains(h, ".") && isDotAtom(h) && isASCII(h) {
		return h
	}
	if ta, ok := nc.LocalAddr().(*net.TCPAddr); ok {
		if ta.IP.To4() != nil {
			return "[" + ta.IP.String() + "]"
		}
		return "[IPv6:" + ta.IP.String() + "]"
	}
	return "localhost"
}

func (s *session) startTLS() error {
	if _, err := s.expect(replyTimeout, "STARTTLS", 220); err != nil {
		return err
	}
	if s.br.Buffered() > 0 {
		return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "smtp: the server sent data before the TLS handshake"}
	}
	tc, err := fetch.HandshakeTLS(s.ctx, s.tlsCfg, s.nc, s.srv.host, "smtp")
	if err != nil {
		return err
	}
	s.nc, s.tls = tc, true
	s.br = bufio.NewReaderSize(tc, maxReplyLine)
	return s.hello()
}

// auth logs in with Request.User and Password: PLAIN, else LOGIN; only
// over TLS or to a loopback address. Without credentials, or when the
// server offers no AUTH, it does nothing.
func (s *session) auth() error {
	if s.req.User == "" && !s.req.HasPassword {
		return nil
	}
	mechs, ok := s.ext["AUTH"]
	if !ok {
		s.note("the server offers no AUTH: sending without logging in")
		return nil
	}
	if !s.tls && !s.loopback {
		return &fetch.Error{Kind: fetch.ErrLoginDenied,
			Msg: "smtp: " + s.srv.String() + " offers no TLS: refusing to send the password in clear (use smtps:// or a server with STARTTLS)"}
	}
	var c sasl.Client
	for _, m := range strings.Fields(strings.ToUpper(mechs)) {
		if m == sasl.Plain {
			c = sasl.NewPlainClient("", s.req.User, s.req.Password)
			break
		}
		if m == sasl.Login {
			c = sasl.NewLoginClient(s.req.User, s.req.Password)
		}
	}
	if c == nil {
		return &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "smtp: the server offers neither AUTH PLAIN nor LOGIN (it offers " + fetch.SanitizeLine(mechs, 100) + ")"}
	}
	mech, ir, err := c.Start()
	if err != nil {
		return &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "smtp: AUTH", Err: err}
	}
	line := "AUTH " + mech
	if ir != nil {
		line += " " + encode64(ir)
	}
	code, lines, err := s.cmdMasked(replyTimeout, line, "AUTH "+mech+" ****")
	for round := 0; err == nil && code == 334; round++ {
		if round == 10 { // PLAIN needs none, LOGIN one: a server asking on is stalling
			return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "smtp: AUTH " + mech + ": more than 10 challenges"}
		}
		chal, derr := base64.StdEncoding.DecodeString(strings.Join(lines, ""))
		if derr != nil {
			return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "smtp: AUTH challenge not in base64"}
		}
		resp, nerr := c.Next(chal)
		if nerr != nil {
			s.cmdMasked(replyTimeout, "*", "*") // cancel the exchange (RFC 4954 §4)
			return &fetch.Error{Kind: fetch.ErrLoginDenied, Msg: "smtp: AUTH " + mech, Err: nerr}
		}
		code, lines, err = s.cmdMasked(replyTimeout, encode64(resp), "****")
	}
	if err != nil {
		return err
	}
	if code != 235 {
		e := s.refused("AUTH", code, lines)
		if fe := (*fetch.Error)(nil); errors.As(e, &fe) && fe.Kind == fetch.ErrSendFailed {
			fe.Kind = fetch.ErrLoginDenied
		}
		return e
	}
	return nil
}

func encode64(b []byte) string {
	if len(b) == 0 {
		return "="
	}
	return base64.StdEncoding.EncodeToString(b)
}

// delivery is the result of one RCPT.
type delivery struct {
	rcpt  string
	code  int
	reply string
}

// send runs one mail transaction: MAIL, every RCPT, then DATA unless a
// recipient was refused. Every RCPT is answered before giving up, so that
// the error names each refused recipient. When writing the message fails
// (Request.Body unreadable midway), the connection is dropped before the
// final ".", so no truncated message is delivered.
func (s *session) send(msg *Message, r *rendered) (accepted []delivery, final string, err error) {
	mail := "MAIL FROM:<" + msg.From.String() + ">"
	utf8 := r.eight
	if utf8 {
		if _, ok := s.ext["SMTPUTF8"]; !ok {
			return nil, "", &fetch.Error{Kind: fetch.ErrSendFailed,
				Msg: "smtp: an address has a non-ASCII local part and " + s.srv.String() + " does not offer SMTPUTF8"}
		}
		mail += " SMTPUTF8"
		if _, ok := s.ext["8BITMIME"]; ok {
			mail += " BODY=8BITMIME"
		}
	}
	if lim, ok := s.ext["SIZE"]; ok {
		if n := r.size(); n >= 0 {
			if max, err := strconv.ParseInt(lim, 10, 64); err == nil && max > 0 && n > max {
				return nil, "", &fetch.Error{Kind: fetch.ErrSendFailed,
					Msg: fmt.Sprintf("smtp: the message is %d bytes, over the server's limit of %d", n, max)}
			}
			mail += " SIZE=" + strconv.FormatInt(n, 10)
		}
	}
	code, lines, err := s.cmd(replyTimeout, mail)
	if err != nil {
		return nil, "", err
	}
	if code != 250 {
		return nil, "", s.refused("MAIL FROM", code, lines)
	}
	var refused []string
	lastRefusal := 0 // -w %{response_code}: the last refusal, as curl
	for _, a := range msg.recipients() {
		code, lines, err := s.cmd(replyTimeout, "RCPT TO:<"+a.String()+">")
		if err != nil {
			return nil, "", err
		}
		text := replyText(lines)
		if code == 421 {
			return nil, "", s.refused("RCPT TO", code, lines)
		}
		if code == 250 || code == 251 {
			accepted = append(accepted, delivery{a.String(), code, text})
			continue
		}
		refused = append(refused, fetch.SanitizeLine(a.String(), 200)+" ("+strconv.Itoa(code)+" "+text+")")
		lastRefusal = code
	}
	if len(refused) > 0 {
		s.quit()
		what := "recipient"
		if len(refused) > 1 {
			what = strconv.Itoa(len(refused)) + " recipients"
		}
		return nil, "", &fetch.Error{Kind: fetch.ErrSendFailed,
			Msg: "smtp: " + what + " refused, nothing sent: " + strings.Join(refused, "; "), Status: lastRefusal}
	}
	code, lines, err = s.cmd(replyTimeout, "DATA")
	if err != nil {
		return nil, "", err
	}
	if code != 354 {
		return nil, "", s.refused("DATA", code, lines)
	}
	s.deadline(dataTimeout)
	dw := lineproto.NewDotWriter(bufio.NewWriterSize(s.nc, 32<<10))
	if err := r.writeTo(dw); err != nil {
		s.close() // no final ".": nothing half-sent is delivered
		var re *bodyReadError
		if errors.As(err, &re) {
			return nil, "", &fetch.Error{Kind: fetch.ErrRead, Msg: "mailto: reading the message body failed; the connection was dropped before the end of the message, nothing was sent", Err: re.err}
		}
		return nil, "", s.netError("sending the message", err)
	}
	if err := dw.Close(); err != nil {
		s.close()
		return nil, "", s.netError("sending the message", err)
	}
	s.logf("> (message: %d bytes)", dw.Written())
	code, lines, err = s.read(dataTimeout, "the end of the message")
	if err != nil {
		return nil, "", err
	}
	if code != 250 {
		return nil, "", s.refused("the message", code, lines)
	}
	s.quit()
	return accepted, replyText(lines), nil
}

// quit says QUIT, waits briefly for the reply, and closes.
func (s *session) quit() {
	if s.write("QUIT", "QUIT") == nil {
		s.read(5*time.Second, "QUIT")
	}
	s.close()
}

// refused is the typed error for an unwanted reply to what: 421 (the
// server is closing) and every 4xx or 5xx reply are ErrSendFailed;
// anything else is ErrProtocol.
func (s *session) refused(what string, code int, lines []string) error {
	k := fetch.ErrProtocol
	if code >= 400 && code < 600 {
		k = fetch.ErrSendFailed
	}
	msg := "smtp: " + s.srv.String() + " refused " + what
	if code == 421 {
		msg = "smtp: " + s.srv.String() + " closed the session at " + what
		s.close()
	}
	return &fetch.Error{Kind: k, Msg: msg, Err: &smtpError{code, replyText(lines)}, Status: code}
}

// expect sends cmd (or, for "greeting", nothing) and wants the reply code.
func (s *session) expect(timeout time.Duration, cmd string, want int) ([]string, error) {
	var code int
	var lines []string
	var err error
	if cmd == "greeting" {
		code, lines, err = s.read(timeout, cmd)
	} else {
		code, lines, err = s.cmd(timeout, cmd)
	}
	if err != nil {
		return nil, err
	}
	if code != want {
		if cmd == "greeting" && code != 421 && code != 554 {
			return nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "smtp: unexpected greeting", Err: &smtpError{code, replyText(lines)}, Status: code}
		}
		verb, _, _ := strings.Cut(cmd, " ")
		return nil, s.refused(verb, code, lines)
	}
	return lines, nil
}

func (s *session) cmd(timeout time.Duration, line string) (int, []string, error) {
	return s.cmdMasked(timeout, line, line)
}

// cmdMasked sends line, logging shown instead, and reads the reply.
func (s *session) cmdMasked(timeout time.Duration, line, shown string) (int, []string, error) {
	if err := s.write(line, shown); err != nil {
		return 0, nil, err
	}
	verb, _, _ := strings.Cut(shown, " ")
	return s.read(timeout, verb)
}

func (s *session) write(line, shown string) error {
	s.logf("> %s", shown)
	s.deadline(replyTimeout)
	if _, err := io.WriteString(s.nc, line+"\r\n"); err != nil {
		return s.netError("sending "+shown, err)
	}
	return nil
}

// deadline sets the connection's deadline to d from now, or the context's
// when that comes first.
func (s *session) deadline(d time.Duration) {
	t := time.Now().Add(d)
	if dl, ok := s.ctx.Deadline(); ok && dl.Before(t) {
		t = dl
	}
	s.nc.SetDeadline(t)
}

// read reads one reply (lineproto.ReadReply): at most maxReplyLines
// lines of at most maxReplyLine bytes each, all with the same code. lines
// are the texts after the code, sanitised.
func (s *session) read(timeout time.Duration, what string) (int, []string, error) {
	s.deadline(timeout)
	code, raw, err := lineproto.ReadReply(s.br, &replyLimits, func(line string) { s.logf("< %s", line) })
	re, _ := err.(*lineproto.ReplyError) // ReadReply returns it as it is
	switch {
	case err == io.EOF:
		return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "smtp: the server closed the connection, waiting for the reply to " + what}
	case re != nil && re.Err == lineproto.ErrLineTooLong:
		return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("smtp: reply line to %s longer than %d bytes", what, maxReplyLine)}
	case re != nil && re.Err == lineproto.ErrTooManyLines:
		return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: fmt.Sprintf("smtp: reply to %s longer than %d lines", what, maxReplyLines)}
	case re != nil:
		return 0, nil, &fetch.Error{Kind: fetch.ErrProtocol, Msg: "smtp: malformed reply to " + what + ": " + quote(fetch.SanitizeLine(re.Line, 80))}
	case err != nil:
		return 0, nil, s.netError("waiting for the reply to "+what, err)
	}
	lines := make([]string, len(raw))
	for i, l := range raw {
		if len(l) > 4 {
			lines[i] = fetch.Sanitize(l[4:])
		}
	}
	return code, lines, nil
}

// replyLimits: a line fits the read buffer (maxReplyLine bytes with its
// CRLF).
var replyLimits = lineproto.Limits{Line: maxReplyLine - 2, Lines: maxReplyLines, Continue: lineproto.SameCode, MinCode: 200, MaxCode: 599}

// netError types a failed read or write: the context's error when it has
// ended, ErrTimeout for a deadline, else ErrSendFailed (the connection
// broke mid-session).
func (s *session) netError(what string, err error) error {
	s.close()
	if s.ctx.Err() != nil {
		return fetch.ContextError(s.ctx)
	}
	if fetch.KindOf(err) == fetch.ErrTimeout {
		return &fetch.Error{Kind: fetch.ErrTimeout, Msg: "smtp: " + s.srv.String() + ": no answer " + what, Err: err}
	}
	return &fetch.Error{Kind: fetch.ErrSendFailed, Msg: "smtp: " + s.srv.String() + ": connection lost " + what, Err: err}
}

func (s *session) logf(format string, args ...any) { fetch.Logf(s.verbose, format, args...) }

func (s *session) note(msg string) { s.logf("* %s", msg) }

// replyText is a reply's lines as one line.
func replyText(lines []string) string {
	return fetch.SanitizeLine(strings.Join(lines, " "), 300)
}
