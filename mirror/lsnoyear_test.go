package mirror

import (
	"encoding/json"
	"math/rand"
	"os"
	"regexp"
	"testing"
)

// lsNoYearRE is what lsNoYear must match, written as the regular expression
// it replaced.
var lsNoYearRE = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\s+\d{1,2}\s+\d{1,2}:\d{2}\s`)

// lsNoYear answers as the regular expression does: on the peers' listing
// lines (fetch/ftp's testdata), on lines made to sit at its edges, and on
// each of them cut and changed at random.
func TestLsNoYearIsTheRegexp(t *testing.T) {
	lines := []string{
		"-rw-r--r--    1 0        0             309 Nov 21 08:52 f.bin",
		"-rw-r--r--    1 0        0             309 nov 1  8:52 f.bin",
		"-rw-r--r--    1 0        0             309 NOV\t21\t08:52\tf.bin",
		"-rw-r--r--    1 0        0             309 Nov 21  2025 f.bin",
		"-rw-r--r--    1 0        0             309 Nov 21 08:52", // no space after the time
		"-rw-r--r--    1 0        0             309 xNov 21 08:52 f",
		"-rw-r--r--    1 0        0             309 _Nov 21 08:52 f",
		"-rw-r--r--    1 0        0             309 -Nov 21 08:52 f",
		"-rw-r--r--    1 0        0             309 Nov 121 08:52 f",
		"-rw-r--r--    1 0        0             309 Nov 21 108:52 f",
		"-rw-r--r--    1 0        0             309 Nov 21 08:522 f",
		"-rw-r--r--    1 0        0             309 Nov21 08:52 f",
		"-rw-r--r--    1 0        0             309 Nov 2108:52 f",
		"-rw-r--r--    1 0        0             309 Nov 21 08:5 f",
		"-rw-r--r--    1 0        0             309 Nov 21 :52 f",
		"Nov 21 08:52 ", "ov 21 08:52 ", ":", "", "a:b:c: Dec 31 23:59\r",
		"-rw-r--r--    1 0        0             309 Mai 21 08:52 f Dec 1 0:00 x",
		"12:34 Nov 21 2025 12:00 x",
	}
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if l, ok := v["line"].(string); ok {
				lines = append(lines, l)
			}
			for _, w := range v {
				collect(w)
			}
		case []any:
			for _, w := range v {
				collect(w)
			}
		}
	}
	b, err := os.ReadFile("../fetch/ftp/testdata/ftp-list-cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases any
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	collect(cases)
	if len(lines) < 100 {
		t.Fatalf("only %d lines to try", len(lines))
	}
	rnd := rand.New(rand.NewSource(1))
	const alphabet = " \t:0123456789NnOoVvDdEeCc_x-"
	matched := 0
	for _, l := range lines {
		for i := 0; i < 200; i++ {
			m := []byte(l)
			if i > 0 && len(m) > 0 {
				for k := rnd.Intn(3); k >= 0; k-- {
					m[rnd.Intn(len(m))] = alphabet[rnd.Intn(len(alphabet))]
				}
				if rnd.Intn(4) == 0 {
					m = m[:rnd.Intn(len(m))]
				}
			}
			got, want := lsNoYear(string(m)), lsNoYearRE.MatchString(string(m))
			if got != want {
				t.Fatalf("lsNoYear(%q) = %v, the regular expression says %v", m, got, want)
			}
			if want {
				matched++
			}
		}
	}
	if matched == 0 {
		t.Fatal("no line matched: the comparison proves nothing")
	}
}
