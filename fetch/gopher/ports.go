package gopher

import (
	"errors"
	"strconv"
)

// RefusedPorts are the ports a gopher or gophers URL may not name unless
// Request.Options["gopher-allow-port"] is "1" (the CLI's --gopher-allow-port).
//
// Why (RFC 1738 §6, "port smuggling"): a gopher request is one line of the
// URL's choosing, sent to any host and port, and the reply is shown to the
// user. A link or redirect can therefore make urlget say one line to
// another service. urlget already refuses CR, LF, NUL and stray TABs in
// that line (urlparse.URL.CheckLine), so at most one line is ever said —
// but for the services below one line is a complete, harmful command:
// Redis "SET", "FLUSHALL", "CONFIG SET"; memcached "flush_all"; a line to
// SMTP, NNTP, POP3, IMAP, FTP, IRC… services whose first-line handling has
// been abused; or a probe of SSH, databases and NFS. These are refused.
//
// Not refused: 70 (gopher) and every other port; 79 (finger: gopher clients
// have always used type 0 items on port 79 as finger queries); 80 and 443
// (HTTP: a single line without CR LF is at most an HTTP/0.9-style "GET",
// which an http URL can do anyway; to port 443 a plain request meets a TLS
// server that drops it). The list follows the reasoning of the WHATWG
// "bad ports" list, restricted to line-oriented or command-accepting
// services, with Redis and memcached added.
var RefusedPorts = map[int]string{
	21:    "FTP",
	22:    "SSH",
	23:    "telnet",
	25:    "SMTP",
	110:   "POP3",
	119:   "NNTP",
	143:   "IMAP",
	389:   "LDAP",
	465:   "SMTPS",
	512:   "rexec",
	513:   "rlogin",
	514:   "rsh",
	563:   "NNTPS",
	587:   "SMTP submission",
	636:   "LDAPS",
	993:   "IMAPS",
	995:   "POP3S",
	2049:  "NFS",
	3306:  "MySQL",
	5432:  "PostgreSQL",
	6379:  "Redis",
	6665:  "IRC",
	6666:  "IRC",
	6667:  "IRC",
	6668:  "IRC",
	6669:  "IRC",
	6697:  "IRC over TLS",
	11211: "memcached",
}

// ErrPortRefused is wrapped by the error for a refused port.
var ErrPortRefused = errors.New("gopher: port refused")

// PortError reports a URL naming one of the RefusedPorts. It is wrapped in a
// *fetch.Error of Kind ErrMalformed (exit 3, like every URL refused before
// connecting).
type PortError struct {
	Port    int
	Service string
}

func (e *PortError) Error() string {
	return "gopher to port " + strconv.Itoa(e.Port) + " (" + e.Service + ") refused: a gopher request there would be a " +
		e.Service + " command (RFC 1738 §6); give Options[gopher-allow-port] to send it anyway"
}

func (e *PortError) Unwrap() error { return ErrPortRefused }

// checkPort returns a *PortError for a refused port unless allowed.
func checkPort(port int, allowed bool) error {
	if allowed {
		return nil
	}
	if svc, bad := RefusedPorts[port]; bad {
		return &PortError{Port: port, Service: svc}
	}
	return nil
}
