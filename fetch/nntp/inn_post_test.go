package nntp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/urlparse"
)

// clientPost posts article to rawURL through c, as the CLI's -T does.
func clientPost(t *testing.T, c *fetch.Client, rawURL, article string) (*fetch.Resource, []byte, error) {
	t.Helper()
	u, err := urlparse.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return fetchtest.Read(c.Do(ctx, &fetch.Request{URL: &u, Body: strings.NewReader(article), BodySize: int64(len(article))}))
}

// TestINNPost posts to INN 2 (nnrpd handing the article to innd) and
// reads each article back by its Message-ID through the reader: the body
// byte for byte (lines starting with "." included, which only
// dot-stuffing gets there intact), the fields given kept and the ones
// added (Newsgroups, Message-ID, Date) there. INN's own refusals map as
// the in-tree server's: 441 for an article it will not take, 440 from a
// server that lets this user read but not post.
func TestINNPost(t *testing.T) {
	s := testserver.StartINN(t, testserver.INNConfig{AuthUser: "urlget", AuthPassword: "fixture secret"})
	client := &fetch.Client{Options: map[string]string{OptServer: s.Addr}}

	body := ".leading dot\n..two leading dots\n.\nafter a lone dot line\n" + strings.Repeat("x", 2000) + "\nend\n"
	for _, u := range []string{"news:local.test", "nntp://" + s.Addr + "/local.test"} {
		res, out, err := clientPost(t, client, u, "From: Poster <poster@example.net>\nSubject: posted by urlget\n\n"+body)
		if err != nil {
			t.Fatalf("post to %s: %v", u, err)
		}
		id := res.Header.Get("Message-ID")
		if res.Status != 240 || string(out) != id+"\n" || !strings.HasSuffix(id, "@example.net>") {
			t.Errorf("post to %s: status %d, result %q", u, res.Status, out)
		}
		_, got, err := clientGet(t, client, "news:"+strings.Trim(id, "<>"))
		if err != nil {
			t.Fatalf("read back %s: %v", id, err)
		}
		head, gotBody, _ := strings.Cut(string(got), "\n\n")
		if gotBody != body {
			t.Errorf("%s: body read back\n%q\nwant\n%q", id, gotBody, body)
		}
		for _, f := range []string{"\nSubject: posted by urlget\n", "\nNewsgroups: local.test\n", "\nMessage-ID: " + id + "\n", "\nDate: "} {
			if !strings.Contains("\n"+head+"\n", f) {
				t.Errorf("%s: header has no %q:\n%s", id, f, head)
			}
		}
	}

	// A Message-ID of our own, cross-posted (INN takes no article without
	// a body: "441 Article is empty").
	res, _, err := clientPost(t, client, "nntp://"+s.Addr+"/local.test",
		"Newsgroups: local.test,comp.infosystems.www.servers.unix\r\nFrom: poster@example.net\r\nSubject: own id\r\nMessage-ID: <urlget-posted-own@example.net>\r\n\r\nbody\r\n")
	if err != nil || res.Header.Get("Message-ID") != "<urlget-posted-own@example.net>" {
		t.Fatalf("own Message-ID: %v", err)
	}
	_, got, err := clientGet(t, client, "news:urlget-posted-own@example.net")
	if err != nil || !strings.Contains(string(got), "\nSubject: own id\n") || !strings.Contains(string(got), "\nXref: ") {
		t.Errorf("read back: %v\n%s", err, got)
	}

	// INN refuses a From without an address (441).
	_, _, err = clientPost(t, client, "news:local.test", "From: nobody at all\nSubject: s\n\nbody\n")
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Kind != fetch.ErrSendFailed || fe.Status != 441 || strings.Contains(err.Error(), "\n") {
		t.Errorf("441: %v", err)
	}
	t.Logf("441: %v", err)
	// A Message-ID INN already has is refused too (441, "Duplicate").
	_, _, err = clientPost(t, client, "news:local.test", "From: poster@example.net\nSubject: again\nMessage-ID: <urlget-posted-own@example.net>\n\nbody\n")
	if fetch.KindOf(err) != fetch.ErrSendFailed || !errors.As(err, &fe) || fe.Status != 441 {
		t.Errorf("duplicate: %v", err)
	}

	t.Logf("duplicate: %v", err)
	// The standalone nnrpd lets a logged-in user read (access R), not post.
	_, _, err = clientPost(t, client, "nntp://urlget:fixture%20secret@"+s.AuthAddr+"/local.test", "From: poster@example.net\nSubject: s\n\nbody\n")
	t.Logf("440: %v", err)
	if !errors.As(err, &fe) || fe.Kind != fetch.ErrUpload || fe.Status != 440 || fe.Kind.ExitCode() != 25 {
		t.Errorf("440: %v", err)
	}
}
