package urlparse

import (
	"reflect"
	"testing"
)

func TestProspero(t *testing.T) {
	cases := []struct {
		in   string
		host string
		port int
		want Prospero
	}{
		{"prospero://h//a/b", "h", -1, Prospero{HSOName: "/a/b"}},
		{"prospero://h/AFTP/pub/README", "h", -1, Prospero{HSOName: "AFTP/pub/README"}},
		{"prospero://h", "h", -1, Prospero{}},
		{"prospero://h/", "h", -1, Prospero{}},
		{"prospero://h:1526/x;OBJECT-VERSION=3", "h", 1526,
			Prospero{HSOName: "x", Fields: []Field{{"OBJECT-VERSION", "3"}}}},
		{"prospero://h/x;a%3Bb=c%3Dd;e=f", "h", -1,
			Prospero{HSOName: "x", Fields: []Field{{"a;b", "c=d"}, {"e", "f"}}}},
		{"prospero://h/x;k=v=w", "h", -1, Prospero{HSOName: "x", Fields: []Field{{"k", "v=w"}}}},
		{"prospero://h/x;k=", "h", -1, Prospero{HSOName: "x", Fields: []Field{{"k", ""}}}},
		{"prospero://h/x;=v", "h", -1, Prospero{HSOName: "x", Fields: []Field{{"", "v"}}}},
		{"prospero://h/;k=v", "h", -1, Prospero{Fields: []Field{{"k", "v"}}}},
		{"prospero://h/a%3Bb%20c/d=e", "h", -1, Prospero{HSOName: "a;b c/d=e"}},
		// "?" is an ordinary character
		{"prospero://h/a?b;k=v?w", "h", -1, Prospero{HSOName: "a?b", Fields: []Field{{"k", "v?w"}}}},
		{"prospero://h/a;k=v?;x=%20", "h", -1, Prospero{HSOName: "a", Fields: []Field{{"k", "v?"}, {"x", " "}}}},
		{"prospero://h/a%20?b%20", "h", -1, Prospero{HSOName: "a ?b "}},
		{"prospero://h/a#f;x", "h", -1, Prospero{HSOName: "a"}},
	}
	for _, c := range cases {
		u := mustParse(t, c.in)
		if u.Host != c.host || u.Port != c.port || !reflect.DeepEqual(u.Prospero, c.want) {
			t.Errorf("Parse(%q): host %q port %d %#v; want %q %d %#v", c.in, u.Host, u.Port, u.Prospero, c.host, c.port, c.want)
		}
		testRoundTrip(t, c.in)
	}
	if u := mustParse(t, "prospero://h/x"); u.PortOrDefault() != 1525 {
		t.Errorf("prospero default port %d", u.PortOrDefault())
	}
	testErrors(t, []errCase{
		{"prospero://h/x;k", 16, "fieldspec"},
		{"prospero://h/x;", 15, "fieldspec"},
		{"prospero://h/x;a=1;;b=2", 19, "fieldspec"},
		{"prospero://h?x", 12, "prosperourl"},
		{"prospero:/x", 9, "prosperourl"},
		{"prospero://h/x%", 15, "path"},
	})
}

func TestProsperoField(t *testing.T) {
	u := mustParse(t, "prospero://h/x;Object-Version=3;object-version=4;a=")
	if v, ok := u.Prospero.Field(ObjectVersion); !ok || v != "3" {
		t.Errorf("OBJECT-VERSION: %q %v", v, ok)
	}
	if v, ok := u.Prospero.Field("A"); !ok || v != "" {
		t.Errorf("a: %q %v", v, ok)
	}
	if _, ok := u.Prospero.Field("b"); ok {
		t.Error("b found")
	}
}
