package download

import (
	"iter"
	"strings"

	"github.com/urlget/urlget/urlglob"
)

// Jobs are the transfers that URL arguments stand for, as curl makes
// them: each argument is a glob ({a,b}, [1-9]: package urlglob) of at
// most limit URLs (0: no bound), unless noGlob; its URLs come in curl's
// order, one at a time, never all made first. target gives the Target of
// argument i (curl's Nth -o or -O belongs to the Nth argument), whose
// Name gets the glob's values for #1, #2, ... (not a Remote, Implicit or
// "-" one). A Target's Upload is a glob too: each of its files goes to
// each URL, the files in the outer loop, as curl sends them. Every URL of
// argument i has Num i. A malformed glob ends the sequence with its
// *urlglob.Error, beside a Job of the argument as it is.
func Jobs(args []string, target func(i int) Target, noGlob bool, limit uint64) iter.Seq2[Job, error] {
	return func(yield func(Job, error) bool) {
		for i, arg := range args {
			t := target(i)
			if noGlob {
				if !yield(Job{Num: i, URL: arg, Target: t}, nil) {
					return
				}
				continue
			}
			g, err := urlglob.Parse(arg, limit)
			if err != nil {
				yield(Job{Num: i, URL: arg}, err)
				return
			}
			uploads := func(yield func(string) bool) { yield(t.Upload) }
			if strings.ContainsAny(t.Upload, "{[") {
				ug, err := urlglob.Parse(t.Upload, limit)
				if err != nil {
					yield(Job{Num: i, URL: arg}, err)
					return
				}
				uploads = func(yield func(string) bool) {
					for m := range ug.All() {
						if !yield(m.URL) {
							return
						}
					}
				}
			}
			for up := range uploads {
				for m := range g.All() {
					tm := t
					tm.Upload = up
					if !tm.Remote && !tm.Implicit && tm.Name != "-" {
						tm.Name = m.Expand(tm.Name)
					}
					if !yield(Job{Num: i, URL: m.URL, Target: tm}, nil) {
						return
					}
				}
			}
		}
	}
}
