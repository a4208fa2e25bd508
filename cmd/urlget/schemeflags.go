package main

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// schemeOpts holds the scheme flags: one flag for each option the fetch
// packages declare (fetch.RegisteredOptions, cli.OptionFlags), plus
// --json-lines.
type schemeOpts struct {
	*cli.OptionFlags
	json bool // --json-lines
}

func addSchemeFlags(fs *pflag.FlagSet, s *schemeOpts) {
	s.OptionFlags = cli.AddOptionFlags(fs, fetch.RegisteredOptions())
	fs.BoolVar(&s.json, jsonLinesFlag, false, "print menus, listings and search results as JSON objects, one per line (JSON Lines)")
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
