package nntp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/internal/testserver"
)

// innArticle is the article INN serves for a fixture: the injected header
// lines with innd's path host prepended to Path and its Xref appended, an
// empty line, the body byte for byte; CRLF line ends.
// innArticle is the article as urlget gives it: lines end in LF.
func innArticle(a *testserver.INNArticle) []byte {
	var b bytes.Buffer
	for _, h := range a.Head {
		if rest, ok := strings.CutPrefix(h, "Path: "); ok {
			h = "Path: " + testserver.INNPathHost + "!" + rest
		}
		b.WriteString(h + "\n")
	}
	b.WriteString("Xref: " + testserver.INNPathHost)
	for _, g := range a.Groups {
		fmt.Fprintf(&b, " %s:%d", g, a.Numbers[g])
	}
	b.WriteString("\n\n")
	b.WriteString(innBody(a))
	return b.Bytes()
}

func innBody(a *testserver.INNArticle) string { return strings.Join(a.Body, "\n") + "\n" }

func innFixture(t *testing.T, s *testserver.INNServer, id string) *testserver.INNArticle {
	for _, a := range s.Articles {
		if a.MessageID == id {
			return a
		}
	}
	t.Fatalf("no fixture %s", id)
	return nil
}

// innListing is the expected listing of a group's articles numbered from
// first on.
func innListing(s *testserver.INNServer, group string, first int64) string {
	var b strings.Builder
	for _, a := range s.Articles {
		n, ok := a.Numbers[group]
		if !ok || n < first {
			continue
		}
		fmt.Fprintf(&b, "%d\t%s\t%s\t%s\tnntp://%s/%s/%d\n", n, a.Date.UTC().Format(time.RFC3339), a.From, a.Subject, s.Addr, group, n)
	}
	return b.String()
}

func clientGet(t *testing.T, c *fetch.Client, rawURL string) (*fetch.Resource, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Open(ctx, rawURL)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// TestINN runs the fetcher, through the Client, against INN 2 (innd handing
// readers to nnrpd, and a standalone nnrpd requiring AUTHINFO) holding the
// fixtures injected with rnews.
func TestINN(t *testing.T) {
	s := testserver.StartINN(t, testserver.INNConfig{AuthUser: "urlget", AuthPassword: "fixture secret"})
	client := &fetch.Client{Options: map[string]string{OptServer: s.Addr}}
	withOpts := func(kv ...string) *fetch.Client {
		c := *client
		c.Options = map[string]string{OptServer: s.Addr}
		for i := 0; i+1 < len(kv); i += 2 {
			c.Options[kv[i]] = kv[i+1]
		}
		return &c
	}

	t.Run("every article by message-id, some by number", func(t *testing.T) {
		last := map[string]int64{}
		for _, a := range s.Articles {
			for g, n := range a.Numbers {
				last[g] = max(last[g], n)
			}
		}
		named := map[string]bool{testserver.INNKnownID: true, testserver.INNXpostID: true,
			testserver.INNDotsID: true, testserver.INNOddID: true, testserver.INNLongID: true}
		// INN forks an nnrpd per connection: fetch eight at a time.
		sem := make(chan struct{}, 8)
		var wg sync.WaitGroup
		for _, a := range s.Articles {
			urls := []string{"news:" + strings.Trim(a.MessageID, "<>")}
			for _, g := range a.Groups {
				if named[a.MessageID] || a.Numbers[g] == last[g] {
					urls = append(urls, fmt.Sprintf("nntp://%s/%s/%d", s.Addr, g, a.Numbers[g]))
				}
			}
			want := innArticle(a)
			for _, u := range urls {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer func() { <-sem; wg.Done() }()
					res, b, err := clientGet(t, client, u)
					switch {
					case err != nil:
						t.Errorf("%s: %v", u, err)
					case !bytes.Equal(b, want):
						t.Errorf("%s:\n%q\nwant\n%q", u, b, want)
					case res.Status != 220 || res.EffectiveURL == "":
						t.Errorf("%s: meta %+v", u, res.Meta)
					}
				}()
			}
		}
		wg.Wait()
	})

	t.Run("dots, long and odd bodies byte for byte", func(t *testing.T) {
		for _, id := range []string{testserver.INNDotsID, testserver.INNLongID, testserver.INNOddID, testserver.INNKnownID} {
			a := innFixture(t, s, id)
			_, b, err := clientGet(t, withOpts(OptBody, "1"), "news:"+strings.Trim(id, "<>"))
			if err != nil || string(b) != innBody(a) {
				t.Errorf("BODY %s: %v (%d bytes, want %d)", id, err, len(b), len(innBody(a)))
			}
			_, h, err := clientGet(t, withOpts(OptHead, "1"), "news:"+strings.Trim(id, "<>"))
			full := innArticle(a)
			if err != nil || string(h) != string(full[:bytes.Index(full, []byte("\n\n"))+1]) {
				t.Errorf("HEAD %s: %v %q", id, err, h)
			}
		}
		dots := innFixture(t, s, testserver.INNDotsID)
		if strings.Join(dots.Body, "|") != ".leading dot|..two leading dots|.|after a lone dot line|..|end" {
			t.Errorf("dots fixture changed: %q", dots.Body)
		}
		if long := innFixture(t, s, testserver.INNLongID); len(long.Body) != 3000 {
			t.Errorf("long fixture has %d lines", len(long.Body))
		}
	})

	t.Run("Request.Head", func(t *testing.T) {
		a := innFixture(t, s, testserver.INNKnownID)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req := request(t, nil, "news:"+strings.Trim(a.MessageID, "<>"))
		req.Head = true
		res, err := client.Do(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || len(b) != 0 || res.Status != 221 || !res.ModTime.Equal(a.Date) {
			t.Errorf("%v %q %+v", err, b, res.Meta)
		}
	})

	t.Run("group listings", func(t *testing.T) {
		for _, c := range []struct {
			url, max string
			group    string
			first    int64
		}{
			{"news:local.test", "", "local.test", 1},
			{"nntp://" + s.Addr + "/comp.infosystems.www.servers.unix", "", "comp.infosystems.www.servers.unix", 1},
			{"news:local.test", "5", "local.test", 26},
			{"news:local.test", "0", "local.test", 1},
			{"news:comp.infosystems.www.servers.unix", "1", "comp.infosystems.www.servers.unix", 21},
		} {
			res, b, err := clientGet(t, withOpts(OptMaxArticles, c.max), c.url)
			if err != nil {
				t.Fatalf("%s: %v", c.url, err)
			}
			if want := innListing(s, c.group, c.first); string(b) != want {
				t.Errorf("%s max %q:\n%s\nwant\n%s", c.url, c.max, b, want)
			}
			if !res.Dir || res.Status != 224 {
				t.Errorf("%s: meta %+v", c.url, res.Meta)
			}
		}
		res, b, err := clientGet(t, client, "news:local.empty")
		if err != nil || len(b) != 0 || !res.Dir {
			t.Errorf("local.empty: %v %q", err, b)
		}
	})

	t.Run("group lists", func(t *testing.T) {
		line := func(g string, high, low int64, status, desc string) string {
			return fmt.Sprintf("%s\t%d\t%d\t%s\t%s\tnntp://%s/%s\n", g, high, low, status, desc, s.Addr, g)
		}
		high := map[string]int64{}
		for _, a := range s.Articles {
			for g, n := range a.Numbers {
				high[g] = max(high[g], n)
			}
		}
		var all, local, described strings.Builder
		for _, g := range []string{"control", "control.cancel", "junk"} {
			all.WriteString(line(g, 0, 1, "n", ""))
		}
		for _, g := range testserver.INNGroups {
			low := int64(1)
			all.WriteString(line(g.Name, high[g.Name], low, "y", ""))
			if strings.HasPrefix(g.Name, "local.") {
				local.WriteString(line(g.Name, high[g.Name], low, "y", ""))
				described.WriteString(line(g.Name, high[g.Name], low, "y", g.Description))
			}
		}
		for _, c := range []struct {
			url  string
			opts []string
			want string
		}{
			{"news:*", nil, all.String()},
			{"news:local.*", nil, local.String()},
			{"nntp://" + s.Addr + "/local.*", nil, local.String()},
			{"news:local.*", []string{OptDescribe, "1"}, described.String()},
		} {
			res, b, err := clientGet(t, withOpts(c.opts...), c.url)
			if err != nil || string(b) != c.want || !res.Dir {
				t.Errorf("%s %v: %v\n%s\nwant\n%s", c.url, c.opts, err, b, c.want)
			}
		}
	})

	t.Run("not found", func(t *testing.T) {
		for _, u := range []string{
			"news:no-such-article@example.net",
			"news:no.such.group",
			"nntp://" + s.Addr + "/local.test/99",
			"nntp://" + s.Addr + "/local.empty/1",
			"nntp://" + s.Addr + "/no.such.group/1",
		} {
			_, _, err := clientGet(t, client, u)
			if k := fetch.KindOf(err); k != fetch.ErrNotFound {
				t.Errorf("%s: %v (kind %d), want ErrNotFound", u, err, k)
			}
		}
	})

	t.Run("AUTHINFO against nnrpd", func(t *testing.T) {
		a := innFixture(t, s, testserver.INNKnownID)
		base := "nntp://%s" + s.AuthAddr + "/local.test/1"
		_, b, err := clientGet(t, client, fmt.Sprintf(base, "urlget:fixture%20secret@"))
		if err != nil || !bytes.Equal(b, innArticle(a)) {
			t.Errorf("with credentials: %v %q", err, b)
		}
		c := *client
		c.User, c.Password, c.HasUser, c.HasPassword = "urlget", "fixture secret", true, true
		var v bytes.Buffer
		c.Verbose = &v
		if _, b, err := clientGet(t, &c, fmt.Sprintf(base, "")); err != nil || !bytes.Equal(b, innArticle(a)) {
			t.Errorf("with -u: %v", err)
		}
		if strings.Contains(v.String(), "fixture secret") || !strings.Contains(v.String(), "> AUTHINFO PASS ****") || !strings.Contains(v.String(), "< 281 ") {
			t.Errorf("verbose:\n%s", v.String())
		}
		for _, cred := range []string{"urlget:wrong@", "nobody:fixture%20secret@", ""} {
			_, _, err := clientGet(t, client, fmt.Sprintf(base, cred))
			if k := fetch.KindOf(err); k != fetch.ErrLoginDenied {
				t.Errorf("credentials %q: %v (kind %d), want ErrLoginDenied", cred, err, k)
			}
		}
	})

	t.Run("conformance", func(t *testing.T) {
		long := innFixture(t, s, testserver.INNLongID)
		stall := (&nntptest.Server{Groups: nntptest.Sample(), Hostile: nntptest.Hostile{StallGreeting: true}}).Start(t)
		stallBody := (&nntptest.Server{Groups: nntptest.Sample(), Hostile: nntptest.Hostile{StallArticle: true}}).Start(t)
		early := (&nntptest.Server{Groups: nntptest.Sample(), Hostile: nntptest.Hostile{CloseArticle: true}}).Start(t)
		inject := (&nntptest.Server{Groups: nntptest.Sample()}).Start(t)
		fetchtest.Run(t, fetchtest.Suite{
			Client:      client,
			Known:       "news:" + strings.Trim(long.MessageID, "<>"),
			KnownBody:   innArticle(long),
			Missing:     "news:no-such-article@example.net",
			MissingKind: fetch.ErrNotFound,
			Dir:         "news:local.test",
			DirNames:    []string{"1", "30"},
			Stall:       "nntp://" + stall.Addr + "/local.test/1",
			StallBody:   "nntp://" + stallBody.Addr + "/local.test/1",
			Early:       "nntp://" + early.Addr + "/local.test/1",
			Inject:      "nntp://" + inject.Addr + "/local.test%0D%0AQUIT/1",
			Received:    inject.Conns,
		})
	})
}
