package mailto

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/urlparse"
)

// realMTA sends mailto URLs to a real server.
type realMTA struct {
	t    *testing.T
	srv  *testserver.SMTPServer
	tls  *tls.Config // nil: no STARTTLS asked for
	user string      // AUTH, when set
	pass string
}

func (m *realMTA) deliver(raw string, body io.Reader) (string, error) {
	u, err := urlparse.Parse(raw)
	if err != nil {
		m.t.Fatal(err)
	}
	o := fetch.Options{OptFrom: "me@example.net", OptServer: m.srv.Addr, OptAllowBcc: "1"}
	req := &fetch.Request{URL: &u, Options: o, User: m.user, Password: m.pass, HasPassword: m.pass != "",
		Body: body, BodySize: -1}
	cfg := fetch.Config{Verbose: io.Discard}
	if m.tls != nil {
		o[fetch.OptSSL] = "required"
		cfg.TLS = m.tls.Clone()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Fetcher{Config: cfg}.Open(ctx, req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

// check delivers ex, reads every copy back from the maildir and compares
// it with the dry run header by header; it returns the copies.
func (m *realMTA) check(ex example) []*mail.Message {
	t := m.t
	if err := m.srv.Clear(); err != nil {
		t.Fatal(err)
	}
	report, err := m.deliver(ex.URL, nil)
	if err != nil {
		t.Errorf("%s: %v", ex.URL, err)
		return nil
	}
	want, err := dryRun(t, ex.URL, fetch.Options{OptAllowBcc: "1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wm, _ := mail.ReadMessage(strings.NewReader(want))
	wantBody, _ := io.ReadAll(wm.Body)
	u, _ := urlparse.Parse(ex.URL)
	msg, _ := compose(&u.Mailto, "me@example.net", true)
	n := len(msg.recipients())
	if got := strings.Count(report, "\n"); got != n {
		t.Errorf("%s: report has %d lines for %d recipients: %q", ex.URL, got, n, report)
	}
	got, err := m.srv.WaitMessages(n, 10*time.Second)
	if err != nil {
		t.Errorf("%s: %v", ex.URL, err)
		return nil
	}
	var out []*mail.Message
	for _, g := range got {
		gm, err := mail.ReadMessage(bytes.NewReader(g))
		if err != nil {
			t.Errorf("%s: delivered message: %v", ex.URL, err)
			continue
		}
		for k := range wm.Header {
			if gv, wv := gm.Header[k], wm.Header[k]; strings.Join(gv, "\n") != strings.Join(wv, "\n") {
				t.Errorf("%s: delivered %s = %q, composed %q", ex.URL, k, gv, wv)
			}
		}
		for k, v := range ex.Header {
			if gm.Header.Get(k) != v {
				t.Errorf("%s: delivered %s = %q, want %q", ex.URL, k, gm.Header.Get(k), v)
			}
		}
		gb, _ := io.ReadAll(gm.Body)
		if !bytes.Equal(lf(gb), lf(wantBody)) {
			t.Errorf("%s: delivered body %q, want %q", ex.URL, gb, wantBody)
		}
		out = append(out, gm)
	}
	return out
}

func lf(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")) }

// streamed sends a body longer than the look-ahead, full of dot lines,
// and checks that it arrives whole.
func (m *realMTA) streamed() {
	m.srv.Clear()
	big := strings.Repeat(".dot line\n..two\n.\nplain é\n", peekLimit/16)
	if _, err := m.deliver("mailto:big@example.org", strings.NewReader(big)); err != nil {
		m.t.Fatal(err)
	}
	got, err := m.srv.WaitMessages(1, 10*time.Second)
	if err != nil {
		m.t.Fatal(err)
	}
	gm, _ := mail.ReadMessage(bytes.NewReader(got[0]))
	dec, _ := io.ReadAll(qpReader(gm.Body))
	if string(lf(dec)) != big {
		m.t.Errorf("streamed body: %d bytes back, sent %d", len(dec), len(big))
	}
}

// TestOpenSMTPD delivers every RFC 6068 §6 example through a real MTA
// (OpenSMTPD), reads each copy back from its maildir and compares it with
// the dry run header by header. OpenSMTPD 6.8.0p2 as Debian 12 ships it
// cannot do TLS with OpenSSL 3 (its privilege-separated signing fails with
// "EVP lib", OpenSMTPD issues #1171 and #1239), so STARTTLS and AUTH are
// tested against Exim (TestExim).
func TestOpenSMTPD(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	m := &realMTA{t: t, srv: testserver.StartOpenSMTPD(t, testserver.SMTPConfig{})}
	for _, ex := range rfc6068Examples {
		if strings.HasPrefix(ex.Header["To"], `"`) {
			// OpenSMTPD refuses quoted local parts ("501 5.1.3 Recipient
			// address syntax error"): exit 55 naming the recipient.
			_, err := m.deliver(ex.URL, nil)
			if fetch.KindOf(err) != fetch.ErrSendFailed || !strings.Contains(err.Error(), ex.Header["To"]+" (501") {
				t.Errorf("%s: %v, want OpenSMTPD's 501 refusal as ErrSendFailed", ex.URL, err)
			}
			continue
		}
		m.check(ex)
	}
	m.streamed()
	m.uploaded()
}

// uploaded sends a body given as Request.Body (-T) to a URL without body=:
// the delivered body is that text, starting with its first line.
func (m *realMTA) uploaded() {
	m.srv.Clear()
	if _, err := m.deliver("mailto:up@example.org?subject=upload", strings.NewReader("first line\nsecond\n")); err != nil {
		m.t.Fatal(err)
	}
	got, err := m.srv.WaitMessages(1, 10*time.Second)
	if err != nil {
		m.t.Fatal(err)
	}
	gm, _ := mail.ReadMessage(bytes.NewReader(got[0]))
	if b, _ := io.ReadAll(gm.Body); string(lf(b)) != "first line\nsecond\n" {
		m.t.Errorf("uploaded body delivered as %q", b)
	}
}

// TestExim delivers every RFC 6068 §6 example through Exim over STARTTLS
// (a generated certificate), every other one logged in with AUTH, and
// checks refusals, a wrong password and SMTPUTF8.
func TestExim(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	dir := t.TempDir()
	certPEM, keyPEM, err := gophertest.CertPEM()
	if err != nil {
		t.Fatal(err)
	}
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(cert, certPEM, 0o644)
	os.WriteFile(key, keyPEM, 0o600)
	srv := testserver.StartExim(t, testserver.SMTPConfig{Dir: filepath.Join(dir, "exim"),
		CertFile: cert, KeyFile: key, User: "joe", Password: "s3cret"})
	ctls, err := gophertest.TrustedTLS()
	if err != nil {
		t.Fatal(err)
	}
	m := &realMTA{t: t, srv: srv, tls: ctls}
	for i, ex := range rfc6068Examples {
		m.user, m.pass = "", ""
		proto := "esmtps"
		if i%2 == 1 {
			m.user, m.pass, proto = "joe", "s3cret", "esmtpsa"
		}
		for _, gm := range m.check(ex) {
			if r := gm.Header.Get("Received"); !strings.Contains(r, "with "+proto+" ") || !strings.Contains(r, "(TLS") {
				t.Errorf("%s: not received with %s over TLS: %q", ex.URL, proto, r)
			}
		}
	}
	m.user, m.pass = "joe", "wrong"
	if _, err := m.deliver("mailto:a@example.org", nil); fetch.KindOf(err) != fetch.ErrLoginDenied || fetch.ExitCode(err) != 67 {
		t.Errorf("wrong password: %v", err)
	}
	m.user, m.pass = "", ""
	_, err = m.deliver("mailto:refuse-me@example.org,ok@example.org", nil)
	if fetch.KindOf(err) != fetch.ErrSendFailed || !strings.Contains(err.Error(), "refuse-me@example.org (550") || strings.Contains(err.Error(), "ok@example.org") {
		t.Errorf("refused recipient: %v", err)
	}
	// a non-ASCII local part: SMTPUTF8
	srv.Clear()
	if _, err := m.deliver("mailto:%C3%BCser@example.org?subject=utf8", nil); err != nil {
		t.Fatal(err)
	}
	got, err := srv.WaitMessages(1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got[0], []byte("To: üser@example.org\n")) || !bytes.Contains(got[0], []byte("utf8")) {
		t.Errorf("SMTPUTF8 message:\n%s", got[0])
	}
	m.streamed()
}
