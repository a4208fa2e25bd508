package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
        location = /old { return 301 /small.txt; }
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

// writeOutJSON runs urlget and curl with -w %{json} (and the args) on the
// same URL and returns both objects.
func writeOutBoth(t *testing.T, curl string, format string, args ...string) (u, c string, ucode, ccode int) {
	t.Helper()
	full := append([]string{"-s", "-o", "/dev/null", "-w", format}, args...)
	cmd := exec.Command(curl, full...)
	cmd.Dir = t.TempDir()
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		ccode = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	var uout, uerr bytes.Buffer
	ucode = run(env{args: full, stdin: strings.NewReader(""), stdout: &uout, stderr: &uerr})
	if uerr.Len() > 0 {
		t.Errorf("urlget stderr: %q", uerr.String())
	}
	return uout.String(), string(out), ucode, ccode
}

// TestWriteOutVariablesBesideCurl: %{json} has curl's keys, and the same values
// where they do not depend on timing, the port chosen or the User-Agent;
// the times are in curl's order; %header{}, %{header_json} and the
// variables one by one print what curl prints.
func TestWriteOutVariablesBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	pki := fetchtest.NewPKI(t)
	base, tlsBase := nginxTLS(t, pki)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"http", []string{base + "/small.txt"}},
		{"-L", []string{"-L", base + "/old"}},
		{"redirect not followed", []string{base + "/old"}},
		{"404", []string{base + "/missing"}},
		{"-I", []string{"-I", base + "/small.txt"}},
		{"POST", []string{"-d", "a=1&b=2", base + "/small.txt"}},
		{"https with a client certificate", []string{"--cacert", pki.CA, "--cert", pki.Combined, tlsBase + "/who"}},
		{"--resolve", []string{"--resolve", "example.test:" + strings.TrimPrefix(base, "http://127.0.0.1:") + ":127.0.0.1", strings.Replace(base, "127.0.0.1", "example.test", 1) + "/small.txt"}},
		{"refused", []string{"http://127.0.0.1:1/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			us, cs, ucode, ccode := writeOutBoth(t, curl, "%{json}", tc.args...)
			if ucode != ccode {
				t.Errorf("exit: urlget %d, curl %d", ucode, ccode)
			}
			var um, cm map[string]any
			if err := json.Unmarshal([]byte(us), &um); err != nil {
				t.Fatalf("urlget: %v: %s", err, us)
			}
			if err := json.Unmarshal([]byte(cs), &cm); err != nil {
				t.Fatalf("curl: %v: %s", err, cs)
			}
			for k := range cm {
				if _, ok := um[k]; !ok {
					t.Errorf("urlget has no %q (curl: %v)", k, cm[k])
				}
			}
			for k := range um {
				if _, ok := cm[k]; !ok {
					t.Errorf("urlget has %q, curl has not", k)
				}
			}
			// certs: curl prints OpenSSL's text form of the certificates;
			// size_request: not measured (README).
			varies := map[string]bool{"curl_version": true, "local_port": true, "size_request": true, "errormsg": true,
				"speed_download": true, "speed_upload": true, "certs": true}
			for k, cv := range cm {
				if strings.HasPrefix(k, "time_") || varies[k] {
					continue
				}
				if uv := um[k]; fmt.Sprint(uv) != fmt.Sprint(cv) {
					t.Errorf("%s: urlget %v, curl %v", k, uv, cv)
				}
			}
			// The times: each set when curl's is, in curl's order.
			order := []string{"time_namelookup", "time_connect", "time_appconnect", "time_pretransfer", "time_starttransfer", "time_total"}
			last := 0.0
			for _, k := range order {
				uv, _ := um[k].(float64)
				cv, _ := cm[k].(float64)
				if (uv == 0) != (cv == 0) {
					t.Errorf("%s: urlget %v, curl %v", k, uv, cv)
				}
				if uv != 0 && uv < last {
					t.Errorf("%s %v before the time before it (%v)", k, uv, last)
				}
				if uv != 0 {
					last = uv
				}
			}
			if ur, cr := um["time_redirect"].(float64), cm["time_redirect"].(float64); (ur == 0) != (cr == 0) {
				t.Errorf("time_redirect: urlget %v, curl %v", ur, cr)
			}
		})
	}
	// Variables one by one, %header{} and %{header_json} (Date aside).
	format := "%{http_version} %{method} %{num_headers} %{size_header} %{remote_ip} %{num_redirects} %{size_upload} [%{redirect_url}] " +
		"%header{content-type} %header{Content-Length} [%header{nosuch}]\\n%{header_json}"
	for _, args := range [][]string{{base + "/small.txt"}, {"-L", base + "/old"}, {base + "/old"}, {"-d", "x=1", base + "/small.txt"}, {"-X", "DELETE", base + "/small.txt"}} {
		us, cs, _, _ := writeOutBoth(t, curl, format, args...)
		if dropDateJSON(us) != dropDateJSON(cs) {
			t.Errorf("%s:\nurlget %q\ncurl   %q", args, us, cs)
		}
	}
	// An unknown variable: a warning, never the text.
	var out, errb bytes.Buffer
	run(env{args: []string{"-s", "-o", "/dev/null", "-w", "[%{no_such_var}]", base + "/small.txt"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	if out.String() != "[]" || !strings.Contains(errb.String(), "unknown --write-out variable: 'no_such_var'") {
		t.Errorf("unknown variable: %q %q", out.String(), errb.String())
	}
}

// dropDateJSON drops header_json's "date" entry.
func dropDateJSON(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, `"date":`) && !strings.HasPrefix(l, `{"date":`) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestWriteOutOtherSchemesBesideCurl: the connection variables of an ftp
// transfer from vsftpd (the control connection's addresses, control and
// data connections counted) and of a gopher one from gophernicus, as curl
// prints them; their times are set, in order.
func TestWriteOutOtherSchemesBesideCurl(t *testing.T) {
	curl := testserver.Require(t, "curl")
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	g := testserver.StartGophernicus(t, testserver.GopherConfig{})
	// Not %{size_header}: curl counts an ftp server's replies in it,
	// urlget only HTTP header blocks (README).
	format := "%{scheme} %{remote_ip} %{remote_port} %{local_ip} %{num_connects} %{http_version} %{method} %{num_redirects} %{size_upload}"
	for _, url := range []string{ftp.URL + "/pub/hello.txt", g.URL("0/hello.txt")} {
		us, cs, ucode, ccode := writeOutBoth(t, curl, format, url)
		if us != cs || ucode != ccode {
			t.Errorf("%s: urlget %q (exit %d), curl %q (exit %d)", url, us, ucode, cs, ccode)
		}
		us, _, _, _ = writeOutBoth(t, curl, "%{time_namelookup} %{time_connect} %{time_pretransfer} %{time_starttransfer} %{time_total}", url)
		last := 0.0
		for _, f := range strings.Fields(us) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || v == 0 || v < last {
				t.Errorf("%s: times %q: each set, in order", url, us)
				break
			}
			last = v
		}
	}
}
