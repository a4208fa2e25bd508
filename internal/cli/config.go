package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// Config files (-K/--config FILE, and a default one such as ~/.curlrc) in
// curl's syntax: one option a line, its name with or without the leading
// dashes, its value after spaces, "=" or ":" (spaces only after a name
// written with its dashes), in double quotes when it holds spaces (\\,
// \", \t, \n, \r, \v escaped); "url = URL" names a URL; lines starting
// with "#" are comments.

// maxConfigDepth bounds -K inside config files.
const maxConfigDepth = 8

// ExpandConfig gives the command line with the options of the config
// file def names first (none when it names none, "", or the first
// argument is -q/--disable, as curl's ~/.curlrc; def is not called then)
// and every -K FILE replaced by the options FILE holds ("-": stdin). fs
// tells which flags take a value. A line naming an unknown option is
// skipped, as curl skips it, and warn (when not nil) told so.
func ExpandConfig(args []string, stdin io.Reader, fs *pflag.FlagSet, def func() string, warn func(string)) ([]string, error) {
	var out []string
	if len(args) > 0 && (args[0] == "-q" || args[0] == "--disable") {
		args = args[1:]
	} else if def := def(); def != "" {
		toks, err := readConfig(def, stdin, fs, 0, warn)
		if err != nil {
			return nil, err
		}
		out = append(out, toks...)
	}
	rest, err := expandK(args, stdin, fs, 0, warn)
	if err != nil {
		return nil, err
	}
	return append(out, rest...), nil
}

// expandK replaces -K FILE, -KFILE, --config FILE and --config=FILE.
func expandK(args []string, stdin io.Reader, fs *pflag.FlagSet, depth int, warn func(string)) ([]string, error) {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		name, hasName := "", false
		switch {
		case a == "-K" || a == "--config":
			if i+1 == len(args) {
				return nil, fmt.Errorf("%s: needs a file name", a)
			}
			name, hasName = args[i+1], true
			i++
		case strings.HasPrefix(a, "--config="):
			name, hasName = a[len("--config="):], true
		case strings.HasPrefix(a, "-K") && !strings.HasPrefix(a, "--"):
			name, hasName = a[2:], true
		default:
			// Keep a flag's value as it is, even one that looks like -K.
			out = append(out, a)
			if TakesValue(fs, a) && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			}
			continue
		}
		if hasName {
			toks, err := readConfig(name, stdin, fs, depth, warn)
			if err != nil {
				return nil, err
			}
			out = append(out, toks...)
		}
	}
	return out, nil
}

// TakesValue tells whether the argument a is a flag of fs whose value is
// the next argument.
func TakesValue(fs *pflag.FlagSet, a string) bool {
	var f *pflag.Flag
	switch {
	case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
		f = fs.Lookup(a[2:])
	case len(a) >= 2 && a[0] == '-' && a[1] != '-':
		// A cluster of short flags: the last one may take the next
		// argument, when nothing follows it in the cluster.
		for j := 1; j < len(a); j++ {
			g := fs.ShorthandLookup(a[j : j+1])
			if g == nil {
				return false
			}
			if g.NoOptDefVal == "" {
				return j == len(a)-1
			}
		}
		return false
	}
	return f != nil && f.NoOptDefVal == ""
}

// ReadConfig reads the config file name ("-": stdin) into arguments:
// "--NAME" or "--NAME=VALUE" for each option, "--url=URL" for each URL;
// a line naming an unknown option is skipped, warn (when not nil) told.
func ReadConfig(name string, stdin io.Reader, fs *pflag.FlagSet, warn func(string)) ([]string, error) {
	return readConfig(name, stdin, fs, 0, warn)
}

func readConfig(name string, stdin io.Reader, fs *pflag.FlagSet, depth int, warn func(string)) ([]string, error) {
	if depth >= maxConfigDepth {
		return nil, fmt.Errorf("-K/--config %s: config files nested more than %d deep", name, maxConfigDepth)
	}
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(io.LimitReader(stdin, 1<<20))
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("-K/--config %s: %v", name, fetch.PathCause(err))
	}
	var toks []string
	for n, line := range strings.Split(string(b), "\n") {
		opt, val, hasVal, err := configLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %v", name, n+1, err)
		}
		if opt == "" {
			continue
		}
		if opt == "url" || opt == "--url" {
			if !hasVal {
				return nil, fmt.Errorf("%s line %d: url without a value", name, n+1)
			}
			toks = append(toks, "--url="+val)
			continue
		}
		if !strings.HasPrefix(opt, "-") {
			if len(opt) == 1 {
				opt = "-" + opt
			} else {
				opt = "--" + opt
			}
		}
		var f *pflag.Flag
		if strings.HasPrefix(opt, "--") {
			f = fs.Lookup(opt[2:])
		} else if len(opt) == 2 {
			// pflag panics on a shorthand of more than one byte ("-00").
			f = fs.ShorthandLookup(opt[1:])
		}
		if f == nil {
			// curl warns and goes on.
			if warn != nil {
				warn(fmt.Sprintf("%s line %d: unknown option %s: the line is skipped", name, n+1, fetch.SanitizeLine(opt, 60)))
			}
			continue
		}
		if f.Name == "config" {
			sub, err := readConfig(val, stdin, fs, depth+1, warn)
			if err != nil {
				return nil, err
			}
			toks = append(toks, sub...)
			continue
		}
		switch {
		case f.NoOptDefVal != "":
			// A flag without a value (curl ignores one given).
			toks = append(toks, "--"+f.Name)
		case !hasVal:
			return nil, fmt.Errorf("%s line %d: %s needs a value", name, n+1, opt)
		default:
			toks = append(toks, "--"+f.Name+"="+val)
		}
	}
	return toks, nil
}

// configLine splits one config line into the option and its value.
func configLine(line string) (opt, val string, hasVal bool, err error) {
	line = strings.TrimRight(strings.TrimLeft(line, " \t"), "\r")
	if line == "" || line[0] == '#' {
		return "", "", false, nil
	}
	// A name written with its dashes ends at a space only, as in curl.
	seps := " \t=:"
	if line[0] == '-' {
		seps = " \t"
	}
	end := strings.IndexAny(line, seps)
	if end < 0 {
		return line, "", false, nil
	}
	opt, rest := line[:end], strings.TrimLeft(line[end:], " \t")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	if rest == "" {
		return opt, "", false, nil
	}
	if rest[0] != '"' {
		if i := strings.IndexAny(rest, " \t"); i >= 0 {
			rest = rest[:i]
		}
		return opt, rest, true, nil
	}
	var b strings.Builder
	for i := 1; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '"':
			return opt, b.String(), true, nil
		case c == '\\' && i+1 < len(rest):
			i++
			switch rest[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 'v':
				b.WriteByte('\v')
			default:
				b.WriteByte(rest[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false, fmt.Errorf("unterminated quoted value")
}
