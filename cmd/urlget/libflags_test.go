package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/internal/cli"
)

// libraryDirs are the packages Go programs import: their messages speak Go
// (a Client field, an Options key), never urlget's flags.
var libraryDirs = []string{"../../fetch", "../../mirror", "../../serve", "../../urlparse"}

// flagLike finds a command-line flag in a message: --name, or a -X/--name pair.
var flagLike = regexp.MustCompile(`(^|[\s(,;'"])(--[a-z][a-z0-9-]+|-[A-Za-z]/--)`)

// docFields are the composite-literal fields that document a flag for the
// command's help (fetch.Option's Help, an Example's Args): naming flags
// there is their job.
var docFields = map[string]bool{"Help": true, "Args": true, "Arg": true, "Default": true}

// libraryMessages lists every string literal in the library's non-test
// files that is not flag documentation, with its position.
func libraryMessages(t *testing.T) map[string]string {
	t.Helper()
	msgs := map[string]string{}
	fset := token.NewFileSet()
	for _, dir := range libraryDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil || f.Name.Name == "main" {
				return err // a command of the package's own (a benchmark tool) speaks as a command
			}
			skip := map[ast.Expr]bool{}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.KeyValueExpr:
					if k, ok := n.Key.(*ast.Ident); ok && docFields[k.Name] {
						ast.Inspect(n.Value, func(m ast.Node) bool {
							if e, ok := m.(ast.Expr); ok {
								skip[e] = true
							}
							return true
						})
					}
				case *ast.BasicLit:
					if n.Kind == token.STRING && !skip[n] {
						if s, err := strconv.Unquote(n.Value); err == nil {
							msgs[fset.Position(n.Pos()).String()] = s
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(msgs) < 1000 {
		t.Fatalf("only %d string literals found in %v: the walk is broken", len(msgs), libraryDirs)
	}
	return msgs
}

// TestLibraryNamesNoFlags: no message of fetch, mirror, serve or urlparse
// names a flag of urlget's; they name the setting in Go's terms, and the
// command spells it as its flag (cli.InFlags).
func TestLibraryNamesNoFlags(t *testing.T) {
	for pos, s := range libraryMessages(t) {
		if m := flagLike.FindStringSubmatch(s); m != nil {
			t.Errorf("%s: %q names the flag %s: name the setting (Client.Field, Options[key]) instead", pos, s, m[2])
		}
	}
}

// TestSettingsHaveFlags: every setting a library message names is one the
// command can spell as a flag that exists.
func TestSettingsHaveFlags(t *testing.T) {
	known := commandFlagNames(t)
	n := 0
	for pos, s := range libraryMessages(t) {
		for _, m := range cli.SettingRE.FindAllString(s, -1) {
			n++
			f, ok := cli.SettingFlag(m)
			if !ok {
				t.Errorf("%s: %q names %s, which the command has no flag for (cli.SettingFlags)", pos, s, m)
				continue
			}
			for _, name := range strings.Split(f, ", ") {
				if _, long, ok := strings.Cut(name, "/--"); ok {
					name = long
				}
				if !known[strings.TrimPrefix(name, "--")] {
					t.Errorf("%s: %s is spelled %s, which is no flag of urlget's", pos, m, name)
				}
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d settings named in library messages: settingRE no longer finds them", n)
	}
	for s, f := range cli.SettingFlags {
		if !known[strings.TrimPrefix(f, "--")] {
			t.Errorf("cli.SettingFlags[%q] = %s, which is no flag of urlget's", s, f)
		}
	}
}

func TestInFlags(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"the server requires TLS (use nntps:// or Options[ssl]=required)", "the server requires TLS (use nntps:// or --ssl-reqd)"},
		{"mailto: not sent: confirm with Options[mail-confirm]=yes", "mailto: not sent: confirm with --yes"},
		{"give Options[smtp-server] HOST[:PORT]", "give --smtp-server HOST[:PORT]"},
		{"use Client.NoProxy for this host", "use --noproxy for this host"},
		{"more than mirror.Options.DeleteLimit 3 allows", "more than --max-delete 3 allows"},
		{"Client.Nothing and Options[no-such-key] stay", "Client.Nothing and Options[no-such-key] stay"},
		{"no setting here", "no setting here"},
	} {
		if got := cli.InFlags(c.in); got != c.want {
			t.Errorf("InFlags(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// commandFlagNames are the long flag names of urlget, urlget mirror and
// urlget serve.
func commandFlagNames(t *testing.T) map[string]bool {
	t.Helper()
	e := env{stderr: io.Discard}
	names := map[string]bool{}
	for _, fs := range []*pflag.FlagSet{newFetchFlags(e, &fetchOpts{}), newMirrorFlags(e, &mirrorOpts{}), newServeFlags(e, &serveOpts{})} {
		fs.VisitAll(func(f *pflag.Flag) { names[f.Name] = true })
	}
	return names
}
