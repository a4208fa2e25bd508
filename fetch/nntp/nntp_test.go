package nntp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/urlparse"
)

// newServer starts an in-tree server with the sample groups.
func newServer(t *testing.T, mod func(*nntptest.Server)) *nntptest.Server {
	t.Helper()
	s := &nntptest.Server{Groups: nntptest.Sample()}
	if mod != nil {
		mod(s)
	}
	return s.Start(t)
}

// request builds a request for rawURL; news: URLs get the server s.
func request(t *testing.T, s *nntptest.Server, rawURL string, opts ...string) *fetch.Request {
	t.Helper()
	u, err := urlparse.Parse(rawURL)
	if err != nil {
		t.Fatalf("parse %q: %v", rawURL, err)
	}
	req := &fetch.Request{URL: &u, Options: map[string]string{}}
	if s != nil {
		req.Options[OptServer] = s.Addr
	}
	for i := 0; i+1 < len(opts); i += 2 {
		req.Options[opts[i]] = opts[i+1]
	}
	return req
}

func get(t *testing.T, req *fetch.Request) (*fetch.Resource, []byte, error) {
	t.Helper()
	return getWith(t, fetch.Config{}, req)
}

// getWith is get with a Fetcher built from cfg.
func getWith(t *testing.T, cfg fetch.Config, req *fetch.Request) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return fetchtest.Read(Fetcher{Config: cfg}.Open(ctx, req))
}

func getCtx(ctx context.Context, req *fetch.Request) (*fetch.Resource, []byte, error) {
	return fetchtest.Read(Fetcher{}.Open(ctx, req))
}

func sampleArticle(t *testing.T, id string) *nntptest.Article {
	for _, g := range nntptest.Sample() {
		for _, a := range g.Articles {
			if a != nil && a.MessageID == id {
				return a
			}
		}
	}
	t.Fatalf("no sample article %s", id)
	return nil
}

// waitLines returns the command lines of every connection so far, each
// connection's once it has ended (QUIT is sent as the body closes, without
// waiting), in the order the connections were accepted.
func waitLines(s *nntptest.Server) []string {
	var all []string
	for i := range s.Conns() {
		all = append(all, s.Session(i)...)
	}
	return all
}

func TestArticleByMessageID(t *testing.T) {
	s := newServer(t, nil)
	for _, id := range []string{"<known-1@example.net>", "<dots@example.net>", "<xpost@example.net>"} {
		a := sampleArticle(t, id)
		res, b, err := get(t, request(t, s, "news:"+strings.Trim(id, "<>")))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, lf(a.Bytes())) {
			t.Errorf("%s: body\n%q\nwant\n%q", id, b, lf(a.Bytes()))
		}
		if res.Status != 220 || res.Dir || res.Size != -1 || res.ContentType != "message/rfc822" {
			t.Errorf("%s: meta %+v", id, res.Meta)
		}
	}
	lines := waitLines(s)
	want := []string{"CAPABILITIES", "ARTICLE <known-1@example.net>", "QUIT"}
	if strings.Join(lines[:3], "|") != strings.Join(want, "|") {
		t.Errorf("commands %q, want %q", lines[:3], want)
	}
}

func TestDotStuffingOnTheWire(t *testing.T) {
	s := newServer(t, nil)
	a := sampleArticle(t, "<dots@example.net>")
	_, b, err := get(t, request(t, s, "news:dots@example.net", OptBody, "1"))
	if err != nil {
		t.Fatal(err)
	}
	want := ".leading dot\n..two leading dots\n.\nafter a lone dot line\n"
	if string(b) != want || string(lf([]byte(a.BodyText()))) != want {
		t.Errorf("BODY = %q, want %q", b, want)
	}
	// --raw: the wire's CRLF kept.
	if _, b, err = get(t, request(t, s, "news:dots@example.net", OptBody, "1", fetch.OptRaw, "1")); err != nil || string(b) != a.BodyText() {
		t.Errorf("BODY --raw = %q %v, want %q", b, err, a.BodyText())
	}
	res, b, err := get(t, request(t, s, "news:dots@example.net", OptHead, "1"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != string(lf([]byte(a.HeadText()))) || res.Status != 221 {
		t.Errorf("HEAD = %d %q, want %q", res.Status, b, a.HeadText())
	}
	// Request.Head: HEAD on the wire, metadata only.
	req := request(t, s, "news:dots@example.net")
	req.Head = true
	res, b, err = get(t, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 0 || res.Status != 221 || !res.ModTime.Equal(time.Date(2026, 11, 21, 7, 37, 18, 0, time.UTC)) || res.ContentType != "message/rfc822" {
		t.Errorf("Request.Head: body %q, meta %+v", b, res.Meta)
	}
	cmds := "CAPABILITIES|BODY <dots@example.net>|QUIT|CAPABILITIES|BODY <dots@example.net>|QUIT|CAPABILITIES|HEAD <dots@example.net>|QUIT|CAPABILITIES|HEAD <dots@example.net>|QUIT"
	if l := waitLines(s); strings.Join(l, "|") != cmds {
		t.Errorf("commands %q", l)
	}
}

// The dot reader on its own: stuffing undone at line starts only, pieces
// of long lines passed through, bare-LF terminator accepted, nothing read
// past the terminator.
func TestDotReader(t *testing.T) {
	long := strings.Repeat("y", 3*bufSize+17)
	cases := []struct{ wire, want string }{
		{".\r\n", ""},
		{"a\r\n.\r\n", "a\r\n"},
		{"..\r\n.\r\n", ".\r\n"},
		{"...\r\n.\r\n", "..\r\n"},
		{"a.b\r\n.x\r\n.\r\n", "a.b\r\nx\r\n"},
		{"." + long + "\r\n.\r\n", long + "\r\n"},
		{long + ".\r\n..\r\n.\r\n", long + ".\r\n.\r\n"},
		{"lf only\n.\n", "lf only\n"},
		{strings.Repeat("y", bufSize) + ".\r\n.\r\n", strings.Repeat("y", bufSize) + ".\r\n"},
	}
	for _, c := range cases {
		client, server := net.Pipe()
		go func() {
			io.WriteString(server, c.wire+"AFTER\r\n")
			server.Close()
		}()
		cn := &conn{ctx: context.Background(), nc: client}
		cn.br = newReader(client)
		d := newDotReader(cn)
		got, err := io.ReadAll(d)
		if err != nil || string(got) != c.want || !d.Ended() {
			t.Errorf("wire %.40q: got %.60q %v, want %.60q", c.wire, got, err, c.want)
		}
		rest, _ := io.ReadAll(cn.br)
		if string(rest) != "AFTER\r\n" {
			t.Errorf("wire %.40q: read past the terminator: rest %q", c.wire, rest)
		}
		client.Close()
	}
	// No terminator: an error, not a short success.
	client, server := net.Pipe()
	go func() { io.WriteString(server, "a\r\nb"); server.Close() }()
	cn := &conn{ctx: context.Background(), nc: client, br: newReader(client)}
	_, err := io.ReadAll(newDotReader(cn))
	fetchtest.WantKind(t, err, fetch.ErrPartial)
}

func TestNNTPURLGroupAndNumber(t *testing.T) {
	s := newServer(t, nil)
	base := "nntp://" + s.Addr + "/"
	a := sampleArticle(t, "<dots@example.net>")
	_, b, err := get(t, request(t, nil, base+"local.test/4"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, lf(a.Bytes())) {
		t.Errorf("body %q", b)
	}
	if l := waitLines(s); strings.Join(l[:3], "|") != "CAPABILITIES|GROUP local.test|ARTICLE 4" {
		t.Errorf("commands %q", l)
	}
	// lynx's form: a message-id in place of the group.
	_, b, err = get(t, request(t, nil, base+"known-1@example.net"))
	if err != nil || !bytes.Equal(b, lf(sampleArticle(t, "<known-1@example.net>").Bytes())) {
		t.Errorf("nntp://host/msgid: %v %q", err, b)
	}
	// A pasted message-id, angle brackets included, in place of the article.
	_, b, err = get(t, request(t, nil, base+"local.test/%3Cknown-1@example.net%3E"))
	if err != nil || !bytes.Equal(b, lf(sampleArticle(t, "<known-1@example.net>").Bytes())) {
		t.Errorf("nntp://host/group/<msgid>: %v %q", err, b)
	}
}

func TestNotFound(t *testing.T) {
	s := newServer(t, nil)
	base := "nntp://" + s.Addr + "/"
	for _, u := range []string{
		base + "local.test/3",        // 423: expired number
		base + "local.test/99",       // 423
		base + "no.such.group/1",     // 411
		base + "no.such.group",       // 411
		"news:missing@example.net",   // 430
		"news:no.such.group",         // 411
		base + "missing@example.net", // 430
	} {
		_, _, err := get(t, request(t, s, u))
		fetchtest.WantKind(t, err, fetch.ErrNotFound)
		if !strings.Contains(err.Error(), `"4`) {
			t.Errorf("%s: error %q does not quote the server's line", u, err)
		}
	}
}

// expectedListing builds the article listing lines from the sample data.
func expectedListing(t *testing.T, s *nntptest.Server, group string, from int64) []string {
	var g *nntptest.Group
	for _, x := range s.Groups {
		if x.Name == group {
			g = x
		}
	}
	var out []string
	for i, a := range g.Articles {
		n := int64(i) + 1
		if a == nil || n < from {
			continue
		}
		var subj, author, date string
		for _, h := range a.Head {
			k, v, _ := strings.Cut(h, ": ")
			switch k {
			case "Subject":
				subj = v
			case "From":
				author = v
			case "Date":
				d, err := time.Parse(time.RFC1123Z, v)
				if err != nil {
					t.Fatal(err)
				}
				date = d.UTC().Format(time.RFC3339)
			}
		}
		subj = strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return '?'
			}
			return r
		}, subj)
		out = append(out, fmt.Sprintf("%d\t%s\t%s\t%s\tnntp://%s/%s/%d", n, date, author, subj, s.Addr, group, n))
	}
	return out
}

func TestGroupListing(t *testing.T) {
	for _, mode := range []string{"OVER", "XOVER", "HEAD"} {
		t.Run(mode, func(t *testing.T) {
			s := newServer(t, func(s *nntptest.Server) {
				s.NoOver = mode != "OVER"
				s.NoXover = mode == "HEAD"
			})
			res, b, err := get(t, request(t, s, "news:local.test"))
			if err != nil {
				t.Fatal(err)
			}
			want := expectedListing(t, s, "local.test", 1)
			if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("listing\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if !res.Dir || res.Listing == nil {
				t.Errorf("meta %+v", res.Meta)
			}
			lines := waitLines(s)
			cmd := map[string]string{"OVER": "OVER 1-5", "XOVER": "XOVER 1-5", "HEAD": "HEAD 1"}[mode]
			found := false
			for _, l := range lines {
				found = found || l == cmd
			}
			if !found {
				t.Errorf("%s not sent: %q", cmd, lines)
			}
			if mode == "XOVER" && lines[2] != "XOVER 1-5" {
				// CAPABILITIES lacks OVER: XOVER straight away.
				t.Errorf("commands %q", lines)
			}
			if mode == "HEAD" {
				want := []string{"HEAD 1", "HEAD 2", "HEAD 3", "HEAD 4", "HEAD 5", "QUIT"}
				if got := lines[len(lines)-6:]; strings.Join(got, "|") != strings.Join(want, "|") {
					t.Errorf("HEAD fallback commands %q", got)
				}
			}
		})
	}
}

func TestGroupListingEntriesAndJSON(t *testing.T) {
	s := newServer(t, nil)
	req := request(t, s, "news:local.test", OptMaxArticles, "2")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := Fetcher{}.Open(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var got []fetch.Entry
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	res.Body.Close()
	// The newest two numbers are 4 and 5 (range 4-5).
	if len(got) != 2 || got[0].Name != "4" || got[1].Name != "5" {
		t.Fatalf("entries %+v", got)
	}
	want := expectedListing(t, s, "local.test", 4)
	for i, e := range got {
		if e.Type != fetch.EntryFile || e.Raw != want[i] || e.Size != -1 || e.Unparsed {
			t.Errorf("entry %+v", e)
		}
		if !e.ModTime.Equal(time.Date(2026, 11, 21, 7, 37, 18, 0, time.UTC)) {
			t.Errorf("modtime %v", e.ModTime)
		}
		u, err := urlparse.Parse(e.URL)
		if err != nil || u.Scheme != "nntp" || u.NNTP.Group != "local.test" || u.NNTP.Article != e.Name || u.Port != s.Port {
			t.Errorf("entry URL %q does not parse back: %+v %v", e.URL, u.NNTP, err)
		}
	}
	if l := waitLines(s); l[2] != "OVER 4-5" {
		t.Errorf("commands %q", l)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, strings.NewReader(strings.Join(want, "\n")+"\n")); err != nil {
		t.Fatal(err)
	}
	wantJSON := fmt.Sprintf(`{"number":4,"date":"2026-11-21T07:37:18Z","author":"Fixture Poster <poster@example.net>","subject":"Dots","url":"nntp://%s/local.test/4"}`+"\n"+
		`{"number":5,"date":"2026-11-21T07:37:18Z","author":"Fixture Poster <poster@example.net>","subject":"Odd ?[31mchars?","url":"nntp://%s/local.test/5"}`+"\n", s.Addr, s.Addr)
	if js.String() != wantJSON {
		t.Errorf("JSON\n%s\nwant\n%s", js.String(), wantJSON)
	}
}

func TestEmptyGroupAndHead(t *testing.T) {
	s := newServer(t, nil)
	res, b, err := get(t, request(t, s, "news:local.empty"))
	if err != nil || len(b) != 0 || !res.Dir || res.Status != 211 {
		t.Errorf("empty group: %v %q %+v", err, b, res)
	}
	req := request(t, s, "news:local.test")
	req.Head = true
	res, b, err = get(t, req)
	if err != nil || len(b) != 0 || !res.Dir {
		t.Errorf("HEAD of a group: %v %q", err, b)
	}
	for _, l := range waitLines(s) {
		if strings.HasPrefix(l, "OVER") {
			t.Errorf("overview asked for: %q", l)
		}
	}
}

func TestGroupsList(t *testing.T) {
	s := newServer(t, nil)
	line := func(name string, high, low int64, desc string) string {
		return fmt.Sprintf("%s\t%d\t%d\ty\t%s\tnntp://%s/%s", name, high, low, desc, s.Addr, name)
	}
	all := []string{
		line("local.test", 5, 1, ""),
		line("comp.infosystems.www.servers.unix", 1, 1, ""),
		line("local.empty", 0, 1, ""),
	}
	cases := []struct {
		url, cmd string
		opts     []string
		want     []string
	}{
		{"news:*", "LIST ACTIVE", nil, all},
		{"nntp://" + s.Addr + "/", "LIST ACTIVE", nil, all}, // no group: the server's groups, as lynx
		{"nntp://" + s.Addr, "LIST ACTIVE", nil, all},
		{"news:local.*", "LIST ACTIVE local.*", nil, []string{all[0], all[2]}},
		{"nntp://" + s.Addr + "/comp.*", "LIST ACTIVE comp.*", nil, []string{all[1]}},
		{"news:local.*", "LIST ACTIVE local.*", []string{OptDescribe, "1"}, []string{
			line("local.test", 5, 1, "Local test group"), line("local.empty", 0, 1, "")}},
	}
	for _, c := range cases {
		before := len(s.Lines())
		res, b, err := get(t, request(t, s, c.url, c.opts...))
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if got := strings.TrimSuffix(string(b), "\n"); got != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", c.url, got, strings.Join(c.want, "\n"))
		}
		if !res.Dir || res.Status != 215 {
			t.Errorf("%s: meta %+v", c.url, res.Meta)
		}
		lines := waitLines(s)[before:]
		if !containsLine(lines, c.cmd) {
			t.Errorf("%s: %q not sent: %q", c.url, c.cmd, lines)
		}
		if len(c.opts) > 0 && !containsLine(lines, "LIST NEWSGROUPS local.*") {
			t.Errorf("%s: no LIST NEWSGROUPS: %q", c.url, lines)
		}
		for e, err := range (&fetch.Resource{Body: io.NopCloser(bytes.NewReader(b)), Listing: res.Listing}).Entries() {
			if err != nil || e.Type != fetch.EntryDir || e.URL != fmt.Sprintf("nntp://%s/%s", s.Addr, e.Name) {
				t.Errorf("entry %+v %v", e, err)
			}
		}
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, strings.NewReader(line("local.test", 5, 1, "Local test group")+"\n")); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`{"group":"local.test","high":5,"low":1,"status":"y","description":"Local test group","url":"nntp://%s/local.test"}`+"\n", s.Addr); js.String() != want {
		t.Errorf("JSON %s want %s", js.String(), want)
	}
}

func containsLine(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

func TestServerChoice(t *testing.T) {
	s := newServer(t, nil)
	t.Setenv(EnvServer, "")
	// No server anywhere: refused before connecting, with advice.
	_, _, err := get(t, request(t, nil, "news:local.test"))
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
	if !strings.Contains(err.Error(), "Options[nntp-server]") || !strings.Contains(err.Error(), EnvServer) {
		t.Errorf("error %q does not say how to set a server", err)
	}
	// $NNTPSERVER.
	t.Setenv(EnvServer, s.Addr)
	if _, _, err := get(t, request(t, nil, "news:local.test")); err != nil {
		t.Errorf("$NNTPSERVER: %v", err)
	}
	if s.Conns() != 1 {
		t.Errorf("%d connections, want 1", s.Conns())
	}
	// The option wins over the environment.
	t.Setenv(EnvServer, "127.0.0.1:1")
	if _, _, err := get(t, request(t, s, "news:local.test")); err != nil {
		t.Errorf("option over $NNTPSERVER: %v", err)
	}
	// news://host:port/group (RFC 5538) uses its own host.
	t.Setenv(EnvServer, "")
	if _, _, err := get(t, request(t, nil, "news://"+s.Addr+"/local.test")); err != nil {
		t.Errorf("news://host/group: %v", err)
	}
}

func TestSplitServer(t *testing.T) {
	cases := []struct {
		in   string
		host string
		port int
		ok   bool
	}{
		{"news.example.net", "news.example.net", 119, true},
		{"news.example.net:1190", "news.example.net", 1190, true},
		{"[::1]:563", "::1", 563, true},
		{"[::1]", "::1", 119, true},
		{"::1", "::1", 119, true},
		{"host:0", "", 0, false},
		{"host:70000", "", 0, false},
		{"host:+12", "", 0, false},
		{"host:", "", 0, false},
		{":119", "", 0, false},
		{"[::1", "", 0, false},
		{"[::1]x", "", 0, false},
		{"a b", "", 0, false},
		{"nntp://host", "", 0, false},
		{"", "", 0, false},
	}
	for _, c := range cases {
		h, p, err := splitServer(c.in)
		if (err == nil) != c.ok || h != c.host || p != c.port {
			t.Errorf("splitServer(%q) = %q %d %v", c.in, h, p, err)
		}
	}
}

func TestModeReader(t *testing.T) {
	for _, c := range []struct {
		name string
		mod  func(*nntptest.Server)
		want []string
	}{
		{"switching", func(s *nntptest.Server) { s.ModeSwitching = true },
			[]string{"CAPABILITIES", "MODE READER", "CAPABILITIES", "ARTICLE <known-1@example.net>", "QUIT"}},
		{"no CAPABILITIES", func(s *nntptest.Server) { s.NoCapabilities = true; s.ModeSwitching = true },
			[]string{"CAPABILITIES", "MODE READER", "ARTICLE <known-1@example.net>", "QUIT"}},
		{"401 MODE-READER", func(s *nntptest.Server) { s.ModeSwitching, s.HideModeReader = true, true },
			[]string{"CAPABILITIES", "ARTICLE <known-1@example.net>", "MODE READER", "CAPABILITIES", "ARTICLE <known-1@example.net>", "QUIT"}},
		{"reader", nil,
			[]string{"CAPABILITIES", "ARTICLE <known-1@example.net>", "QUIT"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, c.mod)
			_, b, err := get(t, request(t, s, "news:known-1@example.net"))
			if err != nil || !bytes.Equal(b, lf(sampleArticle(t, "<known-1@example.net>").Bytes())) {
				t.Fatalf("%v %q", err, b)
			}
			if got := waitLines(s); strings.Join(got, "|") != strings.Join(c.want, "|") {
				t.Errorf("commands %q, want %q", got, c.want)
			}
		})
	}
}

func TestAuth(t *testing.T) {
	s := newServer(t, func(s *nntptest.Server) { s.User, s.Password = "reader", "pa ss:word" })
	req := request(t, s, "news:known-1@example.net")
	req.User, req.Password, req.HasPassword = "reader", "pa ss:word", true
	var verbose bytes.Buffer
	cfg := fetch.Config{Verbose: &verbose}
	_, b, err := getWith(t, cfg, req)
	if err != nil || !bytes.Equal(b, lf(sampleArticle(t, "<known-1@example.net>").Bytes())) {
		t.Fatalf("%v %q", err, b)
	}
	want := []string{"CAPABILITIES", "ARTICLE <known-1@example.net>", "AUTHINFO USER reader", "AUTHINFO PASS pa ss:word", "ARTICLE <known-1@example.net>", "QUIT"}
	if got := waitLines(s); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("commands %q", got)
	}
	v := verbose.String()
	if strings.Contains(v, "pa ss") || !strings.Contains(v, "> AUTHINFO PASS ****\n") || !strings.Contains(v, "< 281 ") {
		t.Errorf("verbose log:\n%s", v)
	}

	req.Password = "wrong"
	_, _, err = getWith(t, cfg, req)
	fetchtest.WantKind(t, err, fetch.ErrLoginDenied)
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("error shows the password: %v", err)
	}
	req.User, req.Password, req.HasPassword = "", "", false
	_, _, err = get(t, req)
	fetchtest.WantKind(t, err, fetch.ErrLoginDenied)
	if !strings.Contains(err.Error(), "-u USER:PASSWORD") {
		t.Errorf("no advice in %q", err)
	}
	req.User = "reader"
	_, _, err = get(t, req)
	fetchtest.WantKind(t, err, fetch.ErrLoginDenied)
}

func TestReplyMapping(t *testing.T) {
	for _, c := range []struct {
		code int
		kind fetch.Kind
	}{
		{411, fetch.ErrNotFound}, {423, fetch.ErrNotFound}, {430, fetch.ErrNotFound}, {420, fetch.ErrNotFound},
		{480, fetch.ErrLoginDenied}, {481, fetch.ErrLoginDenied}, {482, fetch.ErrLoginDenied},
		{502, fetch.ErrAccessDenied}, {483, fetch.ErrAccessDenied},
		{500, fetch.ErrProtocol}, {501, fetch.ErrProtocol}, {403, fetch.ErrProtocol}, {221, fetch.ErrProtocol},
	} {
		line := strconv.Itoa(c.code) + " " + strings.Repeat("z", 500)
		err := replyError("ARTICLE", reply{code: c.code, line: line})
		fetchtest.WantKind(t, err, c.kind)
		if !strings.Contains(err.Error(), strconv.Itoa(c.code)+" zzz") || len(err.Error()) > 400 {
			t.Errorf("%d: message %q", c.code, err)
		}
	}
	// Greetings.
	for _, c := range []struct {
		greeting string
		kind     fetch.Kind
	}{
		{"400 Service temporarily unavailable", fetch.ErrConnect},
		{"502 You have no permission to talk", fetch.ErrAccessDenied},
		{"480 what", fetch.ErrProtocol},
		{"hello there", fetch.ErrProtocol},
		{"2000 too many digits", fetch.ErrProtocol},
	} {
		s := newServer(t, func(s *nntptest.Server) { s.Greeting = c.greeting })
		_, _, err := get(t, request(t, s, "news:known-1@example.net"))
		fetchtest.WantKind(t, err, c.kind)
		if !strings.Contains(err.Error(), strconv.Quote(c.greeting)) {
			t.Errorf("%q: message %q", c.greeting, err)
		}
	}
}

// Bytes that could smuggle a second command are refused before any
// connection is made, even without the Client's CheckLine.
func TestInjectionRefusedBeforeConnecting(t *testing.T) {
	s := newServer(t, nil)
	base := "nntp://" + s.Addr + "/"
	for _, u := range []string{
		"news:a%0D%0AQUIT@example.net",
		"news:a%0Ab@example.net",
		"news:a%00b@example.net",
		"news:a%20b@example.net",
		"news:a%3Eb@example.net",
		"news:local.test%0D%0AQUIT",
		"news:local.test%20x",
		"news:local%00test",
		"news:local%3Etest",
		"news:local.*%0D%0AQUIT",
		base + "local.test%0D%0ALIST/1",
		base + "local%20test/1",
		base + "x%0D%0Ay@example.net",
	} {
		_, _, err := get(t, request(t, s, u))
		fetchtest.WantKind(t, err, fetch.ErrMalformed)
	}
	// Article numbers hold digits only (urlparse refuses others; the
	// fetcher too, on its own).
	u, _ := urlparse.Parse(base + "local.test/1")
	for _, bad := range []string{"1\r\nQUIT", "1 2", "12345678901234567", "-1"} {
		u.NNTP.Article = bad
		_, _, err := get(t, &fetch.Request{URL: &u})
		fetchtest.WantKind(t, err, fetch.ErrMalformed)
	}
	// Credentials too.
	req := request(t, s, "news:known-1@example.net")
	req.User, req.Password = "u", "p\r\nQUIT"
	_, _, err := get(t, req)
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
	if s.Conns() != 0 {
		t.Errorf("the server got %d connections: %q", s.Conns(), s.Lines())
	}
}

// The command writer refuses CR, LF and NUL on its own, writing nothing.
func TestCommandWriterRefuses(t *testing.T) {
	for _, cmd := range []string{"ARTICLE <a\r\nQUIT>", "GROUP a\nb", "GROUP a\x00", "AUTHINFO PASS x\ry"} {
		client, server := net.Pipe()
		got := make(chan []byte)
		go func() { b, _ := io.ReadAll(server); got <- b }()
		var v bytes.Buffer
		c := &conn{ctx: context.Background(), nc: client, verbose: &v}
		fetchtest.WantKind(t, c.send(cmd), fetch.ErrMalformed)
		client.Close()
		if b := <-got; len(b) != 0 || v.Len() != 0 {
			t.Errorf("%q: wrote %q, logged %q", cmd, b, v.String())
		}
	}
}

func TestHugeGreeting(t *testing.T) {
	s := newServer(t, func(s *nntptest.Server) { s.Hostile.HugeGreeting = 8 << 20 })
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, _, err := get(t, request(t, s, "news:known-1@example.net"))
	runtime.ReadMemStats(&after)
	fetchtest.WantKind(t, err, fetch.ErrProtocol)
	if len(err.Error()) > 400 || !strings.Contains(err.Error(), `"200 xxx`) {
		t.Errorf("message %q", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 2<<20 {
		t.Errorf("allocated %d bytes for an 8 MiB status line", grew)
	}
}

func TestEndlessArticleEndsWithContext(t *testing.T) {
	s := newServer(t, func(s *nntptest.Server) { s.Hostile.EndlessArticle = true })
	for _, how := range []string{"timeout", "cancel"} {
		ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
		if how == "cancel" {
			ctx, cancel = context.WithCancel(context.Background())
			time.AfterFunc(400*time.Millisecond, cancel)
		}
		res, err := Fetcher{}.Open(ctx, request(t, s, "news:known-1@example.net"))
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		cancel()
		fetchtest.WantKind(t, err, map[string]fetch.Kind{"timeout": fetch.ErrTimeout, "cancel": fetch.ErrAborted}[how])
		if n < 1<<16 {
			t.Errorf("%s: only %d bytes streamed before the end", how, n)
		}
	}
}

func TestHugeOverviewStreams(t *testing.T) {
	n := 1_000_000
	if raceEnabled {
		n = 100_000
	}
	s := newServer(t, func(s *nntptest.Server) { s.Hostile.OverviewLines = n })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Fetcher{}.Open(ctx, request(t, s, "news:local.test"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var peak uint64
	count := 0
	var ms runtime.MemStats
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		count++
		if e.Name != strconv.Itoa(count) {
			t.Fatalf("entry %d named %q", count, e.Name)
		}
		if count%(n/5) == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if count != n {
		t.Errorf("%d entries, want %d", count, n)
	}
	if peak == 0 || peak > 64<<20 {
		t.Errorf("heap in use reached %d bytes while streaming", peak)
	}
}

func TestStallAndEarlyClose(t *testing.T) {
	s := newServer(t, func(s *nntptest.Server) { s.Hostile.StallArticle = true })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, b, err := getCtx(ctx, request(t, s, "news:known-1@example.net"))
	fetchtest.WantKind(t, err, fetch.ErrTimeout)
	a := sampleArticle(t, "<known-1@example.net>")
	if !bytes.HasPrefix(lf(a.Bytes()), b) || len(b) == 0 {
		t.Errorf("stalled body %q", b)
	}

	s = newServer(t, func(s *nntptest.Server) { s.Hostile.CloseArticle = true })
	_, b, err = get(t, request(t, s, "news:known-1@example.net"))
	fetchtest.WantKind(t, err, fetch.ErrPartial)
	if !bytes.HasPrefix(lf(a.Bytes()), b) || len(b) == 0 {
		t.Errorf("cut body %q", b)
	}

	s = newServer(t, func(s *nntptest.Server) { s.Hostile.StallGreeting = true })
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	_, _, err = getCtx(ctx2, request(t, s, "news:known-1@example.net"))
	fetchtest.WantKind(t, err, fetch.ErrTimeout)

	ctx3, cancel3 := context.WithCancel(context.Background())
	cancel3()
	_, _, err = getCtx(ctx3, request(t, s, "news:known-1@example.net"))
	fetchtest.WantKind(t, err, fetch.ErrAborted)
}

func TestResume(t *testing.T) {
	s := newServer(t, nil)
	a := lf(sampleArticle(t, "<known-1@example.net>").Bytes())
	req := request(t, s, "news:known-1@example.net")
	req.Offset = 10
	res, b, err := get(t, req)
	if err != nil || !bytes.Equal(b, a[10:]) || res.Offset != 10 {
		t.Errorf("resume: %v %q offset %d", err, b, res.Offset)
	}
	req.Offset = int64(len(a) + 1)
	_, _, err = get(t, req)
	fetchtest.WantKind(t, err, fetch.ErrResume)
}

func TestVerbose(t *testing.T) {
	s := newServer(t, nil)
	req := request(t, s, "news:known-1@example.net")
	var v bytes.Buffer
	if _, _, err := getWith(t, fetch.Config{Verbose: &v}, req); err != nil {
		t.Fatal(err)
	}
	want := "< 200 nntptest ready (posting ok)\n> CAPABILITIES\n< 101 Capability list:\n> ARTICLE <known-1@example.net>\n< 220 0 <known-1@example.net>\n> QUIT\n"
	if v.String() != want {
		t.Errorf("verbose\n%s\nwant\n%s", v.String(), want)
	}
}

func TestNNTPS(t *testing.T) {
	srvTLS, cliTLS := nntptest.TLSConfigs(t)
	s := newServer(t, func(s *nntptest.Server) { s.TLS, s.ImplicitTLS = srvTLS, true })
	req := request(t, nil, "nntps://"+s.Addr+"/local.test")
	_, b, err := getWith(t, fetch.Config{TLS: cliTLS}, req)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "1\t") || !strings.Contains(string(b), "\tnntps://"+s.Addr+"/local.test/1\n") {
		t.Errorf("listing %q", b)
	}
	// Without trusting the certificate: a certificate error (exit 60).
	_, _, err = get(t, req)
	fetchtest.WantKind(t, err, fetch.ErrCertificate)
}

func TestStartTLS(t *testing.T) {
	srvTLS, cliTLS := nntptest.TLSConfigs(t)
	a := sampleArticle(t, "<known-1@example.net>")
	// A man in the middle pipelines fake replies after 382, before the
	// handshake: capabilities and a forged article.
	inject := "101 Capability list:\r\nVERSION 2\r\nREADER\r\n.\r\n220 0 <known-1@example.net>\r\nSubject: forged\r\n\r\nFORGED\r\n.\r\n"
	s := newServer(t, func(s *nntptest.Server) {
		s.TLS, s.StartTLS = srvTLS, true
		s.Hostile.InjectBeforeTLS = inject
	})
	for i, mode := range []string{"try", "required"} {
		req := request(t, s, "news:known-1@example.net", OptSSL, mode)
		var v bytes.Buffer
		_, b, err := getWith(t, fetch.Config{TLS: cliTLS, Verbose: &v}, req)
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, v.String())
		}
		if !bytes.Equal(b, lf(a.Bytes())) {
			t.Errorf("%s: body %q, want the genuine article", mode, b)
		}
		if !strings.Contains(v.String(), fmt.Sprintf("* discarding %d bytes the server sent before the TLS handshake", len(inject))) {
			t.Errorf("%s: verbose:\n%s", mode, v.String())
		}
		want := []string{"CAPABILITIES", "STARTTLS", "CAPABILITIES", "ARTICLE <known-1@example.net>", "QUIT"}
		if got := waitLines(s)[5*i:]; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%s: commands %q", mode, got)
		}
	}

	// No STARTTLS offered: "try" goes on in the clear, "required" fails
	// without sending anything but CAPABILITIES.
	plain := newServer(t, nil)
	_, b, err := get(t, request(t, plain, "news:known-1@example.net", OptSSL, "try"))
	if err != nil || !bytes.Equal(b, lf(a.Bytes())) {
		t.Errorf("try without STARTTLS: %v", err)
	}
	_, _, err = get(t, request(t, plain, "news:known-1@example.net", OptSSL, "required"))
	fetchtest.WantKind(t, err, fetch.ErrTLS)
	if got := waitLines(plain); strings.Join(got, "|") != "CAPABILITIES|ARTICLE <known-1@example.net>|QUIT|CAPABILITIES" {
		t.Errorf("commands %q", got)
	}
	_, _, err = get(t, request(t, plain, "news:known-1@example.net", OptSSL, "sometimes"))
	fetchtest.WantKind(t, err, fetch.ErrMalformed)
}

func TestParseLines(t *testing.T) {
	a, err := ParseArticleLine([]byte("12\t2024-03-01T12:00:00Z\tA <a@b>\tHi\tnntp://h:119/g/12\n"))
	if err != nil || a != (ArticleEntry{12, "2024-03-01T12:00:00Z", "A <a@b>", "Hi", "nntp://h:119/g/12"}) {
		t.Errorf("%+v %v", a, err)
	}
	g, err := ParseGroupLine([]byte("g\t10\t2\tm\tdesc\tnntp://h:119/g"))
	if err != nil || g != (GroupEntry{"g", 10, 2, "m", "desc", "nntp://h:119/g"}) {
		t.Errorf("%+v %v", g, err)
	}
	for _, bad := range []string{"", "x\ty\tz\tw\tv", "1\t2\t3\t4", "g\tx\t2\ty\t\tu", "1\t2\t3\t4\t5\t6\t7"} {
		if _, err := ParseArticleLine([]byte(bad)); err == nil && bad != "1\t2\t3\t4\t5\t6\t7" {
			t.Errorf("article %q parsed", bad)
		}
		if _, err := ParseGroupLine([]byte(bad)); err == nil {
			t.Errorf("group %q parsed", bad)
		}
	}
	if e := entryOf([]byte("garbage")); !e.Unparsed || e.Raw != "garbage" {
		t.Errorf("%+v", e)
	}
	if err := WriteJSON(io.Discard, strings.NewReader("not a listing\n")); !errors.Is(err, ErrNotListing) {
		t.Errorf("WriteJSON on garbage: %v", err)
	}
}

func TestOverviewLineSanitized(t *testing.T) {
	got := string(overviewLine([]byte("7\tSub\x1bject\tWho\x7f\tnot a date\t<id>\t\t1\t1"), "nntp://h:1/g/"))
	want := "7\tnot a date\tWho?\tSub?ject\tnntp://h:1/g/7\n"
	if got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if overviewLine([]byte("x\ta\tb\tc"), "") != nil || overviewLine([]byte("1\ta\tb"), "") != nil {
		t.Error("bad overview lines accepted")
	}
	if got := escapeSegment("a/b c%ü"); got != "a%2Fb%20c%25%C3%BC" {
		t.Errorf("escapeSegment = %q", got)
	}
}

// Through the Client: URLs whose decoded fields hold CR, LF or NUL never
// reach the server (urlparse's CheckLine), nor do those with a space or
// ">" (the fetcher's own check).
func TestClientRefusesInjection(t *testing.T) {
	s := newServer(t, nil)
	c := &fetch.Client{Options: map[string]string{OptServer: s.Addr}}
	for _, u := range []string{
		"news:a%0D%0AQUIT@example.net",
		"news:local.test%0AQUIT",
		"news:local.test%00",
		"news:a%20b@example.net",
		"news:a%3Eb@example.net",
		"nntp://" + s.Addr + "/local.test%0D%0AQUIT/1",
		"nntp://" + s.Addr + "/local%20test",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := c.Open(ctx, u)
		cancel()
		if err == nil {
			res.Body.Close()
			t.Errorf("%s: accepted", u)
			continue
		}
		if k := fetch.KindOf(err); k != fetch.ErrMalformed {
			t.Errorf("%s: %v (kind %d), want ErrMalformed", u, err, k)
		}
	}
	if s.Conns() != 0 {
		t.Errorf("the server got %d connections: %q", s.Conns(), s.Lines())
	}
}

// The shared conformance suite against the in-tree server (TestINN runs it
// against INN).
func TestConformanceInTree(t *testing.T) {
	s := newServer(t, nil)
	hostile := func(h nntptest.Hostile) string {
		return "nntp://" + newServer(t, func(s *nntptest.Server) { s.Hostile = h }).Addr + "/local.test/1"
	}
	fetchtest.Run(t, fetchtest.Suite{
		Client:      &fetch.Client{Options: map[string]string{OptServer: s.Addr}},
		Known:       "news:dots@example.net",
		KnownBody:   lf(sampleArticle(t, "<dots@example.net>").Bytes()),
		Missing:     "nntp://" + s.Addr + "/local.test/3",
		MissingKind: fetch.ErrNotFound,
		Dir:         "news:local.test",
		DirNames:    []string{"1", "2", "4", "5"},
		Stall:       hostile(nntptest.Hostile{StallGreeting: true}),
		StallBody:   hostile(nntptest.Hostile{StallArticle: true}),
		Early:       hostile(nntptest.Hostile{CloseArticle: true}),
		Inject:      "news:x%0D%0AQUIT@example.net",
		Received:    s.Conns,
	})
}

func TestParseDate(t *testing.T) {
	want := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{
		"Fri, 01 Mar 2024 12:00:00 +0000",
		"Fri, 1 Mar 2024 13:00:00 +0100",
		"1 Mar 2024 07:00:00 -0500",
		"Fri, 01 Mar 2024 12:00:00 +0000 (UTC)",
		"  Fri, 01 Mar 2024 12:00:00 GMT ",
	} {
		if got, err := parseDate(s); err != nil || !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, %v", s, got, err)
		}
		if got := listDate(s); got != "2024-03-01T12:00:00Z" {
			t.Errorf("listDate(%q) = %q", s, got)
		}
	}
	if got := listDate("yesterday\x1b"); got != "yesterday?" {
		t.Errorf("listDate of junk = %q", got)
	}
}

// lf is what urlget gives for network text: lines ending in LF.
func lf(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")) }

// An older page of a group: OptLast bounds the range from above, in every
// mode (OVER, XOVER, HEAD one by one), and the listing's Meta.Header holds
// the GROUP reply's numbers for the page's "N–M of COUNT".
func TestGroupListingLast(t *testing.T) {
	for _, mode := range []string{"OVER", "HEAD"} {
		t.Run(mode, func(t *testing.T) {
			s := newServer(t, func(s *nntptest.Server) { s.NoOver, s.NoXover = mode != "OVER", mode == "HEAD" })
			res, b, err := get(t, request(t, s, "news:local.test", OptMaxArticles, "2", OptLast, "4"))
			if err != nil {
				t.Fatal(err)
			}
			var nums []string
			for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
				n, _, _ := strings.Cut(l, "\t")
				nums = append(nums, n)
			}
			if strings.Join(nums, ",") != "4" { // 3 is gone
				t.Errorf("articles %q, want 4 alone:\n%s", nums, b)
			}
			count, low, high, ok := GroupNumbers(&res.Meta)
			if !ok || count != 4 || low != 1 || high != 5 {
				t.Errorf("GroupNumbers %d %d %d %v, want 4 1 5 (header %+v)", count, low, high, ok, res.Header)
			}
			cmd := map[string]string{"OVER": "OVER 3-4", "HEAD": "HEAD 3"}[mode]
			if lines := waitLines(s); !containsLine(lines, cmd) || containsLine(lines, "HEAD 5") {
				t.Errorf("commands %q, want %s and nothing past 4", lines, cmd)
			}
		})
	}
	s := newServer(t, nil)
	if _, b, err := get(t, request(t, s, "news:local.test", OptLast, "1", OptMaxArticles, "10")); err != nil || !strings.HasPrefix(string(b), "1\t") || strings.Count(string(b), "\n") != 1 {
		t.Errorf("last 1: %q %v", b, err)
	}
	if _, _, err := get(t, request(t, s, "news:local.test", OptLast, "0")); fetch.KindOf(err) != fetch.ErrMalformed {
		t.Errorf("last 0: %v, want malformed", err)
	}
	res, _, err := get(t, request(t, s, "news:*"))
	if _, _, _, ok := GroupNumbers(&res.Meta); err != nil || ok {
		t.Errorf("a group list has GROUP numbers: %+v %v", res.Header, err)
	}
}
