package telnet_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/telnet"
	"github.com/urlget/urlget/fetch/telnet/telnettest"
	"github.com/urlget/urlget/urlparse"
)

// session runs one scripted session: stdin is sent, the output read to
// the end.
func session(t *testing.T, c *fetch.Client, url, stdin string, opts fetch.Options, timeout time.Duration) ([]byte, error) {
	t.Helper()
	u, err := urlparse.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req := &fetch.Request{URL: &u, Options: opts, BodySize: -1}
	if stdin != "" {
		req.Body = strings.NewReader(stdin)
	}
	if c == nil {
		c = &fetch.Client{}
	}
	res, err := c.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

func TestScriptSession(t *testing.T) {
	t.Setenv("TERM", "vt220-test")
	sh := &telnettest.Shell{Echo: true}
	s := telnettest.Start(t, sh.Handle)
	out, err := session(t, nil, s.URL("joe"), "env\necho MARK42\nff\nexit\n",
		fetch.Options{"telnet-window": "100x40", "telnet-linger": "5s"}, 10*time.Second)
	if err != nil {
		t.Fatalf("session: %v (output %q)", err, out)
	}
	for _, want := range []string{"TERM=vt220-test USER=joe SPEED=38400,38400 SIZE=100x40\n", "MARK42\n", "a\xffb\n", "logout\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q:\n%q", want, out)
		}
	}
	if bytes.Contains(out, []byte("\r")) {
		t.Errorf("a script's output holds CR: %q", out)
	}
	if bytes.Count(out, []byte{0xff}) != 1 {
		t.Errorf("output holds protocol bytes: %q", out)
	}
	seen := sh.Last()
	if got := strings.Join(seen.Lines, "|"); got != "env|echo MARK42|ff|exit" {
		t.Errorf("server read lines %q", got)
	}
	if !bytes.Contains(seen.Raw, []byte("env\r\necho")) {
		t.Errorf("stdin not sent as NVT lines: %q", seen.Raw)
	}
	// Script mode refuses the server's echo and every option it does not
	// speak.
	for _, o := range []string{"DONT ECHO", "WONT LINEMODE", "DONT STATUS", "WILL TTYPE", "WILL NAWS", "WILL NEW-ENVIRON", "WILL TSPEED", "DO SGA", "WONT ECHO"} {
		if !seen.Opts[o] {
			t.Errorf("client did not send %s (sent %v)", o, seen.Opts)
		}
	}
}

func TestNoWindowSizeRefusesNAWS(t *testing.T) {
	sh := &telnettest.Shell{}
	s := telnettest.Start(t, sh.Handle)
	out, err := session(t, nil, s.URL(""), "env\nexit\n", nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !sh.Last().Opts["WONT NAWS"] || !bytes.Contains(out, []byte("SIZE=0x0")) {
		t.Errorf("NAWS without a size: %v %q", sh.Last().Opts, out)
	}
}

func TestAutologin(t *testing.T) {
	sh := &telnettest.Shell{Login: true}
	s := telnettest.Start(t, sh.Handle)
	var verbose bytes.Buffer
	c := &fetch.Client{Verbose: &verbose}
	out, err := session(t, c, s.URL("joe:s3cret"), "echo in\nexit\n", fetch.Options{"telnet-autologin": "1"}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(sh.Last().Logins, "|"); got != "joe|s3cret" {
		t.Errorf("logins %q", got)
	}
	if !bytes.Contains(out, []byte("welcome\n")) || !bytes.Contains(out, []byte("in\n")) {
		t.Errorf("output %q", out)
	}
	if bytes.Contains(out, []byte("s3cret")) || bytes.Contains(verbose.Bytes(), []byte("s3cret")) {
		t.Errorf("password shown: %q / %q", out, verbose.String())
	}
	if !strings.Contains(verbose.String(), "(autologin) ****") {
		t.Errorf("verbose lacks the masked autologin: %s", verbose.String())
	}
}

func TestCredentialBytesRefused(t *testing.T) {
	s := telnettest.Start(t, telnettest.Silent)
	for _, url := range []string{"joe%FF:x", "joe:a%FFb", "joe:a%0Db", "jo%00e", "joe:%0A"} {
		_, err := session(t, nil, s.URL(url), "", nil, 5*time.Second)
		if k := fetch.KindOf(err); k != fetch.ErrMalformed {
			t.Errorf("%s: %v (kind %d), want ErrMalformed", url, err, k)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := s.Accepted(); n != 0 {
		t.Errorf("%d connections made with refused credentials", n)
	}
}

func TestHugeSubnegotiation(t *testing.T) {
	s := telnettest.Start(t, telnettest.HugeSubnegotiation(10<<20))
	_, err := session(t, nil, s.URL(""), "", nil, 20*time.Second)
	if k := fetch.KindOf(err); k != fetch.ErrProtocol {
		t.Fatalf("10 MB subnegotiation: %v (kind %d), want ErrProtocol", err, k)
	}
}

func TestIACFlood(t *testing.T) {
	s := telnettest.Start(t, telnettest.IACFlood(200000, []byte("end\r\n")))
	out, err := session(t, nil, s.URL(""), "", nil, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("d\xff", 200) + "end\n"
	if string(out) != want {
		t.Errorf("IAC flood output: %d bytes %q…, want %d bytes", len(out), out[:min(len(out), 40)], len(want))
	}
}

func TestFlapping(t *testing.T) {
	var replies atomic.Int64
	s := telnettest.Start(t, telnettest.Flap(100, []byte("done\r\n"), &replies))
	out, err := session(t, nil, s.URL(""), "", nil, 20*time.Second)
	if err != nil || string(out) != "done\n" {
		t.Fatalf("100 flaps: %q %v", out, err)
	}
	// Q method: one refusal for each WILL ECHO (refused in script mode),
	// DO NAWS (no size known), WILL 200 and DO 201; nothing for a WONT or
	// DONT of what is off.
	time.Sleep(100 * time.Millisecond)
	if n := replies.Load(); n != 400 {
		t.Errorf("%d replies to 100 flaps, want 400", n)
	}
	// A storm past the bound ends the session instead of answering on.
	s = telnettest.Start(t, telnettest.Flap(2000, []byte("done\r\n"), &replies))
	_, err = session(t, nil, s.URL(""), "", nil, 20*time.Second)
	if k := fetch.KindOf(err); k != fetch.ErrProtocol {
		t.Fatalf("negotiation storm: %v (kind %d), want ErrProtocol", err, k)
	}
}

func TestTrickle(t *testing.T) {
	data := []byte("\xff\xfb\x01\xff\xfd\x18hel\xff\xfa\x18\x01\xff\xf0lo\r\n\xff\xff\r\x00x\r\n")
	s := telnettest.Start(t, telnettest.Trickle(data, time.Millisecond))
	out, err := session(t, nil, s.URL(""), "", nil, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "hello\n\xff\rx\n" {
		t.Errorf("trickled output %q", out)
	}
}

func TestMaxTime(t *testing.T) {
	s := telnettest.Start(t, telnettest.Silent)
	start := time.Now()
	_, err := session(t, nil, s.URL(""), "", nil, 300*time.Millisecond)
	if k := fetch.KindOf(err); k != fetch.ErrTimeout {
		t.Fatalf("silent server: %v (kind %d), want ErrTimeout", err, k)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("timeout took %v", took)
	}
}

// TestLinger: without "exit", the end of stdin half-closes the session
// after the linger, and the server's close ends it cleanly.
func TestLinger(t *testing.T) {
	sh := &telnettest.Shell{}
	s := telnettest.Start(t, sh.Handle)
	out, err := session(t, nil, s.URL(""), "echo late\n", fetch.Options{"telnet-linger": "200ms"}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("late\n")) {
		t.Errorf("output %q", out)
	}
}

func TestConformance(t *testing.T) {
	body := make([]byte, 1024)
	for i := range body {
		body[i] = byte(i)
	}
	known := telnettest.Start(t, telnettest.Banner(body))
	stallBody := telnettest.Start(t, telnettest.Hold([]byte("start\r\n")))
	fetchtest.Run(t, fetchtest.Suite{
		Known:     known.URL(""),
		KnownBody: body,
		Stall:     telnettest.Start(t, telnettest.Silent).URL(""),
		StallBody: stallBody.URL(""),
		Inject:    known.URL("a%0D%0Ab:c"),
		Received:  known.Accepted,
		New:       telnet.New,
		Cannot: map[fetchtest.Case]string{
			fetchtest.CaseMissing: "a telnet URL names a host, not a resource: there is nothing to be missing",
			fetchtest.CaseDir:     "a session has no listing",
			fetchtest.CaseEarly:   "a session has no announced length: the server closing is its normal end",
		},
	})
}

func TestOptionErrors(t *testing.T) {
	s := telnettest.Start(t, telnettest.Silent)
	for _, o := range []fetch.Options{{"telnet-window": "80"}, {"telnet-linger": "x"}, {"telnet-autologin": "1"}} {
		_, err := session(t, nil, s.URL(""), "", o, 5*time.Second)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind != fetch.ErrMalformed {
			t.Errorf("%v: %v, want ErrMalformed", o, err)
		}
	}
}

func mustParse(s string) *urlparse.URL {
	u, err := urlparse.Parse(s)
	if err != nil {
		panic(err)
	}
	return &u
}

func TestTN3270(t *testing.T) {
	ctx := context.Background()
	missing := &telnet.TN3270Fetcher{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }}
	_, err := missing.Open(ctx, &fetch.Request{URL: mustParse("tn3270://mainframe.example/")})
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Kind != fetch.ErrUnsupported || !strings.Contains(fe.Msg, "Debian package s3270") {
		t.Errorf("missing s3270: %v", err)
	}
	// The emulator gets one argument, host:port, and never a host that its
	// own syntax would read otherwise.
	var argv []string
	echo := &telnet.TN3270Fetcher{LookPath: func(string) (string, error) { return "/bin/echo", nil }}
	for url, want := range map[string]string{
		"tn3270://mainframe.example/": "mainframe.example:23",
		"tn3270://u@10.0.0.1:3270/":   "10.0.0.1:3270",
		"tn3270://[::1]/":             "[::1]:23",
		"tn3270://-oops.example/":     "",
		"tn3270://lu%40host.example/": "",
		"tn3270://a%3Ab.example/":     "",
	} {
		res, err := echo.Open(ctx, &fetch.Request{URL: mustParse(url)})
		if want == "" {
			if fetch.KindOf(err) != fetch.ErrMalformed {
				t.Errorf("%s: %v, want ErrMalformed", url, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", url, err)
			continue
		}
		out, err := io.ReadAll(res.Body)
		res.Body.Close()
		argv = strings.Fields(string(out))
		if err != nil || len(argv) != 1 || argv[0] != want {
			t.Errorf("%s: argv %q (%v), want [%s]", url, argv, err, want)
		}
	}
}
