package mailto

import (
	"bytes"
	"context"
	"io"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/urlparse"
)

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
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o711)
	os.Chmod(dir, 0o711)
	srv := testserver.StartOpenSMTPD(t, testserver.SMTPConfig{Dir: dir})
	deliver := func(raw string, opts fetch.Options, user, pass string) (string, error) {
		u, err := urlparse.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		o := fetch.Options{OptFrom: "me@example.net", OptServer: srv.Addr, OptAllowBcc: "1"}
		for k, v := range opts {
			o[k] = v
		}
		req := &fetch.Request{URL: &u, Options: o, User: user, Password: pass, HasPassword: pass != "", Verbose: io.Discard}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := Fetcher{}.Open(ctx, req)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return string(b), err
	}

	for _, ex := range rfc6068Examples {
		if err := srv.Clear(); err != nil {
			t.Fatal(err)
		}
		report, err := deliver(ex.URL, nil, "", "")
		if strings.HasPrefix(ex.Header["To"], `"`) {
			// OpenSMTPD refuses quoted local parts ("501 5.1.3 Recipient
			// address syntax error"): exit 55 naming the recipient.
			if fetch.KindOf(err) != fetch.ErrSendFailed || !strings.Contains(err.Error(), ex.Header["To"]+" (501") {
				t.Errorf("%s: %v, want OpenSMTPD's 501 refusal as ErrSendFailed", ex.URL, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", ex.URL, err)
			continue
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
		got, err := srv.WaitMessages(n, 10*time.Second)
		if err != nil {
			t.Errorf("%s: %v", ex.URL, err)
			continue
		}
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
			if !bytes.Equal(bytes.ReplaceAll(gb, []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(wantBody, []byte("\r\n"), []byte("\n"))) {
				t.Errorf("%s: delivered body %q, want %q", ex.URL, gb, wantBody)
			}
		}
	}

	// a body streamed past the look-ahead, with dot lines, arrives whole
	srv.Clear()
	big := strings.Repeat(".dot line\n..two\n.\nplain é\n", peekLimit/16)
	u, _ := urlparse.Parse("mailto:big@example.org")
	req := &fetch.Request{URL: &u, Options: fetch.Options{OptFrom: "me@example.net", OptServer: srv.Addr},
		Body: strings.NewReader(big), BodySize: int64(len(big))}
	if _, err := (Fetcher{}).Open(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	got, err := srv.WaitMessages(1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	gm, _ := mail.ReadMessage(bytes.NewReader(got[0]))
	dec, _ := io.ReadAll(qpReader(gm.Body))
	if string(bytes.ReplaceAll(dec, []byte("\r\n"), []byte("\n"))) != big {
		t.Errorf("streamed body: %d bytes back, sent %d", len(dec), len(big))
	}
}
