package main

import (
	"bytes"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
)

// TestUntrustedCertificateBesideCurl: a certificate no CA vouches for is
// exit 60 with curl's one line; --cacert FILE and --capath DIR trust it
// without -k; a CA file with no certificate is exit 77.
func TestUntrustedCertificateBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "trusted\n") }))
	defer srv.Close()
	dir := t.TempDir()
	capath := filepath.Join(dir, "certs")
	os.Mkdir(capath, 0o755)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cafile := filepath.Join(dir, "ca.pem")
	os.WriteFile(cafile, ca, 0o644)
	os.WriteFile(filepath.Join(capath, "server.pem"), ca, 0o644)
	os.WriteFile(filepath.Join(capath, "README"), []byte("not a certificate\n"), 0o644)
	empty := filepath.Join(dir, "empty.pem")
	os.WriteFile(empty, []byte("nothing here\n"), 0o644)

	urlget := func(args ...string) (int, string, string) {
		return runSession(t, "", append([]string{"-sS"}, args...)...)
	}
	curlRun := func(args ...string) (int, string, string) { return curlSession(t, curl, args...) }

	ccode, _, cerr := curlRun(srv.URL + "/")
	code, _, uerr := urlget(srv.URL + "/")
	if code != 60 || ccode != 60 || uerr != "urlget: (60) SSL certificate problem: self-signed certificate\n" {
		t.Errorf("untrusted: urlget %d %q, curl %d %q", code, uerr, ccode, cerr)
	}
	// urlget's one line is curl's first (curl adds a paragraph of advice).
	if first, _, _ := strings.Cut(cerr, "\n"); strings.TrimPrefix(uerr, "urlget") != strings.TrimPrefix(first, "curl")+"\n" {
		t.Errorf("urlget says %q, curl %q", uerr, cerr)
	}
	for _, args := range [][]string{{"--cacert", cafile}, {"--capath", capath}} {
		if code, out, errs := urlget(append(args, srv.URL+"/")...); code != 0 || out != "trusted\n" {
			t.Errorf("%s: exit %d %q %q", args[0], code, out, errs)
		}
	}
	if ccode, out, _ := curlRun("--cacert", cafile, srv.URL+"/"); ccode != 0 || out != "trusted\n" {
		t.Errorf("curl --cacert: exit %d %q", ccode, out)
	}
	code, _, uerr = urlget("--cacert", empty, srv.URL+"/")
	if want := "urlget: (77) CA file " + empty + ": no PEM certificate in it\n"; code != 77 || uerr != want {
		t.Errorf("empty --cacert: exit %d %q, want 77 %q", code, uerr, want)
	}
}

// curlSession runs curl -sS with args: its exit code, stdout and stderr.
func curlSession(t *testing.T, curl string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(curl, append([]string{"-sS"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// TestCRLFileBesideCurl: --crlfile refuses a server certificate its CA
// revoked, and one whose list has expired, with curl's exit 60 and first
// line (curl's test 313); a current list that does not name it lets it
// through; a file that is no list is exit 82, as curl's.
func TestCRLFileBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	pki := fetchtest.NewPKI(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "trusted\n") }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pki.Server}}
	srv.StartTLS()
	defer srv.Close()
	day := time.Now().Add(24 * time.Hour)
	for _, tc := range []struct {
		name, file string
		code       int
	}{
		{"revoked", pki.CRL(t, "revoked.pem", true, day, false), 60},
		{"expired", pki.CRL(t, "old.pem", false, time.Now().Add(-time.Minute), false), 60},
		{"not listed", pki.CRL(t, "empty.pem", false, day, false), 0},
		{"no list", pki.CA, 82},
	} {
		args := []string{"--cacert", pki.CA, "--crlfile", tc.file, srv.URL + "/"}
		ccode, cout, cerr := curlSession(t, curl, args...)
		code, out, uerr := runSession(t, "", append([]string{"-sS"}, args...)...)
		if code != tc.code || ccode != tc.code || out != cout {
			t.Errorf("%s: urlget %d %q %q, curl %d %q %q", tc.name, code, out, uerr, ccode, cout, cerr)
		}
		if first, _, _ := strings.Cut(cerr, "\n"); code == 60 && strings.TrimPrefix(uerr, "urlget") != strings.TrimPrefix(first, "curl")+"\n" {
			t.Errorf("%s: urlget says %q, curl %q", tc.name, uerr, cerr)
		}
	}
}
