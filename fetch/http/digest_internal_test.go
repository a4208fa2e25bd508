package http

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

// TestDigestRFC7616Example: the answers of RFC 7616 §3.9.1 (SHA-256 and
// MD5), from its challenge, with its cnonce.
func TestDigestRFC7616Example(t *testing.T) {
	const cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
	for alg, resp := range map[string]string{
		"SHA-256": "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
		"MD5":     "8ca523f5e9506fed4657c9700eebdbec",
	} {
		h := fetch.Header{{Name: "WWW-Authenticate", Value: `Basic realm="x"`}, {Name: "WWW-Authenticate", Value: `Digest
       realm="http-auth@example.org",
       qop="auth, auth-int",
       algorithm=` + alg + `,
       nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
       opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`}}
		c, ok := digestChallenge(h)
		if !ok {
			t.Fatalf("%s: no challenge found", alg)
		}
		got, err := c.answer("Mufasa", "Circle of Life", "GET", "/dir/index.html", cnonce)
		want := `Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", uri="/dir/index.html", ` +
			`cnonce="` + cnonce + `", nc=00000001, qop=auth, response="` + resp + `", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", algorithm=` + alg
		if err != nil || got != want {
			t.Errorf("%s:\ngot  %s (%v)\nwant %s", alg, got, err, want)
		}
	}
	for _, bad := range []string{`Digest realm="r", nonce="n", algorithm=SHA-1`, "Digest realm=\"r\nX: y\", nonce=\"n\""} {
		c, _ := digestChallenge(fetch.Header{{Name: "WWW-Authenticate", Value: bad}})
		if s, err := c.answer("u", "p", "GET", "/", "c"); err == nil || strings.Contains(s, "\n") {
			t.Errorf("%q answered: %q", bad, s)
		}
	}
}
