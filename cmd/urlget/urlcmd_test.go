package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urlget/urlget/urlparse"
)

// runCmd runs urlget with args and stdin and returns stdout, stderr and the
// exit status.
func urlRun(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(env{args: args, stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb})
	return out.String(), errb.String(), code
}

// check runs urlget and compares everything it did with what is wanted.
func urlCheck(t *testing.T, args []string, stdin, wantOut, wantErr string, wantCode int) {
	t.Helper()
	out, errs, code := urlRun(t, stdin, args...)
	if out != wantOut {
		t.Errorf("urlget %q: stdout\n%s\nwant\n%s", args, out, wantOut)
	}
	if errs != wantErr {
		t.Errorf("urlget %q: stderr\n%s\nwant\n%s", args, errs, wantErr)
	}
	if code != wantCode {
		t.Errorf("urlget %q: exit status %d, want %d", args, code, wantCode)
	}
}

func urlLines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func TestURLPrintsUnchanged(t *testing.T) {
	in := []string{
		"HTTP://User:Pw@Example.COM:0080/a/./b/../%7e%2f?Q=%41#F%20",
		"ftp://myname@host.dom/%2Fetc/motd",
		"http://[2001:db8::7]:8080/p?q",
		"../a%20b?c#d",
		"//h:/p",
		"",
		"?",
		"#",
		"mailto:a@example.org",
		"news:*",
		"x-unknown:anything/goes?here#too",
	}
	urlCheck(t, append([]string{"url"}, in...), "", urlLines(in...), "", 0)
}

func TestURLBase(t *testing.T) {
	urlCheck(t, []string{"url", "--base", "http://a/b/c/d;p?q", "--", "../g"}, "", "http://a/b/g\n", "", 0)

	// RFC 3986 §5.4.1 and §5.4.2 (strict resolution), against the same base.
	pairs := []string{
		"g:h", "g:h",
		"g", "http://a/b/c/g",
		"./g", "http://a/b/c/g",
		"g/", "http://a/b/c/g/",
		"/g", "http://a/g",
		"//g", "http://g",
		"?y", "http://a/b/c/d;p?y",
		"g?y", "http://a/b/c/g?y",
		"#s", "http://a/b/c/d;p?q#s",
		"g#s", "http://a/b/c/g#s",
		"g?y#s", "http://a/b/c/g?y#s",
		";x", "http://a/b/c/;x",
		"g;x", "http://a/b/c/g;x",
		"g;x?y#s", "http://a/b/c/g;x?y#s",
		"", "http://a/b/c/d;p?q",
		".", "http://a/b/c/",
		"./", "http://a/b/c/",
		"..", "http://a/b/",
		"../", "http://a/b/",
		"../g", "http://a/b/g",
		"../..", "http://a/",
		"../../", "http://a/",
		"../../g", "http://a/g",
		// §5.4.2
		"../../../g", "http://a/g",
		"../../../../g", "http://a/g",
		"/./g", "http://a/g",
		"/../g", "http://a/g",
		"g.", "http://a/b/c/g.",
		".g", "http://a/b/c/.g",
		"g..", "http://a/b/c/g..",
		"..g", "http://a/b/c/..g",
		"./../g", "http://a/b/g",
		"./g/.", "http://a/b/c/g/",
		"g/./h", "http://a/b/c/g/h",
		"g/../h", "http://a/b/c/h",
		"g;x=1/./y", "http://a/b/c/g;x=1/y",
		"g;x=1/../y", "http://a/b/c/y",
		"g?y/./x", "http://a/b/c/g?y/./x",
		"g?y/../x", "http://a/b/c/g?y/../x",
		"g#s/./x", "http://a/b/c/g#s/./x",
		"g#s/../x", "http://a/b/c/g#s/../x",
	}
	args := []string{"url", "--base", "http://a/b/c/d;p?q", "--"}
	var want []string
	for i := 0; i < len(pairs); i += 2 {
		args = append(args, pairs[i])
		want = append(want, pairs[i+1])
	}
	urlCheck(t, args, "", urlLines(want...), "", 0)

	// The option may come after the arguments; --base=BASE works too.
	urlCheck(t, []string{"url", "g", "--base=http://a/b/c/d;p?q"}, "", "http://a/b/c/g\n", "", 0)
}

// errLine is the stderr line urlget url writes for the malformed input,
// prefixed with where; it checks that urlparse blames byte off.
func urlErrLine(t *testing.T, where, input string, off int, parse func(string) error) string {
	t.Helper()
	err := parse(input)
	var pe *urlparse.Error
	if !errors.As(err, &pe) {
		t.Fatalf("%q: error %v is not a *urlparse.Error", input, err)
	}
	if pe.Offset != off {
		t.Errorf("%q: urlparse blames byte %d, want %d", input, pe.Offset, off)
	}
	if !strings.Contains(err.Error(), "at byte "+strconv.Itoa(off)) {
		t.Errorf("%q: message %q does not name byte %d", input, err, off)
	}
	return "urlget: url: " + where + err.Error() + "\n"
}

// urlWarnLine is the warning urlget url writes for a URL that breaks its
// scheme's syntax at byte off.
func urlWarnLine(t *testing.T, where, input string, off int, parse func(string) error) string {
	t.Helper()
	line := urlErrLine(t, where, input, off, parse)
	var pe *urlparse.Error
	if !errors.As(parse(input), &pe) || pe.Scheme == "" {
		t.Errorf("%q: %v is not a scheme error", input, pe)
	}
	return strings.Replace(line, "urlget: url: ", "urlget: warning: url: ", 1)
}

func urlParseAbs(s string) error   { _, err := urlparse.ParseAbsolute(s); return err }
func urlParseTyped(s string) error { _, err := urlparse.Parse(s); return err }
func urlParseRef(s string) error   { _, err := urlparse.ParseRef(s); return err }

func TestURLBaseErrors(t *testing.T) {
	urlCheck(t, []string{"url", "--base", "a/b", "g"}, "", "", urlErrLine(t, "--base: ", "a/b", 1, urlParseAbs), 3)
	urlCheck(t, []string{"url", "--base", "../g", "g"}, "", "", urlErrLine(t, "--base: ", "../g", 0, urlParseAbs), 3)
	urlCheck(t, []string{"url", "--base", "http://a/%", "g"}, "", "", urlErrLine(t, "--base: ", "http://a/%", 10, urlParseAbs), 3)
}

func TestURLNormalize(t *testing.T) {
	urlCheck(t, []string{"url", "--normalize",
		"HTTP://www.Example.COM:80/%7ea/./b/../c%2f?%41#%7e",
		"http://example.com",
		"https://h:443",
		"http://h:0080/",
		"http://h:8080/",
		"ftp://FTP.example.org:21/pub/../x",
		"//H%41st/a/../b",
		"a/./b/../c",
		"../../x",
		"./a/../../b",
	}, "", urlLines(
		"http://www.example.com/~a/c%2F?A#~",
		"http://example.com/",
		"https://h/",
		"http://h/",
		"http://h:8080/",
		"ftp://ftp.example.org/x",
		"//hast/b",
		"a/c",
		"../../x",
		"../b",
	), "", 0)

	// Resolution comes first, then normalization.
	urlCheck(t, []string{"url", "--normalize", "--base", "HTTP://A/b/c", "--", "%7Ex/../y/%61"}, "",
		"http://a/b/y/a\n", "", 0)
}

func TestURLDashDash(t *testing.T) {
	urlCheck(t, []string{"url", "--", "-g"}, "", "-g\n", "", 0)
	urlCheck(t, []string{"url", "--base", "http://a/b/c", "--", "-g", "--x"}, "", "http://a/b/-g\nhttp://a/b/--x\n", "", 0)
	urlCheck(t, []string{"url", "--json", "--", "-"}, "", `{"url":"-","path":"-","raw":{"path":"-"}}`+"\n", "", 0)
}

func TestURLMalformed(t *testing.T) {
	// A bad URL gets one line on stderr with its byte offset; the others are
	// still printed, and the exit status is 3.
	// A URL only its scheme refuses is printed, with a warning; with
	// --strict it is an error like the others.
	urlCheck(t, []string{"url", "http://a/ok", "http://a/%zz", "b c", "http://h:99999/", "http://a/also-ok"}, "",
		urlLines("http://a/ok", "http://h:99999/", "http://a/also-ok"),
		urlErrLine(t, "", "http://a/%zz", 10, urlParseRef)+
			urlErrLine(t, "", "b c", 1, urlParseRef)+
			urlWarnLine(t, "", "http://h:99999/", 9, urlParseTyped), 3)
	urlCheck(t, []string{"url", "--strict", "http://a/ok", "http://a/%zz", "b c", "http://h:99999/", "http://a/also-ok"}, "",
		urlLines("http://a/ok", "http://a/also-ok"),
		urlErrLine(t, "", "http://a/%zz", 10, urlParseRef)+
			urlErrLine(t, "", "b c", 1, urlParseRef)+
			urlErrLine(t, "", "http://h:99999/", 9, urlParseTyped), 3)

	// Exactly one line per bad URL, even when the URL holds a newline.
	out, errs, code := urlRun(t, "", "url", "--json", "http://a/\nb")
	if out != "" || code != 3 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "at byte 9") {
		t.Errorf("newline in URL: out %q err %q code %d", out, errs, code)
	}
}

func TestURLUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"url"}, "urlget: url: no URL given (try 'urlget url --help')\n"},
		{[]string{"url", "--frob", "x"}, "urlget: url: unknown flag: --frob (try 'urlget url --help')\n"},
		{[]string{"url", "-g"}, "urlget: url: unknown shorthand flag: 'g' in -g (try 'urlget url --help')\n"},
		{[]string{"url", "--base"}, "urlget: url: flag needs an argument: --base (try 'urlget url --help')\n"},
		{[]string{"url", "--extract", "x"}, "urlget: url: --extract reads stdin and takes no URL arguments (try 'urlget url --help')\n"},
	} {
		urlCheck(t, tc.args, "", "", tc.err, 2)
	}

	for _, h := range []string{"-h", "--help"} {
		out, errs, code := urlRun(t, "", "url", h)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "usage: urlget url [options] [--] URL...\n") ||
			!strings.Contains(out, "--normalize") || !strings.Contains(out, `\udcXX`) {
			t.Errorf("url %s: code %d, stderr %q, stdout\n%s", h, code, errs, out)
		}
	}
}

// urlJSONCases are exact --json outputs. Those with typed fields depend on the
// urlparse scheme parsers.
var urlJSONCases = []struct{ in, want string }{
	{"ftp://myname@host.dom/%2Fetc/motd",
		`{"url":"ftp://myname@host.dom/%2Fetc/motd","scheme":"ftp","user":"myname","host":"host.dom","host_kind":"reg-name","path":"//etc/motd",` +
			`"raw":{"scheme":"ftp","user":"myname","host":"host.dom","path":"/%2Fetc/motd"},` +
			`"ftp":{"cwd":["/etc"],"name":"motd","type":""}}`},
	{"FTP://u:p%40ss@h:2121/a/b;type=I",
		`{"url":"FTP://u:p%40ss@h:2121/a/b;type=I","scheme":"ftp","user":"u","password":"p@ss","host":"h","host_kind":"reg-name","port":2121,"path":"/a/b;type=I",` +
			`"raw":{"scheme":"FTP","user":"u","password":"p%40ss","host":"h","port":"2121","path":"/a/b;type=I"},` +
			`"ftp":{"cwd":["a"],"name":"b","type":"i"}}`},
	{"gopher://h/7/s%09x%20y",
		`{"url":"gopher://h/7/s%09x%20y","scheme":"gopher","host":"h","host_kind":"reg-name","path":"/7/s\tx y",` +
			`"raw":{"scheme":"gopher","host":"h","path":"/7/s%09x%20y"},` +
			`"gopher":{"type":"7","selector":"/s","search":"x y"}}`},
	{"gopher://h/7/s%09x%20y%09",
		`{"url":"gopher://h/7/s%09x%20y%09","scheme":"gopher","host":"h","host_kind":"reg-name","path":"/7/s\tx y\t",` +
			`"raw":{"scheme":"gopher","host":"h","path":"/7/s%09x%20y%09"},` +
			`"gopher":{"type":"7","selector":"/s","search":"x y","plus":""}}`},
	{"gopher://h",
		`{"url":"gopher://h","scheme":"gopher","host":"h","host_kind":"reg-name","path":"",` +
			`"raw":{"scheme":"gopher","host":"h","path":""},` +
			`"gopher":{"type":"1","selector":""}}`},
	{"news:a@b",
		`{"url":"news:a@b","scheme":"news","path":"a@b","raw":{"scheme":"news","path":"a@b"},"news":{"message_id":"a@b"}}`},
	{"news:comp.lang.go",
		`{"url":"news:comp.lang.go","scheme":"news","path":"comp.lang.go","raw":{"scheme":"news","path":"comp.lang.go"},"news":{"group":"comp.lang.go"}}`},
	{"news:*",
		`{"url":"news:*","scheme":"news","path":"*","raw":{"scheme":"news","path":"*"},"news":{"all":true}}`},
	{"nntp://h/comp.lang.go/42",
		`{"url":"nntp://h/comp.lang.go/42","scheme":"nntp","host":"h","host_kind":"reg-name","path":"/comp.lang.go/42",` +
			`"raw":{"scheme":"nntp","host":"h","path":"/comp.lang.go/42"},"nntp":{"group":"comp.lang.go","article":"42"}}`},
	{"mailto:a@example.org,b@example.org?subject=hi%20there&body=x",
		`{"url":"mailto:a@example.org,b@example.org?subject=hi%20there&body=x","scheme":"mailto",` +
			`"path":"a@example.org,b@example.org","query":"subject=hi there&body=x",` +
			`"raw":{"scheme":"mailto","path":"a@example.org,b@example.org","query":"subject=hi%20there&body=x"},` +
			`"mailto":{"to":["a@example.org","b@example.org"],"headers":[{"name":"subject","value":"hi there"},{"name":"body","value":"x"}]}}`},
	{"file:///etc/motd",
		`{"url":"file:///etc/motd","scheme":"file","host":"","host_kind":"reg-name","path":"/etc/motd",` +
			`"raw":{"scheme":"file","host":"","path":"/etc/motd"},"file":{"local":true,"path":"/etc/motd"}}`},
	{"prospero://h/a/b;f=v%20w",
		`{"url":"prospero://h/a/b;f=v%20w","scheme":"prospero","host":"h","host_kind":"reg-name","path":"/a/b;f=v w",` +
			`"raw":{"scheme":"prospero","host":"h","path":"/a/b;f=v%20w"},"prospero":{"hsoname":"a/b","fields":[{"name":"f","value":"v w"}]}}`},
	{"wais://h:210/db?x%20y",
		`{"url":"wais://h:210/db?x%20y","scheme":"wais","host":"h","host_kind":"reg-name","port":210,"path":"/db","query":"x y",` +
			`"raw":{"scheme":"wais","host":"h","port":"210","path":"/db","query":"x%20y"},` +
			`"wais":{"database":"db","search":"x y","doc_type":"","doc_path":"","length":""}}`},
	{"wais://h/db/TEXT/124/1=vm%3A22100;7=%00;",
		`{"url":"wais://h/db/TEXT/124/1=vm%3A22100;7=%00;","scheme":"wais","host":"h","host_kind":"reg-name","path":"/db/TEXT/124/1=vm:22100;7=\u0000;",` +
			`"raw":{"scheme":"wais","host":"h","path":"/db/TEXT/124/1=vm%3A22100;7=%00;"},` +
			`"wais":{"database":"db","doc_type":"TEXT","doc_path":"1=vm:22100;7=\u0000;","length":"124",` +
			`"doc_fields":[{"name":"1","value":"vm:22100"},{"name":"7","value":"\u0000"}]}}`},
	{"wais://h/db/TEXT/0%20124%20/tmp/a",
		`{"url":"wais://h/db/TEXT/0%20124%20/tmp/a","scheme":"wais","host":"h","host_kind":"reg-name","path":"/db/TEXT/0 124 /tmp/a",` +
			`"raw":{"scheme":"wais","host":"h","path":"/db/TEXT/0%20124%20/tmp/a"},` +
			`"wais":{"database":"db","doc_type":"TEXT","doc_path":"0 124 /tmp/a","length":""}}`},
	{"http://u@h/",
		`{"url":"http://u@h/","scheme":"http","user":"u","host":"h","host_kind":"reg-name","path":"/",` +
			`"raw":{"scheme":"http","user":"u","host":"h","path":"/"},"http":{"userinfo":true}}`},
	{"http://b%C3%BCcher.example/",
		`{"url":"http://b%C3%BCcher.example/","scheme":"http","host":"bücher.example","host_kind":"reg-name","host_lookup":"xn--bcher-kva.example","path":"/",` +
			`"raw":{"scheme":"http","host":"b%C3%BCcher.example","path":"/"}}`},
}

// urlGenericJSONCases need nothing but the generic parser.
var urlGenericJSONCases = []struct{ in, want string }{
	{"http://[2001:db8::7]:8080/p?q",
		`{"url":"http://[2001:db8::7]:8080/p?q","scheme":"http","host":"2001:db8::7","host_kind":"ipv6","port":8080,"path":"/p","query":"q",` +
			`"raw":{"scheme":"http","host":"[2001:db8::7]","port":"8080","path":"/p","query":"q"}}`},
	{"HTTP://H:/",
		`{"url":"HTTP://H:/","scheme":"http","host":"H","host_kind":"reg-name","path":"/","raw":{"scheme":"HTTP","host":"H","port":"","path":"/"}}`},
	{"../a%20b?c#d",
		`{"url":"../a%20b?c#d","path":"../a b","query":"c","fragment":"d","raw":{"path":"../a%20b","query":"c","fragment":"d"}}`},
	{"//u:@h:0099999",
		`{"url":"//u:@h:0099999","user":"u","password":"","host":"h","host_kind":"reg-name","port":99999,"path":"",` +
			`"raw":{"user":"u","password":"","host":"h","port":"0099999","path":""}}`},
	{"?#",
		`{"url":"?#","path":"","query":"","fragment":"","raw":{"path":"","query":"","fragment":""}}`},
	{"x:/%FF%C3%A9%22%5C%0A%00%7F",
		`{"url":"x:/%FF%C3%A9%22%5C%0A%00%7F","scheme":"x","path":"/\udcffé\"\\\n\u0000` + "\x7f" + `",` +
			`"raw":{"scheme":"x","path":"/%FF%C3%A9%22%5C%0A%00%7F"}}`},
}

func urlTestJSON(t *testing.T, cases []struct{ in, want string }) {
	for _, tc := range cases {
		urlCheck(t, []string{"url", "--json", "--", tc.in}, "", tc.want+"\n", "", 0)
		if !json.Valid([]byte(tc.want)) {
			t.Errorf("%s: want is not JSON", tc.in)
		}
	}
}

func TestURLJSONGeneric(t *testing.T) { urlTestJSON(t, urlGenericJSONCases) }

func TestURLJSONTyped(t *testing.T) { urlTestJSON(t, urlJSONCases) }

func TestURLJSONBaseNormalize(t *testing.T) {
	urlCheck(t, []string{"url", "--json", "--normalize", "--base", "HTTP://A:80/b/c", "--", "%7Ex/../y?%41"}, "",
		`{"url":"http://a/b/y?A","scheme":"http","host":"a","host_kind":"reg-name","path":"/b/y","query":"A","raw":{"scheme":"http","host":"a","path":"/b/y","query":"A"}}`+"\n", "", 0)
}

const urlExtractText = "Read <URL:http://a/b\n  c> first, then http://example.com/x.\n" +
	"Or try <ftp://h/f> -- and gopher://g/1/s.\n"

func TestURLExtract(t *testing.T) {
	urlCheck(t, []string{"url", "--extract"}, urlExtractText, urlLines(
		"http://a/bc",
		"http://example.com/x",
		"ftp://h/f",
		"gopher://g/1/s",
	), "", 0)

	urlCheck(t, []string{"url", "--extract", "--base", "http://z/", "--normalize"}, "no URLs here\n", "", "", 0)

	span := func(s string) (int, int) {
		i := strings.Index(urlExtractText, s)
		return i, i + len(s)
	}
	obj := func(url, wrapped, rest string) string {
		s, e := span(wrapped)
		return `{"url":"` + url + `","start":` + strconv.Itoa(s) + `,"end":` + strconv.Itoa(e) + `,` + rest + `}`
	}
	urlCheck(t, []string{"url", "--extract", "--json"}, urlExtractText, urlLines(
		obj("http://a/bc", "<URL:http://a/b\n  c>", `"scheme":"http","host":"a","host_kind":"reg-name","path":"/bc","raw":{"scheme":"http","host":"a","path":"/bc"}`),
		obj("http://example.com/x", "http://example.com/x", `"scheme":"http","host":"example.com","host_kind":"reg-name","path":"/x","raw":{"scheme":"http","host":"example.com","path":"/x"}`),
		obj("ftp://h/f", "<ftp://h/f>", `"scheme":"ftp","host":"h","host_kind":"reg-name","path":"/f","raw":{"scheme":"ftp","host":"h","path":"/f"},"ftp":{"cwd":[],"name":"f","type":""}`),
		obj("gopher://g/1/s", "gopher://g/1/s", `"scheme":"gopher","host":"g","host_kind":"reg-name","path":"/1/s","raw":{"scheme":"gopher","host":"g","path":"/1/s"},"gopher":{"type":"1","selector":"/s"}`),
	), "", 0)
}

type urlErrWriter struct{}

func (urlErrWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

type urlErrReader struct{}

func (urlErrReader) Read([]byte) (int, error) { return 0, errors.New("gone") }

func TestURLIOErrors(t *testing.T) {
	var errb bytes.Buffer
	code := run(env{args: []string{"url", "http://a/", "http://b/"}, stdin: strings.NewReader(""), stdout: urlErrWriter{}, stderr: &errb})
	if code != 23 || errb.String() != "urlget: url: writing output: disk full\n" {
		t.Errorf("write error: code %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	code = run(env{args: []string{"url", "--extract"}, stdin: urlErrReader{}, stdout: io.Discard, stderr: &errb})
	if code != 26 || errb.String() != "urlget: url: reading stdin: gone\n" {
		t.Errorf("read error: code %d, stderr %q", code, errb.String())
	}
}

// unescapeJSONString undoes appendJSONString: it reads a JSON string literal
// and maps each lone surrogate \udc80-\udcff back to its byte.
func unescapeJSONString(q string) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	q = q[1 : len(q)-1]
	var b []byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(q) {
			return "", false
		}
		switch q[i] {
		case '"', '\\', '/':
			b = append(b, q[i])
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			if i+5 > len(q) {
				return "", false
			}
			n, err := strconv.ParseUint(q[i+1:i+5], 16, 16)
			if err != nil {
				return "", false
			}
			i += 4
			switch {
			case n >= 0xdc80 && n <= 0xdcff:
				b = append(b, byte(n))
			case n >= 0xd800 && n <= 0xdfff:
				return "", false // never written
			default:
				b = utf8.AppendRune(b, rune(n))
			}
		default:
			return "", false
		}
	}
	return string(b), true
}

func TestAppendJSONString(t *testing.T) {
	for in, want := range map[string]string{
		"":                 `""`,
		"abc":              `"abc"`,
		"\"\\/":            `"\"\\/"`,
		"\t\n\r\x00\x1f":   `"\t\n\r\u0000\u001f"`,
		"é\u2028😀\ufffd":   "\"é\u2028😀\ufffd\"",
		"\xff":             `"\udcff"`,
		"a\xc3":            `"a\udcc3"`,
		"\xed\xa0\x80":     `"\udced\udca0\udc80"`, // an encoded surrogate is not valid UTF-8
		"\xf0\x9f\x98":     `"\udcf0\udc9f\udc98"`, // truncated sequence
		"\xc3\xa9\xe9\x80": `"é\udce9\udc80"`,
	} {
		got := string(urlparse.AppendJSONString(nil, in))
		if got != want {
			t.Errorf("urlparse.AppendJSONString(%q) = %s, want %s", in, got, want)
		}
		if back, ok := unescapeJSONString(got); !ok || back != in {
			t.Errorf("round trip of %q: %q %v", in, back, ok)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a\xffb", "é", "\x00\"\\", "\xed\xa0\x80", "\xf4\x90\x80\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q := urlparse.AppendJSONString(nil, s)
		if !json.Valid(q) {
			t.Fatalf("%q: invalid JSON %s", s, q)
		}
		if back, ok := unescapeJSONString(string(q)); !ok || back != s {
			t.Fatalf("%q: round trip gave %q %v", s, back, ok)
		}
		if utf8.ValidString(s) {
			var v string
			if err := json.Unmarshal(q, &v); err != nil || v != s {
				t.Fatalf("%q: encoding/json reads %q %v", s, v, err)
			}
		}
	})
}

// TestURLSchemeVerdict: RFC 3986's answer is printed; the scheme's own
// syntax is a second verdict, a warning (and "scheme_error" in --json), or
// with --strict an error.
func TestURLSchemeVerdict(t *testing.T) {
	base := "http://a/b/c/d;p?q"
	urlCheck(t, []string{"url", "--base", base, "--", "http:g", "g"}, "", urlLines("http:g", "http://a/b/c/g"),
		urlWarnLine(t, "", "http:g", 5, urlParseTyped), 0)
	urlCheck(t, []string{"url", "--strict", "--base", base, "--", "http:g", "g"}, "", urlLines("http://a/b/c/g"),
		urlErrLine(t, "", "http:g", 5, urlParseTyped), 3)
	urlCheck(t, []string{"url", "--base", base, "--", "//"}, "", "http://\n", urlWarnLine(t, "", "http://", 7, urlParseTyped), 0)
	urlCheck(t, []string{"url", "ftp://h/a;type=x", "telnet://h/x"}, "", urlLines("ftp://h/a;type=x", "telnet://h/x"),
		urlWarnLine(t, "", "ftp://h/a;type=x", 15, urlParseTyped)+urlWarnLine(t, "", "telnet://h/x", 11, urlParseTyped), 0)

	// --json: the generic components, and the scheme's verdict instead of
	// its fields.
	warn := urlWarnLine(t, "", "http://127.0.0.1:80808/", 17, urlParseTyped)
	msg := strings.TrimSuffix(strings.TrimPrefix(warn, "urlget: warning: url: "), "\n")
	urlCheck(t, []string{"url", "--json", "http://127.0.0.1:80808/"}, "",
		`{"url":"http://127.0.0.1:80808/","scheme":"http","host":"127.0.0.1","host_kind":"ipv4","port":80808,"path":"/",`+
			`"raw":{"scheme":"http","host":"127.0.0.1","port":"80808","path":"/"},"scheme_error":`+string(urlparse.AppendJSONString(nil, msg))+"}\n",
		warn, 0)
	urlCheck(t, []string{"url", "--json", "--strict", "http://127.0.0.1:80808/"}, "", "",
		urlErrLine(t, "", "http://127.0.0.1:80808/", 17, urlParseTyped), 3)

	// --extract takes only URLs both layers accept.
	urlCheck(t, []string{"url", "--extract"}, "see http:g and <URL:http:x> or http://h/\n", "http://h/\n", "", 0)
}

// TestURLIRI: an IRI is printed as its URI; --json keeps the IRI.
func TestURLIRI(t *testing.T) {
	urlCheck(t, []string{"url", "http://bücher.de/", "HTTP://BÜCHER.de:8080/ä?ö#ü", "//bücher.de/x", "ü", "news:<id@host>",
		"nntp://h/comp.lang.go/<id@host>", "http://b%C3%BCcher.de/"}, "", urlLines(
		"http://xn--bcher-kva.de/",
		"HTTP://xn--bcher-kva.de:8080/%C3%A4?%C3%B6#%C3%BC",
		"//xn--bcher-kva.de/x",
		"%C3%BC",
		"news:id@host",
		"nntp://h/comp.lang.go/id@host",
		"http://b%C3%BCcher.de/",
	), "", 0)

	urlCheck(t, []string{"url", "--json", "http://bücher.de/", "news:<id@host>"}, "", urlLines(
		`{"url":"http://xn--bcher-kva.de/","iri":"http://bücher.de/","scheme":"http","host":"xn--bcher-kva.de","host_kind":"reg-name","path":"/",`+
			`"raw":{"scheme":"http","host":"xn--bcher-kva.de","path":"/"}}`,
		`{"url":"news:id@host","iri":"news:<id@host>","scheme":"news","path":"id@host","raw":{"scheme":"news","path":"id@host"},"news":{"message_id":"id@host"}}`,
	), "", 0)

	// An IRI base, resolution and normalization work on the URI forms; the
	// "iri" is the argument as given.
	urlCheck(t, []string{"url", "--json", "--normalize", "--base", "http://bücher.de/a/", "--", "ö"}, "",
		`{"url":"http://xn--bcher-kva.de/a/%C3%B6","iri":"ö","scheme":"http","host":"xn--bcher-kva.de","host_kind":"reg-name","path":"/a/ö",`+
			`"raw":{"scheme":"http","host":"xn--bcher-kva.de","path":"/a/%C3%B6"}}`+"\n", "", 0)

	// What no IRI holds is refused, at the input's offset.
	iriErr := func(s string) error { _, err := urlparse.ParseIRIRef(s); return err }
	urlCheck(t, []string{"url", "http://a/\xff", "http://a/\u200e", "http://h:8ü/", "a b/ü"}, "", "",
		urlErrLine(t, "", "http://a/\xff", 9, iriErr)+
			urlErrLine(t, "", "http://a/\u200e", 9, iriErr)+
			urlErrLine(t, "", "http://h:8ü/", 10, iriErr)+
			urlErrLine(t, "", "a b/ü", 1, iriErr), 3)
	urlCheck(t, []string{"url", "--base", "ü/x", "g"}, "", "", urlErrLine(t, "--base: ", "ü/x", 0, urlParseAbs), 3)
}

// TestFetchIRIHost: urlget fetches from an internationalized host. The
// Client's dialer is a stub resolver that knows only the A-label name and
// sends it to a loopback server, so the test needs no DNS and no root.
func TestFetchIRIHost(t *testing.T) {
	var host string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host = r.Host
		io.WriteString(w, "page "+r.URL.Path+"\n")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var asked []string
	stub := urlDialer(func(ctx context.Context, network, addr string) (net.Conn, error) {
		asked = append(asked, addr)
		if addr != "xn--bcher-kva.test:"+port {
			return nil, &net.DNSError{Err: "no such host", Name: addr, IsNotFound: true}
		}
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	})
	var out, errb bytes.Buffer
	code := runFetchWith(env{args: []string{"-sS", "http://bücher.test:" + port + "/ä"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb},
		func(c *fetchCmd) { c.client.Dialer = stub })
	if code != 0 || out.String() != "page /ä\n" || errb.String() != "" {
		t.Errorf("exit %d, stdout %q, stderr %q (dialer asked for %q)", code, out.String(), errb.String(), asked)
	}
	if host != "xn--bcher-kva.test:"+port {
		t.Errorf("Host header %q", host)
	}

	// A URL its scheme refuses is not fetched: exit 3, no connection.
	asked = nil
	out.Reset()
	errb.Reset()
	code = runFetchWith(env{args: []string{"-sS", "http://bücher.test:80808/"}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb},
		func(c *fetchCmd) { c.client.Dialer = stub })
	if code != 3 || len(asked) != 0 || !strings.Contains(errb.String(), "not a valid http URL") {
		t.Errorf("port 80808: exit %d, stderr %q, dialer asked for %q", code, errb.String(), asked)
	}
}

type urlDialer func(ctx context.Context, network, addr string) (net.Conn, error)

func (f urlDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}
