package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/mailto/smtptest"
	"github.com/urlget/urlget/internal/testserver"
)

func runMail(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	return runWithStdin(t, stdin, nil, args...)
}

func TestMailtoCLI(t *testing.T) {
	dir := inDir(t)
	srv := (&smtptest.Server{Refuse: map[string]string{"no@example.org": "550 5.1.1 no such user"}}).Start(t)
	// -T - : the text after body=, sent; the report on stdout
	r := runMail(t, "from stdin\n", "--mail-from", "me@example.net", "--smtp-server", srv.Addr, "-T", "-",
		"mailto:a@example.org?subject=Hi&body=first&x-evil=1")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "a@example.org: sent via smtp://"+srv.Addr) {
		t.Fatalf("send: %+v", r)
	}
	if !strings.Contains(r.stderr, "urlget: warning: mailto: header field \"x-evil\" ignored: ") {
		t.Errorf("no warning: %q", r.stderr)
	}
	m := srv.Messages()
	if len(m) != 1 || !strings.HasSuffix(string(m[0].Data), "\r\n\r\nfirst\r\nfrom stdin\r\n") {
		t.Fatalf("message %+v", m)
	}
	// -o FILE: the composed message, not sent
	if err := os.WriteFile(dir+"/text", []byte("from a file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runMail(t, "", "--mail-from", "me@example.net", "--smtp-server", srv.Addr, "-T", dir+"/text", "-o", "msg.eml", "mailto:a@example.org")
	if r.code != 0 || len(srv.Messages()) != 1 || !strings.HasSuffix(readFile(t, "msg.eml"), "\r\n\r\nfrom a file\r\n") {
		t.Errorf("-o: %+v, %d messages", r, len(srv.Messages()))
	}
	// a refused recipient: exit 55 naming it
	r = runMail(t, "", "--mail-from", "me@example.net", "--smtp-server", srv.Addr, "mailto:no@example.org")
	if r.code != 55 || !strings.Contains(r.stderr, "no@example.org (550 5.1.1 no such user)") {
		t.Errorf("refused: %+v", r)
	}
	// CR/LF in a header field: exit 3 before connecting
	n := srv.Accepted()
	r = runMail(t, "", "--mail-from", "me@example.net", "--smtp-server", srv.Addr, "mailto:a@example.org?subject=x%0D%0ABcc:%20y@z")
	if r.code != 3 || srv.Accepted() != n {
		t.Errorf("CRLF: %+v", r)
	}
}

// TestMailtoUploadOpenSMTPD: -T FILE to a mailto URL without body= reaches
// a real MTA (OpenSMTPD) as the message's text from its first line on, no
// empty line before it.
func TestMailtoUploadOpenSMTPD(t *testing.T) {
	s := testserver.StartOpenSMTPD(t, testserver.SMTPConfig{})
	f := filepath.Join(t.TempDir(), "body.txt")
	if err := os.WriteFile(f, []byte("first line\nsecond\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runMail(t, "", "--mail-from", "me@example.net", "--smtp-server", s.Addr, "-T", f, "mailto:up@example.org?subject=upload"); r.code != 0 {
		t.Fatalf("send: %+v", r)
	}
	got, err := s.WaitMessages(1, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, body, _ := strings.Cut(strings.ReplaceAll(string(got[0]), "\r\n", "\n"), "\n\n"); body != "first line\nsecond\n" {
		t.Errorf("delivered body %q", body)
	}
}
