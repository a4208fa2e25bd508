package urlparse

import (
	"reflect"
	"testing"
)

func TestMailto(t *testing.T) {
	cases := []struct {
		in   string
		want Mailto
	}{
		// RFC 6068 §6.1 and §6.2
		{"mailto:chris@example.com", Mailto{To: []string{"chris@example.com"}}},
		{"mailto:infobot@example.com?subject=current-issue",
			Mailto{To: []string{"infobot@example.com"}, Headers: []Header{{"subject", "current-issue"}}}},
		{"mailto:infobot@example.com?body=send%20current-issue",
			Mailto{To: []string{"infobot@example.com"}, Headers: []Header{{"body", "send current-issue"}}}},
		{"mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index",
			Mailto{To: []string{"infobot@example.com"}, Headers: []Header{{"body", "send current-issue\r\nsend index"}}}},
		{"mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C@example.com%3E",
			Mailto{To: []string{"list@example.org"}, Headers: []Header{{"In-Reply-To", "<3469A91.D10AF4C@example.com>"}}}},
		{"mailto:joe@example.com?cc=bob@example.com&body=hello",
			Mailto{To: []string{"joe@example.com"}, Headers: []Header{{"cc", "bob@example.com"}, {"body", "hello"}}}},
		{"mailto:?to=addr1@an.example,addr2@an.example",
			Mailto{Headers: []Header{{"to", "addr1@an.example,addr2@an.example"}}}},
		{"mailto:addr1@an.example,addr2@an.example",
			Mailto{To: []string{"addr1@an.example", "addr2@an.example"}}},
		{"mailto:gorby%25kremvax@example.com", Mailto{To: []string{"gorby%kremvax@example.com"}}},
		{"mailto:unlikely%3Faddress@example.com?blat=foop",
			Mailto{To: []string{"unlikely?address@example.com"}, Headers: []Header{{"blat", "foop"}}}},
		{"mailto:%22not%40me%22@example.org", Mailto{To: []string{`"not@me"@example.org`}}},
		{"mailto:user@example.org?subject=caf%C3%A9", Mailto{To: []string{"user@example.org"}, Headers: []Header{{"subject", "café"}}}},
		// splitting before decoding: %2C, %26 and %3D stay inside their piece
		{"mailto:a%2Cb@x,c@y?a%26b=c%3Dd&e=f%26g",
			Mailto{To: []string{"a,b@x", "c@y"}, Headers: []Header{{"a&b", "c=d"}, {"e", "f&g"}}}},
		{"mailto:a@b?x=1&x=2&y=a=b", Mailto{To: []string{"a@b"}, Headers: []Header{{"x", "1"}, {"x", "2"}, {"y", "a=b"}}}},
		{"mailto:a@b?=v&k=", Mailto{To: []string{"a@b"}, Headers: []Header{{"", "v"}, {"k", ""}}}},
		{"mailto:a@b?subject=a+b", Mailto{To: []string{"a@b"}, Headers: []Header{{"subject", "a+b"}}}},
		{"mailto:a@b?", Mailto{To: []string{"a@b"}}},
		{"mailto:", Mailto{}},
		{"MAILTO:A@B#frag", Mailto{To: []string{"A@B"}}},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if !reflect.DeepEqual(u.Mailto, c.want) {
			t.Errorf("Parse(%q).Mailto = %#v; want %#v", c.in, u.Mailto, c.want)
		}
		testRoundTrip(t, c.in)
	}
}

func TestMailtoErrors(t *testing.T) {
	testErrors(t, []errCase{
		{"mailto://a@b", 7, "mailtoURI"},
		{"mailto:a@b,,c@d", 11, "to"},
		{"mailto:a@b,", 11, "to"},
		{"mailto:,a@b", 7, "to"},
		{"mailto:a@b?subject", 18, "hfield"},
		{"mailto:a@b?x=1&&y=2", 15, "hfield"},
		{"mailto:a@b?x=1&", 15, "hfield"},
		{"mailto:a@b?x=%", 14, "query"},
		{"mailto:a b@c", 8, "path"},
	})
}
