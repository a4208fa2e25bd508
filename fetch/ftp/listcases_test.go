package ftp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

// The listing cases come from the test suites of jlaffaye/ftp, Apache
// commons-net, node-ftp and basic-ftp, collected by the project in a file
// kept outside the repository (sharedListCases); all four are permissively
// licensed, so the file is copied whole into testdata (see testdata/NOTICE).
const (
	listCasesFile   = "testdata/ftp-list-cases.json"
	sharedListCases = "../../../shared/conformance/ftp-list-cases.json"
)

type listCase struct {
	ID                string                     `json:"id"`
	Source            string                     `json:"source"`
	Format            string                     `json:"format"`
	ParseWith         string                     `json:"parse_with"`
	Line              string                     `json:"line"`
	ExpectedUnparsed  bool                       `json:"expected_unparsed"`
	UnparsedCriterion string                     `json:"unparsed_criterion"`
	UnparsedScope     string                     `json:"unparsed_scope"`
	Expected          map[string]json.RawMessage `json:"expected"`
	SkipCompare       map[string]string          `json:"skip_compare"`
}

// listDifferences are the scored cases where urlget deliberately gives
// another answer than the source's test, each with the reason.
var listDifferences = map[string]string{
	// Sizes beyond int64.
	"jlaffaye/parse_test#008": "fetch.Entry.Size is an int64: a size beyond it is unknown (-1), and the entry is kept",
	// Devices.
	"cn/UnixFTPEntryParserTest#020": devices,
	"cn/UnixFTPEntryParserTest#021": devices,
	"cn/UnixFTPEntryParserTest#040": devices,
	"cn/UnixFTPEntryParserTest#041": devices,
	// DOS directories.
	"cn/NTFTPEntryParserTest#003": dosDirSize,
	"cn/NTFTPEntryParserTest#036": dosDirSize,
	"basicftp/parseListSpec#023":  dosDirSize,
	// VMS versions.
	"cn/VMSFTPEntryParserTest#010": vmsVersion,
	"cn/VMSFTPEntryParserTest#027": vmsVersionSize,
	"cn/VMSFTPEntryParserTest#028": vmsVersionSize,
	"cn/VMSFTPEntryParserTest#029": vmsVersionSize,
	"cn/VMSFTPEntryParserTest#030": vmsVersionSize,
	"cn/VMSFTPEntryParserTest#031": vmsVersion,
}

const (
	devices        = "a character or block device is EntryOther (commons-net has no device type and calls it a file): it is not fetched or mirrored as a file, and its 'size' is a device number"
	dosDirSize     = "a DOS/IIS <DIR> line gives no size: Size is -1 (unknown), not 0"
	vmsVersionSize = vmsVersion + "; and its Size is unknown (-1): used blocks × 512 only bounds the byte size, and a mirror comparing sizes would fetch the file again every run"
	vmsVersion     = "a VMS name keeps its ';version' (RETR of it fetches exactly that version, and the versions of a file stay apart); the mirror maps it to a local name (see mirror's doc)"
)

// mvsHeaders are the column headers an MVS server sends first in each kind
// of listing: commons-net's MVS tests tell the parser the list type in
// advance, a real listing tells it with its first line.
var mvsHeaders = map[string]string{
	"mvs-dataset": "Volume Unit    Referred Ext Used Recfm Lrecl BlkSz Dsorg Dsname",
	"mvs-member":  " Name     VV.MM   Created       Changed      Size  Init   Mod   Id",
	"mvs-jes":     "",
}

func loadListCases(t testing.TB) []listCase {
	t.Helper()
	b, err := os.ReadFile(listCasesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []listCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Cases
}

// runListCase parses a case's line as a listing of its own (the lines of a
// multi-line case in order) and returns every entry it gave.
func runListCase(c listCase) []fetch.Entry {
	if c.ParseWith == "mlsx" {
		return []fetch.Entry{ParseMLSx(c.Line)}
	}
	var hint ListFormat
	var lines []string
	if h, ok := mvsHeaders[c.Format]; ok {
		hint = ListMVS
		if h != "" {
			lines = append(lines, h)
		}
	}
	header := len(lines)
	lines = append(lines, strings.Split(strings.TrimSuffix(c.Line, "\r\n"), "\r\n")...)
	p := NewListParser(hint)
	var out []fetch.Entry
	for i, l := range lines {
		if e := p.Parse(l); i >= header {
			out = append(out, e)
		}
	}
	return out
}

// checkListCase says why the parse of c disagrees with its source, or "".
func checkListCase(c listCase, got []fetch.Entry) string {
	if c.ExpectedUnparsed {
		for _, e := range got {
			if !e.Unparsed && (c.UnparsedCriterion != "unparsed-or-no-mtime" || !e.ModTime.IsZero()) {
				return fmt.Sprintf("want rejected (%s), got %+v", c.UnparsedCriterion, e)
			}
		}
		return ""
	}
	if len(got) == 0 {
		return "no entry"
	}
	e := got[len(got)-1]
	if e.Unparsed {
		return "unparsed"
	}
	var diffs []string
	keys := make([]string, 0, len(c.Expected))
	for k := range c.Expected {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, skip := c.SkipCompare[k]; skip {
			continue
		}
		v := c.Expected[k]
		switch k {
		case "name", "target":
			var s string
			json.Unmarshal(v, &s)
			g := e.Name
			if k == "target" {
				g = e.Target
			}
			if g != s {
				diffs = append(diffs, fmt.Sprintf("%s %q, want %q", k, g, s))
			}
		case "type":
			var s string
			json.Unmarshal(v, &s)
			if g := entryTypeNames[e.Type]; g != s {
				diffs = append(diffs, fmt.Sprintf("type %s, want %s", g, s))
			}
		case "size":
			want := strings.TrimSpace(string(v))
			g := fmt.Sprint(e.Size)
			if e.Size < 0 {
				g = "unknown"
			}
			if g != want {
				diffs = append(diffs, fmt.Sprintf("size %s, want %s", g, want))
			}
		case "mtime":
			var m map[string]int
			json.Unmarshal(v, &m)
			t := e.ModTime
			if t.IsZero() {
				diffs = append(diffs, "no mtime")
				break
			}
			have := map[string]int{"year": t.Year(), "month": int(t.Month()), "day": t.Day(),
				"hour": t.Hour(), "minute": t.Minute(), "second": t.Second()}
			for f, w := range m {
				if have[f] != w {
					diffs = append(diffs, fmt.Sprintf("mtime %s %d, want %d", f, have[f], w))
				}
			}
		case "mtime_present":
			if e.ModTime.IsZero() {
				diffs = append(diffs, "no mtime")
			}
		case "mtime_absent":
			if !e.ModTime.IsZero() {
				diffs = append(diffs, "mtime "+e.ModTime.String()+", want none")
			}
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, "; ")
}

var entryTypeNames = map[fetch.EntryType]string{
	fetch.EntryUnknown: "unknown", fetch.EntryFile: "file", fetch.EntryDir: "dir",
	fetch.EntryLink: "link", fetch.EntryOther: "other",
}

// TestListCases runs every scored case of the peers' suites: each agrees
// with its source or is one of listDifferences. Cases a source marks as
// rejected only by its own format's parser (a valid line of another format)
// are not scored.
func TestListCases(t *testing.T) {
	type tally struct{ agree, scored int }
	by := map[string]*tally{}
	total := tally{}
	seenDiff, scored := map[string]bool{}, map[string]bool{}
	for _, c := range loadListCases(t) {
		if c.UnparsedScope == "parser-specific" {
			continue
		}
		if by[c.Source] == nil {
			by[c.Source] = &tally{}
		}
		by[c.Source].scored++
		scored[c.ID] = true
		total.scored++
		why := checkListCase(c, runListCase(c))
		if why == "" {
			by[c.Source].agree++
			total.agree++
			if r, ok := listDifferences[c.ID]; ok {
				t.Errorf("%s agrees with its source but is listed as a deliberate difference (%s)", c.ID, r)
			}
			continue
		}
		if _, ok := listDifferences[c.ID]; ok {
			seenDiff[c.ID] = true
			continue
		}
		t.Errorf("%s %q: %s", c.ID, c.Line, why)
	}
	for id, r := range listDifferences {
		if !seenDiff[id] && !scored[id] {
			t.Errorf("%s is listed as a deliberate difference (%s) but is no scored case", id, r)
		}
	}
	srcs := make([]string, 0, len(by))
	for s := range by {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	var parts []string
	for _, s := range srcs {
		parts = append(parts, fmt.Sprintf("%s %d/%d", s, by[s].agree, by[s].scored))
	}
	t.Logf("agree on %d of %d scored cases (%s); %d deliberate differences", total.agree, total.scored, strings.Join(parts, ", "), len(listDifferences))
}

// TestListCasesCopy checks that testdata holds the collection's file
// unchanged (skipped where the collection is not present).
func TestListCasesCopy(t *testing.T) {
	shared, err := os.ReadFile(sharedListCases)
	if err != nil {
		t.Skipf("shared cases not beside the checkout: %v", err)
	}
	mine, err := os.ReadFile(listCasesFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shared, mine) {
		t.Errorf("%s differs from %s", listCasesFile, sharedListCases)
	}
}
