package fetch

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"time"
)

// Kind classifies a fetch error. Each kind maps to one process exit code,
// curl's number wherever curl has the same meaning (docs/exit-codes.md).
type Kind int

const (
	ErrOther            Kind = iota // anything else (1)
	ErrUnsupported                  // unsupported scheme (1)
	ErrMalformed                    // URL malformed or refused before connecting (3)
	ErrResolve                      // host name did not resolve (6)
	ErrConnect                      // could not connect (7)
	ErrProtocol                     // the server's reply made no sense (8)
	ErrAccessDenied                 // access to the resource denied (9)
	ErrTypeFailed                   // FTP TYPE refused (17)
	ErrPartial                      // transfer ended before the whole resource (18)
	ErrRetrFailed                   // FTP RETR refused (19)
	ErrHTTP                         // HTTP status >= 400 with --fail (22)
	ErrWrite                        // writing the output failed (23)
	ErrUpload                       // upload refused (25)
	ErrRead                         // reading a local file failed (26)
	ErrTimeout                      // a timeout fired (28)
	ErrResume                       // resume impossible (36)
	ErrFileRead                     // file:// could not read the file (37)
	ErrAborted                      // aborted by a callback or cancelled (42)
	ErrTooManyRedirects             // more redirects than allowed (47)
	ErrTLS                          // TLS handshake failure (35); a certificate not verified is ErrCertificate
	ErrTooLarge                     // over --max-filesize (63)
	ErrLoginDenied                  // login refused (67)
	ErrNotFound                     // remote file not found (78)
	ErrSendFailed                   // sending failed: the server refused the data (a mail message or recipient), or the connection broke while the request was sent (55)
	ErrNotConfigured                // nothing is set up to carry out the request: no mail server or sendmail (2, curl's failed init)
	ErrRecv                         // the connection broke before the reply was complete, or a proxy refused a CONNECT tunnel (56)
	ErrCertificate                  // the server's certificate could not be verified (60)
	ErrCACert                       // the CA certificates (--cacert, --capath) could not be read (77)
	ErrRewind                       // a body must be sent again (a 307 or 308 redirect) but cannot be: it was read from a pipe (65)
	ErrInterface                    // the local address or port asked for could not be used (45)
	ErrClientCert                   // the client certificate or key could not be read or used (58)
	ErrCipher                       // a cipher or TLS version asked for is unknown or cannot be used (59)
	ErrPinnedKey                    // the server's public key is not the one pinned (90)
	ErrOptionSyntax                 // an option's value could not be parsed (--resolve, --connect-to) (49)
	ErrQuote                        // an FTP command given to send (-Q/--quote) was refused (21)
	ErrGotNothing                   // the server closed the connection without a byte of reply (52)
	ErrHeaderLine                   // a reply's header line was longer than a client keeps (27, curl's "out of memory" for it)
	ErrBadEncoding                  // a body's content coding (deflate, gzip, br, zstd) or transfer coding could not be decoded (61)
	ErrPassive                      // an FTP server refused passive mode or gave a port that cannot be (EPSV, PASV) (13)
	ErrPassiveFormat                // an FTP server's PASV reply held no address that can be read (14)
	ErrAccount                      // an FTP server refused the account (ACCT) (11)
	ErrActive                       // an FTP server refused the address for active mode (EPRT, PORT) (30)
	ErrAccept                       // an FTP server said it could not connect for the data (active mode) (10)
	ErrDiskFull                     // the server had no room for the data sent (70)
	ErrUseSSL                       // TLS was required and the server refuses it (64)
	ErrRange                        // a resume asked for, the server answered without the range: it does not resume (33)
	ErrProxy                        // a SOCKS proxy refused or failed the connection asked for: its handshake, login or reply (97)
	ErrPRET                         // an FTP server refused PRET, asked for before passive mode (84)
	ErrCRLFile                      // the certificate revocation list given (--crlfile) could not be read (82)
	ErrTLSShutdown                  // TLS could not be ended as asked (FTP CCC: the server did not close its TLS) (80)

	kindEnd // one past the last kind: add new kinds above it
)

var exitCodes = map[Kind]int{
	ErrOther: 1, ErrUnsupported: 1, ErrMalformed: 3, ErrResolve: 6, ErrConnect: 7,
	ErrProtocol: 8, ErrAccessDenied: 9, ErrTypeFailed: 17, ErrPartial: 18, ErrRetrFailed: 19,
	ErrHTTP: 22, ErrWrite: 23, ErrUpload: 25, ErrRead: 26, ErrTimeout: 28, ErrTLS: 35,
	ErrResume: 36, ErrFileRead: 37, ErrAborted: 42, ErrTooManyRedirects: 47, ErrTooLarge: 63,
	ErrLoginDenied: 67, ErrNotFound: 78, ErrSendFailed: 55, ErrNotConfigured: 2, ErrRecv: 56,
	ErrCertificate: 60, ErrCACert: 77, ErrRewind: 65, ErrInterface: 45, ErrClientCert: 58,
	ErrCipher: 59, ErrPinnedKey: 90, ErrOptionSyntax: 49, ErrQuote: 21,
	ErrGotNothing: 52, ErrHeaderLine: 27, ErrBadEncoding: 61, ErrPassive: 13, ErrPassiveFormat: 14, ErrAccount: 11,
	ErrActive: 30, ErrAccept: 10, ErrDiskFull: 70, ErrUseSSL: 64, ErrRange: 33, ErrProxy: 97,
	ErrPRET: 84, ErrCRLFile: 82, ErrTLSShutdown: 80,
}

// Kinds are every Kind, in order: for tables of exit codes.
func Kinds() []Kind {
	ks := make([]Kind, 0, kindEnd)
	for k := ErrOther; k < kindEnd; k++ {
		ks = append(ks, k)
	}
	return ks
}

// ExitCode is the process exit code for errors of this kind.
func (k Kind) ExitCode() int { return exitCodes[k] }

var kindText = map[Kind]string{
	ErrOther: "failed", ErrUnsupported: "unsupported URL scheme", ErrMalformed: "malformed URL",
	ErrResolve: "could not resolve host", ErrConnect: "could not connect", ErrProtocol: "unexpected server reply",
	ErrAccessDenied: "access denied", ErrTypeFailed: "transfer type refused", ErrPartial: "transfer ended early",
	ErrRetrFailed: "retrieval refused", ErrHTTP: "HTTP error status", ErrWrite: "write failed",
	ErrUpload: "upload refused", ErrRead: "read failed", ErrTimeout: "timed out", ErrTLS: "TLS handshake failed",
	ErrResume: "cannot resume", ErrFileRead: "cannot read file", ErrAborted: "aborted",
	ErrTooManyRedirects: "too many redirects", ErrTooLarge: "too large", ErrLoginDenied: "login denied",
	ErrNotFound: "not found", ErrSendFailed: "send failed", ErrNotConfigured: "not configured",
	ErrRecv: "receive failed", ErrCertificate: "certificate not verified", ErrCACert: "cannot read CA certificates",
	ErrRewind: "cannot send the body again", ErrInterface: "local address unusable", ErrClientCert: "client certificate unusable",
	ErrCipher: "cipher or TLS version unusable", ErrPinnedKey: "public key not the pinned one",
	ErrOptionSyntax: "bad option value", ErrQuote: "quote command refused", ErrGotNothing: "empty reply",
	ErrHeaderLine: "header line too long", ErrBadEncoding: "undecodable content coding",
	ErrPassive: "passive mode refused", ErrPassiveFormat: "unreadable passive address", ErrAccount: "account refused",
	ErrActive: "active mode address refused", ErrAccept: "server could not connect for the data", ErrDiskFull: "server disk full",
	ErrUseSSL: "TLS required and refused", ErrRange: "range not sent", ErrProxy: "proxy failed",
	ErrPRET: "PRET refused", ErrCRLFile: "cannot read the revocation list",
	ErrTLSShutdown: "TLS shutdown failed",
}

// Error makes a Kind a target for errors.Is: errors.Is(err, ErrNotFound)
// holds for every *Error of that kind in err's chain (and for the Kind
// itself, returned or wrapped bare). The text names the kind in a few words.
func (k Kind) Error() string {
	if t, ok := kindText[k]; ok {
		return t
	}
	return "fetch error"
}

// Error is a typed fetch error.
//
// Its message says what failed in the library's own terms. Where a setting
// would change the outcome, the message names it as a Go program sets it:
// a Client field ("use Client.NoProxy for this host"), a Request option
// with the value that helps ("Options[ssl]=required"), or another
// package's field ("mirror.Options.MaxDepth"); never a flag of a command.
// A command shows these in its own words (urlget spells each as its flag).
type Error struct {
	Kind Kind
	URL  string // the URL being fetched, passwords masked
	Msg  string // one line, for people
	Err  error  // underlying error, if any
	// Status is the protocol's reply code that refused the request (an
	// NNTP 411, an SMTP 550), 0 when none; curl's -w %{response_code}.
	Status int
	// Reply is the reply the request failed on, when it failed on one
	// (an HTTP status under Client.Fail, a redirect past MaxRedirects
	// with the Redirects before it, a proxy's refusal of a CONNECT
	// tunnel as its Tunnel): its status line, header fields, content type
	// and EffectiveURL, as net/http hands back the *Response; nil
	// otherwise.
	Reply *Meta
	// retryAfter is how long the server asked to be left alone (HTTP
	// Retry-After), 0 when it did not say.
	retryAfter time.Duration
}

// RetryAfter is how long the server asked to wait before the request is
// made again (an HTTP reply's Retry-After), 0 when it did not say. A
// RetryPolicy's Wait reads it.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

func (e *Error) Error() string {
	s := e.Msg
	if quiet(e.Err) && s != "" {
		return strings.ReplaceAll(s, "\n", " ")
	}
	if e.Err != nil {
		if s == "" {
			s = e.Err.Error()
		} else {
			s += ": " + e.Err.Error()
		}
	}
	return strings.ReplaceAll(s, "\n", " ")
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's Kind, for errors.Is(err, fetch.ErrNotFound).
func (e *Error) Is(target error) bool {
	k, ok := target.(Kind)
	return ok && k == e.Kind
}

// quietCause is an underlying error kept for errors.Is and errors.As whose
// text an Error with a Msg does not repeat: the Msg says it in our words.
type quietCause struct{ error }

func (q quietCause) Unwrap() error { return q.error }

// Quiet wraps err as an Error's Err whose text the Error does not repeat:
// its Msg says what failed in our words (a decoder's "flate: corrupt
// input" is not for people), and errors.Is and errors.As still reach err.
func Quiet(err error) error { return quietCause{err} }

func quiet(err error) bool {
	switch err.(type) {
	case Sentinel, quietCause:
		return true
	}
	return false
}

// Sentinel is an error value that names a class of failure for errors.Is
// (gopher.ErrNeedSearch). An *Error that wraps one and has a Msg of its
// own says only its Msg: the sentinel's text would repeat it.
type Sentinel string

func (s Sentinel) Error() string { return string(s) }

// Errorf-style constructor.
func NewError(k Kind, msg string, err error) *Error { return &Error{Kind: k, Msg: msg, Err: err} }

// KindOf classifies any error: a *Error gives its Kind; context and network
// errors are recognised; anything else is ErrOther.
func KindOf(err error) Kind {
	if err == nil {
		return ErrOther
	}
	var fe *Error
	if errors.As(err, &fe) {
		return fe.Kind
	}
	var k Kind
	if errors.As(err, &k) {
		return k
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return ErrTimeout
	case errors.Is(err, context.Canceled):
		return ErrAborted
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return ErrResolve
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return ErrTimeout
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return ErrConnect
	}
	return ErrOther
}

// ExitCode maps an error to the process exit code: 0 for nil.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	return KindOf(err).ExitCode()
}

// StatusOf is the server's reply code inside err (an FTP 550, an NNTP 411,
// an HTTP status under Fail): the Status of the first *Error in its chain
// that has one, every branch of an Unwrap() []error searched in order; 0
// when none.
func StatusOf(err error) int {
	switch e := err.(type) {
	case *Error:
		if e.Status != 0 {
			return e.Status
		}
		return StatusOf(e.Err)
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			if s := StatusOf(x); s != 0 {
				return s
			}
		}
	case interface{ Unwrap() error }:
		return StatusOf(e.Unwrap())
	}
	return 0
}
