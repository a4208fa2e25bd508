package fetchtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// PKI is a test CA's files (PEM, in Dir): a server certificate for
// 127.0.0.1, localhost and example.test, and client certificates, for
// TLS servers that ask for one (in-tree, or nginx with ssl_verify_client).
type PKI struct {
	Dir                   string
	CA                    string // the CA's certificate
	ServerCert, ServerKey string
	ClientCert, ClientKey string
	Combined              string // the client certificate and key in one file
	Encrypted             string // the client certificate and its key, encrypted with "s3cret" (legacy PEM)
	Stranger              string // a client certificate and key from another CA
	ServerPin             string // sha256//BASE64 of the server's public key (curl's --pinnedpubkey)
	Server                tls.Certificate
	Pool                  *x509.CertPool // the CA

	ca     *x509.Certificate
	caKey  *ecdsa.PrivateKey
	server *x509.Certificate
}

// CRL writes a certificate revocation list of the CA to Dir/name (PEM, or
// DER when der), valid until next; with revoked it lists the server
// certificate (curl's --crlfile).
func (p *PKI) CRL(t testing.TB, name string, revoked bool, next time.Time, der bool) string {
	t.Helper()
	tmpl := &x509.RevocationList{Number: big.NewInt(1), ThisUpdate: time.Now().Add(-time.Hour), NextUpdate: next}
	if revoked {
		tmpl.RevokedCertificateEntries = []x509.RevocationListEntry{{SerialNumber: p.server.SerialNumber, RevocationTime: time.Now().Add(-time.Minute)}}
	}
	b, err := x509.CreateRevocationList(rand.Reader, tmpl, p.ca, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	if !der {
		b = pem.EncodeToMemory(&pem.Block{Type: "X509 CRL", Bytes: b})
	}
	path := filepath.Join(p.Dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// NewPKI makes a PKI in a temporary directory (ECDSA P-256 keys).
func NewPKI(t testing.TB) *PKI {
	t.Helper()
	dir := t.TempDir()
	p := &PKI{Dir: dir, Pool: x509.NewCertPool()}
	write := func(name string, blocks ...*pem.Block) string {
		var b []byte
		for _, bl := range blocks {
			b = append(b, pem.EncodeToMemory(bl)...)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	serial := int64(1)
	issue := func(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey, *pem.Block, *pem.Block) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		serial++
		tmpl.SerialNumber = big.NewInt(serial)
		tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
		if parent == nil {
			parent, parentKey = tmpl, key
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
		if err != nil {
			t.Fatal(err)
		}
		cert, _ := x509.ParseCertificate(der)
		kder, _ := x509.MarshalECPrivateKey(key)
		return cert, key, &pem.Block{Type: "CERTIFICATE", Bytes: der}, &pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}
	}
	caTmpl := func(cn string) *x509.Certificate {
		return &x509.Certificate{Subject: pkix.Name{CommonName: cn}, IsCA: true, BasicConstraintsValid: true,
			KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature}
	}
	ca, caKey, caPEM, _ := issue(caTmpl("urlget test CA"), nil, nil)
	p.CA = write("ca.pem", caPEM)
	p.Pool.AddCert(ca)
	srv, _, srvPEM, srvKey := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost", "example.test"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, ca, caKey)
	p.ServerCert, p.ServerKey = write("server.pem", srvPEM), write("server.key", srvKey)
	p.ca, p.caKey, p.server = ca, caKey, srv
	var err error
	if p.Server, err = tls.X509KeyPair(pem.EncodeToMemory(srvPEM), pem.EncodeToMemory(srvKey)); err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(srv.RawSubjectPublicKeyInfo)
	p.ServerPin = "sha256//" + base64.StdEncoding.EncodeToString(h[:])
	clientTmpl := &x509.Certificate{Subject: pkix.Name{CommonName: "urlget client"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	_, _, cliPEM, cliKey := issue(clientTmpl, ca, caKey)
	p.ClientCert, p.ClientKey = write("client.pem", cliPEM), write("client.key", cliKey)
	p.Combined = write("combined.pem", cliPEM, cliKey)
	//lint:ignore SA1019 the legacy encrypted PEM form is what curl users hold and --cert FILE:PASSWORD reads
	enc, err := x509.EncryptPEMBlock(rand.Reader, cliKey.Type, cliKey.Bytes, []byte("s3cret"), x509.PEMCipherAES256)
	if err != nil {
		t.Fatal(err)
	}
	p.Encrypted = write("encrypted.pem", cliPEM, enc)
	other, otherKey, _, _ := issue(caTmpl("another CA"), nil, nil)
	_, _, strPEM, strKey := issue(&x509.Certificate{Subject: pkix.Name{CommonName: "stranger"}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, other, otherKey)
	p.Stranger = write("stranger.pem", strPEM, strKey)
	return p
}
