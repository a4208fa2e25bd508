package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// topicsAnnotation is the pflag annotation naming the topics (urlget: the
// URL schemes) a flag means something for.
const topicsAnnotation = "cli-topics"

// SetTopics says which topics the flag name is for: help shows it in the
// section of the first, and a command may warn when it is given for none
// of those at hand.
func SetTopics(fs *pflag.FlagSet, name string, topics ...string) {
	fs.SetAnnotation(name, topicsAnnotation, topics)
}

// Topics are the topics of a flag (nil: it is a general one).
func Topics(f *pflag.Flag) []string { return f.Annotations[topicsAnnotation] }

// Section is a group of flags in help: the general ones (Topic ""), or
// those whose first topic is Topic.
type Section struct {
	Topic string
	Flags []*pflag.Flag
}

// Sections groups the flags of fs that are not hidden: general first,
// then one section per topic in the order the topics first appear.
func Sections(fs *pflag.FlagSet) []Section {
	secs := []Section{{Topic: ""}}
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		s := ""
		if t := Topics(f); len(t) > 0 {
			s = t[0]
		}
		i := slices.IndexFunc(secs, func(h Section) bool { return h.Topic == s })
		if i < 0 {
			secs = append(secs, Section{Topic: s})
			i = len(secs) - 1
		}
		secs[i].Flags = append(secs[i].Flags, f)
	})
	return secs
}

// Title names a section: "General options", or its topic and the other
// topics its flags also apply to ("ftp options (also ftps)"), leaving out
// those of flags for more than three.
func (s Section) Title() string {
	if s.Topic == "" {
		return "General options"
	}
	var also []string
	for _, f := range s.Flags {
		for _, t := range Topics(f)[1:] {
			if !slices.Contains(also, t) && t != s.Topic && len(Topics(f)) <= 3 {
				also = append(also, t)
			}
		}
	}
	t := s.Topic + " options"
	if len(also) > 0 {
		t += " (also " + strings.Join(also, ", ") + ")"
	}
	return t
}

// Placeholder is a flag's argument placeholder in help ("" for a flag
// without one): the usage line's backquoted word, else its Value's Type,
// "TEXT" and "N" for pflag's string and int.
func Placeholder(f *pflag.Flag) string {
	if f.NoOptDefVal != "" {
		return ""
	}
	name, _ := pflag.UnquoteUsage(f)
	switch name {
	case "", "bool":
		return ""
	case "string":
		return "TEXT"
	case "int":
		return "N"
	}
	return name
}

// Help is the flag's help line, without pflag's backquotes.
func Help(f *pflag.Flag) string {
	return strings.ReplaceAll(f.Usage, "`", "")
}

// FirstLine is the first line of s (a help that runs over several).
func FirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// spec is "-o, --output FILE": the flag's names and placeholder.
func spec(f *pflag.Flag) string {
	s := "    --" + f.Name
	if f.Shorthand != "" {
		s = "-" + f.Shorthand + ", --" + f.Name
	}
	if p := Placeholder(f); p != "" {
		s += " " + p
	}
	return s
}

// WriteFlags writes a line for each flag, the help in a column.
func WriteFlags(w io.Writer, flags []*pflag.Flag) {
	const col = 34
	for _, f := range flags {
		spec := "  " + spec(f)
		if len(spec) >= col-1 {
			fmt.Fprintf(w, "%s\n%s%s\n", spec, strings.Repeat(" ", col), Help(f))
			continue
		}
		fmt.Fprintf(w, "%-*s%s\n", col, spec, Help(f))
	}
}

// Roff escapes text for a line of a manual page.
func Roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// WriteManFlag writes a flag's entry in a manual page's list of options:
// its names and placeholder, and its help.
func WriteManFlag(w io.Writer, f *pflag.Flag) {
	names := `\fB\-\-` + Roff(f.Name) + `\fR`
	if f.Shorthand != "" {
		names = `\fB\-` + Roff(f.Shorthand) + `\fR, ` + names
	}
	if ph := Placeholder(f); ph != "" {
		names += ` \fI` + Roff(ph) + `\fR`
	}
	fmt.Fprintf(w, ".TP\n%s\n%s\n", names, Roff(Help(f)))
}
