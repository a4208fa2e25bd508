package cli

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

func TestOptionFlags(t *testing.T) {
	decl := []fetch.Option{
		{Key: "toy-passive", Kind: fetch.Bool, Help: "go passive", Schemes: []string{"toy"}},
		{Key: "toy-active", Flag: "no-passive", Kind: fetch.Bool, Set: "0", Help: "go active", Schemes: []string{"toy"}},
		{Key: "toy-depth", Kind: fetch.Int, Arg: "N", Help: "go N deep", Default: "3", Schemes: []string{"toy"}},
		{Key: "toy-wait", Kind: fetch.Duration, Arg: "SECONDS", Help: "wait", Schemes: []string{"toy"}},
		{Key: "toy-quote", Short: "Q", Kind: fetch.Strings, Arg: "CMD", Help: "send CMD", Schemes: []string{"toy", "toys"}},
		{Key: "toy-mode", Kind: fetch.String, Arg: "MODE", Help: "in MODE", Values: []string{"a", "b"}, Schemes: []string{"other"}},
	}
	parse := func(stdin string, args ...string) (fetch.Options, []string, error) {
		fs := NewFlagSet("toy", nil)
		o := AddOptionFlags(fs, decl)
		if err := fs.Parse(args); err != nil {
			return nil, nil, err
		}
		opts, err := o.Options(strings.NewReader(stdin))
		return opts, Unused(fs, []string{"TOY://host/"}), err
	}
	opts, unused, err := parse("", "--toy-passive", "--no-passive", "--toy-depth", "5", "--toy-wait", "0.5", "-Q", "A", "-Q", "B", "--toy-mode", "b")
	if err != nil {
		t.Fatal(err)
	}
	want := fetch.Options{"toy-passive": "1", "toy-active": "0", "toy-depth": "5", "toy-wait": "0.5", "toy-quote": "A\nB", "toy-mode": "b"}
	if len(opts) != len(want) {
		t.Errorf("options %q, want %q", opts, want)
	}
	for k, v := range want {
		if opts[k] != v {
			t.Errorf("%s = %q, want %q", k, opts[k], v)
		}
	}
	if len(unused) != 1 || unused[0] != "--toy-mode applies to other URLs only: ignored" {
		t.Errorf("unused %q", unused)
	}
	if opts, _, err := parse("X\r\nY\n", "-Q", "-"); err != nil || opts["toy-quote"] != "X\nY" {
		t.Errorf("-Q - from stdin: %q %v", opts, err)
	}
	if opts, _, err := parse(""); err != nil || opts != nil {
		t.Errorf("no flags: %q %v, want nil", opts, err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--toy-depth", "deep"}, `--toy-depth "deep": want a whole number`},
		{[]string{"--toy-wait", "soon"}, `--toy-wait "soon": want a number of seconds`},
		{[]string{"-Q", "a\nb"}, `--toy-quote "a\nb": holds a line break (give each line as a --toy-quote of its own)`},
	} {
		if _, _, err := parse("", c.args...); err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %s", c.args, err, c.want)
		}
	}
	fs := NewFlagSet("toy", nil)
	if k := AddOptionFlags(fs, decl).Key("no-passive"); k != "toy-active" {
		t.Errorf("Key(no-passive) = %q", k)
	}
	if f := fs.Lookup("toy-mode"); f.Annotations[valuesAnnotation][1] != "b" || Topics(f)[0] != "other" {
		t.Errorf("toy-mode annotations %v", f.Annotations)
	}
}
