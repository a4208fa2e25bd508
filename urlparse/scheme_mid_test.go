package urlparse

import "testing"

func TestMID(t *testing.T) {
	cases := []struct {
		in   string
		want MID
	}{
		// RFC 2392 §2 examples
		{"mid:960830.1639@XIson.com/partA.960830.1639@XIson.com", MID{"960830.1639@XIson.com", "partA.960830.1639@XIson.com"}},
		{"cid:foo4*foo1@bar.net", MID{ContentID: "foo4*foo1@bar.net"}},
		{"mid:960830.1639@XIson.com", MID{MessageID: "960830.1639@XIson.com"}},
		// "%2F" stays inside its id; brackets come off
		{"mid:a%2Fb@x/c%2Fd@y", MID{"a/b@x", "c/d@y"}},
		{"MID:%3Curlget%2Fodd+chars$1@example.net%3E", MID{MessageID: "urlget/odd+chars$1@example.net"}},
		{"cid:%3Cpart1@x%3E", MID{ContentID: "part1@x"}},
		{"cid:a/b@x", MID{ContentID: "a/b@x"}},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		got, err := u.MID()
		if err != nil || got != c.want {
			t.Errorf("MID(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"mid:", "mid:/x@y", "mid:a@b/", "cid:", "mid://host/a@b", "mid:a@b?x", "news:a@b", "cid:%3C%3E"} {
		u, err := Parse(bad)
		if err != nil {
			continue
		}
		if m, err := u.MID(); err == nil {
			t.Errorf("MID(%q) = %+v, want an error", bad, m)
		}
	}
}
