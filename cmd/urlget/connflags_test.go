package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// nginxTLS starts nginx serving root over http and, on a second port,
// over https with ssl_verify_client on (the client certificate must come
// from pki's CA); it returns the http and https base URLs.
func nginxTLS(t *testing.T, pki *fetchtest.PKI) (httpURL, httpsURL string) {
	t.Helper()
	testserver.Require(t, "nginx")
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "small.txt"), []byte("small file\n"), 0o644)
	port := testserver.FreePort(t)
	s := testserver.StartNginx(t, testserver.NginxConfig{Root: root, Extra: fmt.Sprintf(`
        listen 127.0.0.1:%d ssl;
        ssl_certificate %s;
        ssl_certificate_key %s;
        ssl_client_certificate %s;
        ssl_verify_client on;
        ssl_protocols TLSv1.2 TLSv1.3;
        location = /who { default_type text/plain; return 200 "$ssl_protocol $ssl_client_s_dn\n"; }
`, port, pki.ServerCert, pki.ServerKey, pki.CA)})
	if err := testserver.WaitPort("127.0.0.1:"+strconv.Itoa(port), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	return s.URL, "https://127.0.0.1:" + strconv.Itoa(port)
}

// TestConnFlagsBesideCurl: --resolve, --connect-to, -4/-6, --interface and
// --local-port against nginx, beside curl: same output, same exit codes,
// bad values included.
func TestConnFlagsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	base, _ := nginxTLS(t, fetchtest.NewPKI(t))
	port := strings.TrimPrefix(base, "http://127.0.0.1:")
	lport := testserver.FreePort(t)
	runSideBySide(t, curl, []sideCase{
		{name: "--resolve", args: []string{"--resolve", "example.test:" + port + ":127.0.0.1", "http://example.test:" + port + "/small.txt"}},
		{name: "--resolve wildcard", args: []string{"--resolve", "*:" + port + ":127.0.0.1", "http://any.test:" + port + "/small.txt"}},
		{name: "--resolve two addresses", args: []string{"--resolve", "example.test:" + port + ":127.0.0.2,127.0.0.1", "http://example.test:" + port + "/small.txt"}},
		{name: "--resolve -6", args: []string{"-6", "--resolve", "example.test:" + port + ":127.0.0.1", "http://example.test:" + port + "/small.txt"}, code: 6},
		{name: "--resolve bad", args: []string{"--resolve", "example.test:" + port, "http://example.test:" + port + "/small.txt"}, code: 49},
		{name: "--connect-to", args: []string{"--connect-to", "example.test:80:127.0.0.1:" + port, "-w", "%{http_code}", "http://example.test/small.txt"}},
		{name: "--connect-to any", args: []string{"--connect-to", "::127.0.0.1:" + port, "http://example.test:8/small.txt"}},
		{name: "-4", args: []string{"-4", base + "/small.txt"}},
		{name: "-6 to IPv4", args: []string{"-6", base + "/small.txt"}, code: 7},
		{name: "--interface address", args: []string{"--interface", "127.0.0.1", base + "/small.txt"}},
		{name: "--interface lo", args: []string{"--interface", "lo", base + "/small.txt"}},
		{name: "--interface none", args: []string{"--interface", "if!no-such-if0", base + "/small.txt"}, code: 45},
		{name: "--interface IPv6 to IPv4", args: []string{"--interface", "::1", base + "/small.txt"}, code: 7},
		// A range: the run that goes second finds the first port in
		// TIME_WAIT towards the same server, and takes the next.
		{name: "--local-port", args: []string{"--local-port", strconv.Itoa(lport) + "-" + strconv.Itoa(lport+20), base + "/small.txt"}},
		{name: "--local-port bad", args: []string{"--local-port", "5-2", base + "/small.txt"}, code: 2},
	})
}

// TestTLSFlagsBesideCurl: client certificates against nginx requiring
// them (ssl_verify_client on), --pinnedpubkey, TLS versions and
// --ciphers, beside curl.
func TestTLSFlagsBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	pki := fetchtest.NewPKI(t)
	_, tlsBase := nginxTLS(t, pki)
	who := tlsBase + "/who"
	ca := []string{"--cacert", pki.CA}
	with := func(args ...string) []string { return append(append(append([]string{}, ca...), args...), who) }
	wrongPin := "sha256//" + base64.StdEncoding.EncodeToString(make([]byte, 32))
	runSideBySide(t, curl, []sideCase{
		{name: "no certificate", args: with()}, // nginx's 400 page
		{name: "--cert --key", args: with("--cert", pki.ClientCert, "--key", pki.ClientKey)},
		{name: "-E combined", args: with("-E", pki.Combined)},
		{name: "--cert-type PEM", args: with("--cert-type", "PEM", "--cert", pki.Combined)},
		{name: "encrypted key", args: with("--cert", pki.Encrypted+":s3cret")},
		{name: "another CA's certificate", args: with("--cert", pki.Stranger)},
		{name: "--cert missing", args: with("--cert", filepath.Join(pki.Dir, "nosuch.pem")), code: 58},
		{name: "--cert-type DER", args: with("--cert-type", "DER", "--cert", pki.Combined), code: 58},
		{name: "--pinnedpubkey", args: with("--cert", pki.Combined, "--pinnedpubkey", pki.ServerPin)},
		{name: "--pinnedpubkey two", args: with("--cert", pki.Combined, "--pinnedpubkey", wrongPin+";"+pki.ServerPin)},
		{name: "--pinnedpubkey -k", args: []string{"-k", "--cert", pki.Combined, "--pinnedpubkey", pki.ServerPin, who}},
		{name: "--pinnedpubkey wrong", args: with("--cert", pki.Combined, "--pinnedpubkey", wrongPin), code: 90},
		{name: "--pinnedpubkey wrong -k", args: []string{"-k", "--pinnedpubkey", wrongPin, who}, code: 90},
		{name: "--tls-max 1.2", args: with("--cert", pki.Combined, "--tls-max", "1.2")},
		{name: "--tlsv1.3", args: with("--cert", pki.Combined, "--tlsv1.3")},
		{name: "--ciphers", args: with("--cert", pki.Combined, "--tls-max", "1.2", "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256")},
		{name: "--ciphers unknown", args: with("--ciphers", "NO-SUCH-CIPHER"), code: 59},
	})
}
