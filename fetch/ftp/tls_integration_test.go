package ftp_test

import (
	"bytes"
	"crypto/tls"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/urlparse"
)

// startVsftpdTLS starts vsftpd with TLS: a self-signed certificate made
// here (fetchtest.Cert), logins and data of local users in TLS required,
// and the data connections' TLS sessions required to resume the control
// connection's (require_ssl_reuse, vsftpd's default, said anyway: what
// a client without a session cache for its data connections fails on).
// implicit puts the listening port in TLS from the first byte (ftps).
func startVsftpdTLS(t *testing.T, implicit bool) *testserver.FTPServer {
	t.Helper()
	certPEM, keyPEM, err := fetchtest.CertPEM()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(cert, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	conf := []string{
		"ssl_enable=YES", "rsa_cert_file=" + cert, "rsa_private_key_file=" + key,
		"allow_anon_ssl=YES", "force_local_logins_ssl=YES", "force_local_data_ssl=YES",
		"require_ssl_reuse=YES", "ssl_ciphers=HIGH",
	}
	if implicit {
		conf = append(conf, "implicit_ssl=YES")
	}
	return testserver.StartFTPConf(t, testserver.Vsftpd, conf...)
}

// tlsClient is client (a fresh Fetcher without reuse when f is nil) for
// ftp and ftps, trusting fetchtest.Cert only.
func tlsClient(t *testing.T, f *ftp.Fetcher, opts map[string]string) *fetch.Client {
	_, pool, err := fetchtest.Cert()
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		f = &ftp.Fetcher{MaxIdlePerHost: -1}
	}
	c := client(f, opts)
	c.Fetchers["ftps"] = c.Fetchers["ftp"]
	c.TLS = &tls.Config{RootCAs: pool}
	return c
}

// vsftpdLines are the commands of vsftpd's log, in order.
func vsftpdLines(t *testing.T, s *testserver.FTPServer) []string {
	t.Helper()
	cmds, err := s.Commands()
	if err != nil {
		t.Fatal(err)
	}
	var l []string
	for _, c := range cmds {
		l = append(l, c.Line)
	}
	return l
}

// TestRealTLS: FTP over TLS on vsftpd, explicit (AUTH TLS on ftp://, with
// ssl-reqd) and implicit (ftps://): a file, a listing and an upload, each
// data connection in TLS resuming the control connection's session (the
// server refuses any other); then a server that takes no AUTH and
// ssl-reqd is ErrUseSSL (curl's 64), while ssl=try goes on in the clear.
func TestRealTLS(t *testing.T) {
	for _, implicit := range []bool{false, true} {
		name := "explicit"
		if implicit {
			name = "implicit"
		}
		t.Run(name, func(t *testing.T) {
			s := startVsftpdTLS(t, implicit)
			base, opts := "ftp://", map[string]string{fetch.OptSSL: "required"}
			if implicit {
				base, opts = "ftps://", nil
			}
			user := base + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr
			// One Fetcher with reuse: the second request goes on the
			// connection the first logged in.
			c := tlsClient(t, &ftp.Fetcher{}, opts)
			_, body, err := get(t, c, user+"/private.txt")
			if err != nil || string(body) != string(testserver.FTPHomeFiles["private.txt"]) {
				t.Fatalf("retrieve: %q %v", body, err)
			}
			res, body, err := get(t, c, user+"/")
			if err != nil || !bytes.Contains(body, []byte("private.txt")) {
				t.Fatalf("listing: %q %v", body, err)
			}
			_ = res
			u, _ := urlparse.Parse(user + "/upload/tls-upload.txt")
			up, err := c.Do(ctx(t), &fetch.Request{URL: &u, Body: strings.NewReader("over TLS\n"), BodySize: 9})
			if err != nil {
				t.Fatalf("upload: %v", err)
			}
			up.Body.Close()
			if got, _ := os.ReadFile(filepath.Join(s.Home, "upload", "tls-upload.txt")); string(got) != "over TLS\n" {
				t.Errorf("uploaded %q", got)
			}
			u0, _ := urlparse.Parse(user + "/upload/empty-upload.txt")
			if up, err = c.Do(ctx(t), &fetch.Request{URL: &u0, Body: strings.NewReader(""), BodySize: 0}); err != nil {
				t.Fatalf("empty upload: %v", err)
			}
			up.Body.Close()
			l := vsftpdLines(t, s)
			want := []string{"USER urlget", "PASS <password>", "PBSZ 0", "PROT P"}
			if !implicit {
				want = append([]string{"AUTH SSL"}, want...)
			}
			if len(l) < len(want) || strings.Join(l[:len(want)], "|") != strings.Join(want, "|") {
				t.Errorf("commands %q, want %q first", l, want)
			}
		})
	}
	t.Run("CCC", func(t *testing.T) {
		// vsftpd has no CCC ("500 Unknown command."): the control
		// connection stays in TLS and the transfer goes on, as curl's.
		s := startVsftpdTLS(t, false)
		url := "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr + "/private.txt"
		_, body, err := get(t, tlsClient(t, nil, map[string]string{fetch.OptSSL: "required", ftp.OptCCC: "1"}), url)
		if err != nil || string(body) != string(testserver.FTPHomeFiles["private.txt"]) {
			t.Fatalf("retrieve: %q %v", body, err)
		}
		l := vsftpdLines(t, s)
		want := []string{"AUTH SSL", "USER urlget", "PASS <password>", "PBSZ 0", "PROT P", "CCC", "PWD"}
		if len(l) < len(want) || strings.Join(l[:len(want)], "|") != strings.Join(want, "|") {
			t.Errorf("commands %q, want %q first", l, want)
		}
	})
	t.Run("refused", func(t *testing.T) {
		s := testserver.StartFTP(t, testserver.Vsftpd) // no ssl_enable: AUTH is refused
		url := s.URL + "/readme.txt"
		_, _, err := get(t, tlsClient(t, nil, map[string]string{fetch.OptSSL: "required"}), url)
		fetchtest.WantKind(t, err, fetch.ErrUseSSL)
		_, _, err = get(t, tlsClient(t, nil, map[string]string{ftp.OptSSLControl: "1"}), url)
		fetchtest.WantKind(t, err, fetch.ErrUseSSL)
		_, body, err := get(t, tlsClient(t, nil, map[string]string{fetch.OptSSL: "try"}), url)
		if err != nil || string(body) != string(testserver.FTPFixtureFiles["readme.txt"]) {
			t.Errorf("ssl=try on a server without TLS: %q %v", body, err)
		}
	})
}
