package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// The connection and TLS flags: curl's --resolve, --connect-to, -4/-6,
// --interface, --local-port, --cacert, --capath, --crlfile, --cert, --key,
// --cert-type, --pinnedpubkey, --tlsv1.x, --tls-max and --ciphers. Each
// sets a fetch.Client field (or its TLS config), parsed by the library as
// it is given; what needs two flags at once is done by apply.

// connOpts holds the flags that are read together.
type connOpts struct {
	ipv4, ipv6     bool
	cacert, capath string
	crlfile        string
	cert, key      string
	certType       string
	tls            tls.Config // --tlsv1.x, --tls-max, --ciphers
}

// addConnFlags defines them on fs (--cacert and --capath are defined
// beside -k).
func addConnFlags(fs *pflag.FlagSet, o *connOpts, cl *fetch.Client) {
	fs.Var(cli.Func("string", func(s string) error {
		r, err := fetch.ParseResolve(s)
		if err == nil {
			cl.Resolve = append(cl.Resolve, r)
		}
		return err
	}), "resolve", "connect to `[+]HOST:PORT:ADDR[,ADDR]...` without asking DNS (HOST \"*\": any host; -HOST:PORT takes away the rules before it); repeatable")
	fs.Var(cli.Func("string", func(s string) error {
		r, err := fetch.ParseConnectTo(s)
		if err == nil {
			cl.ConnectTo = append(cl.ConnectTo, r)
		}
		return err
	}), "connect-to", "connect to HOST2:PORT2 for `HOST1:PORT1:HOST2:PORT2` (each may be empty: any, or unchanged); TLS and the request still name HOST1; repeatable")
	fs.BoolVarP(&o.ipv4, "ipv4", "4", false, "use IPv4 addresses only")
	fs.BoolVarP(&o.ipv6, "ipv6", "6", false, "use IPv6 addresses only")
	fs.StringVar(&cl.Interface, "interface", "", "connect from `NAME`: an interface, an address or a host name (if!NAME, host!NAME: only that kind)")
	fs.Var(cli.Func("string", func(s string) (err error) {
		cl.LocalPorts, err = fetch.ParsePortRange(s)
		return err
	}), "local-port", "connect from a local port in `N[-M]`")
	fs.StringVarP(&o.cert, "cert", "E", "", "present the client certificate in `FILE[:PASSWORD]` (PEM; the key too unless --key; \\: for a colon in FILE)")
	fs.StringVar(&o.key, "key", "", "the client certificate's private key is in `FILE` (PEM)")
	fs.StringVar(&o.certType, "cert-type", "", "the --cert file's `TYPE`: PEM (the only one supported)")
	fs.Var(cli.Func("string", func(s string) (err error) {
		cl.PinnedPubKeys, err = fetch.ParsePinnedPubKey(s)
		return err
	}), "pinnedpubkey", "accept only a server key with one of `HASHES` (sha256//BASE64[;sha256//...]) or the key in a PEM/DER file (exit 90 otherwise)")
	for _, v := range []string{"1.0", "1.1", "1.2", "1.3"} {
		cli.Switch(fs, "tlsv"+v, "", "use TLS "+v+" or later", func() { o.tls.MinVersion, _ = fetch.ParseTLSVersion(v) })
	}
	fs.Var(cli.Func("string", func(s string) (err error) {
		o.tls.MaxVersion, err = fetch.ParseTLSVersion(s)
		return err
	}), "tls-max", "use TLS `VERSION` or earlier (1.0, 1.1, 1.2, 1.3, default)")
	fs.Var(cli.Func("string", func(s string) (err error) {
		o.tls.CipherSuites, err = fetch.CipherSuites(s)
		return err
	}), "ciphers", "allow only the TLS 1.2 cipher suites in `LIST` (OpenSSL or IANA names, \":\"-separated)")
}

// apply sets the Client's fields that need more than one flag, or a file
// read. A bad value is an error with curl's exit code (connExit), or a
// usage error.
func (o *connOpts) apply(cl *fetch.Client) error {
	switch {
	case o.ipv4 && o.ipv6:
		return errors.New("-4/--ipv4 and -6/--ipv6 exclude each other")
	case o.ipv4:
		cl.IPVersion = 4
	case o.ipv6:
		cl.IPVersion = 6
	}
	t := &o.tls
	if o.cacert != "" || o.capath != "" {
		pool, err := fetch.RootCAs(o.cacert, o.capath)
		if err != nil {
			return err
		}
		t.RootCAs = pool
	}
	if o.crlfile != "" {
		crls, err := fetch.LoadCRLs(o.crlfile)
		if err != nil {
			return err
		}
		cl.CRLs = crls
	}
	if o.key != "" && o.cert == "" {
		return errors.New("--key: give the certificate with --cert")
	}
	if o.cert != "" {
		if o.certType != "" && !strings.EqualFold(o.certType, "PEM") {
			return fetch.NewError(fetch.ErrClientCert, "--cert-type "+o.certType+": only PEM is supported", nil)
		}
		file, pass := splitCertArg(o.cert)
		c, err := fetch.LoadClientCert(file, o.key, pass)
		if err != nil {
			return err
		}
		// Presented whatever CA names the server lists, as curl (OpenSSL)
		// does; Go's Certificates would send nothing when they do not fit.
		t.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &c, nil }
	}
	if t.MaxVersion != 0 && t.MinVersion > t.MaxVersion {
		name := func(v uint16) string { return strings.TrimPrefix(tls.VersionName(v), "TLS ") }
		return fetch.NewError(fetch.ErrCipher, fmt.Sprintf("--tlsv%s is above --tls-max %s", name(t.MinVersion), name(t.MaxVersion)), nil)
	}
	if t.RootCAs != nil || t.GetClientCertificate != nil || t.MinVersion != 0 || t.MaxVersion != 0 || t.CipherSuites != nil {
		cl.TLS = t
	}
	return nil
}

// splitCertArg splits curl's --cert FILE[:PASSWORD], where "\:" is a colon
// and "\\" a backslash in FILE.
func splitCertArg(s string) (file, password string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == '\\'):
			b.WriteByte(s[i+1])
			i++
		case c == ':':
			return b.String(), s[i+1:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// connExit is the exit code for an error of apply that curl gives a code
// of its own (49 bad --resolve or --connect-to, 58 client certificate,
// 59 cipher, 77 CA certificates, 82 revocation list, 90 pinned key);
// false for a plain usage error (2).
func connExit(err error) (int, bool) {
	switch fetch.KindOf(err) {
	case fetch.ErrOptionSyntax, fetch.ErrClientCert, fetch.ErrCipher, fetch.ErrPinnedKey, fetch.ErrCACert, fetch.ErrCRLFile:
		return fetch.ExitCode(err), true
	}
	return 0, false
}
