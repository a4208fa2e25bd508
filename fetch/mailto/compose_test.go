package mailto

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/mail"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

func TestMain(m *testing.M) {
	fixed := time.Date(2026, 11, 24, 18, 30, 5, 0, time.FixedZone("", 3600))
	now = func() time.Time { return fixed }
	newUniqueID = func() string { return "test.1" }
	os.Exit(m.Run())
}

// open runs the fetcher on raw with options and an optional body.
func open(t *testing.T, raw string, opts fetch.Options, body io.Reader) (*fetch.Resource, error) {
	t.Helper()
	u, err := urlparse.Parse(raw)
	if err != nil {
		t.Fatalf("Parse(%q): %v", raw, err)
	}
	if opts == nil {
		opts = fetch.Options{}
	}
	return Fetcher{Config: fetch.Config{Verbose: io.Discard}}.Open(context.Background(), &fetch.Request{URL: &u, Options: opts, Body: body, BodySize: -1})
}

// dryRun is the composed message for raw.
func dryRun(t *testing.T, raw string, opts fetch.Options, body io.Reader) (string, error) {
	t.Helper()
	if opts == nil {
		opts = fetch.Options{}
	}
	opts[OptDryRun] = "1"
	if !opts.Has(OptFrom) {
		opts[OptFrom] = "me@example.net"
	}
	res, err := open(t, raw, opts, body)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err == nil && res.Size >= 0 && int64(len(b)) != res.Size {
		t.Errorf("%s: Size %d, body %d bytes", raw, res.Size, len(b))
	}
	return string(b), err
}

const stdHead = "Date: Tue, 24 Nov 2026 18:30:05 +0100\r\nFrom: me@example.net\r\n"

func TestComposeBytes(t *testing.T) {
	cases := []struct{ url, want string }{
		{"mailto:chris@example.com", stdHead +
			"To: chris@example.com\r\nMessage-ID: <test.1@example.net>\r\nMIME-Version: 1.0\r\n" +
			"Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n"},
		{"mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index", stdHead +
			"To: infobot@example.com\r\nMessage-ID: <test.1@example.net>\r\nMIME-Version: 1.0\r\n" +
			"Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n" +
			"send current-issue\r\nsend index\r\n"},
		{"mailto:joe@example.com?cc=bob@example.com&body=hello&subject=hi%20there&In-Reply-To=%3C3469A91.D10AF4C@example.com%3E", stdHead +
			"To: joe@example.com\r\nCc: bob@example.com\r\nSubject: hi there\r\nMessage-ID: <test.1@example.net>\r\n" +
			"In-Reply-To: <3469A91.D10AF4C@example.com>\r\nMIME-Version: 1.0\r\n" +
			"Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nhello\r\n"},
		{"mailto:user@example.org?subject=caf%C3%A9&body=caf%C3%A9", stdHead +
			"To: user@example.org\r\nSubject: =?UTF-8?q?caf=C3=A9?=\r\nMessage-ID: <test.1@example.net>\r\nMIME-Version: 1.0\r\n" +
			"Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\ncaf=C3=A9\r\n"},
		{"mailto:user@%E7%B4%8D%E8%B1%86.example.org?subject=Test&body=NATTO", stdHead +
			"To: user@xn--99zt52a.example.org\r\nSubject: Test\r\nMessage-ID: <test.1@example.net>\r\nMIME-Version: 1.0\r\n" +
			"Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\nNATTO\r\n"},
		// line ends: lone LF and lone CR become CRLF; the body ends with one
		{"mailto:a@example.org?body=one%0Atwo%0Dthree%0D%0A%0D%0A.dot", stdHead +
			"To: a@example.org\r\nMessage-ID: <test.1@example.net>\r\nMIME-Version: 1.0\r\n" +
			"Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n" +
			"one\r\ntwo\r\nthree\r\n\r\n.dot\r\n"},
	}
	for _, c := range cases {
		got, err := dryRun(t, c.url, nil, nil)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.url, got, c.want)
		}
	}
}

// RFC 6068 §6: every example, composed and read back with net/mail.
func TestRFC6068Examples(t *testing.T) {
	for _, ex := range rfc6068Examples {
		got, err := dryRun(t, ex.URL, fetch.Options{OptAllowBcc: "1"}, nil)
		if err != nil {
			t.Errorf("%s: %v", ex.URL, err)
			continue
		}
		m, err := mail.ReadMessage(strings.NewReader(got))
		if err != nil {
			t.Errorf("%s: net/mail: %v\n%s", ex.URL, err, got)
			continue
		}
		for k, v := range ex.Header {
			if g := m.Header.Get(k); g != v {
				t.Errorf("%s: %s = %q, want %q", ex.URL, k, g, v)
			}
		}
		b, _ := io.ReadAll(m.Body)
		if string(b) != ex.Body {
			t.Errorf("%s: body %q, want %q", ex.URL, b, ex.Body)
		}
		if strings.Contains(got, "blat") {
			t.Errorf("%s: unsafe field taken:\n%s", ex.URL, got)
		}
	}
}

func TestRequestBody(t *testing.T) {
	// body= text, a line break, then Request.Body, CRLF throughout
	got, err := dryRun(t, "mailto:a@example.org?body=first", nil, strings.NewReader("second\nthird"))
	if err != nil {
		t.Fatal(err)
	}
	if _, body, _ := strings.Cut(got, "\r\n\r\n"); body != "first\r\nsecond\r\nthird\r\n" {
		t.Errorf("body %q", body)
	}
	// a body larger than the look-ahead streams as quoted-printable, and
	// decodes back to the input with CRLF line ends
	var big strings.Builder
	for i := 0; big.Len() <= peekLimit; i++ {
		big.WriteString("line with = sign and trailing space \nnext\n")
	}
	got, err = dryRun(t, "mailto:a@example.org", nil, strings.NewReader(big.String()))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "Content-Transfer-Encoding: quoted-printable\r\n") {
		t.Fatalf("no quoted-printable header")
	}
	m, err := mail.ReadMessage(strings.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := io.ReadAll(qpReader(m.Body))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(big.String(), "\n", "\r\n"); string(dec) != want {
		t.Errorf("decoded body differs: %d bytes, want %d", len(dec), len(want))
	}
	for _, l := range strings.Split(got, "\r\n") {
		if len(l) > 78 {
			t.Fatalf("line of %d bytes: %q", len(l), l)
		}
	}
}

func TestBodyReadError(t *testing.T) {
	boom := errors.New("disk gone")
	// early (within the look-ahead): an error before anything is written
	_, err := dryRun(t, "mailto:a@example.org", nil, iotest.ErrReader(boom))
	if fetch.KindOf(err) != fetch.ErrRead || !errors.Is(err, boom) {
		t.Errorf("early read error: %v (%v)", err, fetch.KindOf(err))
	}
	// late: the streamed message ends with the error
	r := io.MultiReader(strings.NewReader(strings.Repeat("x\n", peekLimit)), iotest.ErrReader(boom))
	_, err = dryRun(t, "mailto:a@example.org", nil, r)
	if fetch.KindOf(err) != fetch.ErrRead || !errors.Is(err, boom) {
		t.Errorf("late read error: %v (%v)", err, fetch.KindOf(err))
	}
}

func TestComposeRefusals(t *testing.T) {
	cases := []struct {
		url  string
		opts fetch.Options
		want string
	}{
		{"mailto:a@example.org?bcc=spy@example.com", nil, "blind copy"},
		{"mailto:?subject=x", nil, "no recipient"},
		{"mailto:a@example.org?subject=a%0D%0ABcc:%20x@y", nil, "URL refused"},
		{"mailto:a@example.org?subject=a%07b", nil, "control character"},
		{"mailto:a%0Ab@example.org", nil, "URL refused"},
		{"mailto:a@example.org?cc=b%0D@example.org", nil, "URL refused"},
		{"mailto:a@example.org?body=x%00y", nil, "URL refused"},
		{"mailto:a@example.org", fetch.Options{OptFrom: "me@x\r\nBcc: y@z"}, "control character"},
		{"mailto:a@example.org", fetch.Options{OptFrom: "nobody"}, "no \"@\""},
		{"mailto:a..b@example.org", nil, "dot-atom"},
		{"mailto:a@-bad-.example", nil, "domain"},
		{"mailto:a@example.org?to=%22unterminated@example.org", nil, "unterminated"},
		{"mailto:a@example.org?subject=caf%E9", nil, "not UTF-8"},
		{"mailto:a@example.org?In-Reply-To=%3C%C3%A9@x%3E", nil, "ASCII"},
		{"mailto:a@example.org", fetch.Options{OptAllowBcc: "perhaps"}, "mail-allow-bcc"},
	}
	for _, c := range cases {
		_, err := dryRun(t, c.url, c.opts, nil)
		if err == nil || fetch.KindOf(err) != fetch.ErrMalformed || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: %v (kind %v), want ErrMalformed with %q", c.url, c.opts, err, fetch.KindOf(err), c.want)
		}
	}
}

func TestWarnings(t *testing.T) {
	u, _ := urlparse.Parse("mailto:a@example.org?blat=foop&subject=one&Subject=two&X-Evil=1&bcc=b@example.org")
	msg, err := compose(&u.Mailto, "me@example.net", true)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`"blat" ignored`, `"Subject" repeated`, `"X-Evil" ignored`, `blind copy to "b@example.org"`}
	if len(msg.Warnings) != len(want) {
		t.Fatalf("warnings %q", msg.Warnings)
	}
	for i, w := range want {
		if !strings.Contains(msg.Warnings[i], w) {
			t.Errorf("warning %d = %q, want %q", i, msg.Warnings[i], w)
		}
	}
	if msg.Subject != "one" || len(msg.Bcc) != 1 {
		t.Errorf("subject %q bcc %v", msg.Subject, msg.Bcc)
	}
	// blind copies go on the envelope only
	got, err := dryRun(t, "mailto:a@example.org?bcc=b@example.org", fetch.Options{OptAllowBcc: "1"}, nil)
	if err != nil || strings.Contains(strings.ToLower(got), "bcc") || strings.Contains(got, "b@example.org") {
		t.Errorf("bcc in the header: %v\n%s", err, got)
	}
	var rc []string
	for _, a := range msg.recipients() {
		rc = append(rc, a.String())
	}
	if strings.Join(rc, " ") != "a@example.org b@example.org" {
		t.Errorf("recipients %v", rc)
	}
}

func TestFoldAndEncode(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("word ", 40))
	got, err := dryRun(t, "mailto:a@example.org?subject="+strings.ReplaceAll(long, " ", "%20")+
		"&keywords=%C3%BCber%20alles", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := mail.ReadMessage(strings.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Header.Get("Subject"); g != long {
		t.Errorf("subject %q", g)
	}
	kw, err := new(wordDecoder).DecodeHeader(m.Header.Get("Keywords"))
	if err != nil || kw != "über alles" {
		t.Errorf("keywords %q %v", kw, err)
	}
	for _, l := range strings.Split(got, "\r\n") {
		if len(l) > 78 {
			t.Errorf("line of %d bytes: %q", len(l), l)
		}
	}
	// a long non-ASCII subject: several encoded words, folded, decoding back
	sub := strings.Repeat("é", 100)
	got, _ = dryRun(t, "mailto:a@example.org?subject="+strings.Repeat("%C3%A9", 100), nil, nil)
	m, _ = mail.ReadMessage(strings.NewReader(got))
	if d, err := new(wordDecoder).DecodeHeader(m.Header.Get("Subject")); err != nil || d != sub {
		t.Errorf("subject decodes to %q, %v", d, err)
	}
}

func TestUTF8LocalPart(t *testing.T) {
	u, _ := urlparse.Parse("mailto:%C3%BCser@example.org")
	msg, err := compose(&u.Mailto, "me@example.net", false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := msg.render(nil)
	if err != nil || !r.eight {
		t.Errorf("non-ASCII local part: eight=%v %v", r != nil && r.eight, err)
	}
	if !bytes.Contains(r.header, []byte("To: üser@example.org\r\n")) {
		t.Errorf("header %q", r.header)
	}
}

func TestConfirm(t *testing.T) {
	opts := fetch.Options{fetch.OptInteractive: "1", OptFrom: "me@example.net", OptServer: "127.0.0.1:1"}
	_, err := open(t, "mailto:a@example.org?subject=Hi%1B%5B31m", opts, nil)
	if fetch.KindOf(err) != fetch.ErrMalformed || !strings.Contains(err.Error(), "control character") {
		// an ESC in the subject is refused before any prompt
		t.Errorf("ESC in subject: %v", err)
	}
	_, err = open(t, "mailto:a@example.org?subject=Hi&cc=c@example.org", opts, nil)
	var in *fetch.InputNeededError
	if !errors.As(err, &in) || in.Key != OptConfirm {
		t.Fatalf("want InputNeededError, got %v", err)
	}
	for _, w := range []string{"From: me@example.net\n", "To: a@example.org\n", "Cc: c@example.org\n", "Subject: Hi\n"} {
		if !strings.Contains(in.Prompt, w) {
			t.Errorf("prompt %q lacks %q", in.Prompt, w)
		}
	}
	if fetch.KindOf(err) != fetch.ErrAborted {
		t.Errorf("unanswered: kind %v", fetch.KindOf(err))
	}
	opts[OptConfirm] = "n"
	if _, err = open(t, "mailto:a@example.org", opts, nil); fetch.KindOf(err) != fetch.ErrAborted {
		t.Errorf("answer n: %v", err)
	}
	opts[OptConfirm] = "Y"
	if _, err = open(t, "mailto:a@example.org", opts, nil); fetch.KindOf(err) != fetch.ErrConnect {
		t.Errorf("answer Y: want a connection attempt (ErrConnect), got %v", err)
	}
}

func TestNoDelivery(t *testing.T) {
	t.Setenv(EnvServer, "")
	t.Setenv(EnvMailhost, "")
	t.Setenv("PATH", t.TempDir())
	old := sendmailPaths
	sendmailPaths = nil
	defer func() { sendmailPaths = old }()
	_, err := open(t, "mailto:a@example.org", fetch.Options{OptFrom: "me@example.net"}, nil)
	if fetch.KindOf(err) != fetch.ErrNotConfigured || fetch.ExitCode(err) != 2 || !strings.Contains(err.Error(), "Options[smtp-server]") {
		t.Errorf("no server: %v (exit %d), want exit 2", err, fetch.ExitCode(err))
	}
	t.Setenv(EnvMailhost, "host:bad")
	_, err = open(t, "mailto:a@example.org", fetch.Options{OptFrom: "me@example.net"}, nil)
	if fetch.KindOf(err) != fetch.ErrMalformed || !strings.Contains(err.Error(), "$MAILHOST") {
		t.Errorf("bad MAILHOST: %v", err)
	}
}

func TestParseServer(t *testing.T) {
	cases := []struct {
		in, want string
		helo     string
	}{
		{"mail.example.org", "smtp://mail.example.org:25", ""},
		{"mail.example.org:587", "smtp://mail.example.org:587", ""},
		{"smtp://[::1]:2525/client.example", "smtp://[::1]:2525", "client.example"},
		{"smtps://mail.example.org", "smtps://mail.example.org:465", ""},
	}
	for _, c := range cases {
		s, err := parseServer(c.in, "test")
		if err != nil || s.String() != c.want || s.helo != c.helo {
			t.Errorf("parseServer(%q) = %v %q, %v", c.in, s, s.helo, err)
		}
	}
	for _, bad := range []string{"http://x", "u@host", "host:99999", "smtp://", "host?x"} {
		if _, err := parseServer(bad, "test"); fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("parseServer(%q): %v", bad, err)
		}
	}
}
