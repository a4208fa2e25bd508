package serve

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// An ftp or news server that wants a password, or an http or https
// server that answers 401 offering Basic, is answered 401 with a Basic
// challenge whose realm names the server (ftp://host:port, the origin
// http://host:port), as Squid does for ftp; the browser asks the person
// and sends the answer as Authorization.
// A browser sends that field again with later requests to the gateway's
// origin, whatever URL they name, so the gateway binds an answer to the
// server it was asked for: an Authorization is used only for the
// upstream its client was last challenged for, the first time, and from
// then on for that upstream alone (for http, its origin: scheme, host and
// port; the gateway follows no redirect, so the login goes nowhere else).
// A proxy client names its target in each request (curl -x GATEWAY -u
// user:pw ftp://…, -U user:pw http://…): its Authorization, else
// Proxy-Authorization, is carried to that target, as is a URL's
// userinfo. Credentials pass only where Options.AllowCredentials says, or
// the gateway serves this machine alone; they are never logged (the
// access log masks a URL's password, -v the PASS command and the
// Authorization field).

// maxLogins bounds the challenges and answers remembered; past it they
// are forgotten all at once (a browser is then asked again).
const maxLogins = 4096

// logins remembers which upstream each client was challenged for and to
// which upstream each answer is bound.
type logins struct {
	mu    sync.Mutex
	asked map[string]bool     // client "\x00" upstream: challenged, not yet answered
	bound map[[32]byte]string // sha256(client, Authorization) → upstream
}

// ask notes that client was challenged for upstream.
func (l *logins) ask(client, upstream string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.asked == nil || len(l.asked) >= maxLogins {
		l.asked = map[string]bool{}
	}
	l.asked[client+"\x00"+upstream] = true
}

// use reports whether the answer auth of client may log in to upstream:
// it is bound to upstream, or unbound and client was challenged for
// upstream (it is then bound to it).
func (l *logins) use(client, auth, upstream string) bool {
	key := sha256.Sum256([]byte(client + "\x00" + auth))
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.bound[key]; ok {
		return b == upstream
	}
	if !l.asked[client+"\x00"+upstream] {
		return false
	}
	delete(l.asked, client+"\x00"+upstream)
	if l.bound == nil || len(l.bound) >= maxLogins {
		l.bound = map[[32]byte]string{}
	}
	l.bound[key] = upstream
	return true
}

// credentialsAllowed reports whether clients' credentials are carried to
// servers: Options.AllowCredentials, or only this machine is served.
func (h *Handler) credentialsAllowed() bool {
	return h.opt.AllowCredentials || len(h.opt.AllowFrom) == 0
}

// takesLogin reports whether the gateway asks for and carries logins for
// URLs of scheme: ftp, nntp and nntps (AUTHINFO USER/PASS), http and
// https (Basic); a news: URL names no server to bind a login to.
func takesLogin(scheme string) bool {
	switch scheme {
	case "ftp", "nntp", "nntps", "http", "https":
		return true
	}
	return false
}

// basicAuth reads a Basic Authorization field's user and password.
func basicAuth(v string) (user, pass string, ok bool) {
	scheme, b64, _ := strings.Cut(strings.TrimSpace(v), " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(b), ":")
	if !ok || user == "" || strings.ContainsAny(user+pass, "\r\n\x00") {
		return "", "", false
	}
	return user, pass, true
}

// login gives the request for u the client's credentials, when it sent
// some that may be used for u's upstream: u with the user, and the
// password as fetch.OptPassword (so that it never stands in a URL the
// pages show). It returns the URL to fetch.
func (h *Handler) login(r *http.Request, q *query, u urlparse.URL, upstream string, opts fetch.Options) urlparse.URL {
	if !h.credentialsAllowed() || !takesLogin(u.Scheme) || u.HasPassword {
		return u
	}
	auth := r.Header.Get("Authorization")
	if auth == "" && q.proxy {
		auth = r.Header.Get("Proxy-Authorization")
	}
	user, pass, ok := basicAuth(auth)
	if !ok {
		return u
	}
	if !q.proxy && !h.logins.use(clientOf(r), auth, upstream) {
		return u
	}
	s := u.String()
	i := strings.Index(s, "//")
	if i < 0 {
		return u
	}
	rest := s[i+2:]
	if u.HasUserinfo {
		rest = rest[len(u.RawUserinfo)+1:]
	}
	nu, err := fetch.GuessURL(s[:i+2] + url.User(user).String() + "@" + rest)
	if err != nil {
		return u
	}
	opts[fetch.OptPassword] = pass
	return nu
}

// clientOf is the client's address without its port.
func clientOf(r *http.Request) string {
	i := strings.LastIndexByte(r.RemoteAddr, ':')
	if i < 0 {
		return r.RemoteAddr
	}
	return r.RemoteAddr[:i]
}

// refusedLogin says how the upstream refused to serve without a login
// ("" when it did not): an ftp or news server's ErrLoginDenied (err), an
// http or https server's 401 that offers Basic (res), which the gateway
// can ask its own client for.
func refusedLogin(res *fetch.Resource, err error) string {
	switch {
	case err != nil && fetch.KindOf(err) == fetch.ErrLoginDenied:
		return err.Error()
	case err == nil && res.IsHTTP() && res.Status == http.StatusUnauthorized && fetch.OffersScheme(res.Header.Values("WWW-Authenticate"), "Basic"):
		return "the server wants a login (401 " + fetch.SanitizeLine(res.Header.Get("WWW-Authenticate"), 200) + ")"
	}
	return ""
}

// challenge answers a login the server refused (refusedLogin's why) with
// 401 and a Basic challenge for the upstream, when the gateway carries
// logins for it; false when it does not (the refusal is then told as it
// is: a 403, an http server's own 401).
func (h *Handler) challenge(w *logWriter, r *http.Request, q *query, u *urlparse.URL, upstream, why string) bool {
	if why == "" || !h.credentialsAllowed() || !takesLogin(u.Scheme) {
		return false
	}
	realm := strings.Map(func(c rune) rune {
		if c < ' ' || c == '"' || c == '\\' || c == 0x7f {
			return -1
		}
		return c
	}, upstream)
	w.Header().Set("WWW-Authenticate", `Basic realm="`+realm+`", charset="UTF-8"`)
	if !q.proxy {
		h.logins.ask(clientOf(r), upstream)
	}
	h.fail(w, r, q, http.StatusUnauthorized, why)
	return true
}
