package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// This file is the dialing code fetchers share: a connection to the
// server with a typed error, and a TLS handshake with one.

// ContextError is the typed error for a context that has ended: ErrTimeout
// for a deadline, ErrAborted for a cancellation, the cause kept as Err.
func ContextError(ctx context.Context) error { return ctxError(ctx, "") }

// Connect opens a TCP connection to addr (host:port) with d (a
// Config.Dialer; nil: a net.Dialer). Its error is typed: the context's
// (ContextError) when that ended first, the dialer's own *Error as it is
// (the Client's dialer types and words its errors), or else ErrResolve,
// ErrTimeout or ErrConnect from the network error. what starts the message
// ("gopher: connecting to").
func Connect(ctx context.Context, d Dialer, addr, what string) (net.Conn, error) {
	return DialNetwork(ctx, d, "tcp", addr, what)
}

// DialNetwork is Connect for another network ("udp": a connected datagram
// socket, which reads only what comes from addr). Through a SOCKS proxy,
// which carries only TCP here, "udp" is ErrUnsupported.
func DialNetwork(ctx context.Context, d Dialer, network, addr, what string) (net.Conn, error) {
	if ctx.Err() != nil {
		return nil, ctxError(ctx, "")
	}
	if d == nil {
		d = &net.Dialer{}
	}
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxError(ctx, "")
		}
		var fe *Error
		if errors.As(err, &fe) {
			return nil, err // already typed and worded by the Client's dialer
		}
		k := KindOf(err)
		if k == ErrOther {
			k = ErrConnect
		}
		return nil, &Error{Kind: k, Msg: what + " " + addr, Err: err}
	}
	if _, watched := nc.(*ctxConn); !watched {
		// The Client's dialer already closes its connections when ctx
		// ends; a Fetcher built without a Client gets the same here, so
		// that no fetcher needs its own watch to end a blocked read.
		nc = watchConn(ctx, nc)
	}
	return nc, nil
}

// IOError types an error met reading or writing a connection: the
// context's (ContextError) once the context has ended — closing the
// connection is how it ends a blocked read —, a *Error as it is, a
// timeout as ErrTimeout, and anything else (the server closed or reset
// the connection in the middle of an exchange) as ErrPartial, with msg
// saying what was being done ("gopher: reading the reply").
func IOError(ctx context.Context, err error, msg string) error {
	if ctx.Err() != nil {
		return ctxError(ctx, "")
	}
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	k := KindOf(err)
	if k != ErrTimeout {
		k = ErrPartial
	}
	return &Error{Kind: k, Msg: msg, Err: err}
}

// HandshakeTLS runs a TLS client handshake on nc with a copy of base (a
// Config.TLS; nil: the defaults), ServerName set to host when base has
// none. On failure nc is closed and the error is ErrTLS, or ErrTimeout, or
// the context's.
func HandshakeTLS(ctx context.Context, base *tls.Config, nc net.Conn, host, what string) (*tls.Conn, error) {
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	tc := tls.Client(nc, cfg)
	handshaking(nc, true)
	err := tc.HandshakeContext(ctx)
	handshaking(nc, false)
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return nil, ctxError(ctx, "")
		}
		if KindOf(err) == ErrTimeout {
			return nil, &Error{Kind: ErrTimeout, Msg: what + ": TLS handshake", Err: err}
		}
		return nil, TLSError(err, what)
	}
	if tr := ContextTrace(ctx); tr != nil && tr.TLSDone != nil {
		tr.TLSDone(tc.ConnectionState())
	}
	return tc, nil
}

// TLSError types a failed TLS handshake: a certificate that could not be
// verified is ErrCertificate (curl's exit 60) with one line in curl's
// words, "SSL certificate problem: …" (-k, --cacert and --capath are the
// ways out); anything else is ErrTLS. what names the connection.
func TLSError(err error, what string) *Error {
	var (
		crl  crlProblem
		uerr x509.UnknownAuthorityError
		herr x509.HostnameError
		cerr x509.CertificateInvalidError
	)
	var problem string
	switch {
	case errors.Is(err, errPinMismatch):
		return &Error{Kind: ErrPinnedKey, Msg: errPinMismatch.Error(), Err: quietCause{err}}
	case errors.As(err, &crl):
		problem = string(crl)
	case errors.As(err, &uerr):
		problem = "unable to get local issuer certificate"
		if c := uerr.Cert; c != nil && bytes.Equal(c.RawIssuer, c.RawSubject) {
			problem = "self-signed certificate"
		}
	case errors.As(err, &herr):
		problem = "no name in the certificate matches the host name " + Sanitize(herr.Host)
	case errors.As(err, &cerr):
		switch cerr.Reason {
		case x509.Expired:
			problem = "certificate has expired or is not yet valid"
		default:
			problem = "certificate is not valid: " + strings.TrimPrefix(cerr.Error(), "x509: ")
		}
	default:
		return &Error{Kind: ErrTLS, Msg: what + ": TLS handshake", Err: err}
	}
	return &Error{Kind: ErrCertificate, Msg: "SSL certificate problem: " + problem, Err: quietCause{err}}
}

// RootCAs is the pool of CA certificates from file (curl's --cacert) and
// the PEM files in dir (--capath), either "" for none, which replace the
// system's (as in curl): the RootCAs of a Client's TLS. A file or
// directory that gives no certificate is ErrCACert (curl's exit 77).
func RootCAs(file, dir string) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	var files []string
	if file != "" {
		files = append(files, file)
	}
	if dir != "" {
		des, err := os.ReadDir(dir)
		if err != nil {
			return nil, NewError(ErrCACert, "CA directory "+dir, PathCause(err))
		}
		for _, de := range des {
			if de.Type().IsRegular() || de.Type()&os.ModeSymlink != 0 {
				files = append(files, filepath.Join(dir, de.Name()))
			}
		}
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			if f == file {
				return nil, NewError(ErrCACert, "CA file "+file, PathCause(err))
			}
			continue
		}
		if pool.AppendCertsFromPEM(b) {
			n++
		} else if f == file {
			return nil, NewError(ErrCACert, "CA file "+file+": no PEM certificate in it", nil)
		}
	}
	if n == 0 {
		return nil, NewError(ErrCACert, "CA directory "+dir+": no PEM certificate in it", nil)
	}
	return pool, nil
}

// PathCause is the system's reason inside a file error ("no such file or
// directory"), without Go's "open NAME:" that a message names already;
// any other error as it is.
func PathCause(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
