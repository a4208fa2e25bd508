package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// schemeOpts holds the values of the scheme flags: one flag for each option
// the fetch packages declare (fetch.RegisteredOptions), plus --json-lines.
type schemeOpts struct {
	decl   []fetch.Option
	values []*string   // argument flags, by decl index
	bools  []*bool     // Bool flags, by decl index
	lists  []*[]string // Strings flags, by decl index
	fs     *pflag.FlagSet
	json   bool // --json-lines
}

func addSchemeFlags(fs *pflag.FlagSet, s *schemeOpts) {
	s.decl = fetch.RegisteredOptions()
	s.fs = fs
	s.values = make([]*string, len(s.decl))
	s.bools = make([]*bool, len(s.decl))
	s.lists = make([]*[]string, len(s.decl))
	for i, o := range s.decl {
		usage := optionUsage(o)
		switch o.Kind {
		case fetch.Bool:
			s.bools[i] = fs.BoolP(o.FlagName(), o.Short, false, usage)
		case fetch.Strings:
			s.lists[i] = new([]string)
			fs.VarP(cli.Texts(s.lists[i], o.Arg), o.FlagName(), o.Short, usage)
		default:
			s.values[i] = new(string)
			fs.VarP(cli.Text(s.values[i], o.Arg), o.FlagName(), o.Short, usage)
		}
		if len(o.Schemes) > 0 {
			cli.SetTopics(fs, o.FlagName(), o.Schemes...)
		}
		if len(o.Values) > 0 {
			cli.SetValues(fs, o.FlagName(), o.Values...)
		}
	}
	fs.BoolVar(&s.json, jsonLinesFlag, false, "print menus, listings and search results as JSON objects, one per line (JSON Lines)")
}

// optionKey is the Request.Options key behind the scheme flag --flag, ""
// when no fetch package declares it: how the command reads an option of a
// scheme it does not import (-H's @FILE lines).
func optionKey(flag string) string {
	for _, o := range fetch.RegisteredOptions() {
		if o.FlagName() == flag {
			return o.Key
		}
	}
	return ""
}

// optionUsage is a flag's help line: "help (default …)"; the placeholder
// is the flag Value's Type, the scheme the section of help it is shown in.
func optionUsage(o fetch.Option) string {
	u := o.Help
	if o.Default != "" {
		u += " (default " + o.Default + ")"
	}
	return u
}

// options gives the Request.Options the scheme flags ask for (nil when
// none), each value checked with the parser of its kind. A Strings option
// given once as "-" reads its values from stdin, one a line.
func (s *schemeOpts) options(stdin io.Reader) (fetch.Options, error) {
	m := fetch.Options{}
	for i, o := range s.decl {
		key, flag := o.Key, "--"+o.FlagName()
		switch {
		case s.bools[i] != nil:
			if *s.bools[i] {
				m[key] = o.SetValue()
			}
		case s.lists[i] != nil:
			vals := *s.lists[i]
			if len(vals) == 1 && vals[0] == "-" {
				var err error
				if vals, err = readLines(stdin); err != nil {
					return nil, fmt.Errorf("%s -: %v", flag, err)
				}
			}
			for _, v := range vals {
				if strings.Contains(v, "\n") { // the values are kept one a line
					return nil, fmt.Errorf("%s %q: holds a line break (give each line as a %s of its own)", flag, v, flag)
				}
			}
			if len(vals) > 0 {
				m[key] = strings.Join(vals, "\n")
			}
		case s.fs.Changed(o.FlagName()):
			m[key] = *s.values[i]
			var err error
			switch o.Kind {
			case fetch.Int:
				_, err = m.Int(key, 0)
			case fetch.Duration:
				_, err = m.Duration(key, 0)
			}
			if err != nil {
				return nil, fmt.Errorf("%s %q: want %s", flag, *s.values[i], map[fetch.OptionKind]string{fetch.Int: "a whole number", fetch.Duration: "a number of seconds"}[o.Kind])
			}
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// unused names the flags given that mean nothing for any of the URLs'
// schemes (the scheme options, and the CLI's flags annotated with their
// schemes), one warning line each.
func (s *schemeOpts) unused(schemes []string) []string {
	var out []string
	s.fs.VisitAll(func(f *pflag.Flag) {
		apply := cli.Topics(f)
		if len(apply) == 0 || !f.Changed {
			return
		}
		used := false
		for _, sc := range schemes {
			used = used || slices.Contains(apply, sc)
		}
		if !used {
			out = append(out, cli.Name(f)+" applies to "+strings.Join(apply, ", ")+" URLs only: ignored")
		}
	})
	return out
}

func readLines(r io.Reader) ([]string, error) {
	var lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	return lines, sc.Err()
}

// listFormat is how a listing is shown (fetch.Resource.Present): JSON
// lines with --json-lines, else text; 0 with --raw, which shows every
// result as the server sent it.
func (c *fetchCmd) listFormat() fetch.Format {
	if raw, _ := c.o.options.Bool(fetch.OptRaw); raw {
		return 0
	}
	if c.o.scheme.json {
		return fetch.FormatJSON
	}
	return fetch.FormatText
}

// readSecret prints prompt on stderr and reads a line from the terminal f
// without echo.
func readSecret(e env, f *os.File, prompt string) (string, bool) {
	fmt.Fprint(e.stderr, prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.stderr)
	return string(b), err == nil
}

// askUser answers, on a terminal, what a fetcher said it needs
// (*fetch.InputNeededError): search words, a password, a confirmation, the
// answers to a form. It returns the options to retry with, or nil when
// there is nothing to ask or no terminal to ask on.
func askUser(e env, err error) map[string]string {
	var ine *fetch.InputNeededError
	f, ok := e.stdin.(*os.File)
	if !errors.As(err, &ine) || !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	in := bufio.NewReader(f)
	ask := func(prompt string, secret bool) (string, bool) {
		if secret {
			return readSecret(e, f, prompt)
		}
		fmt.Fprint(e.stderr, prompt)
		line, err := in.ReadString('\n')
		return strings.TrimRight(line, "\r\n"), err == nil || line != ""
	}
	if len(ine.Questions) == 0 {
		if s, ok := ask(ine.Prompt, ine.Secret); ok {
			return map[string]string{ine.Key: s}
		}
		return nil
	}
	var answers []string
	for _, q := range ine.Questions {
		if q.Note {
			fmt.Fprintln(e.stderr, q.Prompt)
			continue
		}
		prompt := q.Prompt
		if len(q.Choices) > 0 {
			for i, ch := range q.Choices {
				prompt += fmt.Sprintf("\n  %d) %s", i+1, ch)
			}
			prompt += "\n"
		}
		if q.Default != "" {
			prompt += " [" + q.Default + "]"
		}
		a, ok := ask(prompt+": ", q.Secret)
		if !ok {
			return nil
		}
		if a == "" {
			a = q.Default
		}
		answers = append(answers, a)
	}
	return map[string]string{ine.Key: strings.Join(answers, "\n")}
}
