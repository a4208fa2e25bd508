package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
)

// jsonLinesFlag is the flag that prints menus, listings and search results
// as JSON Lines. It was --json until curl's --json (a JSON body to POST,
// curl 7.82) took the name: options have curl's names and meaning.
const jsonLinesFlag = "json-lines"

// addJSONFlag defines curl's --json DATA: the body goes through the data
// flags' list (fetch.ReadData), so that it is read, joined and sent as -d's is.
func addJSONFlag(fs *pflag.FlagSet, r *reqOpts) {
	fs.Var(dataFlag(&r.data, fetch.DataJSON, "DATA"), "json", "HTTP POST JSON `DATA` (@FILE, @-: read as it is; several are joined as they are), with Content-Type and Accept: application/json (for listings as JSON lines: --"+jsonLinesFlag+")")
}

// checkJSONArgs refuses the old listing form of --json: "--json URL", or
// "--json --other-flag", is what a script written for the flag that is now
// --json-lines says; taken as curl's it would POST the URL's text and fetch
// nothing the script asked for. JSON data cannot look like either: it
// begins with "{", "[", a quote, a digit, "-" and a digit, or one of true,
// false and null, never with "scheme:", a host name or "--".
func checkJSONArgs(args []fetch.DataArg) error {
	for _, a := range args {
		if a.Kind != fetch.DataJSON || !oldJSONUse(a.Value) {
			continue
		}
		return fmt.Errorf("--json %s: --json sends a JSON body (curl's --json DATA); for menus and listings as JSON lines use --%s", fetch.OneLine(a.Value), jsonLinesFlag)
	}
	return nil
}

// oldJSONUse reports whether a --json argument is a URL or an option, not
// data.
func oldJSONUse(v string) bool {
	if len(v) > 1 && v[0] == '-' && (v[1] == '-' || isLetter(v[1])) {
		return true
	}
	if v == "" || !isLetter(v[0]) {
		return false
	}
	if scheme, rest, ok := strings.Cut(v, ":"); ok && !strings.ContainsAny(scheme, " \t\r\n\"{}[]") {
		_, known := fetch.LookupScheme(strings.ToLower(scheme))
		return strings.HasPrefix(rest, "//") || known
	}
	// A URL without its scheme, as urlget guesses one: "ftp.example.org/pub/".
	host, _, _ := strings.Cut(v, "/")
	return strings.Contains(host, ".") && strings.Trim(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") == ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
