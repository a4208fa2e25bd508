// Command warccheck reads WARC files with github.com/nlnwa/gowarc — an
// implementation independent of urlget's writer — under its strict
// validation (syntax, the specification's rules, every block and payload
// digest recomputed), and prints one line per file: the records' types,
// or the first error (exit 1). With -records it first prints a line for
// each record read: its type, target URI and payload digest (checked),
// separated by tabs, so that a test can tell which captures a file holds.
//
// It is a module of its own, so that urlget's go.mod does not carry
// gowarc and its dependencies: mirror's TestWARC runs it (go run, offline)
// when the module cache has them. By hand:
//
//	cd mirror/internal/warccheck && go run . [-records] FILE.warc.gz ...
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/nlnwa/gowarc/v3"
)

var records = flag.Bool("records", false, "print each record's type, target URI and payload digest")

func main() {
	flag.Parse()
	bad := false
	for _, name := range flag.Args() {
		if err := check(name); err != nil {
			fmt.Printf("%s: invalid: %v\n", name, err)
			bad = true
		}
	}
	if bad {
		os.Exit(1)
	}
}

func check(name string) error {
	r, err := gowarc.NewWarcFileReader(name, 0, gowarc.WithStrictValidation())
	if err != nil {
		return err
	}
	defer r.Close()
	types := map[string]int{}
	n := 0
	for rec, err := range r.Records() {
		if err != nil {
			return fmt.Errorf("record %d: %w", n, err)
		}
		if len(rec.Validation) > 0 {
			return fmt.Errorf("record %d: %v", n, rec.Validation)
		}
		types[rec.WarcRecord.Type().String()]++
		if *records {
			h := rec.WarcRecord.WarcHeader()
			fmt.Printf("%s\t%s\t%s\n", rec.WarcRecord.Type(), h.Get(gowarc.WarcTargetURI), h.Get(gowarc.WarcPayloadDigest))
		}
		if err := rec.Close(); err != nil {
			return err
		}
		n++
	}
	var parts []string
	for t, c := range types {
		parts = append(parts, fmt.Sprintf("%d %s", c, t))
	}
	sort.Strings(parts)
	fmt.Printf("%s: ok: %d records (%s)\n", name, n, strings.Join(parts, ", "))
	return nil
}
