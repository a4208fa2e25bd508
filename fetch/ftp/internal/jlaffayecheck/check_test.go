package jlaffayecheck

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	jl "github.com/jlaffaye/ftp"
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/internal/testserver"
)

func client(opts map[string]string) *fetch.Client {
	f := &ftp.Fetcher{MaxIdlePerHost: -1}
	return &fetch.Client{Fetchers: map[string]func(fetch.Config) fetch.Fetcher{"ftp": func(cfg fetch.Config) fetch.Fetcher {
		f.Config = cfg
		return f
	}}, Options: opts}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

// urlget fetches url whole.
func urlget(t *testing.T, opts map[string]string, url string) ([]byte, error) {
	t.Helper()
	_, body, err := fetchtest.Read(client(opts).Open(ctx(t), url))
	return body, err
}

// jlaffaye logs in to addr with jlaffaye/ftp and retrieves path.
func jlaffaye(addr, user, pass, path string) ([]byte, error) {
	c, err := jl.Dial(addr, jl.DialWithTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	defer c.Quit()
	if err := c.Login(user, pass); err != nil {
		return nil, err
	}
	r, err := c.Retr(path)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	return b, err
}

// lines are the command lines of server connection n.
func lines(s *ftptest.Server, n int) []string {
	var l []string
	for _, c := range s.Commands() {
		if c.Conn == n {
			l = append(l, c.Line)
		}
	}
	return l
}

// TestACCT: a server that answers PASS with 332 (an account is needed).
// urlget sends ACCT (ftp-account) and logs in; jlaffaye's Login has no
// ACCT and fails.
func TestACCT(t *testing.T) {
	s := ftptest.New(t)
	s.AddFile("/f.txt", []byte("file\n"), time.Now())
	s.Configure(func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			switch verb {
			case "PASS":
				ss.Reply(332, "Need account for login")
			case "ACCT":
				if arg != "acct1" {
					ss.Reply(530, "Bad account")
					break
				}
				ss.LogIn()
				ss.Reply(230, "Logged in")
			default:
				return false
			}
			return true
		}
	})
	body, err := urlget(t, map[string]string{"ftp-account": "acct1"}, "ftp://"+s.Addr+"/f.txt")
	if err != nil || string(body) != "file\n" {
		t.Fatalf("urlget: %q %v", body, err)
	}
	_, err = jlaffaye(s.Addr, "anonymous", "a@b", "f.txt")
	if err == nil || !strings.Contains(err.Error(), "332") {
		t.Fatalf("jlaffaye: %v, want its Login to fail on 332", err)
	}
	for _, l := range lines(s, 2) {
		if strings.HasPrefix(l, "ACCT") {
			t.Errorf("jlaffaye sent %q", l)
		}
	}
}

// TestCWDPerSegment: RFC 1738 §3.2.2 fetches ftp://host/pub/a/deep.txt
// as CWD pub, CWD a, RETR deep.txt. jlaffaye's Retr sends the whole path
// in one RETR (a caller must split the path and CWD itself), which a
// server without "/" as its separator (VMS, MVS) cannot take.
func TestCWDPerSegment(t *testing.T) {
	s := ftptest.New(t)
	s.AddFile("/pub/a/deep.txt", []byte("deep\n"), time.Now())
	if body, err := urlget(t, nil, "ftp://"+s.Addr+"/pub/a/deep.txt"); err != nil || string(body) != "deep\n" {
		t.Fatalf("urlget: %q %v", body, err)
	}
	if body, err := jlaffaye(s.Addr, "anonymous", "a@b", "pub/a/deep.txt"); err != nil || string(body) != "deep\n" {
		t.Fatalf("jlaffaye: %q %v", body, err)
	}
	pick := func(n int) []string {
		var l []string
		for _, c := range lines(s, n) {
			if strings.HasPrefix(c, "CWD") || strings.HasPrefix(c, "RETR") {
				l = append(l, c)
			}
		}
		return l
	}
	if got, want := strings.Join(pick(1), "|"), "CWD pub|CWD a|RETR deep.txt"; got != want {
		t.Errorf("urlget sent %q, want %q", got, want)
	}
	if got, want := strings.Join(pick(2), "|"), "RETR pub/a/deep.txt"; got != want {
		t.Errorf("jlaffaye sent %q, want %q", got, want)
	}
}

// TestActiveMode: vsftpd with passive mode off (pasv_enable=NO). urlget
// fetches in active mode (ftp-port "-": EPRT, then PORT); jlaffaye/ftp
// has neither EPRT nor PORT and cannot open a data connection.
func TestActiveMode(t *testing.T) {
	s := testserver.StartFTPConf(t, testserver.Vsftpd, "pasv_enable=NO")
	want := string(testserver.FTPFixtureFiles["readme.txt"])
	body, err := urlget(t, map[string]string{"ftp-port": "-"}, s.URL+"/readme.txt")
	if err != nil || string(body) != want {
		t.Fatalf("urlget active: %q %v", body, err)
	}
	if _, err := urlget(t, nil, s.URL+"/readme.txt"); err == nil {
		t.Fatal("urlget passive worked: vsftpd's passive mode is not off, the test shows nothing")
	}
	if body, err := jlaffaye(s.Addr, "anonymous", "a@b", "readme.txt"); err == nil {
		t.Fatalf("jlaffaye: %q, want a failure (no active mode)", body)
	}
}

// TestFinal250: RFC 959 allows 250 as the final reply to RETR. urlget
// takes it; jlaffaye's Response.Close wants 226 and fails.
func TestFinal250(t *testing.T) {
	s := ftptest.New(t)
	s.AddFile("/f.txt", []byte("file\n"), time.Now())
	s.Configure(func(s *ftptest.Server) {
		s.Hook = func(ss *ftptest.Session, verb, arg string) bool {
			if verb != "RETR" {
				return false
			}
			ss.Reply(150, "Opening data connection (5 bytes)")
			dc, err := ss.OpenData()
			if err != nil {
				ss.Reply(425, "No data connection")
				return true
			}
			io.WriteString(dc, "file\n")
			dc.Close()
			ss.Reply(250, "Transfer complete")
			return true
		}
	})
	if body, err := urlget(t, nil, "ftp://"+s.Addr+"/f.txt"); err != nil || string(body) != "file\n" {
		t.Fatalf("urlget: %q %v", body, err)
	}
	body, err := jlaffaye(s.Addr, "anonymous", "a@b", "f.txt")
	if err == nil || !strings.Contains(err.Error(), "250") {
		t.Fatalf("jlaffaye: %q %v, want its Close to fail on 250", body, err)
	}
}
