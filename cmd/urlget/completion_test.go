package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// completionScript writes urlget --completion SHELL into a file.
func completionScript(t *testing.T, shell, name string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(env{args: []string{"--completion", shell}, stdin: strings.NewReader(""), stdout: &out, stderr: &errb}); code != 0 {
		t.Fatalf("--completion %s: exit %d %s", shell, code, errb.String())
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// completionCases are command lines, the last word being completed, and
// what the offers must and must not hold.
var completionCases = []struct {
	words     []string
	want, not []string
}{
	{[]string{"urlget", "mirror", "--de"}, []string{"--delete"}, []string{"--describe"}},
	{[]string{"urlget", "--de"}, []string{"--describe"}, []string{"--delete"}},
	{[]string{"urlget", "url", "--no"}, []string{"--normalize"}, nil},
	{[]string{"urlget", "url", "--st"}, []string{"--strict"}, nil},
	{[]string{"urlget", "url", "--ex"}, []string{"--extract"}, nil},
	{[]string{"urlget", "--ftp-method", ""}, []string{"multicwd", "singlecwd", "nocwd"}, nil},
	{[]string{"urlget", "-s", "goph"}, []string{"gopher://", "gophers://"}, nil},
	{[]string{"urlget", "ne"}, []string{"news:"}, nil},
	{[]string{"urlget", "m"}, []string{"mailto:", "mid:"}, []string{"mailto://", "mid://"}},
	{[]string{"urlget", "ci"}, []string{"cid:"}, []string{"cid://"}},
}

func checkOffers(t *testing.T, shell string, words []string, got string, want, not []string) {
	t.Helper()
	offers := strings.Fields(got)
	for _, w := range want {
		if !slices.Contains(offers, w) {
			t.Errorf("%s: %q offers %q, want %q among them", shell, words, offers, w)
		}
	}
	for _, w := range not {
		if slices.Contains(offers, w) {
			t.Errorf("%s: %q offers %q, which is not its flag", shell, words, w)
		}
	}
}

// TestCompletionBash runs the bash script's function on each case.
func TestCompletionBash(t *testing.T) {
	bash := testserver.Require(t, "bash")
	script := completionScript(t, "bash", "urlget.bash")
	for _, c := range completionCases {
		words := make([]string, len(c.words))
		for i, w := range c.words {
			words[i] = "'" + w + "'"
		}
		prog := "source " + script + "; COMP_WORDS=(" + strings.Join(words, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "; _urlget; printf '%s\\n' \"${COMPREPLY[@]}\""
		out, err := exec.Command(bash, "--norc", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v %s", err, out)
		}
		checkOffers(t, "bash", c.words, string(out), c.want, c.not)
	}
}

// TestCompletionFish asks fish itself what it completes.
func TestCompletionFish(t *testing.T) {
	fish := testserver.Require(t, "fish")
	script := completionScript(t, "fish", "urlget.fish")
	for _, c := range completionCases {
		line := strings.Join(c.words, " ")
		cmd := exec.Command(fish, "--no-config", "-c", "source "+script+"; complete -C '"+line+"'")
		cmd.Dir = t.TempDir() // no file names among the offers
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v %s", err, out)
		}
		var first []string
		for _, l := range strings.Split(string(out), "\n") {
			w, _, _ := strings.Cut(l, "\t")
			first = append(first, w)
		}
		checkOffers(t, "fish", c.words, strings.Join(first, " "), c.want, c.not)
	}
}

// TestCompletionZsh runs the zsh script with the completion system's
// functions (_arguments, compadd, _files) replaced by ones that print what
// they are given; the flags and values that match the word being
// completed are the offers, as _arguments and compadd would filter them.
func TestCompletionZsh(t *testing.T) {
	zsh := testserver.Require(t, "zsh")
	script := completionScript(t, "zsh", "_urlget")
	stubs := "_arguments() { print -rl -- \"$@\"; }\ncompadd() { print -rl -- \"$@\"; }\n_files() { :; }\n"
	flagRE := regexp.MustCompile(`(?:^|[({,])(--?[A-Za-z0-9#][A-Za-z0-9-]*)`)
	valuesRE := regexp.MustCompile(`:\(([^)]*)\)$`)
	for _, c := range completionCases {
		words := make([]string, len(c.words))
		for i, w := range c.words {
			words[i] = "'" + w + "'"
		}
		cur := c.words[len(c.words)-1]
		prog := stubs + "source " + script + " >/dev/null; words=(" + strings.Join(words, " ") + "); CURRENT=" + strconv.Itoa(len(words)) +
			"; PREFIX=" + words[len(words)-1] + "; _urlget"
		out, err := exec.Command(zsh, "-f", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("zsh: %v %s", err, out)
		}
		prev := c.words[len(c.words)-2]
		var offers []string
		for _, line := range strings.Split(string(out), "\n") {
			spec, _, _ := strings.Cut(line, "[")
			for _, m := range flagRE.FindAllStringSubmatch(spec, -1) {
				if strings.HasPrefix(cur, "-") && strings.HasPrefix(m[1], cur) {
					offers = append(offers, m[1])
				}
			}
			if m := valuesRE.FindStringSubmatch(line); m != nil && strings.Contains(spec, prev) {
				offers = append(offers, strings.Fields(m[1])...)
			}
			if strings.HasSuffix(line, ":_urlget_url") && !strings.HasPrefix(cur, "-") {
				// the URL argument's action, run as _arguments would
				more, err := exec.Command(zsh, "-f", "-c", stubs+"source "+script+" >/dev/null; PREFIX="+words[len(words)-1]+"; _urlget_url").CombinedOutput()
				if err != nil {
					t.Fatalf("zsh: %v %s", err, more)
				}
				for _, w := range strings.Fields(string(more)) {
					if strings.HasPrefix(w, cur) {
						offers = append(offers, w)
					}
				}
			}
		}
		checkOffers(t, "zsh", c.words, strings.Join(offers, " "), c.want, c.not)
	}
}
