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
// --interface, --local-port, --cert, --key, --cert-type, --pinnedpubkey,
// --tlsv1.x, --tls-max and --ciphers. Each sets a fetch.Client field (or
// its TLS config); the library does the work.

// connOpts holds them as given.
type connOpts struct {
	resolve, connectTo []string
	ipv4, ipv6         bool
	localPort          string
	cert, key          string
	certType           string
	pinned             string
	tlsMin             string // "1.0" … "1.3" from the last --tlsv1.x
	tlsMax             string
	ciphers            string
}

// addConnFlags defines them; --interface is cl's field.
func addConnFlags(fs *pflag.FlagSet, o *connOpts, cl *fetch.Client) {
	fs.StringArrayVar(&o.resolve, "resolve", nil, "connect to `[+]HOST:PORT:ADDR[,ADDR]...` without asking DNS (HOST \"*\": any host); repeatable")
	fs.StringArrayVar(&o.connectTo, "connect-to", nil, "connect to HOST2:PORT2 for `HOST1:PORT1:HOST2:PORT2` (each may be empty: any, or unchanged); TLS and the request still name HOST1; repeatable")
	fs.BoolVarP(&o.ipv4, "ipv4", "4", false, "use IPv4 addresses only")
	fs.BoolVarP(&o.ipv6, "ipv6", "6", false, "use IPv6 addresses only")
	fs.StringVar(&cl.Interface, "interface", "", "connect from `NAME`: an interface, an address or a host name (if!NAME, host!NAME: only that kind)")
	fs.StringVar(&o.localPort, "local-port", "", "connect from a local port in `N[-M]`")
	fs.StringVarP(&o.cert, "cert", "E", "", "present the client certificate in `FILE[:PASSWORD]` (PEM; the key too unless --key; \\: for a colon in FILE)")
	fs.StringVar(&o.key, "key", "", "the client certificate's private key is in `FILE` (PEM)")
	fs.StringVar(&o.certType, "cert-type", "", "the --cert file's `TYPE`: PEM (the only one supported)")
	fs.StringVar(&o.pinned, "pinnedpubkey", "", "accept only a server key with one of `HASHES` (sha256//BASE64[;sha256//...]) or the key in a PEM/DER file (exit 90 otherwise)")
	for _, v := range []string{"1.0", "1.1", "1.2", "1.3"} {
		cli.Switch(fs, "tlsv"+v, "", "use TLS "+v+" or later", func() { o.tlsMin = v })
	}
	fs.StringVar(&o.tlsMax, "tls-max", "", "use TLS `VERSION` or earlier (1.0, 1.1, 1.2, 1.3, default)")
	fs.StringVar(&o.ciphers, "ciphers", "", "allow only the TLS 1.2 cipher suites in `LIST` (OpenSSL or IANA names, \":\"-separated)")
}

// apply sets the Client's fields. A bad value is an error with curl's exit
// code (connExit), or a usage error.
func (o *connOpts) apply(cl *fetch.Client) error {
	for _, s := range o.resolve {
		r, err := fetch.ParseResolve(s)
		if err != nil {
			return err
		}
		cl.Resolve = append(cl.Resolve, r)
	}
	for _, s := range o.connectTo {
		r, err := fetch.ParseConnectTo(s)
		if err != nil {
			return err
		}
		cl.ConnectTo = append(cl.ConnectTo, r)
	}
	switch {
	case o.ipv4 && o.ipv6:
		return errors.New("-4/--ipv4 and -6/--ipv6 exclude each other")
	case o.ipv4:
		cl.IPVersion = 4
	case o.ipv6:
		cl.IPVersion = 6
	}
	if o.localPort != "" {
		r, err := fetch.ParsePortRange(o.localPort)
		if err != nil {
			return err
		}
		cl.LocalPorts = r
	}
	if o.pinned != "" {
		pins, err := fetch.ParsePinnedPubKey(o.pinned)
		if err != nil {
			return err
		}
		cl.PinnedPubKeys = pins
	}
	if o.cert == "" && o.key == "" && o.tlsMin == "" && o.tlsMax == "" && o.ciphers == "" {
		return nil
	}
	if cl.TLS == nil {
		cl.TLS = &tls.Config{}
	}
	t := cl.TLS
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
	if o.tlsMin != "" {
		t.MinVersion, _ = fetch.ParseTLSVersion(o.tlsMin)
	}
	if o.tlsMax != "" {
		v, err := fetch.ParseTLSVersion(o.tlsMax)
		if err != nil {
			return fmt.Errorf("--tls-max: %v", err)
		}
		t.MaxVersion = v
	}
	if t.MaxVersion != 0 && t.MinVersion > t.MaxVersion {
		return fetch.NewError(fetch.ErrCipher, fmt.Sprintf("--tlsv%s is above --tls-max %s", o.tlsMin, o.tlsMax), nil)
	}
	if o.ciphers != "" {
		ids, err := fetch.CipherSuites(o.ciphers)
		if err != nil {
			return err
		}
		t.CipherSuites = ids
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
// 59 cipher, 90 pinned key); false for a plain usage error (2).
func connExit(err error) (int, bool) {
	switch fetch.KindOf(err) {
	case fetch.ErrOptionSyntax, fetch.ErrClientCert, fetch.ErrCipher, fetch.ErrPinnedKey, fetch.ErrCACert:
		return fetch.ExitCode(err), true
	}
	return 0, false
}
