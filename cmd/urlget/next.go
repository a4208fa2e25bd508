package main

import (
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/internal/cli"
)

// -:/--next, as curl's: the options before it are for the URLs before it;
// the next URLs start again from no options, but for the global ones
// (globalFlags), which hold for every group, wherever they are given. Each
// group is run as a command of its own, one after the other (with -Z, each
// group's URLs at once); every group is parsed first, so that a bad option
// anywhere fetches nothing. As in curl, a group without a URL is skipped,
// but a last one is an error (exit 2) once the others have run. The exit
// status is the last failure's.

// addNextFlag defines -:/--next for help and completion; the command line
// is cut at it before it is parsed (splitNext).
func addNextFlag(fs *pflag.FlagSet) {
	fs.BoolP("next", ":", false, "start a new group of URLs with options of their own (-s, -S, -v, -#, --no-progress-meter and -Z and its companions hold for all)")
}

// splitNext cuts args at each -: or --next that is not a flag's value;
// nil when there is none.
func splitNext(args []string, fs *pflag.FlagSet) [][]string {
	var groups [][]string
	start := 0
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			i = len(args)
		case a == "--next" || a == "-:":
			groups = append(groups, args[start:i])
			start = i + 1
		case cli.TakesValue(fs, a):
			i++
		}
	}
	if groups == nil {
		return nil
	}
	return append(groups, args[start:])
}

// globalFlags are the flags that hold for every group, wherever they are
// given.
var globalFlags = []string{"silent", "show-error", "verbose", "progress-bar", "no-progress-meter", "parallel", "parallel-max", "parallel-immediate"}

// globalArgs are the global flags given in the groups, in order (a later
// value wins), as command-line arguments.
func globalArgs(opts []*fetchOpts) []string {
	var g []string
	for _, o := range opts {
		o.fs.Visit(func(f *pflag.Flag) {
			if slices.Contains(globalFlags, f.Name) {
				g = append(g, "--"+f.Name+"="+f.Value.String())
			}
		})
	}
	return g
}

// runGroups runs the groups of a command line cut by --next.
func runGroups(e env, groups [][]string, setup func(*fetchCmd)) int {
	opts := make([]*fetchOpts, len(groups))
	for i, g := range groups {
		// Parsed only to be checked: stdin (-w @-) is left for the run.
		o, err := parseFetchArgs(env{stdin: strings.NewReader(""), stderr: io.Discard}, g)
		if err != nil {
			return runFetchWith(env{args: append([]string{"-q"}, g...), stdin: e.stdin, stdout: e.stdout, stderr: e.stderr}, setup)
		}
		opts[i] = o
	}
	global := globalArgs(opts)
	status := 0
	for i, g := range groups {
		if len(opts[i].urls) == 0 && i < len(groups)-1 {
			continue // as curl: only a last group without a URL is an error
		}
		// -q: ~/.urlgetrc was read into the first group already.
		args := append(append([]string{"-q"}, global...), g...)
		code := runFetchWith(env{args: args, stdin: e.stdin, stdout: e.stdout, stderr: e.stderr}, setup)
		if code == fetchExitInterrupted {
			return code
		}
		if code != 0 {
			status = code
		}
	}
	return status
}
