package main

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// schemeOpts holds the scheme flags: one flag for each option the fetch
// packages declare (fetch.RegisteredOptions, cli.OptionFlags), plus
// --json-lines and --readable.
type schemeOpts struct {
	*cli.OptionFlags
	readable bool // --readable
	json     bool // --json-lines
}

func addSchemeFlags(fs *pflag.FlagSet, s *schemeOpts) {
	s.OptionFlags = cli.AddOptionFlags(fs, fetch.RegisteredOptions())
	fs.BoolVar(&s.json, jsonLinesFlag, false, "print menus, listings and search results as JSON objects, one per line (JSON Lines)")
	fs.BoolVar(&s.readable, "readable", false, "write menus, listings and search results in their readable form to files and pipes too (default: only to a terminal; a file or a pipe gets them as the server sent them, as curl writes them)")
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
