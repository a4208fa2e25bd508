package urlparse

import "testing"

func TestNews(t *testing.T) {
	cases := []struct {
		in   string
		host string
		want News
	}{
		{"news:comp.infosystems.www.misc", "", News{Group: "comp.infosystems.www.misc"}},
		{"news:12345@example.com", "", News{MessageID: "12345@example.com"}},
		{"news:*", "", News{All: true}},
		{"news:%2A", "", News{All: true}},
		{"news:*@x", "", News{MessageID: "*@x"}},
		{"news:a%40b", "", News{MessageID: "a@b"}},
		{"news:comp.lang%2Ego", "", News{Group: "comp.lang.go"}},
		// the article form allows "?" and "/"
		{"news:abc?def@host", "", News{MessageID: "abc?def@host"}},
		{"news:a/b;c=d&e@host", "", News{MessageID: "a/b;c=d&e@host"}},
		{"news:abc@host#frag", "", News{MessageID: "abc@host"}},
		// encoded angle brackets around a message-id are dropped
		{"news:%3Cabc@host%3E", "", News{MessageID: "abc@host"}},
		{"news:%3cabc@host%3e", "", News{MessageID: "abc@host"}},
		{"news:%3Cabc@host", "", News{MessageID: "<abc@host"}},
		{"news:%3C@%3E", "", News{MessageID: "@"}},
		{"news:%3C%3E", "", News{Group: "<>"}},
		{"NEWS:Comp.Lang.Go", "", News{Group: "Comp.Lang.Go"}},
		// RFC 5538
		{"news://news.example.com/comp.lang.go", "news.example.com", News{Group: "comp.lang.go"}},
		{"news://h:1119/abc@x", "h", News{MessageID: "abc@x"}},
		{"news://h/*", "h", News{All: true}},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.Host != c.host || u.News != c.want {
			t.Errorf("Parse(%q): host %q %+v; want %q %+v", c.in, u.Host, u.News, c.host, c.want)
		}
		testRoundTrip(t, c.in)
	}
	testErrors(t, []errCase{
		{"news:", 5, "grouppart"},
		{"news:#x", 5, "grouppart"},
		{"news://h", 8, "grouppart"},
		{"news://h/", 9, "grouppart"},
		{"news://h?x", 8, "newsurl"},
		{"news:a%zz", 7, "path"},
		{"news:<a@b>", 5, "path"},
	})
}

func TestNNTP(t *testing.T) {
	cases := []struct {
		in   string
		host string
		port int
		want NNTP
	}{
		{"nntp://news.example.com/comp.lang.go", "news.example.com", -1, NNTP{Group: "comp.lang.go"}},
		{"nntp://h:1119/g/123", "h", 1119, NNTP{Group: "g", Article: "123"}},
		{"nntp://h/g/", "h", -1, NNTP{Group: "g"}},
		{"nntp://h/g/0012", "h", -1, NNTP{Group: "g", Article: "0012"}},
		{"nntp://h/comp%2Elang", "h", -1, NNTP{Group: "comp.lang"}},
		{"nntp://h/a%2Fb/7", "h", -1, NNTP{Group: "a/b", Article: "7"}},
		{"nntp://h/g#frag", "h", -1, NNTP{Group: "g"}},
		{"nntps://[::1]/g/1", "::1", -1, NNTP{Group: "g", Article: "1"}},
		// a message-id in place of the group or the article
		{"nntp://h/%3Cabc@x%3E", "h", -1, NNTP{MessageID: "abc@x"}},
		{"nntp://h/abc@x", "h", -1, NNTP{MessageID: "abc@x"}},
		{"nntp://h/abc%40x", "h", -1, NNTP{MessageID: "abc@x"}},
		{"nntp://h/g/%3Cabc@x%3E", "h", -1, NNTP{Group: "g", MessageID: "abc@x"}},
		{"nntp://h/g/a/b%40x", "h", -1, NNTP{Group: "g", MessageID: "a/b@x"}},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.Host != c.host || u.Port != c.port || u.NNTP != c.want {
			t.Errorf("Parse(%q): host %q port %d %+v; want %q %d %+v", c.in, u.Host, u.Port, u.NNTP, c.host, c.port, c.want)
		}
		testRoundTrip(t, c.in)
	}
	if u := mustParse(t, "nntps://h/g"); u.PortOrDefault() != 563 {
		t.Errorf("nntps default port %d", u.PortOrDefault())
	}
	for _, s := range []string{"nntp://h", "nntp://h/", "nntps://h:563/"} {
		if u := mustParse(t, s); !u.NNTP.All || u.NNTP.Group != "" {
			t.Errorf("%s: %+v, want the group list (All)", s, u.NNTP)
		}
	}
	if u := mustParse(t, "nntp://h/g"); u.NNTP.All {
		t.Errorf("nntp://h/g is not the group list")
	}
	if u := mustParse(t, "nntp://h/g"); u.PortOrDefault() != 119 {
		t.Errorf("nntp default port %d", u.PortOrDefault())
	}
	testErrors(t, []errCase{
		{"nntp://h/g/12a", 13, "digits"},
		{"nntp://h/g/%31", 11, "digits"},
		{"nntp://h/g/1/2", 12, "digits"},
		{"nntp://h/g/-1", 11, "digits"},
		{"nntp://h//1", 9, "group"},
		{"nntp://h/g?x", 10, "nntpurl"},
		{"nntp://h/g/1?", 12, "nntpurl"},
		{"nntp:g", 5, "nntpurl"},
		{"nntp://:119/g", 7, "host"},
		{"nntp://h:123456/g", 9, "port"},
	})
}
