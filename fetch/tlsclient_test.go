package fetch_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
)

// A TLS server in-tree that requires a client certificate from the test
// CA: LoadClientCert's certificate gets in, in each form curl takes it;
// a pinned key is checked, with Insecure too; Go's version and cipher
// limits are the ones asked for.
func TestClientCertificatePinAndCiphers(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	pki := fetchtest.NewPKI(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s %s", r.TLS.PeerCertificates[0].Subject.CommonName, tls.VersionName(r.TLS.Version), tls.CipherSuiteName(r.TLS.CipherSuite))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Server}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pki.Pool}
	srv.StartTLS()
	defer srv.Close()

	get := func(c *fetch.Client) (string, error) {
		_, body, err := fetchAll(t, c, srv.URL+"/")
		return string(body), err
	}
	// No certificate: the handshake fails (TLS 1.3 reports it on the first read).
	if body, err := get(&fetch.Client{TLS: &tls.Config{RootCAs: pki.Pool}}); err == nil {
		t.Errorf("no certificate: %q, want an error", body)
	}
	for _, tc := range []struct{ cert, key, pass string }{
		{pki.ClientCert, pki.ClientKey, ""},
		{pki.Combined, "", ""},
		{pki.Encrypted, "", "s3cret"},
	} {
		cert, err := fetch.LoadClientCert(tc.cert, tc.key, tc.pass)
		if err != nil {
			t.Fatalf("%s: %v", tc.cert, err)
		}
		body, err := get(&fetch.Client{TLS: &tls.Config{RootCAs: pki.Pool, Certificates: []tls.Certificate{cert}}})
		if err != nil || !strings.HasPrefix(body, "urlget client TLS 1.3") {
			t.Errorf("%s: %q %v", tc.cert, body, err)
		}
	}
	for _, tc := range []struct{ cert, key, pass, want string }{
		{pki.Encrypted, "", "", "is encrypted"},
		{pki.Encrypted, "", "wrong", "wrong password"},
		{pki.ClientCert, "", "", "no PEM private key"},
		{pki.ClientKey, "", "", "no PEM certificate"},
		{filepath.Join(pki.Dir, "nosuch"), "", "", "no such file"},
		{pki.ClientCert, pki.ServerKey, "", "does not match"},
	} {
		_, err := fetch.LoadClientCert(tc.cert, tc.key, tc.pass)
		if fetch.ExitCode(err) != 58 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadClientCert(%s, %s, %q): %v, want exit 58 saying %q", filepath.Base(tc.cert), tc.key, tc.pass, err, tc.want)
		}
	}

	cert, _ := fetch.LoadClientCert(pki.Combined, "", "")
	base := func() *tls.Config { return &tls.Config{RootCAs: pki.Pool, Certificates: []tls.Certificate{cert}} }
	pins, err := fetch.ParsePinnedPubKey("sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=;" + pki.ServerPin)
	if err != nil {
		t.Fatal(err)
	}
	if body, err := get(&fetch.Client{TLS: base(), PinnedPubKeys: pins}); err != nil {
		t.Errorf("pinned key: %q %v", body, err)
	}
	_, err = get(&fetch.Client{TLS: base(), Insecure: true, PinnedPubKeys: pins[:1]})
	wantExit(t, "another key, -k", err, 90)
	if err != nil && err.Error() != "SSL: public key does not match pinned public key" {
		t.Errorf("pin mismatch says %q", err)
	}
	// A key file pins too.
	keyFile := filepath.Join(pki.Dir, "pub.pem")
	os.WriteFile(keyFile, pemPublicKey(t, pki), 0o644)
	if pins, err := fetch.ParsePinnedPubKey(keyFile); err != nil || len(pins) != 1 {
		t.Errorf("key file: %v", err)
	} else if body, err := get(&fetch.Client{TLS: base(), PinnedPubKeys: pins}); err != nil {
		t.Errorf("pinned by file: %q %v", body, err)
	}
	for _, bad := range []string{"sha256//short", "md5//AAAA", filepath.Join(pki.Dir, "nosuch"), pki.CA} {
		if _, err := fetch.ParsePinnedPubKey(bad); fetch.ExitCode(err) != 90 {
			t.Errorf("ParsePinnedPubKey(%q): %v, want exit 90", bad, err)
		}
	}

	ids, err := fetch.CipherSuites("ECDHE-ECDSA-AES256-GCM-SHA384:TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256")
	if err != nil {
		t.Fatal(err)
	}
	cfg := base()
	cfg.MaxVersion, cfg.CipherSuites = tls.VersionTLS12, ids[:1]
	if body, err := get(&fetch.Client{TLS: cfg}); err != nil || body != "urlget client TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384" {
		t.Errorf("TLS 1.2, one cipher: %q %v", body, err)
	}
	for _, bad := range []string{"HIGH", "!aNULL", "NO-SUCH", ""} {
		if _, err := fetch.CipherSuites(bad); fetch.ExitCode(err) != 59 {
			t.Errorf("CipherSuites(%q): %v, want exit 59", bad, err)
		}
	}
}

// pemPublicKey is the server's public key as a PEM "PUBLIC KEY".
func pemPublicKey(t *testing.T, pki *fetchtest.PKI) []byte {
	c, err := x509.ParseCertificate(pki.Server.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(c.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// TestCRLs: a server certificate listed in a revocation list of its CA
// (LoadCRLs, PEM or DER) fails the handshake with exit 60, "certificate
// revoked", as curl's --crlfile (its test 313); a list that does not
// list it lets it through, an expired one or one from another CA does
// not (OpenSSL's CRL_CHECK_ALL, which curl sets); -k skips the check;
// an unreadable file is exit 82.
func TestCRLs(t *testing.T) {
	fetchtest.ClearProxyEnv(t)
	pki := fetchtest.NewPKI(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Server}}
	srv.StartTLS()
	defer srv.Close()
	other := fetchtest.NewPKI(t)
	day := time.Now().Add(24 * time.Hour)
	for _, tc := range []struct {
		name     string
		file     string
		insecure bool
		exit     int
		msg      string
	}{
		{"revoked", pki.CRL(t, "revoked.pem", true, day, false), false, 60, "SSL certificate problem: certificate revoked"},
		{"revoked DER", pki.CRL(t, "revoked.der", true, day, true), false, 60, "SSL certificate problem: certificate revoked"},
		{"revoked -k", pki.CRL(t, "revoked.pem", true, day, false), true, 0, ""},
		{"not listed", pki.CRL(t, "empty.pem", false, day, false), false, 0, ""},
		{"expired", pki.CRL(t, "old.pem", false, time.Now().Add(-time.Minute), false), false, 60, "SSL certificate problem: CRL has expired"},
		{"another CA's", other.CRL(t, "other.pem", true, day, false), false, 60, "SSL certificate problem: unable to get certificate CRL"},
	} {
		crls, err := fetch.LoadCRLs(tc.file)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_, body, err := fetchAll(t, &fetch.Client{TLS: &tls.Config{RootCAs: pki.Pool}, CRLs: crls, Insecure: tc.insecure}, srv.URL+"/")
		if tc.exit == 0 {
			if err != nil || string(body) != "ok" {
				t.Errorf("%s: %q %v", tc.name, body, err)
			}
			continue
		}
		wantExit(t, tc.name, err, tc.exit)
		if err != nil && err.Error() != tc.msg {
			t.Errorf("%s: %q, want %q", tc.name, err, tc.msg)
		}
	}
	for _, bad := range []string{filepath.Join(pki.Dir, "nosuch"), pki.CA} {
		if _, err := fetch.LoadCRLs(bad); fetch.ExitCode(err) != 82 {
			t.Errorf("LoadCRLs(%s): %v, want exit 82", filepath.Base(bad), err)
		}
	}
}
