package fetch

import (
	"crypto/tls"
	"fmt"
	"io"
	nethttp "net/http"
	"os"
	"os/exec"
	"time"
)

// Config is what a Fetcher is built with (Scheme.New): the configuration
// that is the same for every request of a Client, as an http.Transport's
// fields are, where the Request carries only the request. A Client builds
// one Fetcher per scheme from its own fields (and one per SOCKS proxy, which
// the Dialer applies); a program that uses a Fetcher without a Client
// builds it from a Config of its own. The zero Config is usable: a
// net.Dialer, the system's TLS roots, no logging, warnings on standard
// error.
type Config struct {
	// Dialer opens every connection (nil: a net.Dialer). The Client's
	// applies its connect timeout and SOCKS proxy, types its errors and
	// closes a connection once the context it was dialled with is done,
	// which is what aborts a blocked Body read: dial with the context given
	// to Open (Connect, DialNetwork).
	Dialer Dialer
	// ConnectTimeout is the connect timeout the Dialer applies
	// (Client.ConnectTimeout; 0: none). A datagram protocol has no
	// connection to time: it bounds the wait for the server's first reply
	// with it instead.
	ConnectTimeout time.Duration
	// TLS configures TLS for the schemes that use it (https, gophers,
	// nntps, smtps); HandshakeTLS clones it. nil: the defaults.
	// ProxyTLS is TLS to an https:// proxy (Client.ProxyInsecure applied);
	// nil: TLS (ProxyTLSConfig).
	TLS      *tls.Config
	ProxyTLS *tls.Config

	// UserAgent is sent by protocols that carry one ("": DefaultUserAgent).
	UserAgent string
	// Jar, when set, holds the cookies of the protocols that carry them
	// (HTTP): the fetcher sends the jar's cookies for the URL and stores
	// the ones a reply sets.
	Jar nethttp.CookieJar
	// Compressed asks for a compressed transfer where the protocol offers
	// one (HTTP: Accept-Encoding: gzip); the fetcher decodes the body, and
	// stops it with ErrTooLarge past MaxDecompressed decoded bytes (0: no
	// cap).
	Compressed      bool
	MaxDecompressed int64
	// MaxFileSize is the Client's: the Client refuses a body whose size
	// is known to be over it; a fetcher refuses (ErrTooLarge) one whose
	// stated size is past what Meta.Size holds (an HTTP Content-Length
	// past 2^63), as curl does. 0: no cap.
	MaxFileSize int64

	// Verbose, when non-nil, receives the protocol exchange, one line per
	// command or reply, prefixed "> " (sent) or "< " (received), with
	// passwords masked, and "* " notes on what the fetcher does (Logf).
	Verbose io.Writer
	// Warnings receives what a fetcher tells the user whether or not
	// Verbose is set — what it ignored or changed of the request (a mail
	// URL's header fields it does not take, for one) —, one line each,
	// without a prefix: a program adds its own. Nil: Verbose after
	// "warning: ", else standard error. A fetcher writes them with Warn,
	// never elsewhere.
	Warnings io.Writer
	// Replies, when non-nil, receives the replies of a server whose
	// replies are its headers (ftp), every line as received and ended
	// with CRLF: curl's -D/--dump-header for ftp.
	Replies io.Writer
	// IdlePerHost, when more than the fetcher's own bound, is how many
	// idle connections per host a fetcher that keeps them (http) may
	// keep: as many as the requests its caller runs at once, so that
	// each finished request's connection serves the next one (0: the
	// fetcher's default).
	IdlePerHost int
	// MaxPerHost, when more than 0, bounds the connections to one host a
	// fetcher that keeps them (http) has at once, those being dialled
	// included: a request beyond waits for one to be free rather than
	// dialling another while a finished one is on its way back to the
	// pool.
	MaxPerHost int

	// Terminal, when set, is the user's terminal, lent to the interactive
	// sessions (Caps Session) the fetcher opens; without one a session runs
	// in script mode, its input Request.Body.
	Terminal Terminal
}

// Warn reports one warning (see Config.Warnings), made safe for a
// terminal (SanitizeLine).
func (c *Config) Warn(line string) {
	line = SanitizeLine(line, 300)
	w := c.Warnings
	if w == nil {
		w, line = c.Verbose, "warning: "+line
	}
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintln(w, line)
}

// A Terminal is the user's terminal, lent by the program that owns it
// (urlget's command) to the interactive sessions a Fetcher opens
// (Config.Terminal).
type Terminal interface {
	// Size is the window size in character cells (0, 0 when unknown).
	Size() (cols, rows int)
	// Type is the terminal type a session announces ($TERM); "" for
	// "dumb".
	Type() string
	// Notice shows the user one line before the connection is made (the
	// login suggested by the URL).
	Notice(line string)
	// Attach is called once the session is connected: from then until
	// the Resource's Body ends, the terminal is in raw mode, sends what is
	// typed through Request.Body, and drives s (window size, commands).
	Attach(s SessionControl)
	// Run runs cmd (an emulator such as c3270) with the terminal as its
	// standard input, output and error, in the terminal's normal mode,
	// and waits for it.
	Run(cmd *exec.Cmd) error
}

// A SessionControl is a connected interactive session (Caps Session), as
// its Terminal drives it.
type SessionControl interface {
	// SetWindowSize tells the server the new window size (telnet NAWS,
	// rlogin's window-change message), when it asked for it.
	SetWindowSize(cols, rows int) error
	// RemoteEcho reports whether the server echoes what is typed; when it
	// does not, the terminal echoes locally.
	RemoteEcho() bool
	// Send sends a protocol command by name ("brk", "ayt", "ip", …).
	Send(name string) error
	// Commands lists the names Send takes, each with a short description.
	Commands() [][2]string
}

// ProxyTLSConfig is the TLS configuration of a connection to an https://
// proxy: ProxyTLS, else TLS.
func (c *Config) ProxyTLSConfig() *tls.Config {
	if c.ProxyTLS != nil {
		return c.ProxyTLS
	}
	return c.TLS
}
