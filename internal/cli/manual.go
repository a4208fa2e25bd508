package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// A Manual is a program's manual page, laid out as man-pages(7) has it
// and written in roff by Write: NAME, SYNOPSIS, DESCRIPTION, the main
// flags in their help Sections (OPTIONS), each further command's flags,
// EXAMPLES by topic, then the Trailer sections.
type Manual struct {
	Program  string      // the page's name: "urlget"
	Summary  string      // NAME's text after the program
	Synopsis [][2]string // each form: the command (bold) and its arguments, in roff
	// Description is its paragraphs, plain text.
	Description []string
	Main        *pflag.FlagSet
	Commands    []ManCommand
	Examples    []ManExamples
	Trailer     []ManSection
}

// A ManCommand is a section of another command's flags: "MIRROR OPTIONS".
type ManCommand struct {
	Title, Intro string
	Flags        *pflag.FlagSet
}

// ManExamples are a topic's examples: the program's arguments and what
// they do.
type ManExamples struct {
	Topic string
	Items [][2]string
}

// A ManSection is a section of text (plain), of tagged items (plain), or
// of roff as it is (Raw).
type ManSection struct {
	Title string
	Text  string
	Items [][2]string
	Raw   string
}

// Write writes the manual page.
func (m *Manual) Write(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	title := func(t string) {
		if strings.Contains(t, " ") {
			t = `"` + t + `"`
		}
		p(".SH %s", t)
	}
	items := func(prefix string, list [][2]string) {
		for _, it := range list {
			p(".TP")
			p(`\fB%s%s\fR`, prefix, Roff(it[0]))
			p("%s", Roff(it[1]))
		}
	}
	p(`.TH %s 1 "" %s "User Commands"`, strings.ToUpper(m.Program), m.Program)
	title("NAME")
	p(`%s \- %s`, m.Program, Roff(m.Summary))
	title("SYNOPSIS")
	for i, s := range m.Synopsis {
		if i > 0 {
			p(".br")
		}
		p(".B %s", s[0])
		p("%s", s[1])
	}
	title("DESCRIPTION")
	for i, d := range m.Description {
		if i > 0 {
			p(".PP")
		}
		p("%s", Roff(d))
	}
	title("OPTIONS")
	for _, s := range Sections(m.Main) {
		p(".SS %s", Roff(s.Title()))
		for _, f := range s.Flags {
			WriteManFlag(w, f)
		}
	}
	for _, c := range m.Commands {
		title(c.Title)
		p("%s", Roff(c.Intro))
		c.Flags.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				WriteManFlag(w, f)
			}
		})
	}
	title("EXAMPLES")
	for _, ex := range m.Examples {
		p(".SS %s", Roff(ex.Topic))
		items(m.Program+" ", ex.Items)
	}
	for _, s := range m.Trailer {
		title(s.Title)
		switch {
		case s.Raw != "":
			p("%s", s.Raw)
		case s.Items != nil:
			items("", s.Items)
		default:
			p("%s", Roff(s.Text))
		}
	}
}
