package main

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzConfigFile: a config file (-K FILE, ~/.urlgetrc) of any bytes reads
// into arguments or fails; every argument is "--NAME" or "--NAME=VALUE" of
// a flag of the fetch command; written again as a config file (values in
// quotes) the arguments read back the same; and the work is bounded by
// the file. The fuzzed file cannot name another (-K is not among its
// flags): a fuzzer must not read the machine's files.
func FuzzConfigFile(f *testing.F) {
	fuzzcheck.Seeds(f,
		"url = \"http://a/b c\"\n  -o out.txt trailing\nheader: \"A: \\t\\\\ \\\"q\\\"\"\nsilent\n# comment\n",
		"--location\r\nmax-redirs=3\n-H \"X: y\"\nuser-agent \"\\v\\n\\r\"\nurl\n", "url \"unterminated", "config /etc/passwd\n", "-K x\n",
		"nosuchoption 1\n", "o\n", "-\n", "=\n", ":x\n", "\x00\n",
	)
	full := newFetchFlags(env{stderr: io.Discard}, &fetchOpts{})
	fs := pflag.NewFlagSet("fuzz", pflag.ContinueOnError)
	full.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "config" {
			fs.AddFlag(fl)
		}
	})
	q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\n", `\n`, "\r", `\r`, "\v", `\v`)
	f.Fuzz(func(t *testing.T, data []byte) {
		var args []string
		var err error
		fuzzcheck.Bounded(t, len(data), func() { args, err = cli.ReadConfig("-", bytes.NewReader(data), fs, nil) })
		if err != nil {
			return
		}
		var file strings.Builder
		for _, a := range args {
			name, val, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if !strings.HasPrefix(a, "--") || fs.Lookup(name) == nil {
				t.Fatalf("%q: argument %q is no flag", data, a)
			}
			file.WriteString("--" + name)
			if hasVal {
				file.WriteString(` "` + q.Replace(val) + `"`)
			}
			file.WriteString("\n")
		}
		again, err := cli.ReadConfig("-", strings.NewReader(file.String()), fs, nil)
		if err != nil || !slices.Equal(again, args) {
			t.Fatalf("%q: %q written as\n%s\nreads as %q (%v)", data, args, file.String(), again, err)
		}
	})
}
