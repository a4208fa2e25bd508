package browsertest

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	cdpfetch "github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"

	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/serve"
	"github.com/urlget/urlget/serve/servetest"
)

// loginAsker stands for the person who answers chromium's login prompt:
// each challenge the browser meets is kept, and answered by answer
// (nil: the prompt cancelled).
type loginAsker struct {
	mu     sync.Mutex
	seen   []cdpfetch.AuthChallenge
	answer func(realm string) (user, pass string, ok bool)
}

// challenges are the challenges met so far.
func (l *loginAsker) challenges() []cdpfetch.AuthChallenge {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]cdpfetch.AuthChallenge(nil), l.seen...)
}

// askLogins makes the browser tell each login it is asked for (the
// Fetch domain's authRequired: headless chromium shows no prompt) and
// answers it with l.answer; every other request goes on as it is.
func (b *browserT) askLogins(l *loginAsker) {
	b.t.Helper()
	ctx, cancel := context.WithCancel(b.ctx)
	b.t.Cleanup(cancel)
	paused := chromedp.Events(ctx, cdpfetch.RequestPaused)
	auth := chromedp.Events(ctx, cdpfetch.AuthRequired)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			go chromedp.Call(ctx, cdpfetch.ContinueRequest, cdpfetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	go func() {
		for ev, err := range auth {
			if err != nil {
				return
			}
			resp := &cdpfetch.AuthChallengeResponse{Response: cdpfetch.AuthChallengeResponseResponseCancelAuth}
			if ch := ev.AuthChallenge; ch != nil {
				l.mu.Lock()
				l.seen = append(l.seen, *ch)
				l.mu.Unlock()
				if user, pass, ok := l.answer(ch.Realm); ok {
					resp = &cdpfetch.AuthChallengeResponse{Response: cdpfetch.AuthChallengeResponseResponseProvideCredentials, Username: user, Password: pass}
				}
			}
			go chromedp.Call(ctx, cdpfetch.ContinueWithAuth, cdpfetch.ContinueWithAuthParams{RequestID: ev.RequestID, AuthChallengeResponse: resp})
		}
	}()
	yes := true
	b.step("asking for logins", chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, cdpfetch.Enable, cdpfetch.EnableParams{HandleAuthRequests: &yes})
		return err
	}))
}

// TestBrowserLogin logs in through the gateway as a person does: an
// nginx page behind auth_basic and a vsftpd user's file each make
// chromium ask for a login naming the server (the prompt's realm); the
// answer shows the page, and another page of that server comes without
// asking again. A second nginx that wants the same login is asked for
// anew (the answer given for the first is not sent there); cancelled, the
// page says the server wants a login. INN's nnrpd that wants AUTHINFO is
// asked for as the others, and its group's article then comes without
// asking again.
func TestBrowserLogin(t *testing.T) {
	root := t.TempDir()
	const secret = "the protected page"
	if err := os.MkdirAll(filepath.Join(root, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"secret.txt", "other.txt"} {
		if err := os.WriteFile(filepath.Join(root, "private", name), []byte(secret+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	web := testserver.StartNginx(t, testserver.NginxConfig{Root: root, Protected: "/private/"})
	other := testserver.StartNginx(t, testserver.NginxConfig{Root: root, Protected: "/private/"})
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	const newsUser, newsPass = "reader", "inn s3cret"
	inn := testserver.StartINN(t, testserver.INNConfig{AuthUser: newsUser, AuthPassword: newsPass})
	gw := servetest.Start(t, nil, serve.Options{})
	b := startBrowser(t).on(t)
	l := &loginAsker{answer: func(realm string) (string, string, bool) {
		switch realm {
		case "http://" + web.Addr:
			return testserver.NginxUser, testserver.NginxPassword, true
		case "ftp://" + ftp.Addr:
			return testserver.FTPUser, testserver.FTPPassword, true
		case "nntp://" + inn.AuthAddr:
			return newsUser, newsPass, true
		}
		return "", "", false
	}}
	b.askLogins(l)

	b.load("the protected page", chromedp.Navigate(gw.URL+"/"+web.URL+"/private/secret.txt"))
	if got := strings.TrimSpace(b.text("the protected page")); got != secret {
		t.Errorf("the protected page shows %q, want %q", got, secret)
	}
	if ch := l.challenges(); len(ch) != 1 || !strings.EqualFold(ch[0].Scheme, "basic") || ch[0].Realm != "http://"+web.Addr {
		t.Errorf("chromium was asked %+v, want one Basic login for http://%s", ch, web.Addr)
	}
	b.load("another page of the server", chromedp.Navigate(gw.URL+"/"+web.URL+"/private/other.txt"))
	if got := strings.TrimSpace(b.text("another page")); got != secret {
		t.Errorf("another protected page shows %q", got)
	}
	if n := len(l.challenges()); n != 1 {
		t.Errorf("another page of the same server: chromium was asked again (%d logins)", n)
	}
	b.noProblems("http login")

	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	res, err := chromedp.RunResponse(ctx, chromedp.Navigate(gw.URL+"/"+other.URL+"/private/secret.txt"))
	cancel()
	if err != nil {
		t.Fatalf("the other server: %v", err)
	}
	if ch := l.challenges(); len(ch) != 2 || ch[1].Realm != "http://"+other.Addr {
		t.Errorf("the other server: chromium was asked %+v, want a second login, for http://%s", ch, other.Addr)
	}
	if page := b.text("the other server"); res.Status != http.StatusUnauthorized || !strings.Contains(page, "wants a login") || strings.Contains(page, secret) {
		t.Errorf("the other server, the login cancelled: %d\n%s", res.Status, page)
	}
	b.log.take() // the 401 is a failed load

	b.load("a vsftpd user's file", chromedp.Navigate(gw.URL+"/ftp://"+testserver.FTPUser+"@"+ftp.Addr+"/private.txt"))
	if got, want := b.text("the user's file"), string(testserver.FTPHomeFiles["private.txt"]); strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("the user's file shows %q, want %q", got, want)
	}
	if ch := l.challenges(); len(ch) != 3 || ch[2].Realm != "ftp://"+ftp.Addr {
		t.Errorf("the ftp login: chromium was asked %+v", ch)
	}
	b.noProblems("ftp login")

	b.load("a group of INN's that wants a login", chromedp.Navigate(gw.URL+"/nntp://"+inn.AuthAddr+"/local.test"))
	if got := b.text("the group"); !strings.Contains(got, "Known article one") {
		t.Errorf("the group shows %q", got)
	}
	if ch := l.challenges(); len(ch) != 4 || ch[3].Realm != "nntp://"+inn.AuthAddr {
		t.Errorf("the news login: chromium was asked %+v", ch)
	}
	b.load("an article of the group", chromedp.Navigate(gw.URL+"/nntp://"+inn.AuthAddr+"/local.test/1"))
	if got := b.text("the article"); !strings.Contains(got, "This is the known article.") {
		t.Errorf("the article shows %q", got)
	}
	if n := len(l.challenges()); n != 4 {
		t.Errorf("an article of the same server: chromium was asked again (%d logins)", n)
	}
	b.noProblems("news login")
}
