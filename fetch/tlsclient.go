package fetch

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"strings"
	"time"
)

// This file is the client side of TLS that curl's --cert, --key,
// --pinnedpubkey, --crlfile, --tlsv1.x, --tls-max and --ciphers set:
// helpers that build a tls.Config's fields (Client.TLS), and the public
// key pin and the revocation lists the Client checks (Client.PinnedPubKeys,
// Client.CRLs).

// LoadClientCert reads a client certificate and its private key, both PEM
// (curl's --cert FILE[:PASSWORD] and --key FILE): keyFile "" means the key
// is in certFile, after or before the certificates. password decrypts a
// key in the legacy encrypted PEM form ("Proc-Type: 4,ENCRYPTED"); an
// encrypted PKCS#8 key is refused. Any failure is ErrClientCert (curl's
// 58).
func LoadClientCert(certFile, keyFile, password string) (tls.Certificate, error) {
	fail := func(msg string, err error) (tls.Certificate, error) {
		return tls.Certificate{}, &Error{Kind: ErrClientCert, Msg: "client certificate " + msg, Err: err}
	}
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return fail(certFile, pathError(err))
	}
	keyPEM := certPEM
	if keyFile != "" {
		if keyPEM, err = os.ReadFile(keyFile); err != nil {
			return fail("key "+keyFile, pathError(err))
		}
	}
	var certs, key []byte
	for rest := certPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type == "CERTIFICATE" {
			certs = append(certs, pem.EncodeToMemory(b)...)
		}
	}
	if certs == nil {
		return fail(certFile+": no PEM certificate in it (only PEM is supported)", nil)
	}
	name := cmpOr(keyFile, certFile)
	for rest := keyPEM; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		switch {
		case b.Type == "ENCRYPTED PRIVATE KEY":
			return fail("key "+name+": an encrypted PKCS#8 key is not supported: decrypt it (openssl pkey) or use the legacy encrypted PEM form", nil)
		case strings.HasSuffix(b.Type, "PRIVATE KEY"):
			//lint:ignore SA1019 the legacy form is the one curl users hold.
			//lint:ignore SA1019 curl reads keys in the legacy encrypted PEM form (RFC 1423, "Proc-Type: 4,ENCRYPTED"), and so must --cert FILE:PASSWORD
			if x509.IsEncryptedPEMBlock(b) {
				if password == "" {
					return fail("key "+name+" is encrypted: its password is needed", nil)
				}
				//lint:ignore SA1019 as above: the legacy form is the one curl users hold
				der, err := x509.DecryptPEMBlock(b, []byte(password))
				if err != nil {
					return fail("key "+name+": wrong password", nil)
				}
				b = &pem.Block{Type: b.Type, Bytes: der}
			}
			key = pem.EncodeToMemory(b)
		}
		if key != nil {
			break
		}
	}
	if key == nil {
		return fail("key "+name+": no PEM private key in it (give the key's own file)", nil)
	}
	c, err := tls.X509KeyPair(certs, key)
	if err != nil {
		return fail(certFile, errors.New(strings.TrimPrefix(err.Error(), "tls: ")))
	}
	return c, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// pathError is an *os.PathError's reason with the path in front, as the
// messages around it name the file already.
func pathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ParsePinnedPubKey parses curl's --pinnedpubkey argument: "sha256//" and
// a base64 SHA-256 hash of a SubjectPublicKeyInfo, several separated by
// ";", or the name of a file holding one public key (PEM "PUBLIC KEY" or
// DER). Any failure is ErrPinnedKey (curl's 90, which curl gives a bad
// hash too: it matches no key).
func ParsePinnedPubKey(s string) ([][sha256.Size]byte, error) {
	if !strings.HasPrefix(s, "sha256//") {
		b, err := os.ReadFile(s)
		if err != nil {
			return nil, &Error{Kind: ErrPinnedKey, Msg: s, Err: pathError(err)}
		}
		if p, _ := pem.Decode(b); p != nil {
			b = p.Bytes
		}
		if _, err := x509.ParsePKIXPublicKey(b); err != nil {
			return nil, &Error{Kind: ErrPinnedKey, Msg: s + ": no public key in it (PEM or DER)"}
		}
		return [][sha256.Size]byte{sha256.Sum256(b)}, nil
	}
	var pins [][sha256.Size]byte
	for _, h := range strings.Split(s, ";") {
		b64, ok := strings.CutPrefix(strings.TrimSpace(h), "sha256//")
		raw, err := base64.StdEncoding.DecodeString(b64)
		if !ok || err != nil || len(raw) != sha256.Size {
			return nil, &Error{Kind: ErrPinnedKey, Msg: quoteShort(h) + " is not sha256// and the base64 of a SHA-256 hash"}
		}
		pins = append(pins, [sha256.Size]byte(raw))
	}
	return pins, nil
}

func quoteShort(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return "\"" + Sanitize(s) + "\""
}

// errPinMismatch is the handshake's error when the server's key is not
// pinned; TLSError makes it ErrPinnedKey.
var errPinMismatch = errors.New("SSL: public key does not match pinned public key")

// verifyPin is a tls.Config.VerifyConnection that accepts only a leaf
// certificate whose public key hashes to one of pins (also under
// InsecureSkipVerify, as curl checks a pin with -k).
func verifyPin(pins [][sha256.Size]byte, next func(tls.ConnectionState) error) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if next != nil {
			if err := next(cs); err != nil {
				return err
			}
		}
		if len(cs.PeerCertificates) == 0 {
			return errPinMismatch
		}
		h := sha256.Sum256(cs.PeerCertificates[0].RawSubjectPublicKeyInfo)
		for _, p := range pins {
			if bytes.Equal(h[:], p[:]) {
				return nil
			}
		}
		return errPinMismatch
	}
}

// LoadCRLs reads certificate revocation lists from file (curl's
// --crlfile): PEM ("X509 CRL" blocks, one or more) or one DER list. A
// file that cannot be read or holds no list is ErrCRLFile (curl's 82).
// A list's signature is checked at the handshake, against the issuer the
// server's chain names.
func LoadCRLs(file string) ([]*x509.RevocationList, error) {
	fail := func(msg string, err error) ([]*x509.RevocationList, error) {
		return nil, &Error{Kind: ErrCRLFile, Msg: "CRL file " + file + msg, Err: err}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return fail("", pathError(err))
	}
	var crls []*x509.RevocationList
	for rest := b; ; {
		var p *pem.Block
		if p, rest = pem.Decode(rest); p == nil {
			break
		}
		if p.Type != "X509 CRL" {
			continue
		}
		crl, err := x509.ParseRevocationList(p.Bytes)
		if err != nil {
			return fail(": a PEM X509 CRL that cannot be read", errors.New(strings.TrimPrefix(err.Error(), "x509: ")))
		}
		crls = append(crls, crl)
	}
	if crls == nil {
		crl, err := x509.ParseRevocationList(b)
		if err != nil {
			return fail(": no certificate revocation list in it (PEM or DER)", nil)
		}
		crls = append(crls, crl)
	}
	return crls, nil
}

// crlProblem is a chain that the revocation lists refuse, in OpenSSL's
// words (curl's "SSL certificate problem: certificate revoked"); TLSError
// makes it ErrCertificate.
type crlProblem string

func (e crlProblem) Error() string { return string(e) }

// verifyCRLs is a tls.Config.VerifyConnection that accepts a verified
// chain only when each of its certificates but the root is covered by one
// of crls — issued by the certificate's issuer, its signature that
// issuer's, current — and not listed in it (OpenSSL's
// X509_V_FLAG_CRL_CHECK_ALL, which curl sets for --crlfile). One chain
// that passes is enough; otherwise the first chain's problem is the error.
func verifyCRLs(crls []*x509.RevocationList, next func(tls.ConnectionState) error) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if next != nil {
			if err := next(cs); err != nil {
				return err
			}
		}
		var first error
		for _, chain := range cs.VerifiedChains {
			err := checkChainCRLs(chain, crls, time.Now())
			if err == nil {
				return nil
			}
			if first == nil {
				first = err
			}
		}
		if first == nil {
			first = crlProblem("unable to get certificate CRL") // no verified chain to check
		}
		return first
	}
}

// checkChainCRLs is verifyCRLs' check of one chain (leaf first, root last).
func checkChainCRLs(chain []*x509.Certificate, crls []*x509.RevocationList, now time.Time) error {
	for i := 0; i+1 < len(chain); i++ {
		cert, issuer := chain[i], chain[i+1]
		var crl *x509.RevocationList
		for _, l := range crls {
			if bytes.Equal(l.RawIssuer, cert.RawIssuer) && l.CheckSignatureFrom(issuer) == nil {
				crl = l
				break
			}
		}
		switch {
		case crl == nil:
			return crlProblem("unable to get certificate CRL")
		case now.Before(crl.ThisUpdate):
			return crlProblem("CRL is not yet valid")
		case !crl.NextUpdate.IsZero() && now.After(crl.NextUpdate):
			return crlProblem("CRL has expired")
		}
		for _, e := range crl.RevokedCertificateEntries {
			if e.SerialNumber != nil && e.SerialNumber.Cmp(cert.SerialNumber) == 0 {
				return crlProblem("certificate revoked")
			}
		}
	}
	return nil
}

// ParseTLSVersion reads a TLS version as curl's --tls-max takes it
// ("1.0", "1.1", "1.2", "1.3"; "default" is 0). Anything else is
// ErrCipher (curl's 59 for a version it cannot use).
func ParseTLSVersion(s string) (uint16, error) {
	switch s {
	case "default":
		return 0, nil
	case "1.0":
		return tls.VersionTLS10, nil
	case "1.1":
		return tls.VersionTLS11, nil
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, &Error{Kind: ErrMalformed, Msg: "TLS version " + quoteShort(s) + ": want 1.0, 1.1, 1.2, 1.3 or default"}
}

// opensslSuites names the TLS 1.2 (and older) suites Go has by their
// OpenSSL names, the ones curl's --ciphers takes.
var opensslSuites = map[string]uint16{
	"ECDHE-ECDSA-AES128-GCM-SHA256": tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-RSA-AES128-GCM-SHA256":   tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	"ECDHE-ECDSA-AES256-GCM-SHA384": tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-RSA-AES256-GCM-SHA384":   tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	"ECDHE-ECDSA-CHACHA20-POLY1305": tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-RSA-CHACHA20-POLY1305":   tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
	"ECDHE-ECDSA-AES128-SHA256":     tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-RSA-AES128-SHA256":       tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256,
	"ECDHE-ECDSA-AES128-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
	"ECDHE-RSA-AES128-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA,
	"ECDHE-ECDSA-AES256-SHA":        tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-AES256-SHA":          tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA,
	"ECDHE-RSA-DES-CBC3-SHA":        tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA,
	"ECDHE-ECDSA-RC4-SHA":           tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA,
	"ECDHE-RSA-RC4-SHA":             tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA,
	"AES128-GCM-SHA256":             tls.TLS_RSA_WITH_AES_128_GCM_SHA256,
	"AES256-GCM-SHA384":             tls.TLS_RSA_WITH_AES_256_GCM_SHA384,
	"AES128-SHA256":                 tls.TLS_RSA_WITH_AES_128_CBC_SHA256,
	"AES128-SHA":                    tls.TLS_RSA_WITH_AES_128_CBC_SHA,
	"AES256-SHA":                    tls.TLS_RSA_WITH_AES_256_CBC_SHA,
	"DES-CBC3-SHA":                  tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA,
	"RC4-SHA":                       tls.TLS_RSA_WITH_RC4_128_SHA,
}

// CipherSuites reads curl's --ciphers list: TLS 1.2 suites by their
// OpenSSL names (ECDHE-RSA-AES128-GCM-SHA256) or IANA names
// (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256), separated by ":", "," or
// spaces, for tls.Config.CipherSuites. TLS 1.3 suites are not chosen (Go
// does not let them be). An unknown name, or an OpenSSL cipher string
// keyword (HIGH, !aNULL), is ErrCipher (curl's 59).
func CipherSuites(list string) ([]uint16, error) {
	iana := map[string]uint16{}
	for _, cs := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		iana[cs.Name] = cs.ID
	}
	var out []uint16
	for _, name := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' || r == ' ' }) {
		id, ok := opensslSuites[strings.ToUpper(name)]
		if !ok {
			id, ok = iana[strings.ToUpper(name)]
		}
		if !ok {
			return nil, &Error{Kind: ErrCipher, Msg: "unknown cipher " + quoteShort(name) + " (TLS 1.2 suites by their OpenSSL or IANA names; OpenSSL's keywords such as HIGH are not supported)"}
		}
		if !isTLS13(id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return nil, &Error{Kind: ErrCipher, Msg: "no cipher given"}
	}
	return out, nil
}

func isTLS13(id uint16) bool { return id>>8 == 0x13 }

// tlsConfig is the TLS configuration of a connection to a server.
func (c *Client) tlsConfig() *tls.Config {
	t := c.baseTLSConfig()
	if len(c.CRLs) > 0 && !t.InsecureSkipVerify {
		t.VerifyConnection = verifyCRLs(c.CRLs, t.VerifyConnection)
	}
	return t
}

// baseTLSConfig is what a server's and a proxy's TLS share.
func (c *Client) baseTLSConfig() *tls.Config {
	var t *tls.Config
	if c.TLS != nil {
		t = c.TLS.Clone()
	} else {
		t = &tls.Config{}
	}
	if c.Insecure {
		t.InsecureSkipVerify = true
	}
	if len(c.PinnedPubKeys) > 0 {
		t.VerifyConnection = verifyPin(c.PinnedPubKeys, t.VerifyConnection)
	}
	return t
}

// proxyTLSConfig is the TLS configuration of a connection to an https://
// proxy: the server's, unverified with ProxyInsecure.
func (c *Client) proxyTLSConfig() *tls.Config {
	t := c.baseTLSConfig()
	if c.ProxyInsecure {
		t.InsecureSkipVerify = true
	}
	return t
}
