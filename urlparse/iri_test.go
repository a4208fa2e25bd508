package urlparse

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseIRI(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://bücher.de/", "http://xn--bcher-kva.de/"},
		{"http://BÜCHER.de:8080/ä?ö#ü", "http://xn--bcher-kva.de:8080/%C3%A4?%C3%B6#%C3%BC"},
		{"http://ü@bücher.de/", "http://%C3%BC@xn--bcher-kva.de/"},
		{"http://b%C3%BCcher.de/ü", "http://b%C3%BCcher.de/%C3%BC"}, // a host that is a URI's is kept
		{"http://bü%63her.de/", "http://xn--bcher-kva.de/"},         // escapes decoded before IDNA
		{"http://b%C3%BCcher.de/", "http://b%C3%BCcher.de/"},        // a URI: unchanged
		{"http://bü_x.de/", "http://b%C3%BC_x.de/"},                 // IDNA refuses "_": percent-encoded
		{"http://☃.net/", "http://xn--n3h.net/"},
		{"ftp://h/日本語.txt", "ftp://h/%E6%97%A5%E6%9C%AC%E8%AA%9E.txt"},
		{"http://a/?\ue000", "http://a/?%EE%80%80"}, // iprivate in the query
		{"http://a/\u200c", "http://a/%E2%80%8C"},   // ZWNJ is a ucschar
		{"mailto:jürgen@bücher.de", "mailto:j%C3%BCrgen@b%C3%BCcher.de"},
		// message-ids pasted with their angle brackets
		{"news:<abc@example.com>", "news:abc@example.com"},
		{"NEWS:<a#b?c@d>", "NEWS:a%23b%3Fc@d"},
		{"news://h/<abc@example.com>", "news://h/abc@example.com"},
		{"nntp://h/comp.lang.go/<abc@example.com>", "nntp://h/comp.lang.go/abc@example.com"},
		{"nntp://h/<abc@example.com>", "nntp://h/abc@example.com"},
		{"news:<jö@x>", "news:j%C3%B6@x"},
	} {
		u, err := ParseIRI(c.in)
		if err != nil || u.String() != c.want {
			t.Errorf("ParseIRI(%q) = %q, %v; want %q", c.in, u.String(), err, c.want)
			continue
		}
		want, err := Parse(c.want)
		if err != nil || !reflect.DeepEqual(u, want) {
			t.Errorf("ParseIRI(%q) = %+v; Parse(%q) = %+v, %v", c.in, u, c.want, want, err)
		}
		r, err := ParseIRIRef(c.in)
		if err != nil || r != u.Ref {
			t.Errorf("ParseIRIRef(%q) = %+v, %v; want %+v", c.in, r, err, u.Ref)
		}
	}

	u, _ := ParseIRI("news:<abc@example.com>")
	if u.News.MessageID != "abc@example.com" {
		t.Errorf("news:<abc@example.com>: message-id %q", u.News.MessageID)
	}
	u, _ = ParseIRI("nntp://h/g/<abc@example.com>")
	if u.NNTP != (NNTP{Group: "g", MessageID: "abc@example.com"}) {
		t.Errorf("nntp://h/g/<abc@example.com>: %+v", u.NNTP)
	}
	if r, err := ParseIRIRef("//bücher.de/x"); err != nil || r.RawHost != "xn--bcher-kva.de" {
		t.Errorf("relative IRI: host %q, %v", r.RawHost, err)
	}
}

func TestParseIRIErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		off  int
		rule string
		msg  string
	}{
		{"http://a/\xff", 9, "IRI", "byte 0xFF is not UTF-8"},
		{"http://a/b\xc3", 10, "IRI", "byte 0xC3 is not UTF-8"},
		{"http://a/\u200e", 9, "IRI", "bidirectional formatting character U+200E (RFC 3987 §4.1)"},
		{"http://a/x\u202e", 10, "IRI", "bidirectional formatting character U+202E (RFC 3987 §4.1)"},
		{"http://a/\ue000", 9, "iprivate", "private-use character U+E000 outside the query"},
		{"http://a/#\ue000", 10, "iprivate", "private-use character U+E000 outside the query"},
		{"http://a/\u0085", 9, "ucschar", "character U+0085 not allowed in an IRI"},
		{"http://a/\uffff", 9, "ucschar", "character U+FFFF not allowed in an IRI"},
		{"http://a/\ufdd0", 9, "ucschar", "character U+FDD0 not allowed in an IRI"},
		{"http://a/\U000E0001", 9, "ucschar", "character U+E0001 not allowed in an IRI"},
		{"http://a/\U0001FFFE", 9, "ucschar", "character U+1FFFE not allowed in an IRI"},
		// the URI form fails: blamed on the input's character
		{"http://h:8ü/", 10, "port", "character U+00FC not allowed"},
		{"http://[ü]/", 8, "IPv6address", "character U+00FC not allowed"},
		{"ü:x", 0, "scheme", ""},
		// ASCII the URI grammar refuses stays refused, at the input's offset
		{"http://a b/ü", 8, "host", "character ' ' not allowed"},
		{"http://ü/a b", 11, "path", "character ' ' not allowed"},
		{"http://bücher.de/%zz", 19, "path", ""},
		{"news:<ab>", 5, "path", "character '<' not allowed"}, // no "@": not a message-id
		{"http://h/<a@b>", 9, "path", "character '<' not allowed"},
		// the scheme's own rules, after the conversion
		{"http:bücher", 5, "httpurl", ""},
		{"http://bücher.de:99999/", 18, "port", "port number over 65535"},
	} {
		_, err := ParseIRI(c.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("ParseIRI(%q) = %v; want an *Error", c.in, err)
			continue
		}
		if e.Input != c.in || e.Offset != c.off || e.Rule != c.rule || c.msg != "" && e.Msg != c.msg {
			t.Errorf("ParseIRI(%q): %v (input %q offset %d rule %q msg %q); want offset %d rule %q msg %q",
				c.in, err, e.Input, e.Offset, e.Rule, e.Msg, c.off, c.rule, c.msg)
		}
		if !strings.Contains(e.Error(), "at byte ") {
			t.Errorf("ParseIRI(%q): %q", c.in, e)
		}
	}

	// A scheme error keeps the URI form's generic components.
	u, err := ParseIRI("http:bücher")
	var e *Error
	if !errors.As(err, &e) || e.Scheme != "http" || u.String() != "http:b%C3%BCcher" || u.SchemeErr() != err {
		t.Errorf("ParseIRI(\"http:bücher\") = %q, %v", u.String(), err)
	}
}

// TestParseIRIASCII: an input that is already a URI gives what Parse gives.
func TestParseIRIASCII(t *testing.T) {
	for _, s := range append(benchCorpus(t), "http://a/%zz", "http:x", "http://h:65536/", "a b", "news:<x>") {
		u, err := ParseIRI(s)
		pu, perr := Parse(s)
		if !reflect.DeepEqual(u, pu) || !reflect.DeepEqual(err, perr) {
			t.Errorf("ParseIRI(%q) = %v; Parse gives %v", s, err, perr)
		}
	}
}

func FuzzParseIRIRef(f *testing.F) {
	for _, s := range []string{"http://bücher.de/ä?ö#ü", "news:<a@b>", "//ü@ü:1/ü", "\xff", "a\u200eb", "http://[ü]/", "nntp://h/g/<a#b@c>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseIRIRef(s)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Input != s || e.Offset < 0 || e.Offset > len(s) {
				t.Fatalf("ParseIRIRef(%q): %#v", s, err)
			}
			return
		}
		u := r.String()
		for i := 0; i < len(u); i++ {
			if u[i] >= utf8.RuneSelf {
				t.Fatalf("ParseIRIRef(%q) = %q, not ASCII", s, u)
			}
		}
		if r2, err := ParseRef(u); err != nil || r2 != r {
			t.Fatalf("ParseIRIRef(%q) = %+v; ParseRef(%q) = %+v, %v", s, r, u, r2, err)
		}
		if !mayBeIRI(s) && u != s {
			t.Fatalf("ParseIRIRef(%q) changed a URI into %q", s, u)
		}
	})
}
