package serve

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
)

// hostile are names a server may send to break out of the page: a closing
// script tag, quotes ending an attribute, event handlers, markup.
var hostile = []string{
	`</script><script>alert(1)</script>`,
	`"><img src=x onerror=alert(2)>`,
	`' onmouseover='alert(3)`,
	`</title></style><svg onload=alert(4)>`,
	"tab\tand \x00 nul \x1b[31m",
}

// hostileLinks are URLs that must not become links (or only as text).
var hostileLinks = []string{
	"javascript:alert(5)", "JaVaScRiPt:alert(6)", " javascript:alert(7)", "java\tscript:alert(8)",
	"data:text/html,<script>alert(9)</script>", "vbscript:msgbox(10)", `ftp://h/"><script>alert(11)</script>`,
}

// Every row writer of every layout (files, menus, articles, groups, hits)
// gets hostile names, titles, authors, targets and URLs: none escapes the
// text it was written as (checkPage: no element, attribute or scheme of
// theirs), and each shows as the text it is.
func TestHostileNamesEscaped(t *testing.T) {
	h, err := New(nil, Options{Resolver: newStub(nil)})
	if err != nil {
		t.Fatal(err)
	}
	var entries []fetch.Entry
	for i, name := range hostile {
		for _, u := range hostileLinks {
			e := fetch.Entry{Name: name, Title: name, Author: name, Target: name, URL: u, Size: int64(i), ModTime: time.Unix(0, 0),
				ItemType: '0', Type: fetch.EntryFile}
			entries = append(entries, e)
			e.Type, e.ItemType = fetch.EntryDir, '1'
			e.Raw = name + "\t1\t1\t" + name + "\t" + name + "\t" + u
			entries = append(entries, e)
			entries = append(entries, fetch.Entry{Raw: name, Unparsed: true}, fetch.Entry{Name: name, ItemType: 'i'})
		}
	}
	var lines bytes.Buffer
	for i := range entries {
		lines.WriteString(strconv.Itoa(i) + "\n")
	}
	listing := func(line []byte) fetch.Entry {
		i, _ := strconv.Atoi(string(bytes.TrimSpace(line)))
		return entries[i]
	}
	for _, target := range []string{"ftp://h/pub/", "gopher://h/1/", "news:local.test", "news:*", "wais://h/db?x"} {
		for _, title := range hostile[:2] {
			q := &query{target: target + title, html: true}
			w := httptest.NewRecorder()
			res := &fetch.Resource{Body: io.NopCloser(bytes.NewReader(lines.Bytes())), Listing: listing}
			h.listing(&logWriter{ResponseWriter: w}, httptest.NewRequest("GET", "/", nil), q, res, 200)
			body := w.Body.String()
			checkPage(t, body, "a")
			for _, want := range []string{"&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;", "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;", "&#39; onmouseover=&#39;alert(3)"} {
				if !strings.Contains(body, want) {
					t.Errorf("%s: the page lacks %s", target, want)
				}
			}
			if strings.ContainsAny(body, "\x00\x1b") {
				t.Errorf("%s: a control byte reached the page", target)
			}
			for _, bad := range []string{"<script", "<img", "<svg", `href="javascript`, `href=" javascript`, `href="data:`, `href="vbscript`} {
				if strings.Contains(strings.ToLower(body), strings.ToLower(bad)) {
					t.Errorf("%s: the page holds %s", target, bad)
				}
			}
		}
	}
}

// The pages have one escaping path: page.raw, which writes bytes as they
// are, is only ever given the gateway's own text (string literals,
// constants, numbers formatted by strconv, dates by time's Format);
// anything else goes through page.text (writeEscaped) or the links'
// writePath. The test reads serve's source.
func TestOneEscapingPath(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	consts := map[string]bool{}
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(fset, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
		for _, d := range af.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						consts[n.Name] = true
					}
				}
			}
		}
	}
	var own func(e ast.Expr) bool
	own = func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.BasicLit:
			return e.Kind == token.STRING
		case *ast.Ident:
			return consts[e.Name]
		case *ast.ParenExpr:
			return own(e.X)
		case *ast.BinaryExpr:
			return e.Op == token.ADD && own(e.X) && own(e.Y)
		case *ast.CallExpr:
			if sel, ok := e.Fun.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "strconv" && (sel.Sel.Name == "FormatInt" || sel.Sel.Name == "Itoa") {
					return true
				}
				if sel.Sel.Name == "Format" && len(e.Args) == 1 && own(e.Args[0]) {
					return true // a time's Format with a constant layout
				}
			}
		}
		return false
	}
	n := 0
	for _, af := range parsed {
		ast.Inspect(af, func(x ast.Node) bool {
			c, ok := x.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "raw" && len(c.Args) == 1 {
				n++
				if !own(c.Args[0]) {
					t.Errorf("%s: raw is given text that is not the gateway's own", fset.Position(c.Pos()))
				}
			}
			return true
		})
	}
	if n < 50 {
		t.Errorf("only %d calls of raw found: the test reads the wrong files", n)
	}
}
