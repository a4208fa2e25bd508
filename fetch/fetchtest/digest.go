package fetchtest

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// DigestAuth is the server side of HTTP Digest authentication (RFC 7616)
// for tests, checking as a real server does: Challenge makes a
// WWW-Authenticate value with a fresh nonce; Check verifies an
// Authorization value against User and Password — the nonce is one it
// gave, nc grows, the uri is the request's, the response is right.
type DigestAuth struct {
	Realm, User, Password string
	Algorithm             string // sent in the challenge: MD5, SHA-256, MD5-sess, ...; "": none (MD5)
	QOP                   string // sent as qop="...": "auth", "auth,auth-int"; "": none (RFC 2069)
	Opaque                string // sent when set; must come back
	UserHash              bool   // userhash=true: the user name comes hashed
	// MaxUses is how many requests a nonce authorizes; the next one is
	// ErrStale (answer it with Challenge(true)). 0: no limit.
	MaxUses int

	mu     sync.Mutex
	nonces map[string]*nonceUse
	n      int
}

type nonceUse struct{ uses, nc int }

// ErrStale is Check's error for a right answer with a used-up nonce.
var ErrStale = errors.New("stale nonce")

// Challenge is a WWW-Authenticate value with a new nonce; stale says the
// last one was stale.
func (d *DigestAuth) Challenge(stale bool) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.nonces == nil {
		d.nonces = map[string]*nonceUse{}
	}
	d.n++
	nonce := fmt.Sprintf("%x/nonce+%06d==", md5.Sum([]byte(strconv.Itoa(d.n))), d.n) // one length: size_header compares
	d.nonces[nonce] = &nonceUse{}
	s := fmt.Sprintf(`Digest realm="%s", nonce="%s"`, d.Realm, nonce)
	if d.QOP != "" {
		s += `, qop="` + d.QOP + `"`
	}
	if d.Algorithm != "" {
		s += ", algorithm=" + d.Algorithm
	}
	if d.Opaque != "" {
		s += `, opaque="` + d.Opaque + `"`
	}
	if d.UserHash {
		s += ", userhash=true"
	}
	if stale {
		s += ", stale=true"
	}
	return s
}

var digestParamRE = regexp.MustCompile(`([a-z]+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))`)

// Check verifies the Authorization value authz of a request with method
// and request-target.
func (d *DigestAuth) Check(method, target, authz string) error {
	rest, ok := strings.CutPrefix(authz, "Digest ")
	if !ok {
		return fmt.Errorf("not a Digest answer: %q", authz)
	}
	p := map[string]string{}
	for _, m := range digestParamRE.FindAllStringSubmatch(rest, -1) {
		if _, dup := p[m[1]]; dup {
			return fmt.Errorf("%s twice", m[1])
		}
		p[m[1]] = strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(m[2]) + m[3]
	}
	var mk func() hash.Hash
	switch strings.TrimSuffix(strings.ToUpper(d.Algorithm), "-SESS") {
	case "", "MD5":
		mk = md5.New
	case "SHA-256":
		mk = sha256.New
	case "SHA-512-256":
		mk = sha512.New512_256
	}
	H := func(s string) string { x := mk(); x.Write([]byte(s)); return hex.EncodeToString(x.Sum(nil)) }
	user := d.User
	if d.UserHash {
		user = H(d.User + ":" + d.Realm)
	}
	switch {
	case p["username"] != user:
		return fmt.Errorf("username %q", p["username"])
	case p["realm"] != d.Realm:
		return fmt.Errorf("realm %q", p["realm"])
	case p["uri"] != target:
		return fmt.Errorf("uri %q for a request to %q", p["uri"], target)
	case p["opaque"] != d.Opaque:
		return fmt.Errorf("opaque %q", p["opaque"])
	case p["algorithm"] != d.Algorithm:
		return fmt.Errorf("algorithm %q", p["algorithm"])
	case d.UserHash != (p["userhash"] == "true"):
		return fmt.Errorf("userhash %q", p["userhash"])
	}
	a1 := d.User + ":" + d.Realm + ":" + d.Password
	if strings.HasSuffix(strings.ToUpper(d.Algorithm), "-SESS") {
		a1 = H(a1) + ":" + p["nonce"] + ":" + p["cnonce"]
	}
	a2 := method + ":" + target
	if p["qop"] == "auth-int" {
		a2 += ":" + H("")
	}
	var want string
	if d.QOP == "" {
		if p["qop"] != "" || p["nc"] != "" || p["cnonce"] != "" {
			return fmt.Errorf("qop, nc or cnonce without a qop offered")
		}
		want = H(H(a1) + ":" + p["nonce"] + ":" + H(a2))
	} else {
		if !strings.Contains(","+d.QOP+",", ","+p["qop"]+",") || p["cnonce"] == "" || len(p["nc"]) != 8 {
			return fmt.Errorf("qop %q, cnonce %q, nc %q", p["qop"], p["cnonce"], p["nc"])
		}
		want = H(strings.Join([]string{H(a1), p["nonce"], p["nc"], p["cnonce"], p["qop"], H(a2)}, ":"))
	}
	if p["response"] != want {
		return fmt.Errorf("wrong response %q", p["response"])
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	use := d.nonces[p["nonce"]]
	if use == nil {
		return fmt.Errorf("nonce %q never given", p["nonce"])
	}
	if d.QOP != "" {
		nc, err := strconv.ParseUint(p["nc"], 16, 32)
		if err != nil || int(nc) <= use.nc {
			return fmt.Errorf("nc %q not above %d", p["nc"], use.nc)
		}
		use.nc = int(nc)
	}
	if use.uses++; d.MaxUses > 0 && use.uses > d.MaxUses {
		return ErrStale
	}
	return nil
}

// Serve checks r's Authorization: it returns true when r may be served,
// and otherwise answers 401 with a challenge (stale=true after ErrStale),
// its error in the X-Digest-Error field.
func (d *DigestAuth) Serve(w http.ResponseWriter, r *http.Request) bool {
	authz := r.Header.Get("Authorization")
	err := errors.New("no Authorization")
	if authz != "" {
		err = d.Check(r.Method, r.RequestURI, authz)
	}
	if err == nil {
		return true
	}
	w.Header().Set("WWW-Authenticate", d.Challenge(errors.Is(err, ErrStale)))
	w.Header().Set("X-Digest-Error", strings.ReplaceAll(err.Error(), "\n", " "))
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprintln(w, "401 digest")
	return false
}
