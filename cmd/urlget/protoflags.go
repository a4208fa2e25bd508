package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/cli"
)

// curl's --proto, --proto-redir and --proto-default: which schemes are
// fetched, followed in a redirect, and given to a URL written without one.

// addProtoFlags defines them on fs; --proto-default goes to *def.
func addProtoFlags(fs *pflag.FlagSet, cl *fetch.Client, def *string) {
	fs.Var(cli.Func("string", func(s string) error {
		cl.Protocols = protoSet(s)
		return nil
	}), "proto", "fetch only the schemes `LIST` leaves: comma-separated, each name adding it, -name removing it, =name allowing it alone, \"all\" every one (curl's: --proto =https)")
	fs.Var(cli.Func("string", func(s string) error {
		cl.RedirectProtocols = protoSet(s)
		return nil
	}), "proto-redir", "with -L, follow redirects only to the schemes `LIST` leaves, written as for --proto")
	fs.Var(cli.Func("string", func(s string) error {
		s = strings.ToLower(s)
		if _, ok := fetch.LookupScheme(s); !ok {
			return fmt.Errorf("unsupported protocol %q", s)
		}
		*def = s
		return nil
	}), "proto-default", "give a URL written without a scheme `SCHEME` in place of the guessed one (ftp. ftp, else http)")
}

// protoSet is the schemes a --proto LIST leaves, starting from all of
// them, as curl reads it: each comma-separated name is added ("+name" or
// "name"), removed ("-name") or allowed alone ("=name"); "all" is every
// scheme. A name urlget has no scheme of is ignored, as curl ignores one
// it was built without.
func protoSet(list string) []string {
	all := fetch.Schemes()
	set := slices.Clone(all)
	for _, tok := range strings.Split(list, ",") {
		tok = strings.ToLower(strings.TrimSpace(tok))
		op := byte('+')
		for tok != "" && strings.ContainsRune("+-=", rune(tok[0])) {
			op, tok = tok[0], tok[1:]
		}
		names := []string{tok}
		if tok == "all" {
			names = all
		} else if !slices.Contains(all, tok) {
			names = nil
		}
		if op == '=' {
			set = nil
		}
		for _, n := range names {
			if op == '-' {
				set = slices.DeleteFunc(set, func(s string) bool { return s == n })
			} else if !slices.Contains(set, n) {
				set = append(set, n)
			}
		}
	}
	return set
}

// withDefaultScheme gives each of urls written without a scheme the
// scheme def (--proto-default), in place of the guessed one.
func withDefaultScheme(urls []string, def string) []string {
	if def == "" {
		return urls
	}
	out := make([]string, len(urls))
	for i, raw := range urls {
		if fetch.SchemeLess(raw) {
			raw = def + "://" + raw
		}
		out[i] = raw
	}
	return out
}
