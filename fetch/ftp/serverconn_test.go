package ftp_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/urlparse"
)

func request(t *testing.T, url string, opts map[string]string) (*fetch.Request, fetch.Config) {
	t.Helper()
	u, err := urlparse.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	r, cfg, err := (&fetch.Client{Options: opts}).Prepare(&u)
	if err != nil {
		t.Fatal(err)
	}
	return r, cfg
}

// dial is ftp.Dial with what request gives.
func dial(t *testing.T, url string, opts map[string]string) (*ftp.Conn, error) {
	t.Helper()
	req, cfg := request(t, url, opts)
	return ftp.Dial(ctx(t), cfg, req)
}

// The Conn on its own: login, pipelined commands whose replies come in
// order and keep the session state, a passive transfer, and the reply
// table.
func TestConnPipelined(t *testing.T) {
	s := newServer(t)
	var verbose bytes.Buffer
	req, cfg := request(t, "ftp://urlget:secret@"+s.Addr+"/", map[string]string{"ftp-email": email})
	cfg.Verbose = &verbose
	c, err := ftp.Dial(ctx(t), cfg, req)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !strings.HasPrefix(c.Greeting(), "220") {
		t.Errorf("greeting %q", c.Greeting())
	}
	before := s.Received()
	if err := c.Send(ftp.Command{Verb: "TYPE", Arg: "I"}, ftp.Command{Verb: "FEAT"}, ftp.Command{Verb: "PWD"},
		ftp.Command{Verb: "CWD", Arg: "/pub"}, ftp.Command{Verb: "SIZE", Arg: "binary.bin"}); err != nil {
		t.Fatal(err)
	}
	if c.Pending() != 5 {
		t.Errorf("Pending %d, want 5", c.Pending())
	}
	var codes []int
	var pwd string
	for c.Pending() > 0 {
		r, err := c.ReadReply()
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, r.Code())
		if r.Code() == 257 {
			pwd, _ = ftp.ParsePWD(r.Lines()[0])
		}
	}
	if got := fmt.Sprint(codes); got != "[200 211 257 250 213]" {
		t.Errorf("reply codes %s", got)
	}
	if pwd != "/home/urlget" {
		t.Errorf("PWD %q", pwd)
	}
	feat, err := c.Features()
	if _, ok := feat["MLST"]; err != nil || !ok {
		t.Errorf("Features from the pipelined FEAT: %v %v", feat, err)
	}
	// TYPE I is known: no second TYPE.
	if err := c.Type('i'); err != nil {
		t.Fatal(err)
	}
	if n := s.Received() - before; n != 5 {
		t.Errorf("server received %d commands, want the 5 sent (Features and Type asked nothing more)", n)
	}
	// A passive transfer.
	dc, err := c.OpenPassive(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Cmd("RETR", "binary.bin")
	if err != nil || !r.Preliminary() {
		t.Fatalf("RETR: %v %v", r, err)
	}
	b, _ := io.ReadAll(dc)
	dc.Close()
	if r, err = c.ReadReply(); err != nil || !r.Positive() || !bytes.Equal(b, binary) {
		t.Fatalf("after RETR: %v %v, %d bytes", r, err, len(b))
	}
	// Refusals go through the one table: a refused CWD is ErrAccessDenied.
	r, err = c.Cmd("CWD", "/nodir")
	if err != nil || r.Positive() {
		t.Fatalf("CWD /nodir: %v %v", r, err)
	}
	rerr := ftp.RefusedError("CWD", "/nodir", r)
	var re *ftp.ReplyError
	if fetch.KindOf(rerr) != fetch.ErrAccessDenied || fetch.ExitCode(rerr) != 9 || !errors.As(rerr, &re) || re.Code != 550 {
		t.Errorf("refused CWD: %v (exit %d)", rerr, fetch.ExitCode(rerr))
	}
	if err := c.Quit(); err != nil {
		t.Errorf("Quit: %v", err)
	}
	v := verbose.String()
	if strings.Contains(v, "secret") || !strings.Contains(v, "> PASS ****\n") || !strings.Contains(v, "> TYPE I\n") {
		t.Errorf("verbose output:\n%s", v)
	}
	// Nothing is sent when one of a batch holds a line break.
	c2, err := ftp.Dial(ctx(t), cfg, req)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	before = s.Received()
	if err := c2.Send(ftp.Command{Verb: "NOOP"}, ftp.Command{Verb: "CWD", Arg: "a\r\nDELE b"}); fetch.KindOf(err) != fetch.ErrMalformed {
		t.Errorf("line break in a batch: %v", err)
	}
	if _, err := c2.Cmd("NOOP", ""); err != nil || s.Received()-before != 1 {
		t.Errorf("after a refused batch the server got %d commands (%v), want only the NOOP", s.Received()-before, err)
	}
}

// ACCT is masked like PASS, and a user without a password whose server
// wants one gets a PasswordNeededError from Dial.
func TestConnLoginAccountAndPasswordNeeded(t *testing.T) {
	s := newServer(t)
	var step atomic.Int32
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			switch {
			case verb == "PASS" && step.CompareAndSwap(0, 1):
				ss.Reply(332, "Need account")
				return true
			case verb == "ACCT":
				ss.LogIn()
				ss.Reply(230, "Logged in with account")
				return true
			}
			return false
		}
	})
	var verbose bytes.Buffer
	req, cfg := request(t, "ftp://urlget:secret@"+s.Addr+"/", map[string]string{"ftp-account": "hush-account"})
	cfg.Verbose = &verbose
	c, err := ftp.Dial(ctx(t), cfg, req)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if v := verbose.String(); strings.Contains(v, "hush-account") || !strings.Contains(v, "> ACCT ****\n") {
		t.Errorf("verbose output shows the account:\n%s", v)
	}

	s2 := newServer(t)
	_, err = dial(t, "ftp://urlget@"+s2.Addr+"/", nil)
	var pn *ftp.PasswordNeededError
	if !errors.As(err, &pn) || fetch.ExitCode(err) != 67 {
		t.Errorf("user without a password: %v", err)
	}
	sameLines(t, "commands", s2.Lines(), []string{"USER urlget"})
}

func TestReplyKind(t *testing.T) {
	for _, tc := range []struct {
		verb string
		code int
		want fetch.Kind
	}{
		{"CWD", 550, fetch.ErrAccessDenied},
		{"RETR", 550, fetch.ErrNotFound},
		{"RETR", 451, fetch.ErrRetrFailed},
		{"MLSD", 550, fetch.ErrRetrFailed}, // curl's 19 for any refused listing (its test 145)
		{"NLST", 450, fetch.ErrRetrFailed},
		{"PASS", 530, fetch.ErrLoginDenied},
		{"ACCT", 532, fetch.ErrAccount}, // curl's 11 (its test 229)
		{"TYPE", 504, fetch.ErrTypeFailed},
		{"STOR", 553, fetch.ErrUpload},
		{"EPSV", 425, fetch.ErrPassive}, // curl's 13 (its test 115)
		{"PORT", 500, fetch.ErrActive},  // curl's 30 (its test 116)
		{"RETR", 421, fetch.ErrTimeout}, // curl's 28 whatever the command (its test 1120)
		{"CWD", 421, fetch.ErrTimeout},
		{"SITE", 500, fetch.ErrProtocol},
	} {
		if got := ftp.ReplyKind(tc.verb, tc.code); got != tc.want {
			t.Errorf("ReplyKind(%s, %d) = %d, want %d", tc.verb, tc.code, got, tc.want)
		}
	}
}

// Retr and List: pipelined commands sent between the command and its
// first reply, a resume from an offset (REST), a refusal as a reply, and a
// listing.
func TestConnTransfers(t *testing.T) {
	s := newServer(t)
	c, err := dial(t, "ftp://urlget:secret@"+s.Addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, err := c.Cmd("CWD", "/pub"); err != nil || !r.Positive() {
		t.Fatalf("CWD: %v %v", r, err)
	}
	if err := c.Type('i'); err != nil {
		t.Fatal(err)
	}
	x, err := c.Retr(ctx(t), passive(t, c), "binary.bin", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(ftp.Command{Verb: "NOOP"}); err != nil { // pipelined behind the RETR
		t.Fatal(err)
	}
	if r, err := x.Start(); err != nil || !r.Preliminary() {
		t.Fatalf("RETR: %v %v", r, err)
	}
	b, err := io.ReadAll(x)
	if err != nil || !bytes.Equal(b, binary) {
		t.Fatalf("RETR data: %d bytes, %v", len(b), err)
	}
	if r, err := x.Finish(); err != nil || !r.Positive() {
		t.Fatalf("RETR final reply: %v %v", r, err)
	}
	if r, err := c.ReadReply(); err != nil || r.Code() != 200 {
		t.Fatalf("the pipelined NOOP's reply: %v %v", r, err)
	}

	x, err = c.Retr(ctx(t), passive(t, c), "binary.bin", 100)
	if err != nil {
		t.Fatal(err)
	}
	if b, err = io.ReadAll(x); err != nil || !bytes.Equal(b, binary[100:]) {
		t.Fatalf("RETR after REST 100: %d bytes, %v", len(b), err)
	}
	if r, err := x.Finish(); err != nil || !r.Positive() {
		t.Fatalf("RETR after REST: %v %v", r, err)
	}

	x, err = c.Retr(ctx(t), passive(t, c), "missing", 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := x.Start()
	if err != nil || r.Code() != 550 {
		t.Fatalf("RETR missing: %v %v", r, err)
	}
	if fetch.KindOf(ftp.RefusedError("RETR", "missing", r)) != fetch.ErrNotFound {
		t.Errorf("refused RETR is not ErrNotFound")
	}
	if fr, err := x.Finish(); err != nil || fr != r {
		t.Errorf("Finish after a refusal: %v %v", fr, err)
	}

	x, err = c.List(ctx(t), passive(t, c), "NLST", "")
	if err != nil {
		t.Fatal(err)
	}
	if b, err = io.ReadAll(x); err != nil || !strings.Contains(string(b), "binary.bin") {
		t.Fatalf("NLST: %q %v", b, err)
	}
	if r, err := x.Finish(); err != nil || !r.Positive() {
		t.Fatalf("NLST final reply: %v %v", r, err)
	}
	if _, err := c.Cmd("NOOP", ""); err != nil {
		t.Errorf("the Conn after the transfers: %v", err)
	}
}

// Stor sends what is written, and Finish's reply says it was kept; the
// file then reads back the same.
func TestConnStor(t *testing.T) {
	s := newServer(t)
	c, err := dial(t, "ftp://urlget:secret@"+s.Addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Type('i'); err != nil {
		t.Fatal(err)
	}
	for _, appending := range []bool{false, true} {
		x, err := c.Stor(ctx(t), passive(t, c), "up.bin", appending)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := x.Start(); err != nil || !r.Preliminary() {
			t.Fatalf("STOR: %v %v", r, err)
		}
		if _, err := x.Write([]byte("stored\n")); err != nil {
			t.Fatal(err)
		}
		if r, err := x.Finish(); err != nil || !r.Positive() {
			t.Fatalf("STOR final reply: %v %v", r, err)
		}
	}
	x, err := c.Retr(ctx(t), passive(t, c), "up.bin", 0)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(x); err != nil || string(b) != "stored\nstored\n" {
		t.Errorf("read back: %q %v", b, err)
	}
	x.Finish()
}

func passive(t *testing.T, c *ftp.Conn) string {
	t.Helper()
	r, err := c.Cmd(c.PassiveCommand(), "")
	if err != nil {
		t.Fatal(err)
	}
	addr, err := c.Passive(r)
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// A server that wants a password asks through the one InputNeededError,
// and the answer under fetch.OptPassword logs in on the next try.
func TestPasswordAnswered(t *testing.T) {
	s := newServer(t)
	u, err := urlparse.Parse("ftp://urlget@" + s.Addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	c := &fetch.Client{}
	_, err = c.Do(ctx(t), &fetch.Request{URL: &u})
	var ine *fetch.InputNeededError
	if !errors.As(err, &ine) || ine.Key != fetch.OptPassword || !ine.Secret || fetch.ExitCode(err) != 67 {
		t.Fatalf("user without a password: %v", err)
	}
	res, err := c.Do(ctx(t), &fetch.Request{URL: &u, Options: fetch.Options{fetch.OptPassword: "secret"}})
	if err != nil {
		t.Fatalf("with the answer: %v", err)
	}
	res.Body.Close()
}

// TestReadReplySkipsEmptyLines: empty lines between replies are skipped,
// as curl skips them: curl's test server writes "213 17\n\r\n" to SIZE,
// and the stray CRLF came to be read as the next reply (tests 135, 182,
// 1038 failed on a "malformed reply").
func TestReadReplySkipsEmptyLines(t *testing.T) {
	br := bufio.NewReader(strings.NewReader("213 17\n\r\n\n150 Opening\r\n"))
	for _, want := range []int{213, 150} {
		code, lines, err := ftp.ReadReply(br, nil)
		if err != nil || code != want {
			t.Fatalf("reply %d %q %v, want %d", code, lines, err, want)
		}
	}
	if _, _, err := ftp.ReadReply(bufio.NewReader(strings.NewReader("\r\n\r\n")), nil); err == nil {
		t.Error("only empty lines: no error")
	}
}
