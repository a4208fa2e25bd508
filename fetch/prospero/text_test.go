package prospero

import (
	"reflect"
	"testing"
)

// Quoting as the ISI server writes tokens (§3.1), with the live examples.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "''",
		"hello.txt":                 "hello.txt",
		"/tmp/x/pub/hello.txt":      "'/tmp/x/pub/hello.txt'",
		"AFTP/pub/README":           "AFTP'/pub/README'",
		"50 bytes":                  "50' bytes'",
		"a b'c.txt":                 "a' b''c.txt'",
		"it's":                      "it'''s'",
		"a+b":                       "a'+b'",
		"x,y":                       "x',y'",
		"tab\there":                 "tab'\there'",
		"127.0.0.1(21525)":          "127.0.0.1(21525)",
		"line\nbreak\x00nul\xffbin": "line'\nbreak\x00nul\xffbin'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
		// And back.
		lines, err := Lines([]byte("X " + Quote(in) + "\n"))
		if err != nil || len(lines) != 1 || len(lines[0]) != 2 || lines[0][1] != in {
			t.Errorf("Lines(Quote(%q)) = %q, %v", in, lines, err)
		}
	}
}

func TestLines(t *testing.T) {
	msg := "LINK  L FILE one.txt INTERNET-D 127.0.0.1(21525) ASCII '/a/b' 0\n" +
		"\n" +
		"ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA Hello' from\nthe ''server''.'\n" +
		"X 'a'b'c' ''\t''''\n" +
		"VERSION-NOT-SUPPORTED TRY 1-5"
	want := [][]string{
		{"LINK", "L", "FILE", "one.txt", "INTERNET-D", "127.0.0.1(21525)", "ASCII", "/a/b", "0"},
		{"ATTRIBUTE", "OBJECT", "INTRINSIC", "CONTENTS", "SEQUENCE", "DATA", "Hello from\nthe 'server'."},
		{"X", "abc", "", "'"},
		{"VERSION-NOT-SUPPORTED", "TRY", "1-5"},
	}
	got, err := Lines([]byte(msg))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Lines:\n got %q %v\nwant %q", got, err, want)
	}
	if _, err := Lines([]byte("X 'open\n")); err == nil {
		t.Error("an unterminated quote was accepted")
	}
}

func TestParseReply(t *testing.T) {
	r, err := ParseReply([]byte("LINK L EXTERNAL nftp.fls INTERNET-D crydee.sai.msu.ru ASCII '/pub/nftp.fls' 0\n" +
		"ATTRIBUTE CACHED FIELD ACCESS-METHOD AFTP '' '' '' '' BINARY\n" +
		"ATTRIBUTE CACHED INTRINSIC SIZE SEQUENCE 43116' bytes'\n" +
		"FAILURE NOT-FOUND no such file\nFORWARDED INTERNET-D other(1526) ASCII '/x' 0\nNONE-FOUND\nWARNING MESSAGE hi\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Links) != 1 || len(r.Links[0].Attrs) != 2 || r.Links[0].HSOName != "/pub/nftp.fls" {
		t.Fatalf("%+v", r)
	}
	am := r.Links[0].Attrs[0]
	if am.Type != "" || !reflect.DeepEqual(am.Values, []string{"AFTP", "", "", "", "", "BINARY"}) {
		t.Errorf("old FIELD form: %+v", am)
	}
	if sizeOf(r.Links[0].Attrs) != 43116 {
		t.Errorf("size %d", sizeOf(r.Links[0].Attrs))
	}
	if r.Failure == nil || r.Failure.Code != "NOT-FOUND" || r.Failure.Text != "no such file" ||
		!reflect.DeepEqual(r.Forwarded, []string{"INTERNET-D", "other(1526)", "ASCII", "/x", "0"}) || !r.NoneFound || len(r.Warnings) != 1 {
		t.Errorf("%+v", r)
	}
	if _, err := ParseReply([]byte("LINK L FILE short\n")); err == nil {
		t.Error("a short LINK was accepted")
	}
}

func TestHostPort(t *testing.T) {
	for in, want := range map[string]struct {
		host string
		port int
		ok   bool
	}{
		"127.0.0.1(21525)": {"127.0.0.1", 21525, true},
		"ftp.example":      {"ftp.example", 21, true},
		"h(0)":             {"", 0, false},
		"h(99999)":         {"", 0, false},
		"a/b":              {"", 0, false},
		"":                 {"", 0, false},
	} {
		h, p, err := hostPort(in, 21)
		if (err == nil) != want.ok || h != want.host || p != want.port {
			t.Errorf("hostPort(%q) = %q %d %v", in, h, p, err)
		}
	}
}

// TestParseEntryNegativeSize: a size below zero in a listing line is no
// size (-1), never a negative one (FuzzListing's invariant).
func TestParseEntryNegativeSize(t *testing.T) {
	e := ParseEntry([]byte("file -5 - x\tu"))
	if e.Unparsed || e.Name != "x" || e.Size != -1 || e.URL != "u" {
		t.Fatalf("ParseEntry = %+v, want x of size -1 at u", e)
	}
}
