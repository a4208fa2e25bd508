package download

import (
	"errors"
	"fmt"
	"testing"

	"github.com/urlget/urlget/urlglob"
)

func TestJobs(t *testing.T) {
	targets := []Target{{Name: "f#1-#2"}, {Remote: true}, {Name: "-"}}
	target := func(i int) Target {
		if i < len(targets) {
			return targets[i]
		}
		return Stdout
	}
	collect := func(args []string, noGlob bool, limit uint64) (out []string, err error) {
		for j, e := range Jobs(args, target, noGlob, limit) {
			if e != nil {
				return append(out, fmt.Sprintf("%d %s error", j.Num, j.URL)), e
			}
			out = append(out, fmt.Sprintf("%d %s %q %v", j.Num, j.URL, j.Target.Name, j.Target.Remote))
		}
		return out, nil
	}
	got, err := collect([]string{"http://h/{a,b}[1-2]", "ftp://h/x[1-2]", "http://h/#1[3-3]", "gopher://h/"}, false, 0)
	want := []string{
		`0 http://h/a1 "fa-1" false`, `0 http://h/a2 "fa-2" false`, `0 http://h/b1 "fb-1" false`, `0 http://h/b2 "fb-2" false`,
		`1 ftp://h/x1 "" true`, `1 ftp://h/x2 "" true`,
		`2 http://h/#13 "-" false`,
		fmt.Sprintf("3 gopher://h/ %q false", Stdout.Name),
	}
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q (%v)\nwant %q", got, err, want)
	}
	got, _ = collect([]string{"http://h/{a,b}"}, true, 0)
	if fmt.Sprint(got) != fmt.Sprint([]string{`0 http://h/{a,b} "f#1-#2" false`}) {
		t.Errorf("noGlob: %q", got)
	}
	var ge *urlglob.Error
	got, err = collect([]string{"http://h/a", "http://h/[1-9]", "http://h/z"}, false, 5)
	if !errors.As(err, &ge) || fmt.Sprint(got) != fmt.Sprint([]string{`0 http://h/a "f#1-#2" false`, "1 http://h/[1-9] error"}) {
		t.Errorf("over the limit: %q %v", got, err)
	}
}
