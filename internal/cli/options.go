package cli

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// OptionFlags are the flags of declared fetch options (the scheme
// packages' fetch.Option, fetch.RegisteredOptions): one flag each, of the
// option's kind, its topics the option's schemes; Options reads what was
// given back into fetch.Options.
type OptionFlags struct {
	decl   []fetch.Option
	values []*string   // argument flags, by decl index
	bools  []*bool     // Bool flags, by decl index
	lists  []*[]string // Strings flags, by decl index
	fs     *pflag.FlagSet
}

// AddOptionFlags defines a flag on fs for each option of decl.
func AddOptionFlags(fs *pflag.FlagSet, decl []fetch.Option) *OptionFlags {
	s := &OptionFlags{decl: decl, fs: fs}
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
			fs.VarP(Texts(s.lists[i], o.Arg), o.FlagName(), o.Short, usage)
		default:
			s.values[i] = new(string)
			fs.VarP(Text(s.values[i], o.Arg), o.FlagName(), o.Short, usage)
		}
		if len(o.Schemes) > 0 {
			SetTopics(fs, o.FlagName(), o.Schemes...)
		}
		if len(o.Values) > 0 {
			SetValues(fs, o.FlagName(), o.Values...)
		}
	}
	return s
}

// Key is the fetch.Options key behind the option flag --flag, "" when
// none of the options declares it.
func (s *OptionFlags) Key(flag string) string {
	for _, o := range s.decl {
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

// Options gives the Request.Options the option flags ask for (nil when
// none), each value checked with the parser of its kind. A Strings option
// given once as "-" reads its values from stdin, one a line.
func (s *OptionFlags) Options(stdin io.Reader) (fetch.Options, error) {
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

// Unused names the flags given on fs that mean nothing for the schemes of
// any of urls (flags whose topics are schemes: SetTopics), one warning
// line each.
func Unused(fs *pflag.FlagSet, urls []string) []string {
	var topics, out []string
	for _, raw := range urls {
		if i := strings.IndexByte(raw, ':'); i > 0 {
			topics = append(topics, strings.ToLower(raw[:i]))
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		apply := Topics(f)
		if len(apply) == 0 || !f.Changed {
			return
		}
		used := false
		for _, sc := range topics {
			used = used || slices.Contains(apply, sc)
		}
		if !used {
			out = append(out, Name(f)+" applies to "+strings.Join(apply, ", ")+" URLs only: ignored")
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
