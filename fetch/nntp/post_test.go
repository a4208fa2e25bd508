package nntp

import (
	"context"
	"errors"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/urlparse"
)

// postReq is a request posting article to rawURL.
func postReq(t *testing.T, s *nntptest.Server, rawURL, article string, opts ...string) *fetch.Request {
	t.Helper()
	req := request(t, s, rawURL, opts...)
	req.Body, req.BodySize = strings.NewReader(article), int64(len(article))
	return req
}

// An article with LF line ends, lines starting with ".", no Newsgroups,
// Message-ID or Date: the server receives it with CRLF line ends,
// dot-stuffing undone to exactly the lines given, the three fields added;
// the result names the Message-ID, by which the article then reads back.
func TestPost(t *testing.T) {
	s := newServer(t, nil)
	article := "From: Poster <poster@example.org>\nSubject: dots\n\n.leading\n.\n..two\nlast line without a line end"
	req := postReq(t, s, "nntp://"+s.Addr+"/misc.test", article)
	res, body, err := get(t, req)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Header.Get("Message-ID")
	if !regexp.MustCompile(`^<urlget\.[0-9a-z]+\.[0-9a-f]{16}@example\.org>$`).MatchString(id) {
		t.Errorf("Message-ID %q", id)
	}
	if string(body) != id+"\n" || res.Status != 240 {
		t.Errorf("result %q, status %d", body, res.Status)
	}
	posted := s.Posted()
	if len(posted) != 1 {
		t.Fatalf("%d articles posted", len(posted))
	}
	wire := string(posted[0])
	date := regexp.MustCompile(`\r\nDate: ([^\r\n]*)\r\n`).FindStringSubmatch(wire)
	if date == nil {
		t.Fatalf("no Date in %q", wire)
	}
	if d, err := time.Parse(time.RFC1123Z, date[1]); err != nil || time.Since(d) > time.Hour || time.Since(d) < -time.Hour {
		t.Errorf("Date %q: %v", date[1], err)
	}
	want := "From: Poster <poster@example.org>\r\nSubject: dots\r\nNewsgroups: misc.test\r\nMessage-ID: " + id +
		"\r\nDate: " + date[1] + "\r\n\r\n.leading\r\n.\r\n..two\r\nlast line without a line end\r\n"
	if wire != want {
		t.Errorf("on the wire (unstuffed):\n%q\nwant\n%q", wire, want)
	}
	lines := waitLines(s)
	if !containsLine(lines, "POST") || !containsLine(lines, "QUIT") {
		t.Errorf("commands %q", lines)
	}

	_, got, err := get(t, request(t, s, "news:"+strings.Trim(id, "<>")))
	if err != nil || string(got) != strings.ReplaceAll(want, "\r\n", "\n") {
		t.Errorf("read back: %v\n%q", err, got)
	}
}

// The fields the article has are kept as written (CRLF line ends, a
// folded Subject, a Newsgroups naming several groups, the caller's own
// Message-ID and Date); nothing is added.
func TestPostKeepsFields(t *testing.T) {
	s := newServer(t, nil)
	head := "Newsgroups: misc.test, comp.lang.go\r\nFrom: a@example.org\r\nSubject: a long\r\n\tsubject\r\n" +
		"Message-ID: <mine@example.org>\r\nDate: Tue, 01 Dec 2026 10:00:00 +0000\r\nX-Other: kept\r\n"
	res, _, err := get(t, postReq(t, s, "news:comp.lang.go", head+"\r\nbody\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Get("Message-ID") != "<mine@example.org>" {
		t.Errorf("Message-ID %q", res.Header.Get("Message-ID"))
	}
	if p := s.Posted(); len(p) != 1 || string(p[0]) != head+"\r\nbody\r\n" {
		t.Errorf("posted %q", p)
	}
}

// A bad article is refused, with a message saying why, before any
// connection is made.
func TestPostRefusedBeforeConnecting(t *testing.T) {
	s := newServer(t, nil)
	ok := "From: a@example.org\nSubject: s\n"
	for _, tc := range []struct{ name, article, want string }{
		{"empty", "", "empty"},
		{"body first", "\nhello\n", "begins with an empty line"},
		{"no From", "Subject: s\n\nbody\n", "no From"},
		{"empty Subject", "From: a@example.org\nSubject:  \n\nbody\n", "no Subject"},
		{"not a field", ok + "hello there\n\nbody\n", "header line 3 is not a header field"},
		{"space in name", "From : a@example.org\nSubject: s\n\n", "header line 1 is not a header field"},
		{"continuation first", " folded\n" + ok + "\n", "continuation"},
		{"bare CR", ok + "X-A: one\rtwo\n\n", "header line 3 holds a bare CR"},
		{"CR CR LF", ok + "X-A: one\r\r\n\n", "bare CR"},
		{"NUL", "From: a@exa\x00mple.org\nSubject: s\n\n", "NUL"},
		{"other group", "Newsgroups: comp.lang.go\n" + ok + "\n", "does not name misc.test"},
		{"two From", ok + "From: b@example.org\n\n", "two From"},
		{"bad Message-ID", ok + "Message-ID: no-brackets@example.org\n\n", "Message-ID"},
		{"Message-ID without its <", ok + "Message-ID: half@example.org>\n\n", "Message-ID"},
		{"Message-ID with space", ok + "Message-ID: <a b@example.org>\n\n", "Message-ID"},
		{"header too long", ok + "X-Long: " + strings.Repeat("x", MaxPostHeader) + "\n\nbody\n", "over 65536 bytes"},
		{"no empty line", ok + strings.Repeat("X-Many: field\n", MaxPostHeader/14+1), "over 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := get(t, postReq(t, s, "nntp://"+s.Addr+"/misc.test", tc.article))
			fetchtest.WantKind(t, err, fetch.ErrMalformed)
			if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want one line saying %q", err, tc.want)
			}
		})
	}
	if n := s.Conns(); n != 0 {
		t.Errorf("%d connections made for articles refused", n)
	}
}

// The article ends where its header does: a post without a body.
func TestPostHeaderOnly(t *testing.T) {
	s := newServer(t, nil)
	if _, _, err := get(t, postReq(t, s, "nntp://"+s.Addr+"/misc.test", "From: a@example.org\nSubject: s\nMessage-ID: <h@example.org>\nDate: x")); err != nil {
		t.Fatal(err)
	}
	if p := s.Posted(); len(p) != 1 || string(p[0]) != "From: a@example.org\r\nSubject: s\r\nMessage-ID: <h@example.org>\r\nDate: x\r\nNewsgroups: misc.test\r\n\r\n" {
		t.Errorf("posted %q", p)
	}
}

// The server's refusals and failures: 440 to POST is ErrUpload (25) and
// nothing is sent; 441 after the article ErrSendFailed (55); a server
// that closes the connection in the middle of the article, or after it
// without a reply, ErrSendFailed (not to be retried: it may have been
// posted);
// an article that cannot be read ErrRead (26), the connection dropped
// before the "." line. Each is one line, and none posts anything.
func TestPostFailures(t *testing.T) {
	article := "From: a@example.org\nSubject: s\n\n" + strings.Repeat("a line of the body\n", 2000)
	for _, tc := range []struct {
		name    string
		hostile nntptest.Hostile
		body    io.Reader
		kind    fetch.Kind
		code    int
		status  int
		want    string
	}{
		{"440", nntptest.Hostile{RefusePost: true}, nil, fetch.ErrUpload, 25, 440, "does not let this client post (nothing sent): \"440 Posting not permitted\""},
		{"441", nntptest.Hostile{FailPost: "Newsgroup is moderated"}, nil, fetch.ErrSendFailed, 55, 441, "refused the article: \"441 Newsgroup is moderated\""},
		{"close mid-article", nntptest.Hostile{ClosePost: 3}, nil, fetch.ErrSendFailed, 55, 0, "connection was lost"},
		{"close before the reply", nntptest.Hostile{SilentPost: true}, nil, fetch.ErrSendFailed, 55, 0,
			"the connection was lost after the article, before the server confirmed it (it may have been posted)"},
		{"unreadable", nntptest.Hostile{}, io.MultiReader(strings.NewReader(article[:500]), iotest.ErrReader(errors.New("disk on fire"))),
			fetch.ErrRead, 26, 0, "reading the article failed; the connection was dropped before its end, nothing was posted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(s *nntptest.Server) { s.Hostile = tc.hostile })
			req := postReq(t, s, "nntp://"+s.Addr+"/misc.test", article)
			if tc.body != nil {
				req.Body = tc.body
			}
			_, _, err := get(t, req)
			fetchtest.WantKind(t, err, tc.kind)
			var fe *fetch.Error
			if !errors.As(err, &fe) || fe.Kind.ExitCode() != tc.code || fe.Status != tc.status ||
				!strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v (status %d), want exit %d, status %d, saying %q", err, fe.Status, tc.code, tc.status, tc.want)
			}
			if p := s.Posted(); len(p) != 0 {
				t.Errorf("%d articles posted", len(p))
			}
			if tc.hostile.SilentPost && fetch.Retryable(err) {
				t.Errorf("an article that may have been posted is retryable: %v", err)
			}
		})
	}
}

// A server asking for authentication (480) gets AUTHINFO, then the POST
// again.
func TestPostAuth(t *testing.T) {
	s := newServer(t, func(s *nntptest.Server) { s.User, s.Password = "u", "p" })
	req := postReq(t, s, "nntp://"+s.Addr+"/misc.test", "From: a@example.org\nSubject: s\n\nhi\n")
	req.User, req.Password, req.HasPassword = "u", "p", true
	if _, _, err := get(t, req); err != nil {
		t.Fatal(err)
	}
	if len(s.Posted()) != 1 {
		t.Errorf("not posted: %q", s.Lines())
	}
}

// A dry run gives the article as it would be posted (fields added, LF
// line ends, not dot-stuffed) and connects nowhere: a news: URL needs no
// server for it.
func TestPostDryRun(t *testing.T) {
	t.Setenv(EnvServer, "")
	req := postReq(t, nil, "news:misc.test", "From: a@example.org\r\nSubject: s\r\n\r\n.dot\r\nbody\r\n", fetch.OptDryRun, "1")
	res, b, err := getWith(t, fetch.Config{Dialer: failDialer{t}}, req)
	if err != nil {
		t.Fatal(err)
	}
	id := res.Header.Get("Message-ID")
	m := regexp.MustCompile(`^From: a@example.org\nSubject: s\nNewsgroups: misc.test\nMessage-ID: (<[^>]+>)\nDate: [^\n]+\n\n\.dot\nbody\n$`).FindStringSubmatch(string(b))
	if m == nil || m[1] != id || res.ContentType != "message/rfc822" {
		t.Errorf("dry run %q (%s, %q)", b, res.ContentType, id)
	}
	// Without the dry run the missing server is the error it always was.
	_, _, err = get(t, postReq(t, nil, "news:misc.test", "From: a@example.org\nSubject: s\n\n"))
	if !errors.Is(err, ErrNoServer) {
		t.Errorf("no server: %v", err)
	}
}

type failDialer struct{ t *testing.T }

func (d failDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	d.t.Error("a dry run dialed")
	return nil, errors.New("no")
}

// Only a URL naming one group takes an article; the Client refuses the
// others before any connection.
func TestSendsBody(t *testing.T) {
	for raw, want := range map[string]bool{
		"news:misc.test": true, "nntp://h/misc.test": true, "nntps://h/misc.test": true, "news://h/misc.test": true,
		"news:*": false, "news:comp.*": false, "news:id@example.org": false, "nntp://h/misc.test/3": false,
		"nntp://h/": false, "nntp://h/id@example.org": false,
	} {
		u, err := urlparse.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := (Fetcher{}).SendsBody(&u); got != want {
			t.Errorf("SendsBody(%s) = %v", raw, got)
		}
	}
	s := newServer(t, nil)
	c := &fetch.Client{}
	u, _ := urlparse.Parse("nntp://" + s.Addr + "/misc.test/1")
	_, err := c.Do(context.Background(), &fetch.Request{URL: &u, Body: strings.NewReader("From: a@b.c\nSubject: s\n\n"), BodySize: -1})
	fetchtest.WantKind(t, err, fetch.ErrUnsupported)
	if s.Conns() != 0 {
		t.Errorf("connected")
	}
}

// Through the Client, as a program or the CLI's -T posts: the body goes to
// the fetcher (BodySender), the result is the Message-ID.
func TestPostThroughClient(t *testing.T) {
	s := newServer(t, nil)
	c := &fetch.Client{Options: fetch.Options{OptServer: s.Addr}}
	u, _ := urlparse.Parse("news:misc.test")
	res, err := c.Do(context.Background(), &fetch.Request{URL: &u, Body: strings.NewReader("From: a@example.org\nSubject: s\nMessage-ID: <c@example.org>\n\nhi\n"), BodySize: -1})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "<c@example.org>\n" || len(s.Posted()) != 1 {
		t.Errorf("result %q, posted %d", b, len(s.Posted()))
	}
}

func TestFromDomain(t *testing.T) {
	for in, want := range map[string]string{
		"Joe <joe@example.org>": "example.org", "joe@example.org (Joe)": "example.org", "joe@localhost": "urlget.invalid",
		"joe": "urlget.invalid", "joe@[127.0.0.1]": "urlget.invalid", "joe@ex_ample.org": "urlget.invalid", "a@b@news.example.net": "news.example.net",
	} {
		if got := fromDomain(in); got != want {
			t.Errorf("fromDomain(%q) = %q, want %q", in, got, want)
		}
	}
}
