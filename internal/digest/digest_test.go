package digest

import (
	"strings"
	"testing"
)

// TestDigestRFC7616Example: the answers of RFC 7616 §3.9.1 (SHA-256 and
// MD5), from its challenge, with its cnonce.
func TestDigestRFC7616Example(t *testing.T) {
	const cnonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
	for alg, resp := range map[string]string{
		"SHA-256": "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1",
		"MD5":     "8ca523f5e9506fed4657c9700eebdbec",
	} {
		h := []string{`Basic realm="x"`, `Digest
       realm="http-auth@example.org",
       qop="auth, auth-int",
       algorithm=` + alg + `,
       nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
       opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"`}
		c, ok := Find(h)
		if !ok {
			t.Fatalf("%s: no challenge found", alg)
		}
		got, err := c.Answer("Mufasa", "Circle of Life", "GET", "/dir/index.html", cnonce)
		want := `Digest username="Mufasa", realm="http-auth@example.org", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", uri="/dir/index.html", ` +
			`cnonce="` + cnonce + `", nc=00000001, qop=auth, response="` + resp + `", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", algorithm=` + alg
		if err != nil || got != want {
			t.Errorf("%s:\ngot  %s (%v)\nwant %s", alg, got, err, want)
		}
	}
	for _, bad := range []string{`Digest realm="r", nonce="n", algorithm=SHA-1`, "Digest realm=\"r\nX: y\", nonce=\"n\""} {
		c, _ := Find([]string{bad})
		if s, err := c.Answer("u", "p", "GET", "/", "c"); err == nil || strings.Contains(s, "\n") {
			t.Errorf("%q answered: %q", bad, s)
		}
	}
}

// TestDigestChallengeParse: quoted strings with commas and escapes, a
// token nonce, qop "auth" chosen wherever it is in the list, a Digest
// challenge after another scheme's, flags in any case.
func TestDigestChallengeParse(t *testing.T) {
	h := []string{
		`Basic realm="b"`,
		`DIGEST realm="a, \"quoted\" \\ realm",nonce=tok123 , qop="auth-int, auth", STALE=TRUE, userhash=false, algorithm=MD5-sess`,
		`Digest realm="second", nonce="n2"`,
	}
	c, ok := Find(h)
	want := Challenge{realm: `a, "quoted" \ realm`, nonce: "tok123", qop: "auth", stale: true, algorithm: "MD5-sess"}
	if !ok || c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	if c, ok := Find([]string{`Digest realm="r", qop="auth-int"`}); ok {
		t.Errorf("a challenge without a nonce taken: %+v", c)
	}
	if c, _ := Find([]string{`Digest nonce="n", qop="auth-int"`}); c.qop != "auth-int" {
		t.Errorf("auth-int alone: qop %q", c.qop)
	}
}

// TestDigestAnswerQuotes: a realm with quotes (unquoted from the
// challenge, hashed so) goes back escaped, as curl sends it (test 1095).
func TestDigestAnswerQuotes(t *testing.T) {
	c := Challenge{realm: `test "this" realm!!`, nonce: "1053604145"}
	got, err := c.Answer("testuser", "testpass", "GET", "/1095", "cn")
	want := `Digest username="testuser", realm="test \"this\" realm!!", nonce="1053604145", uri="/1095", response="df3246f44d2bc8de0e9f8fc4d7cf6e95"`
	if err != nil || got != want {
		t.Errorf("answer:\n%s (%v)\nwant (curl's):\n%s", got, err, want)
	}
}
