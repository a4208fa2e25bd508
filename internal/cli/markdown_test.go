package cli

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestMarkdownManual: the Markdown page carries the roff page's words with
// Markdown's own marks, and text that would be read as Markdown is escaped.
func TestMarkdownManual(t *testing.T) {
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.StringP("output", "o", "", "write to `FILE` (a *glob*'s #1, <tag> | cell)")
	m := &Manual{
		Program: "prog", Summary: "does things",
		Synopsis: [][2]string{{"prog", `[\fIoptions\fR] \fIURL\fR\-list`}},
		Main:     fs,
		Trailer:  []ManSection{{Title: "SEE ALSO", Raw: `\fBcurl\fR(1), \fIlftp\fR(1)`}},
	}
	var b strings.Builder
	m.WriteMarkdown(&b)
	out := b.String()
	for _, want := range []string{
		"    prog [options] URL-list\n",
		"- `-o, --output FILE`: write to FILE (a \\*glob\\*'s \\#1, \\<tag\\> \\| cell)\n",
		"## See also\n\n**curl**(1), *lftp*(1)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown page lacks %q:\n%s", want, out)
		}
	}
}
