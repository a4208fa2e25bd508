// Package mailto composes and delivers mail for mailto: URLs (RFC 6068,
// which updates RFC 1738 §3.5).
//
// Dereferencing a mailto URL means composing the RFC 5322 message it
// describes and delivering it. The message has:
//
//	Date, From, To, Cc, Subject, Message-ID, In-Reply-To, References,
//	Keywords, Comments, MIME-Version, Content-Type: text/plain; charset=UTF-8,
//	Content-Transfer-Encoding: 7bit or quoted-printable
//
// To holds the URL's addresses and every to= field, Cc every cc= field; the
// other fields come from the fields of the same name (percent-decoded as
// RFC 6068 §2 says, by urlparse). From and the envelope sender are
// Options[OptFrom] (default: the login name at the host name). A subject
// that is not ASCII becomes RFC 2047 encoded words; domains become ASCII
// (IDNA A-labels); an address with a non-ASCII local part is written as
// UTF-8 (RFC 6532) and needs a server offering SMTPUTF8.
//
// The body is the body= text, a line break, then Request.Body (the CLI's
// -T FILE or -T -), with every line end made CRLF. A body whose first
// 64 KiB hold all of it is sent as 7bit when it is ASCII with lines of at
// most 998 bytes; any other body is quoted-printable.
//
// Only the fields in SafeFields are taken from a URL (RFC 6068 §7): to, cc,
// subject, body, in-reply-to, references, keywords, comments. Any other
// field is ignored with one warning line each (fetch.Config.Warn: to
// Config.Warnings, else Config.Verbose, else standard error). A bcc field is
// refused (ErrMalformed) unless Options[OptAllowBcc] is set; then the blind copies
// go on the envelope only, with a warning. CR, LF, NUL or any other control
// character in an address or a header field is refused (ErrMalformed)
// before anything is sent; the body may hold line breaks.
//
// With Options[OptDryRun] the composed message is the result (the
// Resource's Body, message/rfc822). Otherwise it is delivered, and the
// Body is a report with one line per recipient. A program that can ask
// the user sets Options[fetch.OptInteractive]: Open then returns a
// *fetch.InputNeededError (Key OptConfirm) whose Prompt shows From, To, Cc
// and Subject, and sends when asked again with Options[OptConfirm] = "yes".
//
// Delivery goes to the first of: Options[OptServer] (HOST[:PORT],
// smtp://HOST[:PORT] or smtps://HOST[:PORT]; an smtp URL's path is the
// EHLO name, as in curl), $SMTP_SERVER, $MAILHOST, a local
// "sendmail -t -oi -f FROM" (run without a shell). With none, Open fails
// with ErrNotConfigured (exit 2) saying how to configure one.
//
// SMTP (RFC 5321): EHLO (HELO when EHLO is refused with 500 or 502);
// STARTTLS whenever the server offers it, required with Options["ssl"] =
// "required" (--ssl-reqd); AUTH PLAIN or LOGIN with Request.User and
// Password, sent only over TLS or to a loopback address; SMTPUTF8 and
// BODY=8BITMIME when the message needs them; SIZE= when the size is known
// and the server offers SIZE (a message over its limit is not sent). Every
// recipient is tried; if any is refused, no DATA is sent and the error
// names each refused recipient with the server's reply.
//
// Errors, with curl's exit codes for SMTP: a refused sender, recipient or
// message, and a session the server closes (421), ErrSendFailed (55); a
// refused login ErrLoginDenied (67); no connection ErrConnect (7); no
// reply within --max-time or RFC 5321's timeouts (5 minutes a reply, 10
// after the message) ErrTimeout (28); a malformed URL or option
// ErrMalformed (3); a body that cannot be read ErrRead (26) — the
// connection is then dropped before the final ".", so nothing truncated
// is delivered. A hostile server costs bounded memory: reply lines of at
// most 2048 bytes, replies of at most 100 lines.
package mailto
