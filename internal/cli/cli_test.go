package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// toy is a FlagSet of every kind of Value, two topics, and a flag of
// listed values.
type toy struct {
	wait    time.Duration
	size    int64
	rate    int64
	n       int
	verbose bool
	name    string
	files   []string
	mode    string
}

func newToy() (*pflag.FlagSet, *toy) {
	t := &toy{n: 3}
	fs := pflag.NewFlagSet("toy", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.Var(Seconds(&t.wait), "wait", "wait `SECONDS`")
	fs.VarP(Size(&t.size, false), "size", "s", "stop after BYTES")
	fs.Var(Size(&t.rate, true), "rate", "at most `SPEED` a second")
	fs.Var(Int(&t.n, "at least 1", func(n int) bool { return n >= 1 }), "count", "make `N`")
	fs.BoolVarP(&t.verbose, "verbose", "v", false, "say more")
	fs.VarP(Text(&t.name, "FILE"), "out", "o", "write to FILE")
	fs.Var(Texts(&t.files, "DIR"), "dir", "look in DIR (repeatable)")
	SetTopics(fs, "dir", "ftp", "ftps")
	fs.Var(Text(&t.mode, "MODE"), "mode", "transfer in MODE")
	SetTopics(fs, "mode", "ftp")
	SetValues(fs, "mode", "ascii", "binary")
	fs.Bool("search", false, "search words")
	SetTopics(fs, "search", "gopher")
	return fs, t
}

func TestValues(t *testing.T) {
	fs, v := newToy()
	err := fs.Parse([]string{"--wait", "1.5", "-s", "2k", "--rate", "1M", "--count", "7", "-v", "-o", "f", "--dir", "a", "--dir", "b", "--mode=ascii"})
	if err != nil {
		t.Fatal(err)
	}
	if v.wait != 1500*time.Millisecond || v.size != 2048 || v.rate != 1<<20 || v.n != 7 || !v.verbose || v.name != "f" ||
		strings.Join(v.files, ",") != "a,b" || v.mode != "ascii" {
		t.Errorf("parsed %+v", *v)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--wait", "-1"}, `--wait: want a number of seconds, not "-1"`},
		{[]string{"--wait", "NaN"}, `--wait: want a number of seconds, not "NaN"`},
		{[]string{"-s", "2T"}, `-s/--size: want a byte count (suffix k, M or G allowed), not "2T"`},
		{[]string{"--rate", "0"}, `--rate: want a speed > 0 in bytes a second (suffix k, M or G allowed), not "0"`},
		{[]string{"--count", "x"}, `--count: want a whole number, not "x"`},
		{[]string{"--count", "0"}, `--count: want at least 1, not 0`},
		{[]string{"--verbose=maybe"}, `-v/--verbose: want true or false, not "maybe"`},
		{[]string{"--nope"}, `unknown flag: --nope`},
	} {
		fs, _ := newToy()
		err := Error(fs.Parse(c.args))
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.args, err, c.want)
		}
	}
	// Func: each value to the function, in order; "bool" for a switch.
	var got []string
	fs = NewFlagSet("toy", io.Discard)
	add := func(s string) error { got = append(got, s); return nil }
	fs.VarP(Func("FILE", add), "out", "o", "write to FILE")
	fs.VarPF(Func("bool", add), "remote", "O", "remote").NoOptDefVal = "true"
	if err := fs.Parse([]string{"-o", "a", "-O", "-o", "b"}); err != nil || strings.Join(got, ",") != "a,true,b" {
		t.Errorf("Func: %q %v", got, err)
	}
	if Placeholder(fs.Lookup("out")) != "FILE" || Placeholder(fs.Lookup("remote")) != "" {
		t.Error("Func's placeholders")
	}
	// The Value's own error stays in the chain.
	fs, _ = newToy()
	fs.Var(valueFunc(func(string) error { return errSentinel }), "typed", "")
	if err := Error(fs.Parse([]string{"--typed", "x"})); !errors.Is(err, errSentinel) {
		t.Errorf("typed: %v does not wrap the Value's error", err)
	}
	// An error that names its flag already is not named twice.
	fs.Var(valueFunc(func(s string) error { return fmt.Errorf("--named %q: bad", s) }), "named", "")
	if err := Error(fs.Parse([]string{"--named", "x"})); err == nil || err.Error() != `--named "x": bad` {
		t.Errorf("named: %v", err)
	}
}

var errSentinel = errors.New("sentinel")

type valueFunc func(string) error

func (f valueFunc) Set(s string) error { return f(s) }
func (f valueFunc) String() string     { return "" }
func (f valueFunc) Type() string       { return "X" }

func TestHelp(t *testing.T) {
	fs, _ := newToy()
	secs := Sections(fs)
	var titles []string
	for _, s := range secs {
		titles = append(titles, s.Title())
	}
	if got := strings.Join(titles, "|"); got != "General options|ftp options (also ftps)|gopher options" {
		t.Errorf("sections %q", got)
	}
	var b bytes.Buffer
	WriteFlags(&b, secs[0].Flags)
	for _, want := range []string{
		"      --wait SECONDS              wait SECONDS\n",
		"  -s, --size BYTES                stop after BYTES\n",
		"      --count N                   make N\n",
		"  -v, --verbose                   say more\n",
		"  -o, --out FILE                  write to FILE\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	WriteManFlag(&b, fs.Lookup("out"))
	if want := ".TP\n\\fB\\-o\\fR, \\fB\\-\\-out\\fR \\fIFILE\\fR\nwrite to FILE\n"; b.String() != want {
		t.Errorf("man entry %q, want %q", b.String(), want)
	}
	if got := Roff(".start -x \\"); got != `\&.start \-x \e` {
		t.Errorf("Roff: %q", got)
	}
}

func TestCompletionScripts(t *testing.T) {
	fs, _ := newToy()
	sub := pflag.NewFlagSet("toy sub", pflag.ContinueOnError)
	sub.Bool("deep", false, "go deep")
	c := &Completion{Program: "toy", Main: fs, MainName: "get", Commands: []Command{{"sub", sub}},
		HelpTopics: []string{"sub", "ftp"}, Starts: []string{"ftp://", "news:"}, ArgName: "URL"}
	var bash, zsh, fish bytes.Buffer
	c.WriteBash(&bash)
	c.WriteZsh(&zsh)
	c.WriteFish(&fish)
	for _, want := range []string{
		"case ${COMP_WORDS[1]} in sub) cmd=${COMP_WORDS[1]} ;; esac",
		`get:--out|get:-o) COMPREPLY=($(compgen -f -- "$cur")); return ;;`,
		`get:--dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;`,
		`get:--mode) COMPREPLY=($(compgen -W "ascii binary" -- "$cur")); return ;;`,
		`get:help) COMPREPLY=($(compgen -W "sub ftp" -- "$cur")); return ;;`,
		`sub) flags="--deep" ;;`,
		`local words="ftp:// news:"`,
		"complete -o default -o bashdefault -F _toy toy",
	} {
		if !strings.Contains(bash.String(), want) {
			t.Errorf("bash lacks %q", want)
		}
	}
	for _, want := range []string{"#compdef toy", "compadd -S '' -- ftp:// news:", "'--mode[transfer in MODE]:mode:(ascii binary)'", "'*:URL:_toy_url'"} {
		if !strings.Contains(zsh.String(), want) {
			t.Errorf("zsh lacks %q", want)
		}
	}
	for _, want := range []string{"complete -c toy -n __fish_use_subcommand -a 'sub help'", "-l mode -x -a 'ascii binary' -d 'transfer in MODE'", "-s 'o' -l out -r -F"} {
		if !strings.Contains(fish.String(), want) {
			t.Errorf("fish lacks %q", want)
		}
	}
	if _, err := exec.LookPath("bash"); err == nil {
		cmd := exec.Command("bash", "-n")
		cmd.Stdin = &bash
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("bash -n: %v %s", err, out)
		}
	}
}

func TestConfig(t *testing.T) {
	fs, _ := newToy()
	fs.VarP(Texts(new([]string), "FILE"), "config", "K", "read FILE")
	file := "# comment\nwait = 2\n-o \"a b\"\nverbose\nurl = http://x/\n"
	none := func() string { return "" }
	args, err := ExpandConfig([]string{"-K", "-", "--count", "-K"}, strings.NewReader(file), fs, none, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "--wait=2 --out=a b --verbose --url=http://x/ --count -K"
	if got := strings.Join(args, " "); got != want {
		t.Errorf("got %q, want %q (a flag's value that looks like -K stays)", got, want)
	}
	asked := false
	def := func() string { asked = true; return "" }
	if _, err := ExpandConfig([]string{"-q", "--count", "1"}, strings.NewReader(""), fs, def, nil); err != nil || asked {
		t.Errorf("-q first: %v, default file looked for: %v", err, asked)
	}
	var warned []string
	if args, err := ReadConfig("-", strings.NewReader("nope 1\ncount 2\n"), fs, func(m string) { warned = append(warned, m) }); err != nil || strings.Join(args, " ") != "--count=2" ||
		len(warned) != 1 || warned[0] != "- line 1: unknown option --nope: the line is skipped" {
		t.Errorf("unknown option: %q, %v, warned %q", args, err, warned)
	}
	if !TakesValue(fs, "-vo") || TakesValue(fs, "-ov") || TakesValue(fs, "--wait=1") || !TakesValue(fs, "--wait") {
		t.Error("TakesValue")
	}
}

// A Manual is laid out as man-pages(7) has it: titles with a space
// quoted, synopsis forms apart (.br), paragraphs (.PP), flag sections,
// other commands' flags, examples by topic and the trailer's three kinds
// of section, plain text escaped.
func TestManual(t *testing.T) {
	fs, _ := newToy()
	sub := NewFlagSet("toy sub", io.Discard)
	sub.Bool("deep", false, "go-deep")
	var b strings.Builder
	(&Manual{
		Program: "toy", Summary: "a toy-program",
		Synopsis:    [][2]string{{"toy", `\fIURL\fR`}, {"toy sub", "[x]"}},
		Description: []string{"one-", ".two"},
		Main:        fs,
		Commands:    []ManCommand{{Title: "SUB OPTIONS", Intro: "sub-options:", Flags: sub}},
		Examples:    []ManExamples{{Topic: "ftp", Items: [][2]string{{"-v ftp://h/", "verbose"}}}},
		Trailer: []ManSection{
			{Title: "ENVIRONMENT", Items: [][2]string{{"TOY_HOME", "the-home"}}},
			{Title: "EXIT STATUS", Text: "0-1"},
			{Title: "SEE ALSO", Raw: `\fBcurl\fR(1)`},
		},
	}).Write(&b)
	got := b.String()
	for _, want := range []string{
		".TH TOY 1 \"\" toy \"User Commands\"\n.SH NAME\ntoy \\- a toy\\-program\n.SH SYNOPSIS\n.B toy\n\\fIURL\\fR\n.br\n.B toy sub\n[x]\n",
		".SH DESCRIPTION\none\\-\n.PP\n\\&.two\n.SH OPTIONS\n.SS ",
		".SH \"SUB OPTIONS\"\nsub\\-options:\n.TP\n\\fB\\-\\-deep\\fR\ngo\\-deep\n.SH EXAMPLES\n.SS ftp\n.TP\n\\fBtoy \\-v ftp://h/\\fR\nverbose\n",
		".SH ENVIRONMENT\n.TP\n\\fBTOY_HOME\\fR\nthe\\-home\n.SH \"EXIT STATUS\"\n0\\-1\n.SH \"SEE ALSO\"\n\\fBcurl\\fR(1)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("manual lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, "\\fB\\-\\-wait\\fR") {
		t.Errorf("manual lacks the main flags:\n%s", got)
	}
}
