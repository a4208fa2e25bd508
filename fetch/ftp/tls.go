package ftp

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// FTP over TLS (RFC 4217). An ftps URL is TLS from the first byte
// ("implicit" FTPS, port 990); on an ftp URL, fetch.OptSSL ("try",
// "required") or OptSSLControl asks for AUTH TLS before the login
// ("explicit"). After the login, PBSZ 0 and PROT P put the data
// connections in TLS too, or PROT C leaves them clear (OptSSLControl).
// The data connections resume the control connection's TLS session, as
// servers check (vsftpd's require_ssl_reuse): a data connection that
// another host opened with a stolen port would not have it.

// TLS levels, from the options and the scheme; each asks for more than
// the one before it.
const (
	tlsNone    = iota
	tlsTry     // fetch.OptSSL "try": TLS where the server has it, clear elsewhere
	tlsControl // OptSSLControl: TLS required for the login, data clear (PROT C)
	tlsAll     // "required", and ftps URLs: TLS for the login and the data
)

// CCC modes (OptCCCMode), curl's --ftp-ssl-ccc-mode.
const (
	CCCPassive = "passive" // wait for the server's close_notify, send none (the default)
	CCCActive  = "active"  // send close_notify, then wait for the server's
)

// OptCCC, "1", sends CCC (RFC 4217 §6, "clear command channel") after a
// login in TLS, and goes on with the control connection in the clear (the
// data connections stay as PROT made them), so that a NAT router can read
// the PORT and PASV replies: curl's --ftp-ssl-ccc. OptCCCMode (CCCPassive,
// CCCActive) says how TLS is ended, and implies OptCCC, as curl's
// --ftp-ssl-ccc-mode. A server that refuses CCC (a reply of 500 or more:
// vsftpd, curl's test server) leaves the connection in TLS, as curl
// goes on; one that takes it must then end its TLS (close_notify), else
// ErrTLSShutdown (curl's 80).
const (
	OptCCC     = "ftp-ssl-ccc"
	OptCCCMode = "ftp-ssl-ccc-mode"
)

// cccMode reads OptCCC and OptCCCMode: "" for no CCC, else the mode.
func cccMode(m fetch.Options) (string, error) {
	on, err := m.Bool(OptCCC)
	if err != nil {
		return "", err
	}
	switch v := strings.ToLower(m.String(OptCCCMode)); v {
	case "":
		if on {
			return CCCPassive, nil
		}
		return "", nil
	case CCCPassive, CCCActive:
		return v, nil
	default:
		return "", &fetch.Error{Kind: fetch.ErrMalformed, Msg: "option " + OptCCCMode + "=" + strconv.Quote(v) + ": want active or passive"}
	}
}

// OptSSLControl, "1", requires TLS for the control connection (the
// login) and leaves the data connections clear (PROT C): curl's
// --ftp-ssl-control. It wins over fetch.OptSSL.
const OptSSLControl = "ftp-ssl-control"

// tlsLevel reads the TLS level of a request from its options; an ftps URL
// is tlsAll unless OptSSLControl leaves the data clear.
func tlsLevel(m fetch.Options, implicit bool) (int, error) {
	level := tlsNone
	switch v := m.String(fetch.OptSSL); v {
	case "", "0":
	case "try", "1":
		level = tlsTry
	case "required":
		level = tlsAll
	default:
		return 0, &fetch.Error{Kind: fetch.ErrMalformed, Msg: "option " + fetch.OptSSL + "=" + strconv.Quote(v) + ": want try or required"}
	}
	ctl, err := m.Bool(OptSSLControl)
	if err != nil {
		return 0, err
	}
	switch {
	case ctl:
		level = tlsControl
	case implicit:
		level = tlsAll
	}
	return level, nil
}

// tlsConfig is the configuration of one control connection and its data
// connections: base (Config.TLS) with a session cache of their own, so
// that the data connections resume the control connection's session and
// no other.
func tlsConfig(base *tls.Config, host string) *tls.Config {
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	return cfg
}

// startTLS runs the TLS handshake on the control connection and reads
// the replies through it from now on.
func (c *Conn) startTLS(ctx context.Context, what string) error {
	tc, err := fetch.HandshakeTLS(ctx, c.tls, c.raw, c.tls.ServerName, what)
	if err != nil {
		c.broken = true
		return err
	}
	c.raw = tc
	c.br = bufio.NewReaderSize(tc, MaxReplyLine)
	c.tlsOn = true
	return nil
}

// auth asks for TLS on the plain control connection: AUTH SSL, then
// AUTH TLS when that is refused (curl's order; servers take both). When
// the server refuses both, level tlsTry goes on in the clear and the
// others are ErrUseSSL. A reply followed by more bytes than itself is
// ErrProtocol: what a server (or a man in the middle) sends before the
// handshake must not be read as if it had come inside TLS.
func (c *Conn) auth(ctx context.Context, level int) error {
	for _, mech := range []string{"SSL", "TLS"} {
		r, err := c.cmd("AUTH", mech, true)
		if err != nil {
			return ioError(ctx, fetch.ErrProtocol, "AUTH", err)
		}
		if c.br.Buffered() > 0 {
			c.broken = true
			return &fetch.Error{Kind: fetch.ErrProtocol, Msg: "ftp: the server sent more than its reply to AUTH " + mech}
		}
		if r.code == 234 || r.code == 334 {
			return c.startTLS(ctx, "ftp: AUTH "+mech)
		}
	}
	if level == tlsTry {
		return nil
	}
	c.broken = true
	return &fetch.Error{Kind: fetch.ErrUseSSL, Msg: "ftp: the server refuses TLS (AUTH SSL, AUTH TLS)"}
}

// protect sends PBSZ 0 and PROT after a login in TLS: PROT P at level
// tlsAll and tlsTry, PROT C at tlsControl. A refused PROT P is ErrUseSSL
// at level tlsAll; at tlsTry the data go in the clear. Then, with a CCC
// mode, CCC (clearControl), in curl's order.
func (c *Conn) protect(ctx context.Context, level int, ccc string) error {
	if err := c.protectData(ctx, level); err != nil {
		return err
	}
	if ccc != "" && c.tlsOn {
		return c.clearControl(ctx, ccc)
	}
	return nil
}

// shutdownTimeout bounds the wait for the server's close_notify after CCC
// when the connection has no timeout of its own: curl's
// SSL_SHUTDOWN_TIMEOUT.
const shutdownTimeout = 10 * time.Second

// clearControl sends CCC and, when the server takes it (2xx), ends TLS on
// the control connection: in mode CCCActive it sends close_notify first;
// in both modes it waits for the server's, and goes on with the TCP
// connection underneath. A refusal leaves the connection in TLS. A reply
// followed by more bytes, TLS data in place of the close_notify, or none
// in time is ErrTLSShutdown, and the connection is not usable any more.
func (c *Conn) clearControl(ctx context.Context, mode string) error {
	r, err := c.cmd("CCC", "", false)
	if err != nil {
		return ioError(ctx, fetch.ErrProtocol, "CCC", err)
	}
	if !r.Positive() {
		return nil // refused: go on in TLS, as curl does (its test 403)
	}
	tc, ok := c.raw.(*tls.Conn)
	fail := func(msg string, err error) error {
		c.broken = true
		if ctx.Err() != nil {
			return fetch.ContextError(ctx)
		}
		return &fetch.Error{Kind: fetch.ErrTLSShutdown, Msg: "ftp: CCC: " + msg, Err: err}
	}
	if !ok || c.br.Buffered() > 0 {
		return fail("the server sent more than its reply before ending TLS", nil)
	}
	wait := c.timeout
	if wait <= 0 {
		wait = shutdownTimeout
	}
	tc.SetDeadline(time.Now().Add(wait))
	if mode == CCCActive {
		if err := tc.CloseWrite(); err != nil {
			return fail("sending close_notify", err)
		}
	}
	var b [1]byte
	n, err := tc.Read(b[:])
	switch {
	case n > 0:
		return fail("the server sent data in TLS where it was to end TLS", nil)
	case err != io.EOF:
		return fail("the server did not end TLS", err)
	}
	raw := tc.NetConn()
	raw.SetDeadline(time.Time{}) // CloseWrite and the wait above left deadlines on it
	c.raw = raw
	c.br = bufio.NewReaderSize(raw, MaxReplyLine)
	c.tlsOn = false
	return nil
}

// protectData is protect's PBSZ and PROT.
func (c *Conn) protectData(ctx context.Context, level int) error {
	if !c.tlsOn {
		return nil
	}
	if _, err := c.cmd("PBSZ", "0", true); err != nil {
		return ioError(ctx, fetch.ErrProtocol, "PBSZ", err)
	}
	prot := "P"
	if level == tlsControl {
		prot = "C"
	}
	r, err := c.cmd("PROT", prot, true)
	if err != nil {
		return ioError(ctx, fetch.ErrProtocol, "PROT", err)
	}
	switch {
	case r.Positive():
		c.dataTLS = prot == "P"
	case level == tlsAll:
		return replyError(fetch.ErrUseSSL, "ftp: the server refuses TLS for the data connections", "PROT "+prot, r)
	}
	return nil
}

// dataConnTLS puts a data connection in TLS when PROT P was taken, with
// the control connection's session to resume. The handshake is run by
// handshakeData once the server has answered the transfer command (a
// server starts it only then), or by the first read or write.
func (c *Conn) dataConnTLS(nc net.Conn) net.Conn {
	if !c.dataTLS {
		return nc
	}
	return tls.Client(nc, c.tls)
}

// handshakeData runs the TLS handshake of a data connection in TLS, with
// its errors typed (ErrCertificate, ErrTLS, the context's).
func handshakeData(ctx context.Context, nc net.Conn, what string) error {
	tc, ok := nc.(*tls.Conn)
	if !ok || tc.ConnectionState().HandshakeComplete {
		return nil
	}
	if err := tc.HandshakeContext(ctx); err != nil {
		if ctx.Err() != nil {
			return fetch.ContextError(ctx)
		}
		if fetch.KindOf(err) == fetch.ErrTimeout {
			return &fetch.Error{Kind: fetch.ErrTimeout, Msg: what + ": TLS handshake", Err: err}
		}
		return fetch.TLSError(err, what)
	}
	return nil
}
