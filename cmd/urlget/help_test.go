package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/urlget.1 and docs/completion/* from the flags")

func runOut(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

// TestHelpGroupsByScheme: --help names the sub-commands, puts the general
// options first and every scheme option in its scheme's section, and no
// line repeats its placeholder as a prefix.
func TestHelpGroupsByScheme(t *testing.T) {
	code, out, _ := runOut(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, want := range []string{"urlget url [options]", "urlget mirror [options] URL DIR", "urlget help [SCHEME", "\nGeneral options:\n", "\nhttp options (also https):\n", "\nftp options (also ftps):\n", "\ngopher options"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	if strings.Index(out, "General options:") > strings.Index(out, "ftp options") {
		t.Error("the general options do not come first")
	}
	sections := strings.Split(out, "\n\n")
	for _, o := range fetch.RegisteredOptions() {
		flagText := "--" + o.FlagName()
		found := ""
		for _, s := range sections {
			if strings.Contains(s, flagText+" ") || strings.Contains(s, flagText+"\n") {
				found = s
				break
			}
		}
		if len(o.Schemes) > 0 && !strings.HasPrefix(found, o.Schemes[0]+" options") {
			t.Errorf("%s is not in the %s section", flagText, o.Schemes[0])
		}
		for _, line := range strings.Split(out, "\n") {
			if o.Arg != "" && strings.Contains(line, flagText+" "+o.Arg) && strings.Contains(line, " "+o.Arg+": ") {
				t.Errorf("the help line repeats the placeholder: %s", line)
			}
		}
	}
	if strings.Contains(out, "`") {
		t.Error("a backquote is left in the help")
	}
	_, help, _ := runOut(t, "help")
	if help != out {
		t.Error("urlget help differs from urlget --help")
	}
}

func TestHelpScheme(t *testing.T) {
	code, out, _ := runOut(t, "help", "gopher")
	if code != 0 || !strings.Contains(out, "--search WORDS") || !strings.Contains(out, "Examples:") ||
		!strings.Contains(out, "urlget -d ") || strings.Contains(out, "--ftp-method") {
		t.Errorf("help gopher: exit %d\n%s", code, out)
	}
	_, out2, _ := runOut(t, "--help", "gopher")
	if out2 != out {
		t.Error("--help gopher differs from help gopher")
	}
	if _, out, _ := runOut(t, "help", "https"); !strings.Contains(out, "-H, --header LINE") || !strings.Contains(out, "-F, --form") {
		t.Errorf("help https:\n%s", out)
	}
	if code, _, errs := runOut(t, "help", "nosuch"); code != fetchExitUsage || !strings.Contains(errs, "gopher") {
		t.Errorf("help nosuch: exit %d %q", code, errs)
	}
	if code, out, _ := runOut(t, "help", "mirror"); code != 0 || !strings.Contains(out, "urlget mirror") {
		t.Errorf("help mirror: exit %d", code)
	}
}

// TestDocsInSync: the man page and the completion scripts under docs/ are
// what urlget generates (go test -run TestDocsInSync -update-docs rewrites
// them), and the bash script parses.
func TestDocsInSync(t *testing.T) {
	docs := filepath.Join("..", "..", "docs")
	for _, c := range []struct {
		file string
		args []string
	}{
		{"urlget.1", []string{"--man"}},
		{"completion/urlget.bash", []string{"--completion", "bash"}},
		{"completion/_urlget", []string{"--completion", "zsh"}},
		{"completion/urlget.fish", []string{"--completion", "fish"}},
	} {
		code, out, errs := runOut(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", c.args, code, errs)
		}
		p := filepath.Join(docs, c.file)
		if *updateDocs {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		have, err := os.ReadFile(p)
		if err != nil || string(have) != out {
			t.Errorf("docs/%s is not what urlget %s prints: run go test ./cmd/urlget -run TestDocsInSync -update-docs", c.file, strings.Join(c.args, " "))
		}
	}
	var md strings.Builder
	manual(newFetchFlags(env{stderr: io.Discard}, &fetchOpts{})).WriteMarkdown(&md)
	mdPath := filepath.Join(docs, "urlget.md")
	if *updateDocs {
		if err := os.WriteFile(mdPath, []byte(md.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if have, err := os.ReadFile(mdPath); err != nil || string(have) != md.String() {
		t.Errorf("docs/urlget.md is not the manual page in Markdown: run go test ./cmd/urlget -run TestDocsInSync -update-docs")
	}
	code, man, _ := runOut(t, "--man")
	for _, want := range []string{".TH URLGET 1", ".SS http options", `\fB\-H\fR, \fB\-\-header\fR \fILINE\fR`, `.SH "CONFIG FILE"`, ".SS gopher"} {
		if code != 0 || !strings.Contains(man, want) {
			t.Errorf("--man lacks %q", want)
		}
	}
	_, bash, _ := runOut(t, "--completion", "bash")
	cmd := exec.Command("bash", "-n")
	cmd.Stdin = strings.NewReader(bash)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("bash -n: %v %s", err, out)
	}
	for _, f := range []string{"--output", "--header", "--form", "--ftp-method", "--search"} {
		if !strings.Contains(bash, f) {
			t.Errorf("the bash completion lacks %s", f)
		}
	}
	if code, _, _ := runOut(t, "--completion", "tcsh"); code != fetchExitUsage {
		t.Errorf("--completion tcsh: exit %d", code)
	}
}

// TestHelpSaysWhatHappens: help http shows the '+' that -G
// --data-urlencode sends; -Y and -y name each other's defaults rightly;
// the manual page has the mirror's options and an ENVIRONMENT section;
// every scheme a person types has examples.
func TestHelpSaysWhatHappens(t *testing.T) {
	help := func(args ...string) string {
		var out, errb bytes.Buffer
		if code := run(env{args: args, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != 0 {
			t.Fatalf("%q: exit %d %s", args, code, errb.String())
		}
		return out.String()
	}
	if h := help("help", "http"); !strings.Contains(h, "?q=a+b") || strings.Contains(h, "%20") {
		t.Errorf("help http on -G --data-urlencode:\n%s", h)
	}
	h := help("--help")
	for _, want := range []string{"--speed-time (default 1 when only -y is given)", "--speed-limit (default 30 when only -Y is given)"} {
		if !strings.Contains(h, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	man := help("--man")
	for _, want := range []string{`.SH "MIRROR OPTIONS"`, `\fB\-\-delete\fR`, `\fB\-\-max\-delete\fR`, ".SH ENVIRONMENT", "http_proxy", "no_proxy", "NNTPSERVER", "SMTP_SERVER", "SSL_CERT_FILE", ".netrc", ".urlgetrc"} {
		if !strings.Contains(man, want) {
			t.Errorf("--man lacks %q", want)
		}
	}
	for _, scheme := range []string{"mailto", "telnet", "nntp", "prospero", "file", "news", "rlogin"} {
		if h := help("help", scheme); !strings.Contains(h, "\nExamples:\n  urlget ") {
			t.Errorf("help %s has no examples:\n%s", scheme, h)
		}
	}
}
