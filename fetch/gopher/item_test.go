package gopher

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

func TestParseItem(t *testing.T) {
	tests := []struct {
		line string
		want Item
		bad  bool
	}{
		{"0Hello\t/hello.txt\t127.0.0.1\t41070\r\n", Item{Type: '0', Display: "Hello", Selector: "/hello.txt", Host: "127.0.0.1", Port: 41070, RawPort: "41070", Fields: 4}, false},
		{"0Hello\t/hello.txt\t127.0.0.1\t41070\n", Item{Type: '0', Display: "Hello", Selector: "/hello.txt", Host: "127.0.0.1", Port: 41070, RawPort: "41070", Fields: 4}, false},
		{"0Hello\t/hello.txt\t127.0.0.1\t41070", Item{Type: '0', Display: "Hello", Selector: "/hello.txt", Host: "127.0.0.1", Port: 41070, RawPort: "41070", Fields: 4}, false},
		{"1Docs\t/docs\texample.org\t70\t+\r\n", Item{Type: '1', Display: "Docs", Selector: "/docs", Host: "example.org", Port: 70, RawPort: "70", Plus: '+', Fields: 5}, false},
		{"0Form\t/ask\th\t70\t?", Item{Type: '0', Display: "Form", Selector: "/ask", Host: "h", Port: 70, RawPort: "70", Plus: '?', Fields: 5}, false},
		{"0Odd\t/x\th\t70\tfoo\tbar", Item{Type: '0', Display: "Odd", Selector: "/x", Host: "h", Port: 70, RawPort: "70", Extra: "foo\tbar", Fields: 6}, false},
		{"iWelcome\tfake\t(NULL)\t0", Item{Type: 'i', Display: "Welcome", Selector: "fake", Host: "(NULL)", Port: 0, RawPort: "0", Fields: 4}, false},
		{"iJust text", Item{Type: 'i', Display: "Just text", Port: -1, Fields: 1}, false},
		{"i", Item{Type: 'i', Port: -1, Fields: 1}, false},
		{"3'/nope' does not exist\t\terror.host\t1", Item{Type: '3', Display: "'/nope' does not exist", Host: "error.host", Port: 1, RawPort: "1", Fields: 4}, false},
		{"hExample\tURL:http://example.com/\th\t70", Item{Type: 'h', Display: "Example", Selector: "URL:http://example.com/", Host: "h", Port: 70, RawPort: "70", Fields: 4}, false},
		{"0 padded\t/p\th\t 70 ", Item{Type: '0', Display: " padded", Selector: "/p", Host: "h", Port: 70, RawPort: " 70 ", Fields: 4}, false},
		// Missing fields.
		{"0Only display", Item{Type: '0', Display: "Only display", Port: -1, Fields: 1, Unparsed: true}, true},
		{"0Name\t/sel\thost", Item{Type: '0', Display: "Name", Selector: "/sel", Host: "host", Port: -1, Fields: 3, Unparsed: true}, true},
		// Bad ports.
		{"0Name\t/sel\thost\tseventy", Item{Type: '0', Display: "Name", Selector: "/sel", Host: "host", Port: -1, RawPort: "seventy", Fields: 4, Unparsed: true}, true},
		{"0Name\t/sel\thost\t65536", Item{Type: '0', Display: "Name", Selector: "/sel", Host: "host", Port: -1, RawPort: "65536", Fields: 4, Unparsed: true}, true},
		{"0Name\t/sel\thost\t-1", Item{Type: '0', Display: "Name", Selector: "/sel", Host: "host", Port: -1, RawPort: "-1", Fields: 4, Unparsed: true}, true},
		{"", Item{Port: -1, Unparsed: true}, true},
		{"\r\n", Item{Port: -1, Unparsed: true}, true},
		{"\x01ctl\t/s\th\t70", Item{Type: 1, Display: "ctl", Selector: "/s", Host: "h", Port: 70, RawPort: "70", Fields: 4, Unparsed: true}, true},
	}
	for _, tt := range tests {
		got, err := ParseItem([]byte(tt.line))
		want := tt.want
		want.Raw = string(trimEOL([]byte(tt.line)))
		if got != want {
			t.Errorf("ParseItem(%q)\n got %+v\nwant %+v", tt.line, got, want)
		}
		if (err != nil) != tt.bad {
			t.Errorf("ParseItem(%q) error = %v, want error %v", tt.line, err, tt.bad)
		}
		if err != nil && !errors.Is(err, ErrBadItem) {
			t.Errorf("ParseItem(%q) error %v does not wrap ErrBadItem", tt.line, err)
		}
	}
}

func TestItemURLRoundTrip(t *testing.T) {
	selectors := []string{
		"/hello.txt", "", "/name with spaces.txt", "/a?b=c#d", "/100%/x", "/\x80\xff/bin",
		"URL:http://x/", "/semi;colon:at@plus+", "/tab-free\x01ctl", "C:\\dos\\path",
	}
	for _, sel := range selectors {
		it := Item{Type: '0', Display: "x", Selector: sel, Host: "example.org", Port: 7070}
		s := it.URL()
		u, err := urlparse.Parse(s)
		if err != nil {
			t.Errorf("selector %q: URL %q does not parse: %v", sel, s, err)
			continue
		}
		if u.Gopher.Selector != sel || u.Gopher.Type != '0' || u.Host != "example.org" || u.Port != 7070 || u.Gopher.HasSearch {
			t.Errorf("selector %q: URL %q parses to type %q selector %q host %q port %d search %v",
				sel, s, u.Gopher.Type, u.Gopher.Selector, u.Host, u.Port, u.Gopher.HasSearch)
		}
	}
	// Default port left out; IPv6 in brackets; gophers.
	it := Item{Type: '1', Selector: "/docs", Host: "::1", Port: 70}
	if got, want := it.URLWithScheme("gophers"), "gophers://[::1]/1/docs"; got != want {
		t.Errorf("URLWithScheme = %q, want %q", got, want)
	}
	for _, it := range []Item{
		{Type: 'i', Display: "info", Host: "h", Port: 70},
		{Type: '3', Display: "err", Host: "h", Port: 70},
		{Type: '0', Display: "no host", Selector: "/x", Port: 70},
		{Type: '0', Display: "port 0", Selector: "/x", Host: "h", Port: 0},
		{Type: '0', Raw: "junk", Unparsed: true},
	} {
		if u := it.URL(); u != "" {
			t.Errorf("%+v has URL %q, want none", it, u)
		}
	}
}

func TestItemEntry(t *testing.T) {
	cases := []struct {
		line   string
		scheme string
		want   fetch.Entry
	}{
		{"0Hello\t/hello.txt\th\t70\t+", "", fetch.Entry{Name: "Hello", Type: fetch.EntryFile, Size: -1, URL: "gopher://h/0/hello.txt", Raw: "0Hello\t/hello.txt\th\t70\t+", ItemType: '0', Plus: '+'}},
		{"1Docs\t/docs\th\t7070", "gophers", fetch.Entry{Name: "Docs", Type: fetch.EntryDir, Size: -1, URL: "gophers://h:7070/1/docs", Raw: "1Docs\t/docs\th\t7070", ItemType: '1'}},
		{"7Find\t/s\th\t70", "", fetch.Entry{Name: "Find", Type: fetch.EntryOther, Size: -1, URL: "gopher://h/7/s", Raw: "7Find\t/s\th\t70", ItemType: '7'}},
		{"iText\t\tnull.host\t1", "", fetch.Entry{Name: "Text", Type: fetch.EntryOther, Size: -1, Raw: "iText\t\tnull.host\t1", ItemType: 'i'}},
		{"hWeb\tURL:https://example.com/a b\th\t70", "", fetch.Entry{Name: "Web", Type: fetch.EntryLink, Size: -1,
			URL: "gopher://h/hURL:https://example.com/a%20b", Target: "https://example.com/a b", Raw: "hWeb\tURL:https://example.com/a b\th\t70", ItemType: 'h'}},
		{"9Bin\t/b.bin\th\t70", "", fetch.Entry{Name: "Bin", Type: fetch.EntryFile, Size: -1, URL: "gopher://h/9/b.bin", Raw: "9Bin\t/b.bin\th\t70", ItemType: '9'}},
		{"8Login\tguest\th\t23", "", fetch.Entry{Name: "Login", Type: fetch.EntryOther, Size: -1, URL: "gopher://h:23/8guest", Target: "telnet://guest@h/",
			Raw: "8Login\tguest\th\t23", ItemType: '8'}},
		{"0broken", "", fetch.Entry{Type: fetch.EntryUnknown, Size: -1, Raw: "0broken", Unparsed: true}},
	}
	for _, c := range cases {
		it, _ := ParseItem([]byte(c.line))
		if got := it.Entry(c.scheme); got != c.want {
			t.Errorf("Entry(%q)\n got %+v\nwant %+v", c.line, got, c.want)
		}
	}
}

func TestHURL(t *testing.T) {
	for _, c := range []struct {
		line, want string
		ok         bool
	}{
		{"hSite\tURL:http://example.com/\th\t70", "http://example.com/", true},
		{"hSite\t/URL:http://example.com/\th\t70", "http://example.com/", true},
		{"hSite\turl:ftp://x/\th\t70", "ftp://x/", true},
		{"hPage\t/page.html\th\t70", "", false},
		{"0Text\tURL:http://example.com/\th\t70", "", false},
	} {
		it, _ := ParseItem([]byte(c.line))
		got, ok := it.HURL()
		if got != c.want || ok != c.ok {
			t.Errorf("HURL(%q) = %q, %v; want %q, %v", c.line, got, ok, c.want, c.ok)
		}
		wantTarget := c.want
		if !c.ok {
			wantTarget = it.URL()
		}
		if it.Target() != wantTarget {
			t.Errorf("Target(%q) = %q, want %q", c.line, it.Target(), wantTarget)
		}
	}
}

// Telnet and tn3270 items name sessions: shown as telnet:// and tn3270://
// URLs with the selector as the user (RFC 1436; RFC 4266 §2.2).
func TestSessionURL(t *testing.T) {
	for _, c := range []struct {
		line, want string
	}{
		{"8Library catalogue\tguest\tlib.example.edu\t23", "telnet://guest@lib.example.edu/"},
		{"8Chat\t\tchat.example.org\t2323", "telnet://chat.example.org:2323/"},
		{"TMainframe\tTSO user\tmvs.example.com\t23", "tn3270://TSO%20user@mvs.example.com/"},
		{"0Text\t/t\thost\t70", ""},
	} {
		it, err := ParseItem([]byte(c.line))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := it.SessionURL()
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%q: SessionURL %q %v, want %q", c.line, got, ok, c.want)
		}
		if c.want != "" && it.Target() != c.want {
			t.Errorf("%q: Target %q", c.line, it.Target())
		}
	}
	var out bytes.Buffer
	if err := Render(&out, strings.NewReader("8Catalogue\tguest\tlib.example.edu\t23\r\n.\r\n"), Readable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "<telnet://guest@lib.example.edu/>") {
		t.Errorf("readable menu shows %q", out.String())
	}
}
