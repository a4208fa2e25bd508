// Package digest is HTTP Digest authentication's client side (RFC 7616),
// as curl's --digest and --proxy-digest speak it: finding the challenge
// of a WWW-Authenticate or Proxy-Authenticate field and answering it
// (MD5, SHA-256, SHA-512-256 and their "-sess" forms; qop "auth",
// "auth-int" without a body, or none; opaque, userhash), the answer's
// parameters in curl's order. It holds no state and does no I/O: which
// request carries the answer is the caller's (fetch/http, fetch's CONNECT
// tunnel).
package digest

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strings"
)

// NewCnonce is a client nonce: 16 random bytes, base64.
func NewCnonce() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// Challenge is a Digest challenge's parameters (RFC 7616 §3.3).
type Challenge struct {
	realm, nonce, opaque, algorithm string
	qop                             string // "auth", "auth-int" or "" (none offered)
	stale, userhash                 bool
}

// Find is the first Digest challenge among the values of a
// WWW-Authenticate or Proxy-Authenticate field, as curl takes the first;
// false when none has a nonce.
func Find(values []string) (Challenge, bool) {
	for _, v := range values {
		v = strings.TrimSpace(v)
		scheme, rest := v, ""
		if i := strings.IndexAny(v, " \t\r\n"); i >= 0 {
			scheme, rest = v[:i], v[i:]
		}
		if !strings.EqualFold(scheme, "Digest") {
			continue
		}
		var c Challenge
		for k, val := range authParams(rest) {
			switch k {
			case "realm":
				c.realm = val
			case "nonce":
				c.nonce = val
			case "opaque":
				c.opaque = val
			case "algorithm":
				c.algorithm = val
			case "stale":
				c.stale = strings.EqualFold(val, "true")
			case "userhash":
				c.userhash = strings.EqualFold(val, "true")
			case "qop":
				for q := range strings.SplitSeq(val, ",") {
					switch q = strings.TrimSpace(q); {
					case strings.EqualFold(q, "auth"):
						c.qop = "auth"
					case strings.EqualFold(q, "auth-int") && c.qop == "":
						c.qop = "auth-int"
					}
				}
			}
		}
		return c, c.nonce != ""
	}
	return Challenge{}, false
}

// authParams yields the name=value pairs of an auth-param list (RFC 9110
// §11.2), names in lower case, quoted strings unquoted.
func authParams(s string) func(yield func(k, v string) bool) {
	return func(yield func(k, v string) bool) {
		for {
			s = strings.TrimLeft(s, " \t\r\n,")
			eq := strings.IndexByte(s, '=')
			if eq <= 0 {
				return
			}
			k := strings.ToLower(strings.TrimSpace(s[:eq]))
			s = strings.TrimLeft(s[eq+1:], " \t\r\n")
			var v strings.Builder
			if strings.HasPrefix(s, `"`) {
				i := 1
				for ; i < len(s) && s[i] != '"'; i++ {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					v.WriteByte(s[i])
				}
				s = s[min(i+1, len(s)):]
			} else {
				end := strings.IndexByte(s, ',')
				if end < 0 {
					end = len(s)
				}
				v.WriteString(strings.TrimSpace(s[:end]))
				s = s[end:]
			}
			if !yield(k, v.String()) {
				return
			}
		}
	}
}

// digestHash is the hash function of an algorithm name, and whether it is
// a "-sess" variant.
func digestHash(alg string) (func() hash.Hash, bool, error) {
	name, sess := strings.CutSuffix(strings.ToUpper(alg), "-SESS")
	switch name {
	case "", "MD5":
		return md5.New, sess, nil
	case "SHA-256":
		return sha256.New, sess, nil
	case "SHA-512-256":
		return sha512.New512_256, sess, nil
	}
	return nil, false, fmt.Errorf("digest algorithm %q not supported", alg)
}

// Answer is the Authorization (or Proxy-Authorization) field value answering c for user and
// password, a request with method to uri (RFC 7616 §3.4), with nc
// 00000001: each request starts afresh, as curl's transfers do. Its
// parameters are in curl's order.
func (c Challenge) Answer(user, password, method, uri, cnonce string) (string, error) {
	newHash, sess, err := digestHash(c.algorithm)
	if err != nil {
		return "", err
	}
	if c.qop == "auth-int" && method != "GET" && method != "HEAD" {
		// H(entity-body) would need the body before it is sent.
		return "", fmt.Errorf("digest qop auth-int with a body is not supported")
	}
	h := func(parts ...string) string {
		d := newHash()
		io.WriteString(d, strings.Join(parts, ":"))
		return hex.EncodeToString(d.Sum(nil))
	}
	const nc = "00000001"
	ha1 := h(user, c.realm, password)
	if sess {
		ha1 = h(ha1, c.nonce, cnonce)
	}
	ha2 := h(method, uri)
	if c.qop == "auth-int" {
		ha2 = h(method, uri, h(""))
	}
	name := user
	if c.userhash {
		name = h(user, c.realm)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `Digest username="%s", realm="%s", nonce="%s", uri="%s", `, quote(name), quote(c.realm), quote(c.nonce), uri)
	if c.qop != "" {
		fmt.Fprintf(&b, `cnonce="%s", nc=%s, qop=%s, response="%s"`, cnonce, nc, c.qop, h(ha1, c.nonce, nc, cnonce, c.qop, ha2))
	} else {
		fmt.Fprintf(&b, `response="%s"`, h(ha1, c.nonce, ha2))
	}
	if c.opaque != "" {
		fmt.Fprintf(&b, `, opaque="%s"`, quote(c.opaque))
	}
	if c.algorithm != "" {
		fmt.Fprintf(&b, ", algorithm=%s", c.algorithm)
	}
	if c.userhash {
		b.WriteString(", userhash=true")
	}
	if strings.ContainsAny(b.String(), "\r\n\x00") {
		return "", fmt.Errorf("digest challenge or user name holds a CR, LF or NUL")
	}
	return b.String(), nil
}

// quote escapes '"' and '\' for a quoted-string.
func quote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
}

// Stale reports whether the challenge says the nonce answered before was
// stale (stale=true): the new one may be answered again.
func (c Challenge) Stale() bool { return c.stale }
