// Package telnet opens the interactive sessions of RFC 1630 ("telnet,
// rlogin and tn3270 — reference to interactive sessions"): telnet URLs
// (RFC 1738 §3.8) over RFC 854's NVT, rlogin URLs (RFC 1282), and tn3270
// URLs handed to the x3270 suite. Importing it registers Telnet, Rlogin and
// TN3270 for the "telnet", "rlogin" and "tn3270" schemes.
//
// # A session as a fetch
//
// A session is a Request and a Resource like any fetch: Request.Body is
// what is typed (a script's stdin, or what the CLI's terminal passes on),
// Resource.Body is what the server sends with the protocol taken out —
// never an IAC sequence, whatever the server sends — until the server
// closes the connection (io.EOF: exit 0). The context bounds the session
// (--max-time: ErrTimeout, exit 28). Meta.Size is -1; a resume starts the
// session anew (Meta.Offset 0), and a HEAD request only connects.
//
// Without a terminal (fetch.Config.Terminal: script mode), Request.Body is sent as
// NVT text: LF becomes CR LF, a lone CR becomes CR NUL, 0xFF is doubled;
// the server's CR LF becomes LF and CR NUL becomes CR (unless it sends in
// BINARY). The server's echo is refused (DONT ECHO), so the output is what
// the remote programs write. At the end of Request.Body the session waits
// telnet-linger (default DefaultLinger) for the last replies, then
// half-closes the connection; the server's close ends the session.
//
// With a terminal (Config.Terminal: the CLI lends the user's), the
// session is character at a time: the server's ECHO and BINARY are
// welcome, the window size is sent (and sent again on every
// SessionControl.SetWindowSize), the session tells the terminal whether
// the server echoes (RemoteEcho), and Send sends BRK, AYT, IP and the other
// commands. Console is such a terminal on a real one: raw mode, SIGWINCH,
// local echo, and an escape character (OptEscape, default ^]) that opens a
// prompt (quit, send NAME, status, escape, help).
//
// # Option negotiation
//
// RFC 855's negotiation with RFC 1143's Q method, so that no peer can make
// it loop: a request is answered only when it changes an option's state,
// and a refusal of an option that is off is not answered. urlget agrees
// to BINARY (856; for its own sending only on a terminal), ECHO (857; the
// server's, on a terminal), SGA (858), TTYPE (1091: $TERM, or "dumb"),
// NAWS (1073: the terminal's size or telnet-window COLSxROWS; refused when
// none is known), NEW-ENVIRON (1572: USER, the URL's user, when the server
// asks for it) and TSPEED (1079: 38400); every other option is refused
// with WONT or DONT. Real servers wait for these answers before they show
// a login prompt (inetutils-telnetd waits for TTYPE, TSPEED, XDISPLOC,
// NEW-ENVIRON, OLD-ENVIRON, ENCRYPT and NAWS).
//
// Hostile servers: a subnegotiation longer than MaxSubnegotiation (64 KiB)
// and more than MaxNegotiations option commands in a session end it with
// ErrProtocol (exit 8); memory stays bounded whatever the server sends.
//
// # User and password
//
// RFC 1738 §3.8 makes them advisory. On a terminal, one line says
// "suggested login: USER (password given in the URL)" before connecting.
// With telnet-autologin (opt-in), the first "login:" prompt is answered
// with the user and the first "Password:" prompt with the password, once
// each; the password is never written to the output and shows as "****"
// with -v, and a script's stdin waits until the password has been answered
// and the login went on (output other than blanks, then a pause). A login
// prompt or "Login incorrect" before then is a refused login: the session
// ends with ErrLoginDenied (exit 67), nothing of stdin sent. A user
// or password holding IAC (0xFF), CR, LF or NUL is refused before
// connecting (ErrMalformed, exit 3), the rule curl adopted for
// CVE-2023-27533.
//
// # rlogin
//
// rlogin://user@host:513/ sends RFC 1282's four NUL-terminated strings
// (local user, the URL's user — the local one when the URL has none —, and
// TERM/38400), and answers the server's urgent 0x80 byte with window-size
// messages (0xFF 0xFF "ss", rows, columns, pixels), again on every
// SetWindowSize. The terminal and script modes, telnet-linger and
// telnet-autologin (for a server that falls back to a password prompt)
// work as for telnet. RFC 1282 needs a source port below 1024, which only
// root may bind: without one, the error says so (ErrConnect, exit 7). The
// connection is made directly, not through a SOCKS proxy.
//
// rlogin lives in this package rather than a package of its own because
// it shares everything but the wire format with telnet: the terminal and
// session control the CLI drives, the stdin pump with its linger and half-close,
// autologin, and the byte-safety rule for credentials.
//
// # tn3270
//
// urlget has no 3270 data-stream client: a tn3270 URL runs c3270 (on a
// terminal, through Terminal.Run) or s3270 (in scripts: Request.Body is its
// actions, its output the Body) with "host:port" as the one argument, from
// an argv, never through a shell; a host name that is not letters, digits,
// '-' and '.' (or an IP address) is refused. When the program is missing,
// the error (ErrUnsupported, exit 1) names the Debian package to install.
//
// # Why not github.com/ziutek/telnet
//
// ziutek/telnet is the Go library usually named for this job. It is not
// used because it does not do it: it keeps one flag for both directions of
// ECHO and SGA (the server's echo and ours are different options), has no
// Q method, answers every NAWS request with a fixed 65535×65535 window and
// cannot send a new size, has no TTYPE, NEW-ENVIRON or TSPEED (so
// inetutils-telnetd never shows its prompt), fails the whole read on any
// command but GA and the negotiation ones (NOP, DM, AYT, IP …: "unknown
// command"), and its Dial uses net.Dial, bypassing the Client's dialer
// (connect timeout, SOCKS, the context closing the connection). Its
// encoding of what is sent turns LF into CR LF but a lone CR is not sent
// as CR NUL, and a CR LF of the input becomes CR CR LF.
package telnet
