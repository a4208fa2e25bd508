package http_test

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/ntlm"
)

// ntlmServer is a server (or, proxy set, an HTTP proxy) that asks for
// NTLM as IIS does and checks the exchange: the NEGOTIATE message, then
// the AUTHENTICATE message on the same connection, answering its
// NTLMv1 challenge for user and password. It serves "ok\n" and the body
// it got to the authenticated connection. With anyAuth a request without
// credentials is answered by a bare "NTLM" challenge; with close the
// challenge says "Connection: close", with drop the connection is cut
// after it without a word.
type ntlmServer struct {
	user, password      string
	proxy, close, drop  bool
	closeFirst          bool // the bare "NTLM" challenge closes its connection
	mu                  sync.Mutex
	log                 []string // per request: "none", "type1", "type3", "other"; bodies after ":"
	challenged, authned string   // the connections (remote addresses)
}

var ntlmChallenge = &ntlm.Challenge{Flags: 0x00008206, Nonce: [8]byte{0x13, 0x57, 0x9b, 0xdf, 0x02, 0x46, 0x8a, 0xce}}

// challengeMessage is ntlmChallenge as a CHALLENGE message.
func challengeMessage() []byte {
	b := make([]byte, 32)
	copy(b, "NTLMSSP\x00")
	binary.LittleEndian.PutUint32(b[8:], 2)
	binary.LittleEndian.PutUint32(b[20:], ntlmChallenge.Flags)
	copy(b[24:], ntlmChallenge.Nonce[:])
	return b
}

func (s *ntlmServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	field, status, ask := "Authorization", http.StatusUnauthorized, "WWW-Authenticate"
	if s.proxy {
		field, status, ask = "Proxy-Authorization", http.StatusProxyAuthRequired, "Proxy-Authenticate"
	}
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	kind := "other"
	v := r.Header.Get(field)
	msg, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(v, "NTLM "))
	switch {
	case v == "":
		kind = "none"
	case err != nil || len(msg) < 12 || !strings.HasPrefix(v, "NTLM "):
	case msg[8] == 1 && string(msg) == string(ntlm.Negotiate()):
		kind = "type1"
	case msg[8] == 3:
		kind = "type3"
	}
	s.log = append(s.log, kind+":"+string(body))
	switch {
	case kind == "none" && r.RemoteAddr == s.authned:
		s.serve(w, r, body) // NTLM authenticates the connection
	case kind == "none":
		w.Header().Set(ask, "NTLM")
		if s.closeFirst {
			w.Header().Set("Connection", "close")
		}
		w.WriteHeader(status)
	case kind == "type1":
		s.challenged = r.RemoteAddr
		w.Header().Set(ask, "NTLM "+base64.StdEncoding.EncodeToString(challengeMessage()))
		if s.close {
			w.Header().Set("Connection", "close")
		}
		w.WriteHeader(status)
		io.WriteString(w, "not yet\n")
		if s.drop {
			w.(http.Flusher).Flush()
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}
	case kind == "type3" && r.RemoteAddr == s.challenged &&
		string(msg) == string(ntlmChallenge.Authenticate(s.user, s.password, [8]byte{}, time.Time{})):
		s.authned = r.RemoteAddr
		s.serve(w, r, body)
	default:
		w.WriteHeader(status)
	}
}

// serve answers an authenticated request: "ok\n" and its body, or for a
// CONNECT a tunnel to a server that answers one request so.
func (s *ntlmServer) serve(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Method != http.MethodConnect {
		io.WriteString(w, "ok\n"+string(body))
		return
	}
	tunnelOnce(w)
}

// tunnelOnce answers a CONNECT with 200 and then, through the tunnel, one
// request with "ok\n" and that request's body.
func tunnelOnce(w http.ResponseWriter) {
	c, brw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	go func() {
		defer c.Close()
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		if req, err := http.ReadRequest(brw.Reader); err == nil {
			b, _ := io.ReadAll(req.Body)
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\nok\n%s", 3+len(b), b)
		}
	}()
}

func (s *ntlmServer) requests() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, " ")
}

func startNTLM(t *testing.T, s *ntlmServer) string {
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestNTLM: --ntlm sends the NEGOTIATE message first (a body waits: the
// probe has none), and the AUTHENTICATE message on the connection the
// server challenged; --anyauth first goes without credentials and picks
// NTLM from the 401.
func TestNTLM(t *testing.T) {
	for _, tc := range []struct {
		name    string
		anyAuth bool
		body    string
		want    string
	}{
		{"get", false, "", "type1: type3:"},
		{"post", false, "a=b", "type1: type3:a=b"},
		{"anyauth", true, "", "none: type1: type3:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &ntlmServer{user: "testuser", password: "secret"}
			base := startNTLM(t, s)
			c := &fetch.Client{NTLM: !tc.anyAuth, AnyAuth: tc.anyAuth, User: `testuser`, Password: "secret", HasUser: true, HasPassword: true}
			req := &fetch.Request{URL: parse(t, base+"/page")}
			if tc.body != "" {
				req.Body, req.BodySize = strings.NewReader(tc.body), int64(len(tc.body))
				req.GetBody = func() (io.Reader, error) { return strings.NewReader(tc.body), nil }
			}
			res, got, err := get(t, c, req)
			if err != nil || res.Status != 200 || string(got) != "ok\n"+tc.body {
				t.Fatalf("%q %v, server saw %s", got, err, s.requests())
			}
			if r := s.requests(); r != tc.want {
				t.Errorf("server saw %s, want %s", r, tc.want)
			}
		})
	}
}

// A wrong password: the server's 401 to the AUTHENTICATE message is the
// result; one that closes the connection after its challenge ends the
// exchange there, with that 401 (curl's), and one that cuts it without
// saying so is an error, the answer never sent on a new connection.
func TestNTLMRefused(t *testing.T) {
	c := &fetch.Client{NTLM: true, User: "testuser", Password: "wrong", HasUser: true, HasPassword: true}
	s := &ntlmServer{user: "testuser", password: "secret"}
	res, _, err := get(t, c, &fetch.Request{URL: parse(t, startNTLM(t, s)+"/")})
	if err != nil || res.Status != 401 || s.requests() != "type1: type3:" {
		t.Errorf("wrong password: %v status %v, server saw %s", err, res, s.requests())
	}
	c.Password = "secret"
	s = &ntlmServer{user: "testuser", password: "secret", close: true}
	res, _, err = get(t, c, &fetch.Request{URL: parse(t, startNTLM(t, s)+"/")})
	if err != nil || res.Status != 401 || s.requests() != "type1:" {
		t.Errorf("Connection: close: %v status %v, server saw %s", err, res, s.requests())
	}
	s = &ntlmServer{user: "testuser", password: "secret", drop: true}
	_, _, err = get(t, c, &fetch.Request{URL: parse(t, startNTLM(t, s)+"/")})
	var fe *fetch.Error
	if !errors.As(err, &fe) || s.requests() != "type1:" {
		t.Errorf("connection cut: %v, server saw %s", err, s.requests())
	}
}

// --proxy-ntlm: the proxy's credentials by NTLM over one connection to
// the proxy, then the request goes on unauthenticated (the connection
// is); --proxy-anyauth picks NTLM from the 407.
func TestProxyNTLM(t *testing.T) {
	for _, anyAuth := range []bool{false, true} {
		s := &ntlmServer{user: `dom\pxuser`, password: "pxpass", proxy: true}
		proxy := parse(t, strings.Replace(startNTLM(t, s), "http://", `http://dom%5Cpxuser:pxpass@`, 1))
		c := &fetch.Client{Proxy: proxy, ProxyNTLM: !anyAuth, ProxyAnyAuth: anyAuth}
		res, got, err := get(t, c, &fetch.Request{URL: parse(t, "http://example.invalid/x")})
		want := "type1: type3:"
		if anyAuth {
			want = "none: " + want
		}
		if err != nil || res.Status != 200 || string(got) != "ok\n" || s.requests() != want {
			t.Errorf("anyauth %v: %q %v, proxy saw %s, want %s", anyAuth, got, err, s.requests(), want)
		}
	}
}

// --proxy-ntlm and --proxy-anyauth in a CONNECT tunnel (-p): the
// NEGOTIATE and AUTHENTICATE messages on one connection to the proxy,
// the tunnel on it; a 407 that closes its connection is answered on a
// new one.
func TestProxyNTLMTunnel(t *testing.T) {
	for _, tc := range []struct {
		name            string
		anyAuth, closes bool
		want            string
	}{
		{"ntlm", false, false, "type1: type3:"},
		{"anyauth", true, false, "none: type1: type3:"},
		{"anyauth, 407 closing", true, true, "none: type1: type3:"},
	} {
		s := &ntlmServer{user: "pxuser", password: "pxpass", proxy: true, closeFirst: tc.closes}
		proxy := parse(t, strings.Replace(startNTLM(t, s), "http://", "http://pxuser:pxpass@", 1))
		c := &fetch.Client{Proxy: proxy, ProxyTunnel: true, ProxyNTLM: !tc.anyAuth, ProxyAnyAuth: tc.anyAuth}
		res, got, err := get(t, c, &fetch.Request{URL: parse(t, "http://example.invalid/x")})
		if err != nil || res.Status != 200 || string(got) != "ok\n" || s.requests() != tc.want {
			t.Errorf("%s: %q %v, proxy saw %s, want %s", tc.name, got, err, s.requests(), tc.want)
		}
	}
}
