package gopher

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/urlparse"
)

const sampleMenu = "iWelcome to the menu\tfake\t(NULL)\t0\r\n" +
	"0Hello\t/hello.txt\t127.0.0.1\t41070\t+\r\n" +
	"1Docs\t/docs\t127.0.0.1\t41070\r\n" +
	"7Search\t/cgi-bin/search.cgi\t127.0.0.1\t41070\r\n" +
	"hExample\tURL:http://example.com/\t127.0.0.1\t41070\r\n" +
	"9Spaces\t/name with spaces.bin\texample.org\t70\r\n" +
	"3'/nope' does not exist\t\terror.host\t1\r\n" +
	"i\x1b[31mred\x07\t\tnull.host\t1\r\n" +
	"this is not an item\r\n" +
	".\r\n" +
	"0Never\t/after-terminator\th\t70\r\n"

func TestRenderReadable(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, strings.NewReader(sampleMenu), Readable); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"       Welcome to the menu\n" +
		"(TXT)  Hello  <gopher://127.0.0.1:41070/0/hello.txt>\n" +
		"(DIR)  Docs  <gopher://127.0.0.1:41070/1/docs>\n" +
		"(?)    Search  <gopher://127.0.0.1:41070/7/cgi-bin/search.cgi>\n" +
		"(HTML) Example  <http://example.com/>\n" +
		"(BIN)  Spaces  <gopher://example.org/9/name%20with%20spaces.bin>\n" +
		"(ERR)  '/nope' does not exist\n" +
		"       ?[31mred?\n" +
		"(???)  this is not an item\n"
	if b.String() != want {
		t.Errorf("Render readable:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestRenderRaw(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, strings.NewReader(sampleMenu), Raw); err != nil {
		t.Fatal(err)
	}
	if b.String() != sampleMenu {
		t.Errorf("raw render changed the bytes")
	}
}

func TestRenderJSON(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, strings.NewReader(sampleMenu), JSON); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 9 {
		t.Fatalf("%d JSON lines, want 9:\n%s", len(lines), b.String())
	}
	want := []string{
		`{"type":"i","display":"Welcome to the menu","selector":"fake","host":"(NULL)","port":0}`,
		`{"type":"0","display":"Hello","selector":"/hello.txt","host":"127.0.0.1","port":41070,"plus":"+","url":"gopher://127.0.0.1:41070/0/hello.txt"}`,
		`{"type":"1","display":"Docs","selector":"/docs","host":"127.0.0.1","port":41070,"url":"gopher://127.0.0.1:41070/1/docs"}`,
		`{"type":"7","display":"Search","selector":"/cgi-bin/search.cgi","host":"127.0.0.1","port":41070,"url":"gopher://127.0.0.1:41070/7/cgi-bin/search.cgi"}`,
		`{"type":"h","display":"Example","selector":"URL:http://example.com/","host":"127.0.0.1","port":41070,"url":"gopher://127.0.0.1:41070/hURL:http://example.com/","target":"http://example.com/"}`,
		`{"type":"9","display":"Spaces","selector":"/name with spaces.bin","host":"example.org","port":70,"url":"gopher://example.org/9/name%20with%20spaces.bin"}`,
		`{"type":"3","display":"'/nope' does not exist","host":"error.host","port":1}`,
		`{"type":"i","display":"\u001b[31mred\u0007","host":"null.host","port":1}`,
		`{"unparsed":true,"raw":"this is not an item"}`,
	}
	for i, l := range lines {
		if l != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, l, want[i])
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("line %d is not JSON: %v", i, err)
		}
	}
}

func TestRenderFromGophers(t *testing.T) {
	u, err := urlparse.Parse("gophers://127.0.0.1:41070/1/")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	menu := "0Here\t/a\t127.0.0.1\t41070\r\n0Elsewhere\t/b\tother.host\t70\r\n"
	if err := RenderFrom(&b, strings.NewReader(menu), Readable, &u); err != nil {
		t.Fatal(err)
	}
	want := "(TXT)  Here  <gophers://127.0.0.1:41070/0/a>\n(TXT)  Elsewhere  <gopher://other.host/0/b>\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestRenderTruncatedLine(t *testing.T) {
	var b bytes.Buffer
	menu := "0" + strings.Repeat("x", DefaultMaxLine*2) + "\t/x\th\t70\r\n0Next\t/n\th\t70\r\n"
	if err := Render(&b, strings.NewReader(menu), Readable); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines", len(lines))
	}
	if !strings.HasPrefix(lines[0], "(???)  0xxx") || !strings.HasSuffix(lines[0], " [line cut at 16384 bytes]") {
		t.Errorf("truncated line shown as %.40q…%q", lines[0], lines[0][len(lines[0])-30:])
	}
	b.Reset()
	if err := Render(&b, strings.NewReader(menu), JSON); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `{"unparsed":true,"truncated":true,"raw":"0xxx`) {
		t.Errorf("JSON of a truncated line: %.60s", b.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRenderWriteError(t *testing.T) {
	for _, mode := range []Mode{Readable, Raw, JSON} {
		err := Render(failWriter{}, strings.NewReader(sampleMenu), mode)
		if fetch.KindOf(err) != fetch.ErrWrite {
			t.Errorf("mode %d: %v, want ErrWrite", mode, err)
		}
	}
	// A read error is passed on as it is.
	boom := errors.New("boom")
	if err := Render(&bytes.Buffer{}, errReader{boom}, Readable); err != boom {
		t.Errorf("read error: %v", err)
	}
}

func TestSafeName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"/docs/one.txt", "one.txt"},
		{"/docs/", "docs"},
		{"/a/b/../..", "_."},
		{"..", "_."},
		{".", "_"},
		{"/", ""},
		{"", ""},
		{"///", ""},
		{"/x/.hidden", "_hidden"},
		{"C:\\dos\\file.exe", "file.exe"},
		{"/evil\x1b[2J\r\n.txt", "evil_[2J__.txt"},
		{"name with spaces.txt", "name with spaces.txt"},
		{"/cgi-bin/search?q=1", "search?q=1"},
		{"/" + strings.Repeat("é", 200), strings.Repeat("é", 127)},
	} {
		got := SafeName(c.in)
		if got != c.want {
			t.Errorf("SafeName(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsAny(got, "/\\") || got == "." || got == ".." || len(got) > 255 {
			t.Errorf("SafeName(%q) = %q is not safe", c.in, got)
		}
	}
}

func TestCheckPort(t *testing.T) {
	for _, p := range []int{21, 22, 23, 25, 110, 119, 143, 6379, 11211} {
		err := checkPort(p, false)
		var pe *PortError
		if !errors.As(err, &pe) || pe.Port != p || !errors.Is(err, ErrPortRefused) {
			t.Errorf("port %d: %v, want a *PortError", p, err)
		}
		if err := checkPort(p, true); err != nil {
			t.Errorf("port %d allowed: %v", p, err)
		}
	}
	for _, p := range []int{70, 79, 80, 443, 7070, 41070, 105, 1} {
		if err := checkPort(p, false); err != nil {
			t.Errorf("port %d: %v, want allowed", p, err)
		}
	}
	if s := (&PortError{Port: 6379, Service: "Redis"}).Error(); !strings.Contains(s, "6379") || !strings.Contains(s, "Redis") || !strings.Contains(s, "gopher-allow-port") {
		t.Errorf("message %q", s)
	}
}

// BenchmarkRenderReadable renders a 100,000-item menu through the Resource
// path the CLI uses (fetch.Buffered around RenderFrom).
func BenchmarkRenderReadable(b *testing.B) {
	menu := bytes.NewBuffer(gophertest.ArchiveMenu(100000))
	b.SetBytes(int64(menu.Len()))
	b.ReportAllocs()
	for b.Loop() {
		err := fetch.Buffered(io.Discard, bytes.NewReader(menu.Bytes()), func(w io.Writer, body io.Reader) error {
			return RenderFrom(w, body, Readable, nil)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// A hostile server's control bytes never reach the terminal through an
// item's URL: host and selector are percent-encoded.
func TestReadableURLIsPrintable(t *testing.T) {
	var out bytes.Buffer
	menu := "0Name\t/sel\x1b[2J\x9b\tho\x1bst\x07\t70\r\n.\r\n"
	if err := Render(&out, strings.NewReader(menu), Readable); err != nil {
		t.Fatal(err)
	}
	for _, r := range out.String() {
		if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError {
			t.Fatalf("control character %U in %q", r, out.String())
		}
	}
}

// printableASCII agrees with a byte-by-byte scan for every byte value at
// every position of an eight-byte block and beyond.
func TestPrintableASCII(t *testing.T) {
	naive := func(s string) int {
		i := 0
		for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
			i++
		}
		return i
	}
	base := []byte("abcdefghijklmnopqrstuvwxy")
	for c := 0; c < 256; c++ {
		for pos := range base {
			for _, prev := range []byte{'a', 0xff, 0x7f, 0x00} {
				b := append([]byte(nil), base...)
				b[pos] = byte(c)
				if pos > 0 {
					b[pos-1] = prev
				}
				s := string(b)
				if got, want := printableASCII(s), naive(s); got != want {
					t.Fatalf("printableASCII(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
}

// parseInto's printable verdict on the display string is what a scan of
// the display alone says, whatever byte sits wherever in the line; the
// readable line then has no control character and shows the item's URL.
func TestParseIntoPrintable(t *testing.T) {
	base := []byte("0Display string\t/selector\thost\t70")
	for c := 0; c < 256; c++ {
		for pos := 1; pos < len(base); pos++ {
			b := append([]byte(nil), base...)
			b[pos] = byte(c)
			var it Item
			got, _ := parseInto(&it, string(b))
			if want := printableASCII(it.Display) == len(it.Display); got != want {
				t.Fatalf("%q: printable %v, display %q says %v", b, got, it.Display, want)
			}
			var out bytes.Buffer
			if err := Render(&out, bytes.NewReader(append(b, "\r\n"...)), Readable); err != nil {
				t.Fatal(err)
			}
			if u := it.URL(); u != "" && c != '\n' && !strings.Contains(out.String(), "<"+u+">") { // a LF splits the line
				t.Fatalf("%q: %q does not show the URL %q", b, out.String(), u)
			}
			for _, r := range out.String() {
				if r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
					t.Fatalf("%q: control character %U in %q", b, r, out.String())
				}
			}
		}
	}
}
