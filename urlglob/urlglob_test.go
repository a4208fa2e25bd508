package urlglob

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// expand is every URL of glob, and template filled for each.
func expand(t testing.TB, glob, template string) (urls, names []string) {
	t.Helper()
	g, err := Parse(glob, 0)
	if err != nil {
		t.Fatalf("Parse(%q): %v", glob, err)
	}
	for m := range g.All() {
		urls = append(urls, m.URL)
		names = append(names, m.Expand(template))
	}
	if uint64(len(urls)) != g.Len() {
		t.Errorf("%q: %d URLs, Len %d", glob, len(urls), g.Len())
	}
	return urls, names
}

// seq is fmt.Sprintf(format, i) for i from lo to hi by step.
func seq(format string, lo, hi, step int) []string {
	var out []string
	for i := lo; i <= hi; i += step {
		out = append(out, fmt.Sprintf(format, i))
	}
	return out
}

// letters is fmt.Sprintf(format, c) for the letters from lo to hi by step.
func letters(format string, lo, hi byte, step int) []string {
	var out []string
	for c := int(lo); c <= int(hi); c += step {
		out = append(out, fmt.Sprintf(format, string(rune(c))))
	}
	return out
}

// manualExamples are the globs of curl's manual (URL section, -o), with
// what they give as the manual describes it.
var manualExamples = []struct {
	glob, template string
	urls, names    []string
}{
	{glob: "http://site.{one,two,three}.com",
		urls: []string{"http://site.one.com", "http://site.two.com", "http://site.three.com"}},
	{glob: "ftp://ftp.example.com/file[1-100].txt", urls: seq("ftp://ftp.example.com/file%d.txt", 1, 100, 1)},
	{glob: "ftp://ftp.example.com/file[001-100].txt", urls: seq("ftp://ftp.example.com/file%03d.txt", 1, 100, 1)},
	{glob: "ftp://ftp.example.com/file[a-z].txt", urls: letters("ftp://ftp.example.com/file%s.txt", 'a', 'z', 1)},
	{glob: "http://example.com/archive[1996-1999]/vol[1-4]/part{a,b,c}.html", urls: func() []string {
		var out []string
		for y := 1996; y <= 1999; y++ {
			for v := 1; v <= 4; v++ {
				for _, p := range []string{"a", "b", "c"} {
					out = append(out, fmt.Sprintf("http://example.com/archive%d/vol%d/part%s.html", y, v, p))
				}
			}
		}
		return out
	}()},
	{glob: "http://example.com/file[1-100:10].txt", urls: seq("http://example.com/file%d.txt", 1, 100, 10)},
	{glob: "http://example.com/file[a-z:2].txt", urls: letters("http://example.com/file%s.txt", 'a', 'z', 2)},
	{glob: "http://[fe80::3%25eth0]/", urls: []string{"http://[fe80::3%25eth0]/"}},
	{glob: "http://{one,two}.example.com", template: "file_#1.txt",
		urls: []string{"http://one.example.com", "http://two.example.com"}, names: []string{"file_one.txt", "file_two.txt"}},
	{glob: "http://{site,host}.host[1-5].com", template: "#1_#2", urls: func() []string {
		return append(seq("http://site.host%d.com", 1, 5, 1), seq("http://host.host%d.com", 1, 5, 1)...)
	}(), names: append(seq("site_%d", 1, 5, 1), seq("host_%d", 1, 5, 1)...)},
}

func TestManualExamples(t *testing.T) {
	for _, ex := range manualExamples {
		urls, names := expand(t, ex.glob, ex.template)
		if !slices.Equal(urls, ex.urls) {
			t.Errorf("%s:\n%q\nwant\n%q", ex.glob, urls, ex.urls)
		}
		if ex.names != nil && !slices.Equal(names, ex.names) {
			t.Errorf("%s -o %s:\n%q\nwant\n%q", ex.glob, ex.template, names, ex.names)
		}
	}
}

func TestForms(t *testing.T) {
	for _, tc := range []struct {
		glob, template string
		want           string // URL>name, joined by " "
	}{
		{"x{a,,b}", "#1", "xa>a x> xb>b"},
		{"x{,a}", "", "x> xa>"},
		{`h/x\{a\}{\,,b\}}`, "#1", `h/x{a},>, h/x{a}b}>b}`},
		{`x{\a}`, "", "xa>"},
		{"h/x[]", "", "h/x[]>"},
		{"http://[::1]:8/[1-2]", "#1", "http://[::1]:8/1>1 http://[::1]:8/2>2"},
		{"[Z-a]", "#1", "Z>Z [>[ \\>\\ ]>] ^>^ _>_ `>` a>a"},
		{"[1- 3]", "", "1> 2> 3>"},
		{"[1-3:+2]", "", "1> 3>"},
		{"[0-10:5]", "", "0> 5> 10>"},
		{"[08-11]", "", "08> 09> 10> 11>"},
		{"[0-2]", "", "0> 1> 2>"},
		{"[5-5]", "#1", "5>5"},
		{"[q-q]", "#1", "q>q"},
		{"{a,b}[1-2]{c}", "#3#2#1", "a1c>c1a a2c>c2a b1c>c1b b2c>c2b"},
		{"{a,b}", "#0#2#12#1x##1#", "a>#0#2#12ax#a# b>#0#2#12bx#b#"},
		{"{a,b}", "#99999999999999999999999", "a>#99999999999999999999999 b>#99999999999999999999999"},
		{"plain", "#1", "plain>#1"},
	} {
		urls, names := expand(t, tc.glob, tc.template)
		var got []string
		for i := range urls {
			got = append(got, urls[i]+">"+names[i])
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s (%s):\n%s\nwant\n%s", tc.glob, tc.template, strings.Join(got, " "), tc.want)
		}
	}
}

// badGlobs are malformed globs, with curl's message for them (curl 7.88).
var badGlobs = []struct{ glob, want string }{
	{"http://h/{a,b", "unmatched brace in URL position 10"},
	{"http://h/[1-", "bad range in URL position 13"},
	{"http://h/[a-Z]", "bad range in URL position 15"},
	{"http://h/[A-z]", "bad range in URL position 15"},
	{"http://h/{}", "empty string within braces in URL position 11"},
	{"http://h/{a,{b}}", "nested brace in URL position 13"},
	{"http://h/{a,[1-2]}", "nested brace in URL position 13"},
	{"http://h/{a]}", "unexpected close bracket in URL position 12"},
	{"http://h/[1-3:0]", "bad range in URL position 17"},
	{"http://h/[1-3:]", "bad range in URL position 16"},
	{"http://h/[1-3x]", "bad range in URL position 13"},
	{"http://h/[1-3:2x]", "bad range in URL position 15"},
	{"http://h/a]", "unmatched close brace/bracket in URL position 11"},
	{"http://h/{a}]", "unmatched close brace/bracket in URL position 12"},
	{"http://h/[3-1]", "bad range in URL position 15"},
	{"http://h/[1-2:2]", "bad range in URL position 17"},
	{"http://h/[a-c:3]", "bad range in URL position 17"},
	{"http://h/[a-c:x]", "bad range in URL position 11"},
	{"http://h/[a_c]", "bad range in URL position 11"},
	{"http://h/[-1]", "bad range specification in URL position 11"},
	{"http://h/[", "bad range specification in URL position 11"},
	{"http://h/x[]y}", "unmatched close brace/bracket in URL position 12"},
	{"http://h/[1-99999999999999999999]", "bad range in URL position 13"},
	{"http://h/[1-4294967296][1-4294967296]", "range overflow in URL position 38"},
	{"http://h/" + strings.Repeat("{a}x", 60), "too many globs in URL position 159"},
	{"http://h/" + strings.Repeat("[1-2]", 70), "range overflow in URL position 330"},
	{"http://h/" + strings.Repeat("{a,b}", 70), "range overflow"},
	{"http://h/" + strings.Repeat("{a}", 120), "too many globs in URL position 208"},
}

func TestErrors(t *testing.T) {
	for _, tc := range badGlobs {
		_, err := Parse(tc.glob, 0)
		e, ok := err.(*Error)
		if !ok || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.glob, err, tc.want)
			continue
		}
		lines := strings.Split(e.Caret(), "\n")
		if e.Pos == 0 && e.Caret() == tc.glob {
			continue
		}
		if len(lines) != 2 || lines[0] != tc.glob || len(lines[1]) != e.Pos || !strings.HasSuffix(lines[1], "^") {
			t.Errorf("%s: caret %q", tc.glob, e.Caret())
		}
	}
}

// A range of 2^64 numbers is refused: curl 7.88 counts it as none.
func TestWholeRange(t *testing.T) {
	if _, err := Parse("http://h/[0-18446744073709551615]", 0); err == nil || err.Error() != "range overflow in URL position 34" {
		t.Errorf("%v", err)
	}
	g, err := Parse("http://h/[1-18446744073709551615]", 0)
	if err != nil || g.Len() != 1<<64-1 {
		t.Errorf("%v", err)
	}
}

func TestLimit(t *testing.T) {
	g, err := Parse("http://h/[1-1000][1-1000]", 1000000)
	if err != nil || g.Len() != 1000000 {
		t.Fatalf("%v", err)
	}
	_, err = Parse("http://h/[1-1000][1-1001]", 1000000)
	if err == nil || err.Error() != "the glob gives 1001000 URLs, over the limit of 1000000" {
		t.Errorf("over the limit: %v", err)
	}
}

// All stops when asked and holds nothing but the current URL: a glob of
// 10^18 URLs gives its first few at once.
func TestAllStreams(t *testing.T) {
	g, err := Parse("http://h/[000001-999999]/[1-1000000]/[1-1000000]", 0)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != 999999*1000000*1000000 {
		t.Errorf("Len %d", g.Len())
	}
	var got []string
	for m := range g.All() {
		got = append(got, m.URL)
		if len(got) == 3 {
			break
		}
	}
	if strings.Join(got, " ") != "http://h/000001/1/1 http://h/000001/1/2 http://h/000001/1/3" {
		t.Errorf("%q", got)
	}
	allocs := testing.AllocsPerRun(10, func() {
		n := 0
		for range g.All() {
			if n++; n == 1000 {
				break
			}
		}
	})
	if allocs > 8*1000+10 {
		t.Errorf("%.0f allocations for 1000 URLs", allocs)
	}
}
