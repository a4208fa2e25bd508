package main

import (
	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// jsonLinesFlag is the flag that prints menus, listings and search results
// as JSON Lines; --json is curl's (a JSON body to POST, curl 7.82).
const jsonLinesFlag = "json-lines"

// addJSONFlag defines curl's --json DATA: the body goes through the data
// flags' list (fetch.ReadData), so that it is read, joined and sent as -d's is.
func addJSONFlag(fs *pflag.FlagSet, r *reqOpts) {
	fs.Var(dataFlag(&r.data, fetch.DataJSON, "DATA"), "json", "HTTP POST JSON `DATA` (@FILE, @-: read as it is; several are joined as they are), with Content-Type and Accept: application/json (for listings as JSON lines: --"+jsonLinesFlag+")")
}
