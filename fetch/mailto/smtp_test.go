package mailto

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/mailto/smtptest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/urlparse"
)

// send delivers raw through srv with the options (mail-from and
// smtp-server set), returning the report.
func send(t *testing.T, srv *smtptest.Server, raw string, opts fetch.Options, req func(*fetch.Request, *fetch.Config)) (string, error) {
	t.Helper()
	u, err := urlparse.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = fetch.Options{}
	}
	if !opts.Has(OptFrom) {
		opts[OptFrom] = "me@example.net"
	}
	if !opts.Has(OptServer) {
		opts[OptServer] = srv.Addr
	}
	r := &fetch.Request{URL: &u, Options: opts, BodySize: -1}
	var cfg fetch.Config
	if req != nil {
		req(r, &cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := Fetcher{Config: cfg}.Open(ctx, r)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), err
}

func TestSendSMTP(t *testing.T) {
	srv := (&smtptest.Server{}).Start(t)
	raw := "mailto:a@example.org,b@example.org?cc=c@example.org&subject=Hello&body=.leading%0D%0A.%0D%0Alast"
	want, err := dryRun(t, raw, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var verbose bytes.Buffer
	report, err := send(t, srv, raw, nil, func(r *fetch.Request, c *fetch.Config) { c.Verbose = &verbose })
	if err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
	m := msgs[0]
	if string(m.Data) != want {
		t.Errorf("received\n%q\nwant\n%q", m.Data, want)
	}
	if m.From != "me@example.net" || strings.Join(m.To, " ") != "a@example.org b@example.org c@example.org" {
		t.Errorf("envelope %q %q", m.From, m.To)
	}
	if m.Params != "SIZE="+strconv.Itoa(len(want)) {
		t.Errorf("MAIL parameters %q", m.Params)
	}
	lines := strings.Split(strings.TrimSuffix(report, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "c@example.org: sent via smtp://"+srv.Addr+" (250 2.1.5 ok; 2.0.0 ok: queued as Q1)") {
		t.Errorf("report %q", report)
	}
	if !strings.Contains(verbose.String(), "> RCPT TO:<b@example.org>\n< 250 2.1.5 ok\n") {
		t.Errorf("verbose:\n%s", verbose.String())
	}
}

func TestRefusedRecipients(t *testing.T) {
	srv := (&smtptest.Server{Refuse: map[string]string{
		"x@example.org": "550 5.1.1 no such user",
		"y@example.org": "553 5.1.3 bad address",
	}}).Start(t)
	_, err := send(t, srv, "mailto:x@example.org,ok@example.org,y@example.org", nil, nil)
	if fetch.KindOf(err) != fetch.ErrSendFailed || fetch.ExitCode(err) != 55 {
		t.Fatalf("want exit 55, got %v", err)
	}
	for _, w := range []string{"2 recipients refused", "x@example.org (550 5.1.1 no such user)", "y@example.org (553 5.1.3 bad address)"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if len(srv.Messages()) != 0 || contains(srv.Commands(), "DATA") {
		t.Errorf("DATA sent after a refused recipient: %q", srv.Commands())
	}
	// the server refuses the message itself
	srv = (&smtptest.Server{Mode: smtptest.RefuseMessage}).Start(t)
	_, err = send(t, srv, "mailto:a@example.org", nil, nil)
	if fetch.KindOf(err) != fetch.ErrSendFailed || !strings.Contains(err.Error(), "554 5.6.0") {
		t.Errorf("refused message: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func TestAuth(t *testing.T) {
	users := map[string]string{"joe": "s3cret"}
	for _, ext := range [][]string{{"AUTH PLAIN LOGIN"}, {"AUTH LOGIN"}} {
		srv := (&smtptest.Server{Users: users, Extensions: ext}).Start(t)
		var verbose bytes.Buffer
		_, err := send(t, srv, "mailto:a@example.org", nil, func(r *fetch.Request, c *fetch.Config) {
			r.User, r.Password, r.HasPassword, c.Verbose = "joe", "s3cret", true, &verbose
		})
		if err != nil {
			t.Fatalf("%v: %v", ext, err)
		}
		if m := srv.Messages(); len(m) != 1 || m[0].User != "joe" {
			t.Errorf("%v: not logged in: %+v", ext, m)
		}
		if v := verbose.String(); strings.Contains(v, "s3cret") || strings.Contains(v, "czNjcmV0") || !strings.Contains(v, "****") {
			t.Errorf("%v: password not masked:\n%s", ext, v)
		}
		_, err = send(t, srv, "mailto:a@example.org", nil, func(r *fetch.Request, c *fetch.Config) {
			r.User, r.Password, r.HasPassword = "joe", "wrong", true
		})
		if fetch.KindOf(err) != fetch.ErrLoginDenied || fetch.ExitCode(err) != 67 {
			t.Errorf("%v: wrong password: %v", ext, err)
		}
	}
}

// remoteConn makes a loopback connection look remote.
type remoteConn struct{ net.Conn }

func (remoteConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 25} }

type remoteDialer struct{}

func (remoteDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := new(net.Dialer).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return remoteConn{c}, nil
}

func TestStartTLS(t *testing.T) {
	stls, ctls := nntptest.TLSConfigs(t)
	users := map[string]string{"joe": "s3cret"}
	// a remote server without TLS: the password is not sent
	plain := (&smtptest.Server{Users: users}).Start(t)
	_, err := send(t, plain, "mailto:a@example.org", nil, func(r *fetch.Request, c *fetch.Config) {
		r.User, r.Password, r.HasPassword, c.Dialer = "joe", "s3cret", true, remoteDialer{}
	})
	if fetch.KindOf(err) != fetch.ErrLoginDenied || !strings.Contains(err.Error(), "in clear") {
		t.Errorf("AUTH without TLS: %v", err)
	}
	for _, c := range plain.Commands() {
		if strings.HasPrefix(c, "AUTH") {
			t.Errorf("AUTH sent without TLS")
		}
	}
	// --ssl-reqd and no STARTTLS
	_, err = send(t, plain, "mailto:a@example.org", fetch.Options{fetch.OptSSL: "required"}, nil)
	if fetch.KindOf(err) != fetch.ErrTLS {
		t.Errorf("--ssl-reqd without STARTTLS: %v", err)
	}
	// STARTTLS when offered, then AUTH to a "remote" server
	srv := (&smtptest.Server{Users: users, TLS: stls}).Start(t)
	_, err = send(t, srv, "mailto:a@example.org", fetch.Options{fetch.OptSSL: "required"}, func(r *fetch.Request, c *fetch.Config) {
		r.User, r.Password, r.HasPassword, c.Dialer = "joe", "s3cret", true, remoteDialer{}
		c.TLS = ctls.Clone()
		c.TLS.ServerName = "localhost"
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := srv.Messages(); len(m) != 1 || !m[0].TLS || m[0].User != "joe" {
		t.Errorf("not sent over TLS with AUTH: %+v", m)
	}
	// smtps://: TLS from the start, AUTH over it
	imp := (&smtptest.Server{Users: users, TLS: stls, ImplicitTLS: true}).Start(t)
	_, err = send(t, imp, "mailto:a@example.org", fetch.Options{OptServer: "smtps://localhost:" + strings.Split(imp.Addr, ":")[1]},
		func(r *fetch.Request, c *fetch.Config) {
			r.User, r.Password, r.HasPassword, c.Dialer = "joe", "s3cret", true, remoteDialer{}
			c.TLS = ctls.Clone()
		})
	if err != nil {
		t.Fatal(err)
	}
	if m := imp.Messages(); len(m) != 1 || !m[0].TLS || m[0].User != "joe" {
		t.Errorf("smtps: %+v", m)
	}
	// a certificate not trusted: ErrCertificate (exit 60)
	_, err = send(t, srv, "mailto:a@example.org", nil, func(r *fetch.Request, c *fetch.Config) { c.TLS = &tls.Config{} })
	if fetch.KindOf(err) != fetch.ErrCertificate {
		t.Errorf("untrusted certificate: %v", err)
	}
}

func TestExtensions(t *testing.T) {
	// HELO fallback, no SIZE
	srv := (&smtptest.Server{Mode: smtptest.NoEHLO}).Start(t)
	if _, err := send(t, srv, "mailto:a@example.org", nil, nil); err != nil {
		t.Fatal(err)
	}
	if m := srv.Messages(); len(m) != 1 || m[0].Params != "" || !strings.HasPrefix(srv.Commands()[1], "HELO ") {
		t.Errorf("HELO: %q %+v", srv.Commands(), m)
	}
	// SMTPUTF8 for a non-ASCII local part
	srv = (&smtptest.Server{}).Start(t)
	if _, err := send(t, srv, "mailto:%C3%BCser@example.org", nil, nil); err != nil {
		t.Fatal(err)
	}
	if m := srv.Messages(); len(m) != 1 || !strings.Contains(m[0].Params, "SMTPUTF8") || !strings.Contains(m[0].Params, "BODY=8BITMIME") || m[0].To[0] != "üser@example.org" {
		t.Errorf("SMTPUTF8: %+v", m)
	}
	srv = (&smtptest.Server{Extensions: []string{"SIZE 100"}}).Start(t)
	_, err := send(t, srv, "mailto:%C3%BCser@example.org", nil, nil)
	if fetch.KindOf(err) != fetch.ErrSendFailed || !strings.Contains(err.Error(), "SMTPUTF8") {
		t.Errorf("no SMTPUTF8: %v", err)
	}
	// over the server's SIZE: not sent
	_, err = send(t, srv, "mailto:a@example.org", nil, nil)
	if fetch.KindOf(err) != fetch.ErrSendFailed || !strings.Contains(err.Error(), "limit of 100") || contains(srv.Commands(), "DATA") {
		t.Errorf("over SIZE: %v", err)
	}
}

func TestBodyFailsMidway(t *testing.T) {
	srv := (&smtptest.Server{}).Start(t)
	boom := errors.New("stdin broke")
	body := io.MultiReader(strings.NewReader(strings.Repeat("line\n", peekLimit)), iotest.ErrReader(boom))
	_, err := send(t, srv, "mailto:a@example.org", nil, func(r *fetch.Request, c *fetch.Config) { r.Body = body })
	if fetch.KindOf(err) != fetch.ErrRead || !errors.Is(err, boom) {
		t.Fatalf("want ErrRead, got %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Incomplete() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(srv.Messages()) != 0 || srv.Incomplete() != 1 {
		t.Errorf("messages %d, incomplete %d: want the DATA phase dropped before \".\"", len(srv.Messages()), srv.Incomplete())
	}
	// a body longer than the look-ahead goes through whole
	big := strings.Repeat("0123456789 é\n", peekLimit/8)
	if _, err := send(t, srv, "mailto:a@example.org", nil, func(r *fetch.Request, c *fetch.Config) { r.Body = strings.NewReader(big) }); err != nil {
		t.Fatal(err)
	}
	m := srv.Messages()
	if len(m) != 1 || strings.Contains(m[0].Params, "SIZE") {
		t.Fatalf("streamed message: %d, params %q", len(m), m[0].Params)
	}
	want, _ := dryRun(t, "mailto:a@example.org", nil, strings.NewReader(big))
	if string(m[0].Data) != want {
		t.Errorf("streamed message differs from the dry run (%d vs %d bytes)", len(m[0].Data), len(want))
	}
}

func TestHostileServers(t *testing.T) {
	cases := []struct {
		mode smtptest.Mode
		kind fetch.Kind
		want string
	}{
		{smtptest.EndlessContinuation, fetch.ErrProtocol, "longer than 100 lines"},
		{smtptest.HugeLine, fetch.ErrProtocol, "longer than 2048 bytes"},
		{smtptest.StallAfterData, fetch.ErrTimeout, ""},
		{smtptest.Close421AtRcpt, fetch.ErrSendFailed, "421"},
		{smtptest.Close421AfterData, fetch.ErrSendFailed, "421"},
	}
	for _, c := range cases {
		srv := (&smtptest.Server{Mode: c.mode}).Start(t)
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		var err error
		if c.mode != smtptest.StallAfterData {
			_, err = send(t, srv, "mailto:a@example.org", nil, nil)
		} else {
			// with a deadline (--max-time)
			u, _ := urlparse.Parse("mailto:a@example.org")
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_, err = Fetcher{}.Open(ctx, &fetch.Request{URL: &u, Options: fetch.Options{OptFrom: "me@example.net", OptServer: srv.Addr}})
			cancel()
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if fetch.KindOf(err) != c.kind || !strings.Contains(errString(err), c.want) {
			t.Errorf("mode %d: %v (kind %v), want kind %v with %q", c.mode, err, fetch.KindOf(err), c.kind, c.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("mode %d: took %v", c.mode, d)
		}
		if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
			t.Errorf("mode %d: heap grew by %d bytes", c.mode, grew)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestSendmail(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "sendmail")
	os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \""+dir+"/argv\"\n/bin/cat > \""+dir+"/stdin\"\n"), 0o755)
	t.Setenv(EnvServer, "")
	t.Setenv(EnvMailhost, "")
	t.Setenv("PATH", dir)
	u, _ := urlparse.Parse("mailto:a@example.org?bcc=hidden@example.org&subject=via%20sendmail&body=one%0D%0Atwo")
	res, err := Fetcher{Config: fetch.Config{Verbose: io.Discard}}.Open(context.Background(), &fetch.Request{URL: &u, Options: fetch.Options{OptFrom: "me@example.net", OptAllowBcc: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	report, _ := io.ReadAll(res.Body)
	argv, _ := os.ReadFile(filepath.Join(dir, "argv"))
	stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	if string(argv) != "-t\n-oi\n-f\nme@example.net\n" {
		t.Errorf("argv %q", argv)
	}
	if !strings.HasPrefix(string(stdin), "Bcc: hidden@example.org\nDate: ") || strings.Contains(string(stdin), "\r") ||
		!strings.HasSuffix(string(stdin), "\n\none\ntwo\n") {
		t.Errorf("stdin %q", stdin)
	}
	if string(report) != "a@example.org: handed to "+script+"\nhidden@example.org: handed to "+script+"\n" {
		t.Errorf("report %q", report)
	}
	// a failing sendmail: exit 55 with its message
	os.WriteFile(script, []byte("#!/bin/sh\necho 'no queue' >&2\nexit 75\n"), 0o755)
	_, err = Fetcher{Config: fetch.Config{Verbose: io.Discard}}.Open(context.Background(), &fetch.Request{URL: &u, Options: fetch.Options{OptFrom: "me@example.net", OptAllowBcc: "1"}})
	if fetch.KindOf(err) != fetch.ErrSendFailed || !strings.Contains(err.Error(), "no queue") {
		t.Errorf("failing sendmail: %v", err)
	}
}
