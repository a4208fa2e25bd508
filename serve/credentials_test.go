package serve

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/nntp/nntptest"
	"github.com/urlget/urlget/internal/testserver"
)

// ask sends a request for target to h as a client at addr: in origin form
// (/URL) or, proxy, in absolute form; header fields as given.
func ask(h *Handler, addr, target string, proxy bool, fields ...string) *httptest.ResponseRecorder {
	path := "/" + target
	if proxy {
		path = target
	}
	r := httptest.NewRequest("GET", path, nil)
	r.RemoteAddr, r.Host = addr, "127.0.0.1:7070"
	for i := 0; i+1 < len(fields); i += 2 {
		r.Header.Set(fields[i], fields[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func basic(user, pass string) string {
	r, _ := http.NewRequest("GET", "/", nil)
	r.SetBasicAuth(user, pass)
	return r.Header.Get("Authorization")
}

// vsftpd's local user through the gateway: a URL naming the user gets a
// 401 Basic challenge for that server; the browser's answer logs in for
// it, and only for it (the same answer sent for another server is not
// used there); a wrong password is asked again. A proxy client's
// Authorization, Proxy-Authorization or URL userinfo logs in. None of it
// reaches the access log.
func TestFTPLogin(t *testing.T) {
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	other := testserver.StartFTP(t, testserver.Vsftpd)
	var log bytes.Buffer
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil), AccessLog: &log})
	if err != nil {
		t.Fatal(err)
	}
	const me = "127.0.0.1:5000"
	private := ftp.URL + "/private.txt"
	withUser := "ftp://" + testserver.FTPUser + "@" + ftp.Addr + "/private.txt"
	want := string(testserver.FTPHomeFiles["private.txt"])
	good := basic(testserver.FTPUser, testserver.FTPPassword)

	w := ask(h, me, withUser, false)
	if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != `Basic realm="ftp://`+ftp.Addr+`", charset="UTF-8"` {
		t.Fatalf("no password: %d %q\n%s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body.String())
	}
	// The answer sent for another server first: not used there.
	if w := ask(h, me, other.URL+"/private.txt", false, "Authorization", good); w.Code != http.StatusNotFound {
		t.Errorf("the answer sent for another server: %d %s", w.Code, w.Body.String())
	}
	if w := ask(h, me, withUser, false, "Authorization", good); w.Code != 200 || w.Body.String() != want {
		t.Errorf("the answer: %d %q", w.Code, w.Body.String())
	}
	// Bound to that server now: used for its other URLs, not for another's.
	if w := ask(h, me, private, false, "Authorization", good); w.Code != 200 || w.Body.String() != want {
		t.Errorf("the answer again, URL without the user: %d %q", w.Code, w.Body.String())
	}
	ask(h, me, "ftp://"+testserver.FTPUser+"@"+other.Addr+"/private.txt", false)
	if w := ask(h, "127.0.0.2:5000", withUser, false, "Authorization", good); w.Code != http.StatusUnauthorized {
		t.Errorf("the answer from another client: %d", w.Code)
	}
	// A wrong answer, not bound: ignored and asked for; then used, and
	// refused.
	for i := range 2 {
		if w := ask(h, me, withUser, false, "Authorization", basic(testserver.FTPUser, "wrong")); w.Code != http.StatusUnauthorized {
			t.Errorf("wrong password (%d): %d %s", i, w.Code, w.Body.String())
		}
	}

	for _, c := range []struct {
		name   string
		target string
		fields []string
	}{
		{"Authorization", private, []string{"Accept", "*/*", "Authorization", good}},
		{"Proxy-Authorization", private, []string{"Accept", "*/*", "Proxy-Authorization", good}},
		{"userinfo", "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + ftp.Addr + "/private.txt", []string{"Accept", "*/*"}},
	} {
		if w := ask(h, me, c.target, true, c.fields...); w.Code != 200 || w.Body.String() != want {
			t.Errorf("proxy client, %s: %d %q", c.name, w.Code, w.Body.String())
		}
	}
	if strings.Contains(log.String(), testserver.FTPPassword) {
		t.Errorf("the access log holds the password:\n%s", log.String())
	}
}

// A gateway serving other machines carries no logins unless
// AllowCredentials: a server's refusal is a 403, an Authorization is
// ignored.
func TestFTPLoginRemote(t *testing.T) {
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	withUser := "ftp://" + testserver.FTPUser + "@" + ftp.Addr + "/private.txt"
	good := basic(testserver.FTPUser, testserver.FTPPassword)
	for _, allow := range []bool{false, true} {
		h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil), AllowPrivate: true, AllowCredentials: allow,
			AllowFrom: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
		if err != nil {
			t.Fatal(err)
		}
		w := ask(h, "203.0.113.9:4000", withUser, false)
		if want := map[bool]int{false: http.StatusForbidden, true: http.StatusUnauthorized}[allow]; w.Code != want {
			t.Errorf("AllowCredentials %v, no password: %d, want %d", allow, w.Code, want)
		}
		w = ask(h, "203.0.113.9:4000", ftp.URL+"/private.txt", true, "Accept", "*/*", "Authorization", good)
		if got := w.Code == 200; got != allow {
			t.Errorf("AllowCredentials %v, a proxy client's Authorization: %d", allow, w.Code)
		}
	}
}

// A news server that wants a login (480) through the gateway: a 401 Basic
// challenge naming it; the answer logs in with AUTHINFO USER/PASS, a wrong
// one is asked again; a proxy client's Authorization logs in too.
func TestNewsLogin(t *testing.T) {
	n := (&nntptest.Server{Groups: nntptest.Sample(), User: "reader", Password: "s3cret"}).Start(t)
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil)})
	if err != nil {
		t.Fatal(err)
	}
	const me = "127.0.0.1:5000"
	group := "nntp://" + n.Addr + "/local.test"
	w := ask(h, me, group, false)
	if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != `Basic realm="nntp://`+n.Addr+`", charset="UTF-8"` {
		t.Fatalf("no login: %d %q\n%s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body.String())
	}
	if w := ask(h, me, group, false, "Authorization", basic("reader", "wrong")); w.Code != http.StatusUnauthorized {
		t.Errorf("a wrong password: %d %s", w.Code, w.Body.String())
	}
	ask(h, me, group, false) // challenged again
	if w := ask(h, me, group, false, "Authorization", basic("reader", "s3cret")); w.Code != 200 || !strings.Contains(w.Body.String(), "Known article one") {
		t.Errorf("the answer: %d %s", w.Code, w.Body.String())
	}
	if w := ask(h, me, group, true, "Authorization", basic("reader", "s3cret")); w.Code != 200 {
		t.Errorf("a proxy client's Authorization: %d %s", w.Code, w.Body.String())
	}
}

// INN's nnrpd whose readers.conf lets nobody read without AUTHINFO
// (checked by ckpasswd) through the gateway: a 401 Basic challenge naming
// it; a wrong answer is asked again; the right one shows the group; a
// proxy client's Proxy-Authorization logs in too. The password reaches
// no access log.
func TestNewsLoginINN(t *testing.T) {
	const user, pass = "reader", "inn s3cret"
	inn := testserver.StartINN(t, testserver.INNConfig{AuthUser: user, AuthPassword: pass})
	var log bytes.Buffer
	h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil), AccessLog: &log})
	if err != nil {
		t.Fatal(err)
	}
	const me = "127.0.0.1:5000"
	group := "nntp://" + inn.AuthAddr + "/local.test"
	w := ask(h, me, group, false)
	if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != `Basic realm="nntp://`+inn.AuthAddr+`", charset="UTF-8"` {
		t.Fatalf("no login: %d %q\n%s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body.String())
	}
	if w := ask(h, me, group, false, "Authorization", basic(user, "wrong")); w.Code != http.StatusUnauthorized {
		t.Errorf("a wrong password: %d %s", w.Code, w.Body.String())
	}
	if w := ask(h, me, group, false, "Authorization", basic(user, pass)); w.Code != 200 || !strings.Contains(w.Body.String(), "Known article one") {
		t.Errorf("the answer: %d %s", w.Code, w.Body.String())
	}
	if w := ask(h, me, group, true, "Accept", "text/html", "Proxy-Authorization", basic(user, pass)); w.Code != 200 || !strings.Contains(w.Body.String(), "Known article one") {
		t.Errorf("a proxy client's Proxy-Authorization: %d %s", w.Code, w.Body.String())
	}
	if strings.Contains(log.String(), pass) || strings.Contains(log.String(), strings.TrimPrefix(basic(user, pass), "Basic ")) {
		t.Errorf("the access log holds the password:\n%s", log.String())
	}
}

// INN's nnrpd that wants AUTHINFO, through a gateway serving other
// machines too (AllowFrom), for a client on another address: without
// AllowCredentials the refusal is a 403 with no challenge, and neither a
// browser's answer nor a proxy client's Authorization or
// Proxy-Authorization reaches the server; with it, a 401 challenge, and
// each logs in. As TestFTPLoginRemote and TestHTTPLoginRemote for ftp and
// http.
func TestNewsLoginRemote(t *testing.T) {
	const user, pass = "reader", "inn s3cret"
	inn := testserver.StartINN(t, testserver.INNConfig{AuthUser: user, AuthPassword: pass})
	group := "nntp://" + inn.AuthAddr + "/local.test"
	good := basic(user, pass)
	const them = "203.0.113.9:4000"
	for _, allow := range []bool{false, true} {
		h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil), AllowPrivate: true, AllowCredentials: allow,
			AllowFrom: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
		if err != nil {
			t.Fatal(err)
		}
		w := ask(h, them, group, false)
		challenged := w.Header().Get("WWW-Authenticate") != ""
		if want := map[bool]int{false: http.StatusForbidden, true: http.StatusUnauthorized}[allow]; w.Code != want || challenged != allow {
			t.Errorf("AllowCredentials %v, no login: %d, challenge %q; want %d", allow, w.Code, w.Header().Get("WWW-Authenticate"), want)
		}
		w = ask(h, them, group, false, "Authorization", good)
		if got := w.Code == 200 && strings.Contains(w.Body.String(), "Known article one"); got != allow {
			t.Errorf("AllowCredentials %v, the browser's answer: %d", allow, w.Code)
		}
		for _, field := range []string{"Authorization", "Proxy-Authorization"} {
			w = ask(h, them, group, true, "Accept", "text/html", field, good)
			if got := w.Code == 200 && strings.Contains(w.Body.String(), "Known article one"); got != allow {
				t.Errorf("AllowCredentials %v, a proxy client's %s: %d", allow, field, w.Code)
			}
		}
	}
}

// nginx with auth_basic through the gateway: its 401 gets the browser a
// 401 Basic challenge for its origin; the answer logs in there, and only
// there (not at another nginx with the same login, not for another
// client); a wrong one is asked again. A proxy client's Authorization
// (curl -u), Proxy-Authorization (curl -U) or URL userinfo logs in, as
// curl sends them. None of it reaches the access log.
func TestHTTPLogin(t *testing.T) {
	root := t.TempDir()
	const secret = "the protected page\n"
	if err := os.MkdirAll(filepath.Join(root, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"secret.txt", "other.txt"} {
		if err := os.WriteFile(filepath.Join(root, "private", name), []byte(secret), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	web := testserver.StartNginx(t, testserver.NginxConfig{Root: root, Protected: "/private/"})
	other := testserver.StartNginx(t, testserver.NginxConfig{Root: root, Protected: "/private/"})
	var log bytes.Buffer
	h, srv := gateway(t, Options{AccessLog: &log})
	const me = "127.0.0.1:5000"
	page := web.URL + "/private/secret.txt"
	good := basic(testserver.NginxUser, testserver.NginxPassword)
	realm := `Basic realm="http://` + web.Addr + `", charset="UTF-8"`

	w := ask(h, me, page, false)
	if w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != realm {
		t.Fatalf("no login: %d %q\n%s", w.Code, w.Header().Get("WWW-Authenticate"), w.Body.String())
	}
	if !strings.Contains(w.Body.String(), "401") {
		t.Errorf("the challenge's page does not tell the server's 401:\n%s", w.Body.String())
	}
	// The answer sent for another server first: not used there (nginx
	// there takes the same login).
	if w := ask(h, me, other.URL+"/private/secret.txt", false, "Authorization", good); w.Code != http.StatusUnauthorized {
		t.Errorf("the answer sent for another server: %d %s", w.Code, w.Body.String())
	}
	if w := ask(h, me, page, false, "Authorization", good); w.Code != 200 || w.Body.String() != secret {
		t.Errorf("the answer: %d %q", w.Code, w.Body.String())
	}
	// Bound to that origin now: used for its other URLs, not for another
	// server's, nor from another client.
	if w := ask(h, me, web.URL+"/private/other.txt", false, "Authorization", good); w.Code != 200 || w.Body.String() != secret {
		t.Errorf("the answer again, another page of the origin: %d %q", w.Code, w.Body.String())
	}
	ask(h, me, other.URL+"/private/secret.txt", false)
	if w := ask(h, me, other.URL+"/private/secret.txt", false, "Authorization", good); w.Code != http.StatusUnauthorized {
		t.Errorf("the answer bound to one server, sent for another: %d", w.Code)
	}
	if w := ask(h, "127.0.0.2:5000", page, false, "Authorization", good); w.Code != http.StatusUnauthorized {
		t.Errorf("the answer from another client: %d", w.Code)
	}
	for i := range 2 {
		if w := ask(h, "127.0.0.3:5000", page, false, "Authorization", basic(testserver.NginxUser, "wrong")); w.Code != http.StatusUnauthorized || w.Header().Get("WWW-Authenticate") != realm {
			t.Errorf("wrong password (%d): %d %q", i, w.Code, w.Header().Get("WWW-Authenticate"))
		}
	}

	curl := testserver.Require(t, "curl")
	userinfo := "http://" + testserver.NginxUser + ":" + url.PathEscape(testserver.NginxPassword) + "@" + web.Addr + "/private/secret.txt"
	for _, c := range []struct {
		name string
		args []string
	}{
		{"-U (Proxy-Authorization)", []string{"-U", testserver.NginxUser + ":" + testserver.NginxPassword, page}},
		{"-u (Authorization)", []string{"-u", testserver.NginxUser + ":" + testserver.NginxPassword, page}},
		{"userinfo", []string{userinfo}},
	} {
		out, err := exec.Command(curl, append([]string{"-sS", "-f", "--noproxy", "", "-x", srv.URL}, c.args...)...).CombinedOutput()
		if err != nil || string(out) != secret {
			t.Errorf("curl -x GATEWAY %s: %v %q", c.name, err, out)
		}
	}
	out, err := exec.Command(curl, "-sS", "-o", "/dev/null", "-D", "-", "--noproxy", "", "-x", srv.URL, page).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "HTTP/1.1 401") || !strings.Contains(strings.ToLower(string(out)), strings.ToLower("WWW-Authenticate: "+realm)) {
		t.Errorf("curl -x GATEWAY without a login: %v\n%q", err, out)
	}
	for _, leak := range []string{testserver.NginxPassword, url.PathEscape(testserver.NginxPassword), strings.TrimPrefix(good, "Basic ")} {
		if strings.Contains(log.String(), leak) {
			t.Errorf("the access log holds %q:\n%s", leak, log.String())
		}
	}
}

// A gateway serving other machines carries no http logins unless
// AllowCredentials: nginx's 401 is passed on as it is (no challenge of
// the gateway's), a proxy client's Proxy-Authorization is not sent.
func TestHTTPLoginRemote(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "private", "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	web := testserver.StartNginx(t, testserver.NginxConfig{Root: root, Protected: "/private/"})
	good := basic(testserver.NginxUser, testserver.NginxPassword)
	for _, allow := range []bool{false, true} {
		h, err := New(&fetch.Client{NoProxy: "*"}, Options{Resolver: newStub(nil), AllowPrivate: true, AllowCredentials: allow,
			AllowFrom: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}})
		if err != nil {
			t.Fatal(err)
		}
		w := ask(h, "203.0.113.9:4000", web.URL+"/private/secret.txt", false)
		if got := w.Header().Get("WWW-Authenticate") != ""; w.Code != http.StatusUnauthorized || got != allow {
			t.Errorf("AllowCredentials %v, no login: %d, challenge %q", allow, w.Code, w.Header().Get("WWW-Authenticate"))
		}
		w = ask(h, "203.0.113.9:4000", web.URL+"/private/secret.txt", true, "Accept", "*/*", "Proxy-Authorization", good)
		if got := w.Code == 200; got != allow {
			t.Errorf("AllowCredentials %v, a proxy client's Proxy-Authorization: %d", allow, w.Code)
		}
	}
}
