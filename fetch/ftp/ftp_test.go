package ftp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/urlparse"
)

const email = "tester@example.org"

var mod = time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)

// binary is a fixture whose bytes include CR, LF and NUL.
var binary = func() []byte {
	b := make([]byte, 70000)
	for i := range b {
		b[i] = byte(i*7 + i/256)
	}
	return b
}()

func newServer(t *testing.T) *ftptest.Server {
	s := ftptest.New(t)
	configure(s, func(s *ftptest.Server) {
		s.Users["urlget"] = "secret"
		s.Homes["urlget"] = "/home/urlget"
	})
	s.AddFile("/pub/binary.bin", binary, mod)
	s.AddFile("/pub/hello.txt", []byte("hello\r\nworld\n"), mod)
	s.AddFile("/pub/a/b/c/deep.bin", []byte("deep\n"), mod)
	s.AddFile("/etc/motd", []byte("message of the day\n"), mod)
	s.AddFile("/readme", []byte("readme\n"), mod)
	s.AddFile("/home/urlget/private.bin", []byte("private\n"), mod)
	s.AddDir("/home/urlget/upload")
	s.AddDir("/pub/empty")
	s.AddLink("/pub/link-to-hello", "hello.txt")
	return s
}

func configure(s *ftptest.Server, f func(*ftptest.Server)) { s.Configure(f) }

// client returns a Client whose ftp fetcher is f (a fresh one without
// reuse when nil), given the Client's configuration.
func client(f *ftp.Fetcher, opts map[string]string) *fetch.Client {
	if f == nil {
		f = &ftp.Fetcher{MaxIdlePerHost: -1}
	}
	o := map[string]string{"ftp-email": email}
	for k, v := range opts {
		o[k] = v
	}
	return &fetch.Client{Fetchers: map[string]func(fetch.Config) fetch.Fetcher{"ftp": func(cfg fetch.Config) fetch.Fetcher {
		f.Config = cfg
		return f
	}}, Options: o}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// get fetches url whole.
func get(t *testing.T, c *fetch.Client, url string) (*fetch.Resource, []byte, error) {
	t.Helper()
	return fetchtest.Read(c.Open(ctx(t), url))
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot:\n\t%s\nwant:\n\t%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestCommandSequence checks the exact commands for RFC 1738's examples and
// every typecode, on a connection that is not kept (so no PWD, and QUIT at
// the end).
func TestCommandSequence(t *testing.T) {
	login := []string{"USER anonymous", "PASS " + email, "PWD"}
	tests := []struct {
		path string
		opts map[string]string
		want []string
		body string
	}{
		{"/pub/a/b/c/deep.bin", nil, []string{"CWD pub", "CWD a", "CWD b", "CWD c", "EPSV", "TYPE I", "SIZE deep.bin", "RETR deep.bin"}, "deep\n"},
		// RFC 1738 §3.2.2: "%2Fetc/motd" is CWD /etc, then RETR motd.
		{"/%2Fetc/motd", nil, []string{"CWD /etc", "EPSV", "TYPE I", "SIZE motd", "RETR motd"}, "message of the day\n"},
		// "//etc/motd": a CWD with a null argument, then CWD etc.
		{"//etc/motd", nil, []string{"CWD", "CWD etc", "EPSV", "TYPE I", "SIZE motd", "RETR motd"}, "message of the day\n"},
		{"/readme", nil, []string{"EPSV", "TYPE I", "SIZE readme", "RETR readme"}, "readme\n"},
		{"/pub/;type=d", nil, []string{"CWD pub", "EPSV", "TYPE A", "NLST"}, ""},
		// A listing's lines end in LF, as curl and lftp print them;
		// --raw keeps the wire's CRLF.
		{"/pub/hello.txt;type=d", nil, []string{"CWD pub", "EPSV", "TYPE A", "NLST hello.txt"}, "hello.txt\n"},
		{"/pub/hello.txt;type=d", map[string]string{"raw": "1"}, []string{"CWD pub", "EPSV", "TYPE A", "NLST hello.txt"}, "hello.txt\r\n"},
		{"/pub/hello.txt;type=a", nil, []string{"CWD pub", "EPSV", "TYPE A", "RETR hello.txt"}, "hello\nworld\n"},
		{"/pub/hello.txt;type=i", nil, []string{"CWD pub", "EPSV", "TYPE I", "SIZE hello.txt", "RETR hello.txt"}, "hello\r\nworld\n"},
		// No typecode: binary whatever the name, as curl; ASCII with -B.
		{"/pub/hello.txt", nil, []string{"CWD pub", "EPSV", "TYPE I", "SIZE hello.txt", "RETR hello.txt"}, "hello\r\nworld\n"},
		{"/pub/hello.txt", map[string]string{"ftp-type": "a"}, []string{"CWD pub", "EPSV", "TYPE A", "RETR hello.txt"}, "hello\nworld\n"},
		{"/pub/hello.txt", map[string]string{"ftp-type": "i"}, []string{"CWD pub", "EPSV", "TYPE I", "SIZE hello.txt", "RETR hello.txt"}, "hello\r\nworld\n"},
		{"/pub/empty/", nil, []string{"CWD pub", "CWD empty", "EPSV", "TYPE A", "LIST"}, ""},
		{"/pub/empty/", map[string]string{"ftp-list-only": "1"}, []string{"CWD pub", "CWD empty", "EPSV", "TYPE A", "NLST"}, ""},
		{"/", nil, []string{"EPSV", "TYPE A", "LIST"}, ""},
		{"/pub/a/b/c/deep.bin", map[string]string{"ftp-method": "singlecwd"}, []string{"CWD pub/a/b/c", "EPSV", "TYPE I", "SIZE deep.bin", "RETR deep.bin"}, "deep\n"},
		{"/pub/a/b/c/deep.bin", map[string]string{"ftp-method": "nocwd"}, []string{"EPSV", "TYPE I", "SIZE pub/a/b/c/deep.bin", "RETR pub/a/b/c/deep.bin"}, "deep\n"},
		{"/%2Fpub/a/", map[string]string{"ftp-method": "nocwd"}, []string{"EPSV", "TYPE A", "LIST /pub/a"}, ""},
		{"/pub/binary.bin", map[string]string{"ftp-epsv": "0"}, []string{"CWD pub", "PASV", "TYPE I", "SIZE binary.bin", "RETR binary.bin"}, string(binary)},
		{"/pub/binary.bin", map[string]string{ftp.OptMDTM: "1"}, []string{"CWD pub", "MDTM binary.bin", "EPSV", "TYPE I", "SIZE binary.bin", "RETR binary.bin"}, string(binary)},
	}
	for _, tc := range tests {
		t.Run(tc.path+fmt.Sprint(tc.opts), func(t *testing.T) {
			s := newServer(t)
			c := client(nil, tc.opts)
			res, body, err := get(t, c, "ftp://"+s.Addr+tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.body != "" && string(body) != tc.body {
				t.Errorf("body %q, want %q", body, tc.body)
			}
			want := append(append(append([]string{}, login...), tc.want...), "QUIT")
			sameLines(t, "commands", s.Lines(), want)
			if s.Conns() != 1 {
				t.Errorf("%d connections, want 1", s.Conns())
			}
			if strings.HasSuffix(tc.path, "/") || strings.Contains(tc.path, "type=d") {
				if !res.Dir || res.Listing == nil {
					t.Errorf("listing: Dir %v, Listing %v", res.Dir, res.Listing != nil)
				}
			} else if res.Dir {
				t.Errorf("file with Dir set")
			}
		})
	}
}

func TestLoginUser(t *testing.T) {
	s := newServer(t)
	_, body, err := get(t, client(nil, nil), "ftp://urlget:secret@"+s.Addr+"/private.bin")
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "private\n" {
		t.Errorf("body %q", body)
	}
	sameLines(t, "commands", s.Lines(), []string{"USER urlget", "PASS secret", "PWD", "EPSV", "TYPE I", "SIZE private.bin", "RETR private.bin", "QUIT"})

	// Client.User/Password (-u, netrc) when the URL has none.
	s2 := newServer(t)
	c := client(nil, nil)
	c.User, c.Password, c.HasPassword = "urlget", "secret", true
	if _, _, err := get(t, c, "ftp://"+s2.Addr+"/upload/;type=d"); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "commands", s2.Lines(), []string{"USER urlget", "PASS secret", "PWD", "CWD upload", "EPSV", "TYPE A", "NLST", "QUIT"})
}

func TestErrorKinds(t *testing.T) {
	tests := []struct {
		name string
		hook ftptest.Hook
		url  string
		kind fetch.Kind
	}{
		{"wrong password", nil, "ftp://urlget:wrong@%s/x", fetch.ErrLoginDenied},
		{"unknown user", nil, "ftp://nobody:x@%s/x", fetch.ErrLoginDenied},
		{"cwd refused", nil, "ftp://%s/nodir/x.bin", fetch.ErrAccessDenied},
		{"missing file", nil, "ftp://%s/pub/nothere.bin", fetch.ErrNotFound},
		{"missing ascii file", nil, "ftp://%s/pub/nothere.txt", fetch.ErrNotFound},
		{"missing in listing", nil, "ftp://%s/pub/nothere;type=d", fetch.ErrRetrFailed}, // curl's 19
		{"type refused", ftptest.Reply("TYPE", "504 Type not supported"), "ftp://%s/pub/binary.bin", fetch.ErrTypeFailed},
		{"retr refused", ftptest.Reply("RETR", "451 Local error"), "ftp://%s/pub/binary.bin", fetch.ErrRetrFailed},
		{"greeting refused", ftptest.Reply("(connect)", "421 Too many users"), "ftp://%s/pub/binary.bin", fetch.ErrConnect},
		{"garbage reply", ftptest.Reply("USER", "hello there"), "ftp://%s/pub/binary.bin", fetch.ErrProtocol},
		{"dead passive port", ftptest.DeadPassive(), "ftp://%s/pub/binary.bin", fetch.ErrConnect},
		{"endless greeting", ftptest.EndlessReply("(connect)", 220), "ftp://%s/pub/binary.bin", fetch.ErrProtocol},
		{"endless reply", ftptest.EndlessReply("CWD", 250), "ftp://%s/pub/binary.bin", fetch.ErrProtocol},
		{"megabyte reply line", ftptest.HugeLine("SIZE", 213, 3<<20), "ftp://%s/pub/binary.bin", fetch.ErrProtocol},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			configure(s, func(s *ftptest.Server) { s.Hook = tc.hook })
			_, _, err := get(t, client(nil, nil), fmt.Sprintf(tc.url, s.Addr))
			if err == nil {
				t.Fatal("no error")
			}
			if k := fetch.KindOf(err); k != tc.kind {
				t.Errorf("%v: kind %d (exit %d), want %d (exit %d)", err, k, k.ExitCode(), tc.kind, tc.kind.ExitCode())
			}
			var fe *fetch.Error
			if !errors.As(err, &fe) {
				t.Errorf("%T is not a *fetch.Error", err)
			}
		})
	}
}

// A megabyte reply line must not be kept: the client reads it with a
// bounded buffer. Measure the heap growth while reading one.
func TestHugeLineBoundedMemory(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) { s.Hook = ftptest.HugeLine("SIZE", 213, 64<<20) })
	var before, after runtimeMem
	before.read()
	_, _, err := get(t, client(nil, nil), "ftp://"+s.Addr+"/pub/binary.bin")
	after.read()
	if fetch.KindOf(err) != fetch.ErrProtocol {
		t.Fatalf("err %v, want ErrProtocol", err)
	}
	if grew := int64(after.total) - int64(before.total); grew > 16<<20 {
		t.Errorf("allocated %d MiB reading a 64 MiB reply line", grew>>20)
	}
}

func TestPasswordNeeded(t *testing.T) {
	s := newServer(t)
	_, _, err := get(t, client(nil, nil), "ftp://urlget@"+s.Addr+"/private.bin")
	var pn *ftp.PasswordNeededError
	if !errors.As(err, &pn) {
		t.Fatalf("err %v, want a PasswordNeededError", err)
	}
	if pn.User != "urlget" || pn.Host != "127.0.0.1" || pn.Port != s.Port {
		t.Errorf("PasswordNeededError %+v", pn)
	}
	if fetch.ExitCode(err) != 67 {
		t.Errorf("exit %d, want 67", fetch.ExitCode(err))
	}
	sameLines(t, "commands", s.Lines(), []string{"USER urlget"})

	// An empty password given explicitly is sent.
	s2 := newServer(t)
	_, _, err = get(t, client(nil, nil), "ftp://urlget:@"+s2.Addr+"/private.bin")
	if fetch.KindOf(err) != fetch.ErrLoginDenied {
		t.Fatalf("err %v", err)
	}
	sameLines(t, "commands", s2.Lines(), []string{"USER urlget", "PASS "})
}

func TestAnonymousEmail(t *testing.T) {
	s := newServer(t)
	c := client(nil, nil)
	delete(c.Options, "ftp-email")
	if _, _, err := get(t, c, "ftp://"+s.Addr+"/readme"); err != nil {
		t.Fatal(err)
	}
	l := s.Lines()
	// curl's address, which names no one (not $USER@hostname).
	if len(l) < 2 || l[1] != "PASS ftp@example.com" {
		t.Errorf("commands %q, want PASS ftp@example.com", l)
	}
}

// The PASV reply's address is ignored: the data connection goes to the
// control connection's peer. 127.0.0.2 is on loopback but the server does
// not listen there, so trusting it fails to connect.
func TestPASVAddressIgnored(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) { s.NoEPSV = true })
	configure(s, func(s *ftptest.Server) { s.PASVAddress = "127.0.0.2" })
	_, body, err := get(t, client(nil, nil), "ftp://"+s.Addr+"/pub/binary.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, binary) {
		t.Error("body differs")
	}
	sameLines(t, "commands", s.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "CWD pub", "EPSV", "PASV", "TYPE I", "SIZE binary.bin", "RETR binary.bin", "QUIT"})

	_, _, err = get(t, client(nil, map[string]string{"ftp-pasv-trust": "1"}), "ftp://"+s.Addr+"/pub/binary.bin")
	if fetch.KindOf(err) != fetch.ErrConnect || !strings.Contains(err.Error(), "127.0.0.2:") {
		t.Errorf("with ftp-pasv-trust: %v, want ErrConnect to 127.0.0.2", err)
	}
}

func TestActiveMode(t *testing.T) {
	for _, tc := range []struct {
		port   string
		noEPRT bool
		want   string
	}{
		{"-", false, "EPRT |1|127.0.0.1|"},
		{"127.0.0.1", false, "EPRT |1|127.0.0.1|"},
		{"-", true, "PORT 127,0,0,1,"},
	} {
		t.Run(tc.port+strconv.FormatBool(tc.noEPRT), func(t *testing.T) {
			s := newServer(t)
			configure(s, func(s *ftptest.Server) { s.NoEPRT = tc.noEPRT })
			_, body, err := get(t, client(nil, map[string]string{"ftp-port": tc.port}), "ftp://"+s.Addr+"/pub/binary.bin")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, binary) {
				t.Error("body differs")
			}
			l := s.Lines()
			// curl's order (its test 103): PWD, the CWDs, EPRT/PORT,
			// TYPE I, SIZE, RETR.
			if len(l) != 9 && !tc.noEPRT || tc.noEPRT && len(l) != 10 {
				t.Fatalf("commands %q", l)
			}
			i := 4
			if tc.noEPRT {
				if !strings.HasPrefix(l[4], "EPRT |1|127.0.0.1|") {
					t.Errorf("command 5 %q, want EPRT first", l[4])
				}
				i = 5
			}
			if l[2] != "PWD" || !strings.HasPrefix(l[i], tc.want) || strings.Join(l[i+1:i+4], ",") != "TYPE I,SIZE binary.bin,RETR binary.bin" {
				t.Errorf("commands %q, want PWD, %s…, TYPE I, SIZE, RETR", l, tc.want)
			}
		})
	}
}

func TestActiveNeverConnects(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) { s.Hook = ftptest.NeverConnect() })
	f := &ftp.Fetcher{MaxIdlePerHost: -1, AcceptTimeout: 300 * time.Millisecond}
	start := time.Now()
	_, _, err := get(t, client(f, map[string]string{"ftp-port": "-"}), "ftp://"+s.Addr+"/pub/binary.bin")
	if fetch.KindOf(err) != fetch.ErrTimeout {
		t.Fatalf("err %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestShortTransfers(t *testing.T) {
	tests := []struct {
		name  string
		hook  ftptest.Hook
		final time.Duration
	}{
		{"226 after half", ftptest.ShortData("binary.bin", binary, len(binary)/2, "226 Transfer complete"), 0},
		{"426 after half", ftptest.ShortData("binary.bin", binary, len(binary)/2, "426 Connection closed; transfer aborted"), 0},
		{"426 after all", ftptest.ShortData("binary.bin", binary, len(binary), "426 Connection closed; transfer aborted"), 0},
		{"no final reply", ftptest.ShortData("binary.bin", binary, len(binary), ""), 300 * time.Millisecond},
		// A cut the server's 226 did not see, found by the 150 reply's
		// size where SIZE is refused (curl: 18), and more data than SIZE
		// said.
		{"226 after half, no SIZE, the 150 reply's size", ftptest.Chain(ftptest.Reply("SIZE", "502 SIZE not implemented"),
			ftptest.ShortDataSaying("binary.bin", binary, len(binary)/2,
				fmt.Sprintf("Opening BINARY mode data connection for binary.bin (%d bytes).", len(binary)), "226 Transfer complete")), 0},
		{"226 after none, no SIZE, the 150 reply's size", ftptest.Chain(ftptest.Reply("SIZE", "550 Could not get file size."),
			ftptest.ShortDataSaying("binary.bin", binary, 0,
				fmt.Sprintf("Opening BINARY mode data connection for binary.bin (%d bytes).", len(binary)), "226 Transfer complete")), 0},
		{"more than SIZE said", ftptest.Reply("SIZE", "213 1000"), 0},
		{"more than the 150 reply said", ftptest.Chain(ftptest.Reply("SIZE", "502 no"),
			ftptest.ShortDataSaying("binary.bin", binary, len(binary),
				"Opening BINARY mode data connection for binary.bin (1000 bytes).", "226 Transfer complete")), 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			configure(s, func(s *ftptest.Server) { s.Hook = tc.hook })
			f := &ftp.Fetcher{MaxIdlePerHost: -1, FinalReplyTimeout: tc.final}
			start := time.Now()
			_, _, err := get(t, client(f, nil), "ftp://"+s.Addr+"/pub/binary.bin")
			if fetch.KindOf(err) != fetch.ErrPartial {
				t.Fatalf("err %v (kind %d), want ErrPartial", err, fetch.KindOf(err))
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// With fetch.OptIgnoreLength (curl's --ignore-content-length) no SIZE is
// sent and the 150 reply's size is not checked: the data go until the
// data connection closes (a file still growing).
func TestIgnoreLength(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = ftptest.ShortDataSaying("binary.bin", binary, len(binary),
			"Opening BINARY mode data connection for binary.bin (1000 bytes).", "226 Transfer complete")
	})
	_, body, err := get(t, client(nil, map[string]string{fetch.OptIgnoreLength: "1"}), "ftp://"+s.Addr+"/pub/binary.bin")
	if err != nil || !bytes.Equal(body, binary) {
		t.Fatalf("%d bytes, %v; want %d", len(body), err, len(binary))
	}
	for _, l := range s.Lines() {
		if strings.HasPrefix(l, "SIZE") {
			t.Errorf("commands %q: SIZE sent", s.Lines())
		}
	}
}

// CR, LF and NUL in any decoded field are refused before connecting.
func TestInjectionRefused(t *testing.T) {
	s := newServer(t)
	for _, u := range []string{
		"ftp://%s/pub/x%0D%0ADELE%20y",
		"ftp://%s/pub%0AQUIT/x",
		"ftp://%s/x%00y",
		"ftp://us%0Der:pw@%s/x",
		"ftp://user:p%0Aw@%s/x",
		"ftp://%s/a%0D/;type=d",
	} {
		url := strings.Replace(u, "%s", s.Addr, 1)
		_, _, err := get(t, client(nil, nil), url)
		if fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("%s: %v, want ErrMalformed", url, err)
		}
		// The fetcher refuses them too when called without a Client.
		pu, perr := urlparse.Parse(url)
		if perr != nil {
			t.Fatal(perr)
		}
		_, err = (&ftp.Fetcher{}).Open(ctx(t), &fetch.Request{URL: &pu})
		if fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("Fetcher.Open(%s): %v, want ErrMalformed", url, err)
		}
	}
	// Client.User with a line break (from -u) is refused too.
	c := client(nil, nil)
	c.User, c.Password, c.HasPassword = "u\r\nDELE x", "p", true
	if _, _, err := get(t, c, "ftp://"+s.Addr+"/x"); fetch.KindOf(err) != fetch.ErrMalformed {
		t.Errorf("-u with CRLF: %v", err)
	}
	if n := s.Received(); n != 0 {
		t.Errorf("the server received %d connections/commands", n)
	}
	// Options that go on the wire.
	for _, k := range []string{"ftp-email", "ftp-account", "ftp-port"} {
		_, _, err := get(t, client(nil, map[string]string{k: "a\r\nb"}), "ftp://"+s.Addr+"/x")
		if fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("option %s with CRLF: %v", k, err)
		}
	}
	if n := s.Received(); n != 0 {
		t.Errorf("the server received %d connections/commands", n)
	}
}

func TestResume(t *testing.T) {
	off := int64(len(binary) / 3)
	tests := []struct {
		name       string
		offset     int64
		since      time.Time
		wantOffset int64
		wantCmds   []string
		refused    bool // ErrResume, no RETR
	}{
		{"rest", off, time.Time{}, off, []string{"CWD pub", "EPSV", "TYPE I", "SIZE binary.bin", "REST " + strconv.FormatInt(off, 10), "RETR binary.bin"}, false},
		{"unchanged since", off, mod.Add(time.Hour), off, []string{"CWD pub", "MDTM binary.bin", "EPSV", "TYPE I", "SIZE binary.bin", "REST " + strconv.FormatInt(off, 10), "RETR binary.bin"}, false},
		{"changed since", off, mod.Add(-time.Hour), 0, []string{"CWD pub", "MDTM binary.bin", "EPSV", "TYPE I", "SIZE binary.bin", "RETR binary.bin"}, false},
		// A file smaller than the offset that is not known to have
		// changed: ErrResume (curl's 36, its test 111), no RETR.
		{"remote smaller", int64(len(binary) + 10), time.Time{}, 0, []string{"CWD pub", "EPSV", "TYPE I", "SIZE binary.bin"}, true},
		{"remote smaller, changed since", int64(len(binary) + 10), mod.Add(-time.Hour), 0, []string{"CWD pub", "MDTM binary.bin", "EPSV", "TYPE I", "SIZE binary.bin", "RETR binary.bin"}, false},
		// The data connection is open before SIZE tells there is
		// nothing left (curl's test 111 has EPSV, TYPE I, SIZE, QUIT).
		{"complete", int64(len(binary)), time.Time{}, int64(len(binary)), []string{"CWD pub", "EPSV", "TYPE I", "SIZE binary.bin"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			u, _ := urlparse.Parse("ftp://" + s.Addr + "/pub/binary.bin")
			want := append(append([]string{"USER anonymous", "PASS " + email, "PWD"}, tc.wantCmds...), "QUIT")
			res, err := client(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Offset: tc.offset, Since: tc.since})
			if tc.refused {
				fetchtest.WantKind(t, err, fetch.ErrResume)
				sameLines(t, "commands", s.Lines(), want)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if res.Offset != tc.wantOffset {
				t.Errorf("Offset %d, want %d", res.Offset, tc.wantOffset)
			}
			if want := binary[min(tc.wantOffset, int64(len(binary))):]; !bytes.Equal(body, want) {
				t.Errorf("body %d bytes, want %d", len(body), len(want))
			}
			if res.Size != int64(len(body)) {
				t.Errorf("Size %d, body %d", res.Size, len(body))
			}
			sameLines(t, "commands", s.Lines(), want)
		})
	}
}

func TestHead(t *testing.T) {
	s := newServer(t)
	u, _ := urlparse.Parse("ftp://" + s.Addr + "/pub/binary.bin")
	res, err := client(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Head: true})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.Size != int64(len(binary)) || !res.ModTime.Equal(mod) {
		t.Errorf("Size %d ModTime %v", res.Size, res.ModTime)
	}
	// curl's -I asks REST 0 too and prints what it learnt in its order
	// (its tests 104, 141).
	sameLines(t, "commands", s.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "CWD pub", "MDTM binary.bin", "TYPE I", "SIZE binary.bin", "REST 0", "QUIT"})
	want := fmt.Sprintf("[{Last-Modified %s} {Content-Length %d} {Accept-ranges bytes}]", mod.UTC().Format(http.TimeFormat), len(binary))
	if got := fmt.Sprint(res.Header); got != want {
		t.Errorf("Header %s, want %s", got, want)
	}

	u, _ = urlparse.Parse("ftp://" + s.Addr + "/pub/none.bin")
	if _, err := client(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Head: true}); fetch.KindOf(err) != fetch.ErrNotFound {
		t.Errorf("HEAD of a missing file: %v", err)
	}
}

// The pool keeps the control connection for the next URL of the same
// server and login, returns to the login directory with CWD, and skips
// what it can.
func TestConnectionReuse(t *testing.T) {
	s := newServer(t)
	f := &ftp.Fetcher{}
	defer f.CloseIdle()
	c := client(f, nil)
	urls := []string{"/pub/a/b/c/deep.bin", "/pub/binary.bin", "/pub/binary.bin", "/readme", "/pub/nothere.bin", "/pub/a/b/c/deep.bin"}
	for i, p := range urls {
		_, _, err := get(t, c, "ftp://"+s.Addr+p)
		if (err != nil) != (i == 4) {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if s.Conns() != 1 {
		t.Errorf("%d connections for %d URLs, want 1", s.Conns(), len(urls))
	}
	sameLines(t, "commands", s.Lines(), []string{
		"USER anonymous", "PASS " + email,
		"PWD", "CWD pub", "CWD a", "CWD b", "CWD c", "EPSV", "TYPE I", "SIZE deep.bin", "RETR deep.bin",
		"CWD /", "CWD pub", "EPSV", "SIZE binary.bin", "RETR binary.bin",
		"EPSV", "SIZE binary.bin", "RETR binary.bin",
		"CWD /", "EPSV", "SIZE readme", "RETR readme",
		"CWD pub", "EPSV", "SIZE nothere.bin", "RETR nothere.bin",
		"CWD nothere.bin", // RETR said 550: a directory named without its "/"? (dirhint.go)
		"CWD a", "CWD b", "CWD c", "EPSV", "SIZE deep.bin", "RETR deep.bin",
	})
	// The same URLs without reuse: one connection and login each.
	s2 := newServer(t)
	c2 := client(nil, nil)
	for _, p := range urls {
		get(t, c2, "ftp://"+s2.Addr+p)
	}
	if s2.Conns() != len(urls) {
		t.Errorf("without reuse: %d connections, want %d", s2.Conns(), len(urls))
	}
	reused, fresh := len(s.Lines()), len(s2.Lines())
	t.Logf("commands: %d with reuse, %d without; connections 1 vs %d", reused, fresh, len(urls))
	if reused >= fresh {
		t.Errorf("reuse sent %d commands, no fewer than %d without", reused, fresh)
	}
	if f.IdleConns() != 1 {
		t.Errorf("%d idle connections, want 1", f.IdleConns())
	}
	f.CloseIdle()
	if f.IdleConns() != 0 {
		t.Errorf("CloseIdle left %d", f.IdleConns())
	}
}

// A pooled connection the server has closed meanwhile is replaced
// transparently: one it timed out (421), and one whose session process
// died (vsftpd's "500 OOPS", Reply.Gone).
func TestReuseStaleConnection(t *testing.T) {
	for _, said := range []string{"421 Timeout.", "500 OOPS: priv_sock_get_int"} {
		t.Run(said[:3], func(t *testing.T) {
			s := newServer(t)
			f := &ftp.Fetcher{}
			defer f.CloseIdle()
			c := client(f, nil)
			if _, _, err := get(t, c, "ftp://"+s.Addr+"/readme"); err != nil {
				t.Fatal(err)
			}
			var once atomic.Bool
			configure(s, func(s *ftptest.Server) {
				s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
					if once.CompareAndSwap(false, true) {
						ss.Raw([]byte(said + "\r\n"))
						ss.Conn().Close()
						return true
					}
					return false
				}
			})
			_, body, err := get(t, c, "ftp://"+s.Addr+"/pub/binary.bin")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(body, binary) {
				t.Error("body differs")
			}
			if s.Conns() != 2 {
				t.Errorf("%d connections, want 2", s.Conns())
			}
		})
	}
}

// Different logins never share a connection.
func TestReuseKeyedByLogin(t *testing.T) {
	s := newServer(t)
	f := &ftp.Fetcher{}
	defer f.CloseIdle()
	c := client(f, nil)
	for _, u := range []string{"ftp://%s/readme", "ftp://urlget:secret@%s/private.bin", "ftp://%s/readme", "ftp://urlget:secret@%s/private.bin"} {
		if _, _, err := get(t, c, fmt.Sprintf(u, s.Addr)); err != nil {
			t.Fatal(err)
		}
	}
	if s.Conns() != 2 {
		t.Errorf("%d connections, want 2 (one per login)", s.Conns())
	}
	if _, _, err := get(t, c, "ftp://urlget:wrong@"+s.Addr+"/private.bin"); fetch.KindOf(err) != fetch.ErrLoginDenied {
		t.Errorf("wrong password on a server with a pooled login: %v", err)
	}
}

func TestUpload(t *testing.T) {
	s := newServer(t)
	c := client(nil, nil)
	up := func(url string, data string, app bool) (int64, error) {
		u, err := urlparse.Parse(url)
		if err != nil {
			t.Fatal(err)
		}
		return ftp.Upload(ctx(t), c, &fetch.Request{URL: &u}, strings.NewReader(data), app)
	}
	base := "ftp://urlget:secret@" + s.Addr
	n, err := up(base+"/upload/new.bin", "first\n", false)
	if err != nil || n != 6 {
		t.Fatalf("STOR: %d, %v", n, err)
	}
	if _, err := up(base+"/upload/new.bin", "second\n", true); err != nil {
		t.Fatal(err)
	}
	if got := string(s.File("/home/urlget/upload/new.bin")); got != "first\nsecond\n" {
		t.Errorf("uploaded %q", got)
	}
	if _, err := up(base+"/upload/text.txt;type=a", "a\nb\r\nc\n", false); err != nil {
		t.Fatal(err)
	}
	if got := string(s.File("/home/urlget/upload/text.txt")); got != "a\r\nb\r\nc\r\n" {
		t.Errorf("ASCII upload stored %q", got)
	}
	// A .txt name is not guessed ASCII for an upload.
	if _, err := up(base+"/upload/raw.txt", "a\nb\n", false); err != nil {
		t.Fatal(err)
	}
	if got := string(s.File("/home/urlget/upload/raw.txt")); got != "a\nb\n" {
		t.Errorf("upload stored %q", got)
	}
	sameLines(t, "commands", s.Lines(), []string{
		"USER urlget", "PASS secret", "PWD", "CWD upload", "EPSV", "TYPE I", "STOR new.bin", "QUIT",
		"USER urlget", "PASS secret", "PWD", "CWD upload", "EPSV", "TYPE I", "APPE new.bin", "QUIT",
		"USER urlget", "PASS secret", "PWD", "CWD upload", "EPSV", "TYPE A", "STOR text.txt", "QUIT",
		"USER urlget", "PASS secret", "PWD", "CWD upload", "EPSV", "TYPE I", "STOR raw.txt", "QUIT",
	})
	// Anonymous upload refused: ErrUpload (25).
	if _, err := up("ftp://"+s.Addr+"/pub/x.bin", "x", false); fetch.KindOf(err) != fetch.ErrUpload {
		t.Errorf("anonymous STOR: %v, want ErrUpload", err)
	}
	// A directory URL cannot be uploaded to; nothing is sent.
	before := s.Received()
	if _, err := up(base+"/upload/", "x", false); fetch.KindOf(err) != fetch.ErrMalformed {
		t.Errorf("upload to a directory URL: %v", err)
	}
	if s.Received() != before {
		t.Error("an upload to a directory URL reached the server")
	}
	// A failing reader is ErrRead.
	u, _ := urlparse.Parse(base + "/upload/fail.bin")
	_, err = ftp.Upload(ctx(t), c, &fetch.Request{URL: &u}, io.MultiReader(strings.NewReader("abc"), errReader{}), false)
	if fetch.KindOf(err) != fetch.ErrRead {
		t.Errorf("failing reader: %v, want ErrRead", err)
	}
}

// TestUploadResume: a Request.Offset with a Body resumes the upload: the
// body's first bytes are skipped and the rest appended (APPE);
// fetch.UploadAtEnd asks SIZE first (550: from the start); a remote file
// as long as the body is left alone, a longer one is ErrResume.
func TestUploadResume(t *testing.T) {
	s := newServer(t)
	c := client(nil, nil)
	base := "ftp://urlget:secret@" + s.Addr + "/upload/"
	full := "0123456789abcdef"
	put := func(name string, off int64, body io.Reader, size int64) error {
		t.Helper()
		u, err := urlparse.Parse(base + name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Do(ctx(t), &fetch.Request{URL: &u, Offset: off, Body: body, BodySize: size})
		if err == nil {
			res.Body.Close()
		}
		return err
	}
	s.AddFile("/home/urlget/upload/half.bin", []byte(full[:6]), mod)
	// The part skipped is neither paced nor reported as sent.
	reported := 0
	c.LimitRate = fetch.NewLimiter(1 << 20)
	u, _ := urlparse.Parse(base + "half.bin")
	res, err := c.Do(fetch.WithTrace(ctx(t), &fetch.Trace{BodySent: func(n int) { reported += n }}),
		&fetch.Request{URL: &u, Offset: fetch.UploadAtEnd, Body: strings.NewReader(full), BodySize: int64(len(full))})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	c.LimitRate = nil
	if reported != len(full)-6 {
		t.Errorf("%d bytes reported sent, want %d", reported, len(full)-6)
	}
	s.AddFile("/home/urlget/upload/given.bin", []byte(full[:4]), mod)
	if err := put("given.bin", 4, io.MultiReader(strings.NewReader(full)), -1); err != nil { // size unknown
		t.Fatal(err)
	}
	if err := put("none.bin", fetch.UploadAtEnd, strings.NewReader(full), int64(len(full))); err != nil {
		t.Fatal(err)
	}
	s.AddFile("/home/urlget/upload/whole.bin", []byte(full), mod)
	if err := put("whole.bin", fetch.UploadAtEnd, strings.NewReader(full), int64(len(full))); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"half.bin", "given.bin", "none.bin", "whole.bin"} {
		if got := string(s.File("/home/urlget/upload/" + name)); got != full {
			t.Errorf("%s: %q, want %q", name, got, full)
		}
	}
	var sent []string
	for _, l := range s.Lines() {
		if strings.HasPrefix(l, "SIZE ") || strings.HasPrefix(l, "STOR ") || strings.HasPrefix(l, "APPE ") {
			sent = append(sent, l)
		}
	}
	sameLines(t, "commands", sent, []string{"SIZE half.bin", "APPE half.bin", "APPE given.bin", "SIZE none.bin", "STOR none.bin", "SIZE whole.bin"})
	s.AddFile("/home/urlget/upload/long.bin", []byte(full+"more"), mod)
	if err := put("long.bin", fetch.UploadAtEnd, strings.NewReader(full), int64(len(full))); fetch.KindOf(err) != fetch.ErrResume {
		t.Errorf("remote longer than the body: %v, want ErrResume", err)
	}
	if err := put("long.bin", fetch.UploadAtEnd, io.MultiReader(strings.NewReader(full)), -1); fetch.KindOf(err) != fetch.ErrResume {
		t.Errorf("remote longer than a body of unknown size: %v, want ErrResume", err)
	}
	if got := string(s.File("/home/urlget/upload/long.bin")); got != full+"more" {
		t.Errorf("long.bin changed: %q", got)
	}
	// UploadAtEnd is for an upload only.
	if _, _, err := get(t, c, base+"half.bin"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(ctx(t), &fetch.Request{URL: &u, Offset: fetch.UploadAtEnd}); fetch.KindOf(err) != fetch.ErrResume {
		t.Errorf("UploadAtEnd without a body: %v, want ErrResume", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestListing(t *testing.T) {
	s := newServer(t)
	for _, tc := range []struct {
		opts map[string]string
		verb string
	}{
		{nil, "LIST"},
		{map[string]string{"ftp-mlsd": "1"}, "MLSD"},
	} {
		res, _, err := get(t, client(nil, tc.opts), "ftp://"+s.Addr+"/pub/")
		if err != nil {
			t.Fatal(err)
		}
		_ = res
		res, err = client(nil, tc.opts).Open(ctx(t), "ftp://"+s.Addr+"/pub/")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]fetch.Entry{}
		for e, err := range res.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			got[e.Name] = e
		}
		res.Body.Close()
		if e := got["binary.bin"]; e.Type != fetch.EntryFile || e.Size != int64(len(binary)) || e.URL != "ftp://"+s.Addr+"/pub/binary.bin" {
			t.Errorf("%s binary.bin: %+v", tc.verb, e)
		}
		if e := got["a"]; e.Type != fetch.EntryDir || e.URL != "ftp://"+s.Addr+"/pub/a/" {
			t.Errorf("%s a: %+v", tc.verb, e)
		}
		if e := got["link-to-hello"]; e.Type != fetch.EntryLink || e.Target != "hello.txt" {
			t.Errorf("%s link: %+v", tc.verb, e)
		}
		if tc.verb == "MLSD" && !got["binary.bin"].ModTime.Equal(mod) {
			t.Errorf("MLSD modify: %v", got["binary.bin"].ModTime)
		}
	}
	l := s.Lines()
	want := []string{"USER anonymous", "PASS " + email, "PWD", "CWD pub", "EPSV", "TYPE A", "LIST", "QUIT"}
	sameLines(t, "LIST commands", l[:8], want)
	wantMLSD := []string{"USER anonymous", "PASS " + email, "PWD", "CWD pub", "FEAT", "EPSV", "TYPE A", "MLSD", "QUIT"}
	sameLines(t, "MLSD commands", l[len(l)-9:], wantMLSD)

	// A server without MLSD: fall back to LIST.
	s2 := newServer(t)
	configure(s2, func(s *ftptest.Server) { s.NoMLSD = true })
	if _, _, err := get(t, client(nil, map[string]string{"ftp-mlsd": "1"}), "ftp://"+s2.Addr+"/pub/"); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "fallback", s2.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "CWD pub", "FEAT", "EPSV", "TYPE A", "MLSD", "EPSV", "LIST", "QUIT"})
	// FEAT without MLST: LIST at once.
	s3 := newServer(t)
	configure(s3, func(s *ftptest.Server) { s.Features = []string{"EPSV", "SIZE"} })
	if _, _, err := get(t, client(nil, map[string]string{"ftp-mlsd": "1"}), "ftp://"+s3.Addr+"/pub/"); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "no MLST", s3.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "CWD pub", "FEAT", "EPSV", "TYPE A", "LIST", "QUIT"})
}

// Hostile names in a listing are data: Name keeps them, the URL encodes
// them as one segment, and SafeName makes one harmless file name.
func TestHostileListing(t *testing.T) {
	s := newServer(t)
	hostileListing := ftptest.ListingLines(
		"-rw-r--r--    1 ftp      ftp             5 Jan 02  2024 ../../etc/passwd",
		"-rw-r--r--    1 ftp      ftp             5 Jan 02  2024 /abs/path",
		"-rw-r--r--    1 ftp      ftp             5 Jan 02  2024 esc\x1b[31mred",
		"drwxr-xr-x    1 ftp      ftp          4096 Jan 02  2024 ..",
		"this line is nothing at all",
	)
	configure(s, func(s *ftptest.Server) { s.Hook = hostileListing })
	res, err := client(nil, nil).Open(ctx(t), "ftp://"+s.Addr+"/pub/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got []fetch.Entry
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != 5 {
		t.Fatalf("%d entries", len(got))
	}
	want := []struct{ name, url, safe string }{
		{"../../etc/passwd", "ftp://" + s.Addr + "/pub/..%2F..%2Fetc%2Fpasswd", "_._.._etc_passwd"},
		{"/abs/path", "ftp://" + s.Addr + "/pub/%2Fabs%2Fpath", "_abs_path"},
		{"esc\x1b[31mred", "ftp://" + s.Addr + "/pub/esc%1B%5B31mred", "esc_[31mred"},
		{"..", "", "_."},
	}
	for i, w := range want {
		e := got[i]
		if e.Name != w.name || e.URL != w.url || fetch.SafeName(e.Name) != w.safe {
			t.Errorf("entry %d: name %q url %q safe %q; want %q %q %q", i, e.Name, e.URL, fetch.SafeName(e.Name), w.name, w.url, w.safe)
		}
	}
	if !got[4].Unparsed || got[4].Raw != "this line is nothing at all" {
		t.Errorf("garbage line: %+v", got[4])
	}
}

func TestVerboseMasksPassword(t *testing.T) {
	s := newServer(t)
	var buf bytes.Buffer
	c := client(nil, nil)
	c.Verbose = &buf
	if _, _, err := get(t, c, "ftp://urlget:secret@"+s.Addr+"/private.bin"); err != nil {
		t.Fatal(err)
	}
	v := buf.String()
	if strings.Contains(v, "secret") || !strings.Contains(v, "> PASS ****\n") || !strings.Contains(v, "> USER urlget\n") || !strings.Contains(v, "< 230 Logged in\n") {
		t.Errorf("verbose output:\n%s", v)
	}
}

// The context bounds everything: a silent server, a stalled data
// connection.
func TestContext(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) { s.Hook = ftptest.Silent() })
	cx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := client(nil, nil).Open(cx, "ftp://"+s.Addr+"/pub/binary.bin")
	if fetch.KindOf(err) != fetch.ErrTimeout {
		t.Errorf("silent server: %v, want ErrTimeout", err)
	}
}

// The fetcher works without a Client too (nil Dialer).
func TestFetcherDirect(t *testing.T) {
	s := newServer(t)
	u, _ := urlparse.Parse("ftp://" + s.Addr + "/pub/binary.bin")
	f := &ftp.Fetcher{MaxIdlePerHost: -1}
	res, err := f.Open(ctx(t), &fetch.Request{URL: &u})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, res.Body) // through WriteTo
	res.Body.Close()
	if err != nil || n != int64(len(binary)) || !bytes.Equal(buf.Bytes(), binary) {
		t.Errorf("io.Copy: %d, %v", n, err)
	}
}

type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total = ms.TotalAlloc
}

// A server that wants an account (332) gets ACCT with ftp-account, after
// USER or after PASS; without the option the login is ErrLoginDenied.
func TestAccount(t *testing.T) {
	for _, after := range []string{"USER", "PASS"} {
		s := newServer(t)
		var step atomic.Int32
		configure(s, func(s *ftptest.Server) {
			s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
				switch {
				case verb == after && step.CompareAndSwap(0, 1):
					ss.Reply(332, "Need account")
					return true
				case verb == "ACCT":
					if arg != "acct1" {
						ss.Reply(530, "bad account")
					} else {
						ss.LogIn()
						ss.Reply(230, "Logged in with account")
					}
					return true
				}
				return false
			}
		})
		_, body, err := get(t, client(nil, map[string]string{"ftp-account": "acct1"}), "ftp://"+s.Addr+"/readme")
		if err != nil || string(body) != "readme\n" {
			t.Errorf("332 after %s: %q, %v", after, body, err)
		}
		l := s.Lines()
		want := []string{"USER anonymous", "ACCT acct1"}
		if after == "PASS" {
			want = []string{"USER anonymous", "PASS " + email, "ACCT acct1"}
		}
		if len(l) < len(want) || strings.Join(l[:len(want)], "|") != strings.Join(want, "|") {
			t.Errorf("332 after %s: commands %q, want %q first", after, l, want)
		}
		s2 := newServer(t)
		configure(s2, func(s *ftptest.Server) { s.Hook = ftptest.Reply("USER", "332 Need account") })
		if _, _, err := get(t, client(nil, nil), "ftp://"+s2.Addr+"/readme"); fetch.KindOf(err) != fetch.ErrLoginDenied {
			t.Errorf("332 without ftp-account: %v", err)
		}
	}
	// An account refused is ErrAccount (curl's 11, its test 229), not a
	// login refused.
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			switch verb {
			case "PASS":
				ss.Reply(332, "Need account")
				return true
			case "ACCT":
				ss.Reply(532, "bluah!")
				return true
			}
			return false
		}
	})
	_, _, err := get(t, client(nil, map[string]string{"ftp-account": "one count"}), "ftp://"+s.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrAccount)
}

// TestUploadDiskFull: a 552 after the data of a STOR ("exceeded storage
// allocation") is ErrDiskFull, curl's 70 (its test 348).
func TestUploadDiskFull(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, _ string) bool {
			if verb != "STOR" {
				return false
			}
			ss.Reply(150, "Ok to send data")
			dc, err := ss.OpenData()
			if err == nil {
				io.Copy(io.Discard, dc)
				dc.Close()
			}
			ss.Reply(552, "disk full")
			return true
		}
	})
	u, _ := urlparse.Parse("ftp://urlget:secret@" + s.Addr + "/upload/new.bin")
	_, err := client(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Body: strings.NewReader("0123456789"), BodySize: 10})
	fetchtest.WantKind(t, err, fetch.ErrDiskFull)
}

// ftp-alternative-to-user (curl's --ftp-alternative-to-user): a USER
// refused is followed by the command, whose reply stands for USER's (331:
// PASS); without the option the refusal ends the login.
func TestAlternativeToUser(t *testing.T) {
	for _, alt := range []string{"USER replacement", ""} {
		s := newServer(t)
		configure(s, func(s *ftptest.Server) {
			s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
				switch {
				case verb == "USER" && arg == "anonymous":
					ss.Reply(530, "We don't like USER commands")
					return true
				case verb == "PASS":
					ss.LogIn()
					ss.Reply(230, "Logged in")
					return true
				}
				return false
			}
		})
		_, body, err := get(t, client(nil, map[string]string{"ftp-alternative-to-user": alt}), "ftp://"+s.Addr+"/readme")
		if alt == "" {
			if fetch.KindOf(err) != fetch.ErrLoginDenied {
				t.Errorf("USER refused, no alternative: %v", err)
			}
			continue
		}
		if err != nil || string(body) != "readme\n" {
			t.Errorf("alternative to USER: %q, %v", body, err)
		}
		want := []string{"USER anonymous", "USER replacement", "PASS " + email}
		if l := s.Lines(); len(l) < len(want) || strings.Join(l[:len(want)], "|") != strings.Join(want, "|") {
			t.Errorf("commands %q, want %q first", l, want)
		}
	}
}

// Request.IfModifiedSince: MDTM decides; a file not modified after it is
// NotModified, without a RETR.
func TestIfModifiedSince(t *testing.T) {
	for _, tc := range []struct {
		name  string
		since time.Time
		want  bool
	}{
		{"same time", mod, true},
		{"later", mod.Add(time.Hour), true},
		{"earlier", mod.Add(-time.Second), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			u, _ := urlparse.Parse("ftp://" + s.Addr + "/pub/binary.bin")
			res, body, err := fetchtest.Read(client(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, IfModifiedSince: tc.since}))
			if err != nil {
				t.Fatal(err)
			}
			retr := strings.Contains(strings.Join(s.Lines(), "\n"), "RETR binary.bin")
			if res.NotModified != tc.want || retr == tc.want || tc.want && len(body) != 0 || !tc.want && !bytes.Equal(body, binary) {
				t.Errorf("NotModified %v, RETR sent %v, body %d bytes; want NotModified %v", res.NotModified, retr, len(body), tc.want)
			}
		})
	}
}

// TestRange: a Request.Range sends REST at its start (after SIZE for
// "-LAST") and, when it has an end, aborts the transfer after it (ABOR,
// both replies read) and ends the session; past the size is ErrResume.
func TestRange(t *testing.T) {
	n := int64(len(binary))
	for _, tc := range []struct {
		spec       string
		start, end int64 // binary[start:end]
		cmds       []string
	}{
		{"0-99", 0, 100, []string{"RETR binary.bin", "ABOR"}},
		{"1000-", 1000, n, []string{"REST 1000", "RETR binary.bin"}},
		{"-10", n - 10, n, []string{"REST " + strconv.FormatInt(n-10, 10), "RETR binary.bin", "ABOR"}},
		{"100-99999999", 100, n, []string{"REST 100", "RETR binary.bin", "ABOR"}},
		{"99999999-", 0, 0, nil},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			s := newServer(t)
			r, err := fetch.ParseRange(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			u, _ := urlparse.Parse("ftp://" + s.Addr + "/pub/binary.bin")
			res, err := client(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Range: r})
			if tc.cmds == nil {
				if fetch.KindOf(err) != fetch.ErrResume {
					t.Errorf("past the end: %v, want ErrResume", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || !bytes.Equal(body, binary[tc.start:tc.end]) || res.Offset != tc.start || res.Size != tc.end-tc.start {
				t.Errorf("%d bytes at %d (Size %d, %v), want %d at %d", len(body), res.Offset, res.Size, err, tc.end-tc.start, tc.start)
			}
			want := append([]string{"USER anonymous", "PASS " + email, "PWD", "CWD pub", "EPSV", "TYPE I", "SIZE binary.bin"}, tc.cmds...)
			sameLines(t, "commands", s.Lines(), append(want, "QUIT"))
		})
	}
}

// TestRangeThenWhole: after a range aborted, a pooled Fetcher fetches the
// next URL on a new session (the aborted one ended with QUIT).
func TestRangeThenWhole(t *testing.T) {
	s := newServer(t)
	c := client(&ftp.Fetcher{}, nil)
	u, _ := urlparse.Parse("ftp://" + s.Addr + "/pub/binary.bin")
	r, _ := fetch.ParseRange("10-19")
	for _, rng := range []*fetch.Range{r, nil, r} {
		res, err := c.Do(ctx(t), &fetch.Request{URL: &u, Range: rng})
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		want := binary
		if rng != nil {
			want = binary[10:20]
		}
		if err != nil || !bytes.Equal(body, want) {
			t.Errorf("range %v: %d bytes, %v", rng, len(body), err)
		}
	}
	c.CloseIdleConnections()
	if n := strings.Count(strings.Join(s.Lines(), "\n"), "USER anonymous"); n != 2 {
		t.Errorf("%d sessions, want 2 (the whole file's kept for the next range)", n)
	}
}

// TestDataNotHalfClosed: a download keeps its end of the data connection
// open until the data have ended, as curl does: a server that takes the
// client's half-close as the end of the transfer (curl's own test server,
// sockfilt) still sends the whole file, passive or active.
func TestDataNotHalfClosed(t *testing.T) {
	for _, opts := range []map[string]string{nil, {"ftp-port": "-"}, {"ftp-epsv": "0"}} {
		s := newServer(t)
		configure(s, func(s *ftptest.Server) { s.Hook = ftptest.EOFEndsData() })
		_, body, err := get(t, client(nil, opts), "ftp://"+s.Addr+"/etc/motd")
		if err != nil || string(body) != "message of the day\n" {
			t.Errorf("%v: %q, %v; want the whole file", opts, body, err)
		}
	}
}

// TestEPSVOddReply: EPSV answered with a reply that is neither 229 nor a
// 4xx/5xx refusal (curl's test server says "314 bluah you f00l!") is
// followed by PASV, as curl does (its tests 117, 118, 120); PASV answered
// so is a refusal: the session ends with QUIT (curl's test 115).
func TestEPSVOddReply(t *testing.T) {
	odd := func(verbs ...string) ftptest.Hook {
		return func(s *ftptest.Session, verb, _ string) bool {
			if slices.Contains(verbs, verb) {
				s.Reply(314, "bluah you f00l!")
				return true
			}
			return false
		}
	}
	s := newServer(t)
	configure(s, func(s *ftptest.Server) { s.Hook = odd("EPSV") })
	if _, body, err := get(t, client(nil, nil), "ftp://"+s.Addr+"/readme"); err != nil || string(body) != "readme\n" {
		t.Fatalf("%q %v", body, err)
	}
	sameLines(t, "commands", s.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "EPSV", "PASV", "TYPE I", "SIZE readme", "RETR readme", "QUIT"})

	s2 := newServer(t)
	configure(s2, func(s *ftptest.Server) { s.Hook = odd("EPSV", "PASV") })
	_, _, err := get(t, client(nil, nil), "ftp://"+s2.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrPassive) // curl's 13
	sameLines(t, "commands", s2.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "EPSV", "PASV", "QUIT"})
}

// TestMalformedEPSVQuits: an EPSV reply whose port cannot be (1000000, as
// curl's test 238 sends) fails the request with ErrPassive (curl's 13), but the
// replies are in step: the session ends with QUIT, as curl's.
func TestMalformedEPSVQuits(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(s *ftptest.Session, verb, _ string) bool {
			if verb == "EPSV" {
				s.Reply(229, "Entering Passiv Mode (|||1000000|)")
				return true
			}
			return false
		}
	})
	_, _, err := get(t, client(nil, nil), "ftp://"+s.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrPassive)
	sameLines(t, "commands", s.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "EPSV", "QUIT"})
}

// TestLoginLenient: a greeting of 230 is a login already (no USER is
// sent: curl's test 1219), and a 2xx reply to USER other than 230 logs in
// too (curl's test 354: "200 fine, proceed without password").
func TestLoginLenient(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) { s.Greet230 = true })
	if _, body, err := get(t, client(nil, nil), "ftp://"+s.Addr+"/readme"); err != nil || string(body) != "readme\n" {
		t.Fatalf("greeting 230: %q %v", body, err)
	}
	sameLines(t, "greeting 230", s.Lines(), []string{"PWD", "EPSV", "TYPE I", "SIZE readme", "RETR readme", "QUIT"})

	s2 := newServer(t)
	configure(s2, func(s *ftptest.Server) {
		s.Hook = func(s *ftptest.Session, verb, _ string) bool {
			if verb == "USER" {
				s.LogIn()
				s.Reply(200, "fine, proceed without password")
				return true
			}
			return false
		}
	})
	if _, body, err := get(t, client(nil, nil), "ftp://"+s2.Addr+"/readme"); err != nil || string(body) != "readme\n" {
		t.Fatalf("USER 200: %q %v", body, err)
	}
	sameLines(t, "USER 200", s2.Lines(), []string{"USER anonymous", "PWD", "EPSV", "TYPE I", "SIZE readme", "RETR readme", "QUIT"})
}

// TestUploadResumeSizeRefused: an upload to resume at the remote file's
// end (fetch.UploadAtEnd, curl's -T -C -) whose SIZE is refused starts
// over from the beginning with STOR, as curl's does (its test 235).
func TestUploadResumeSizeRefused(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(s *ftptest.Session, verb, _ string) bool {
			if verb == "SIZE" {
				s.Reply(500, "command not understood")
				return true
			}
			return false
		}
	})
	u, _ := urlparse.Parse("ftp://urlget:secret@" + s.Addr + "/upload/new.bin")
	const full = "0123456789"
	res, err := client(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Offset: fetch.UploadAtEnd, Body: strings.NewReader(full), BodySize: int64(len(full))})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := string(s.File("/home/urlget/upload/new.bin")); got != full {
		t.Errorf("stored %q, want %q", got, full)
	}
	sameLines(t, "commands", s.Lines(), []string{"USER urlget", "PASS secret", "PWD", "CWD upload", "EPSV", "TYPE I", "SIZE new.bin", "STOR new.bin", "QUIT"})
}

// TestOS400NameFormat: a PWD that is no Unix path is followed by SYST;
// an OS/400 server is then asked for Unix-style names (SITE NAMEFMT 1)
// and PWD again, as curl does (its test 1102), before the transfer.
func TestOS400NameFormat(t *testing.T) {
	s := newServer(t)
	pwds := 0
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(s *ftptest.Session, verb, arg string) bool {
			switch {
			case verb == "PWD" && pwds == 0:
				pwds++
				s.Reply(257, `"QGPL" is the current library`)
			case verb == "PWD":
				s.Reply(257, `"/" is the current directory`)
			case verb == "SYST":
				s.Reply(215, " OS/400 runs this server")
			case verb == "SITE" && arg == "NAMEFMT 1":
				s.Reply(250, "Name format set to 1")
			default:
				return false
			}
			return true
		}
	})
	if _, body, err := get(t, client(nil, nil), "ftp://"+s.Addr+"/readme"); err != nil || string(body) != "readme\n" {
		t.Fatalf("%q %v", body, err)
	}
	sameLines(t, "commands", s.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "SYST", "SITE NAMEFMT 1", "PWD", "EPSV", "TYPE I", "SIZE readme", "RETR readme", "QUIT"})
}

// TestActiveNATAddress: an ftp-port address that is not this host's (the
// one a NAT shows) is told the server while the listening is on the
// control connection's address, as curl does (its test 116); EPRT and
// PORT both refused is ErrActive (curl's 30). The server never connects:
// the address is TEST-NET's.
func TestActiveNATAddress(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, _ string) bool {
			switch verb {
			case "EPRT":
				ss.Reply(500, "we don't like EPRT now")
				return true
			case "PORT":
				ss.Reply(314, "bluah you f00l!")
				return true
			}
			return false
		}
	})
	_, _, err := get(t, client(nil, map[string]string{"ftp-port": "192.0.2.7"}), "ftp://"+s.Addr+"/pub/binary.bin")
	fetchtest.WantKind(t, err, fetch.ErrActive)
	l := s.Lines()
	if len(l) < 6 || !strings.HasPrefix(l[4], "EPRT |1|192.0.2.7|") || !strings.HasPrefix(l[5], "PORT 192,0,2,7,") {
		t.Errorf("commands %q, want EPRT and PORT with 192.0.2.7", l)
	}
}

// TestEPSVPortUnreachable: a port in the EPSV reply that cannot be
// connected to is followed by PASV, as curl does (its test 1233).
func TestEPSVPortUnreachable(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, _ string) bool {
			if verb == "EPSV" {
				ss.Reply(229, "Entering Passiv Mode (|||1|)") // nothing listens on port 1
				return true
			}
			return false
		}
	})
	_, body, err := get(t, client(nil, nil), "ftp://"+s.Addr+"/readme")
	if err != nil || string(body) != "readme\n" {
		t.Fatalf("%q %v", body, err)
	}
	sameLines(t, "commands", s.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "EPSV", "PASV", "TYPE I", "SIZE readme", "RETR readme", "QUIT"})
}

// TestAUTHPipelined: a reply to AUTH followed by more bytes than itself
// (replies sent ahead, as an attacker before the TLS handshake would) is
// ErrProtocol, nothing more sent, as curl does (its test 983); a server
// that refuses both AUTH SSL and AUTH TLS is ErrUseSSL (curl's 64, its
// test 402) when TLS is required, and a login in the clear with ssl=try.
func TestAUTHPipelined(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, _ string) bool {
			if verb == "AUTH" {
				ss.Raw([]byte("500 unknown command\r\n331 give password\r\n230 Authenticated\r\n"))
				return true
			}
			return false
		}
	})
	_, _, err := get(t, client(nil, map[string]string{fetch.OptSSL: "try"}), "ftp://"+s.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrProtocol)
	sameLines(t, "commands", s.Lines(), []string{"AUTH SSL"})

	s2 := newServer(t)
	configure(s2, func(s *ftptest.Server) { s.Hook = ftptest.Reply("AUTH", "500 unknown command") })
	_, _, err = get(t, client(nil, map[string]string{fetch.OptSSL: "required"}), "ftp://"+s2.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrUseSSL)
	sameLines(t, "commands", s2.Lines(), []string{"AUTH SSL", "AUTH TLS"})
	_, body, err := get(t, client(nil, map[string]string{fetch.OptSSL: "try"}), "ftp://"+s2.Addr+"/readme")
	if err != nil || string(body) != "readme\n" {
		t.Errorf("ssl=try: %q %v", body, err)
	}
}

// TestNoQuitAfterDoubt: curl ends a session without QUIT after a PASV
// reply it cannot read (its test 237, exit 14) and after data shorter
// than SIZE said though the server said 226 (its test 161, exit 18): the
// server is not to be trusted further. An unreadable EPSV reply still
// ends with QUIT (TestMalformedEPSVQuits).
func TestNoQuitAfterDoubt(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.Hook = ftptest.Reply("PASV", "227 Entering Passiv Mode (1216,256,2,127,127,127)")
	})
	_, _, err := get(t, client(nil, map[string]string{"ftp-epsv": "0"}), "ftp://"+s.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrPassiveFormat)
	sameLines(t, "commands", s.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "PASV"})

	s2 := newServer(t)
	configure(s2, func(s *ftptest.Server) {
		s.Hook = ftptest.ShortData("binary.bin", binary, len(binary)/2, "226 Transfer complete")
	})
	_, _, err = get(t, client(nil, nil), "ftp://"+s2.Addr+"/pub/binary.bin")
	fetchtest.WantKind(t, err, fetch.ErrPartial)
	if l := s2.Lines(); len(l) == 0 || l[len(l)-1] == "QUIT" {
		t.Errorf("commands %q: QUIT after a short transfer", l)
	}
}

// TestActiveRefusedAfter150: in active mode a server that cannot connect
// and says so after its 150 (425, or 421) is ErrAccept (curl's 10, its
// tests 1206 and 1207) at once, not a wait for the accept timeout, and
// the session ends with QUIT, as curl's.
func TestActiveRefusedAfter150(t *testing.T) {
	for _, code := range []int{425, 421} {
		s := newServer(t)
		configure(s, func(s *ftptest.Server) {
			s.Hook = func(ss *ftptest.Session, verb, _ string) bool {
				if verb != "RETR" {
					return false
				}
				ss.Reply(150, "Opening data connection")
				ss.Reply(code, "Can't open data connection")
				return true
			}
		})
		f := &ftp.Fetcher{MaxIdlePerHost: -1, AcceptTimeout: 10 * time.Second}
		start := time.Now()
		_, _, err := get(t, client(f, map[string]string{"ftp-port": "-"}), "ftp://"+s.Addr+"/readme")
		fetchtest.WantKind(t, err, fetch.ErrAccept)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%d: took %v", code, d)
		}
		if l := s.Lines(); len(l) == 0 || l[len(l)-1] != "QUIT" {
			t.Errorf("%d: commands %q, want QUIT last", code, l)
		}
	}
}

// TestPRET: with ftp-pret, PRET and the transfer command to come go
// before EPSV (curl's --ftp-pret, its test 1107), for downloads,
// listings and uploads, so that a server that needs it (drftpd's model,
// ftptest.NeedPRET) serves them; without it such a server refuses
// passive mode (exit 13). A refused PRET is ErrPRET (curl's 84, its test
// 1108) and the session ends without QUIT, as curl's.
func TestPRET(t *testing.T) {
	s := newServer(t)
	configure(s, func(s *ftptest.Server) { s.NeedPRET = true })
	_, _, err := get(t, client(nil, nil), "ftp://"+s.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrPassive)

	s = newServer(t)
	configure(s, func(s *ftptest.Server) { s.NeedPRET = true })
	c := client(nil, map[string]string{ftp.OptPRET: "1"})
	if _, body, err := get(t, c, "ftp://"+s.Addr+"/readme"); err != nil || string(body) != "readme\n" {
		t.Fatalf("RETR: %q %v", body, err)
	}
	if _, _, err := get(t, c, "ftp://"+s.Addr+"/pub/"); err != nil {
		t.Fatalf("LIST: %v", err)
	}
	u, err := urlparse.Parse("ftp://urlget:secret@" + s.Addr + "/upload/new.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ftp.Upload(ctx(t), c, &fetch.Request{URL: &u}, strings.NewReader("new\n"), false); err != nil {
		t.Fatalf("STOR: %v", err)
	}
	sameLines(t, "commands", s.Lines(), []string{
		"USER anonymous", "PASS " + email, "PWD", "PRET RETR readme", "EPSV", "TYPE I", "SIZE readme", "RETR readme", "QUIT",
		"USER anonymous", "PASS " + email, "PWD", "CWD pub", "PRET LIST", "EPSV", "TYPE A", "LIST", "QUIT",
		"USER urlget", "PASS secret", "PWD", "CWD upload", "PRET STOR new.txt", "EPSV", "TYPE I", "STOR new.txt", "QUIT",
	})

	s = newServer(t)
	_, _, err = get(t, client(nil, map[string]string{ftp.OptPRET: "1"}), "ftp://"+s.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrPRET)
	sameLines(t, "commands", s.Lines(), []string{"USER anonymous", "PASS " + email, "PWD", "PRET RETR readme"})
}

// TestCCC: with ftp-ssl-ccc, CCC follows PBSZ and PROT after a login in
// TLS (curl's order) and, once the server takes it, the control
// connection goes on in the clear — the server reads the commands after
// it on the TCP connection — while the data connections stay in TLS
// (PROT P), in the passive and the active mode; on a reused connection
// too. A server that refuses CCC leaves the connection in TLS, and the
// transfer goes on (curl's test 403). A server that sends data in TLS
// where its close_notify should be is ErrTLSShutdown (curl's 80).
func TestCCC(t *testing.T) {
	srvTLS, cliTLS := fetchtest.TLSConfigs(t)
	tlsClient := func(f *ftp.Fetcher, opts map[string]string) *fetch.Client {
		c := client(f, opts)
		c.TLS = cliTLS
		return c
	}
	want := func(ccc bool) []string {
		l := []string{"AUTH SSL", "USER anonymous", "PASS " + email, "PBSZ 0", "PROT P"}
		if ccc {
			l = append(l, "CCC")
		}
		return append(l, "PWD", "EPSV", "TYPE I", "SIZE readme", "RETR readme", "QUIT")
	}
	for _, tc := range []struct {
		name  string
		opts  map[string]string
		taken bool // the server takes CCC
	}{
		{"passive", map[string]string{ftp.OptCCC: "1"}, true},
		{"active", map[string]string{ftp.OptCCCMode: ftp.CCCActive}, true},
		{"passive, said", map[string]string{ftp.OptCCC: "1", ftp.OptCCCMode: ftp.CCCPassive}, true},
		{"refused", map[string]string{ftp.OptCCC: "1"}, false},
	} {
		s := newServer(t)
		configure(s, func(s *ftptest.Server) { s.TLS, s.CCC = srvTLS, tc.taken })
		opts := map[string]string{fetch.OptSSL: "required"}
		for k, v := range tc.opts {
			opts[k] = v
		}
		if _, body, err := get(t, tlsClient(nil, opts), "ftp://"+s.Addr+"/readme"); err != nil || string(body) != "readme\n" {
			t.Errorf("%s: %q %v", tc.name, body, err)
		}
		sameLines(t, tc.name, s.Lines(), want(true))
	}

	// Reuse: the second request goes on the clear connection (no new
	// login), and one without CCC gets a connection of its own.
	s := newServer(t)
	configure(s, func(s *ftptest.Server) { s.TLS, s.CCC = srvTLS, true })
	f := &ftp.Fetcher{}
	ccc := tlsClient(f, map[string]string{fetch.OptSSL: "required", ftp.OptCCC: "1"})
	for _, name := range []string{"readme", "etc/motd"} {
		if _, _, err := get(t, ccc, "ftp://"+s.Addr+"/"+name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, _, err := get(t, tlsClient(f, map[string]string{fetch.OptSSL: "required"}), "ftp://"+s.Addr+"/readme"); err != nil {
		t.Fatal(err)
	}
	if n := s.Conns(); n != 2 {
		t.Errorf("%d connections, want 2 (one with CCC, reused; one without)", n)
	}

	s = newServer(t)
	configure(s, func(s *ftptest.Server) {
		s.TLS = srvTLS
		s.Hook = func(ss *ftptest.Session, verb, _ string) bool {
			if verb == "CCC" {
				ss.Reply(200, "CCC command successful")
				ss.Raw([]byte("220 still in TLS\r\n"))
				return true
			}
			return false
		}
	})
	_, _, err := get(t, tlsClient(nil, map[string]string{fetch.OptSSL: "required", ftp.OptCCC: "1"}), "ftp://"+s.Addr+"/readme")
	fetchtest.WantKind(t, err, fetch.ErrTLSShutdown)
	if _, _, err := get(t, tlsClient(nil, map[string]string{fetch.OptSSL: "required", ftp.OptCCCMode: "sideways"}), "ftp://"+s.Addr+"/readme"); fetch.KindOf(err) != fetch.ErrMalformed {
		t.Errorf("ccc mode sideways: %v", err)
	}
}
