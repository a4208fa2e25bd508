package urlglob

import (
	"strings"
	"testing"
)

// FuzzParse: any text parses or gives an *Error with a position inside it
// (or none); a glob's URLs come in the number Len says, each with one value
// per pattern and "#1#2…" filled with those values; and Escape's text
// reads back as itself, one URL. The work is bounded: at most 4096 URLs are made.
func FuzzParse(f *testing.F) {
	for _, ex := range manualExamples {
		f.Add(ex.glob)
	}
	for _, tc := range badGlobs {
		f.Add(tc.glob)
	}
	f.Add(`x\{a\}{\,,b\}}[]`)
	f.Add("http://[::1]:8/[a-c:2]{x,}")
	f.Fuzz(func(t *testing.T, s string) {
		if one, err := Parse(Escape(s), 0); err != nil {
			t.Fatalf("Escape(%q) = %q: %v", s, Escape(s), err)
		} else if one.Len() != 1 || one.Patterns() != 0 {
			t.Fatalf("Escape(%q): %d URLs, %d patterns", s, one.Len(), one.Patterns())
		} else {
			for m := range one.All() {
				if m.URL != s {
					t.Fatalf("Escape(%q) reads back as %q", s, m.URL)
				}
			}
		}
		g, err := Parse(s, 1<<40)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Pos < 0 || e.Pos > len(s)+1 || e.Glob != s || strings.Contains(e.Error(), "\n") {
				t.Fatalf("%q: %#v", s, err)
			}
			return
		}
		var template strings.Builder
		for i := range g.Patterns() {
			template.WriteString("#" + string(rune('0'+(i+1)%10)))
		}
		n := uint64(0)
		for m := range g.All() {
			if len(m.Values) != g.Patterns() {
				t.Fatalf("%q: %d values, %d patterns", s, len(m.Values), g.Patterns())
			}
			if g.Patterns() < 10 && m.Expand(template.String()) != strings.Join(m.Values, "") {
				t.Fatalf("%q: Expand(%q) = %q, values %q", s, template.String(), m.Expand(template.String()), m.Values)
			}
			if n++; n == 4096 {
				break
			}
		}
		if n != min(g.Len(), 4096) {
			t.Fatalf("%q: %d URLs, Len %d", s, n, g.Len())
		}
	})
}
