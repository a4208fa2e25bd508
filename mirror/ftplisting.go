package mirror

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
)

// ftpEntry is a listing entry with what the walk needs of it.
type ftpEntry struct {
	fetch.Entry
	exact  bool   // ModTime is exact (MLSD modify)
	noYear bool   // an ls time without a year
	unique string // MLSD unique fact
	key    string // what changes when the file changes
	facts  string // MLSD: the line's facts, as sent
}

// lsNoYear reports whether an ls line holds a date with a time and no
// year ("Nov 21 08:52 "): a month's name (any case, not ending a longer
// word), white space, a day of one or two digits, white space, hours of one
// or two digits, a colon, two digits of minutes and white space. It is read
// once for every entry of every listing, so it is written out by hand: a
// regular expression took an eighth of a no-change rerun's CPU.
func lsNoYear(line string) bool {
	for c := strings.IndexByte(line, ':'); c >= 0; {
		if lsNoYearAt(line, c) {
			return true
		}
		n := strings.IndexByte(line[c+1:], ':')
		if n < 0 {
			break
		}
		c += 1 + n
	}
	return false
}

// lsNoYearAt is lsNoYear for the date whose time has its colon at c.
func lsNoYearAt(s string, c int) bool {
	if c+3 >= len(s) || !lsDigit(s[c+1]) || !lsDigit(s[c+2]) || !lsSpace(s[c+3]) {
		return false
	}
	hour := lsBack(s, c, lsDigit, 2)
	gap := lsBack(s, hour, lsSpace, len(s))
	day := lsBack(s, gap, lsDigit, 2)
	month := lsBack(s, day, lsSpace, len(s))
	if hour == c || gap == hour || day == gap || month == day || month < 3 {
		return false
	}
	if month > 3 && lsWord(s[month-4]) {
		return false
	}
	switch strings.ToLower(s[month-3 : month]) {
	case "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec":
		return true
	}
	return false
}

// lsBack steps back from end over at most max bytes that is takes, and
// returns where they begin.
func lsBack(s string, end int, is func(byte) bool, max int) int {
	i := end
	for i > 0 && end-i < max && is(s[i-1]) {
		i--
	}
	return i
}

func lsDigit(b byte) bool { return '0' <= b && b <= '9' }

func lsSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }

func lsWord(b byte) bool {
	return lsDigit(b) || 'a' <= b|0x20 && b|0x20 <= 'z' || b == '_'
}

// mlsFacts returns the facts of an MLSD line, by lower-case name.
func mlsFacts(line string) map[string]string {
	sp := strings.IndexByte(line, ' ')
	if sp <= 0 {
		return nil
	}
	m := map[string]string{}
	for _, f := range strings.Split(strings.TrimSuffix(line[:sp], ";"), ";") {
		if k, v, ok := strings.Cut(f, "="); ok {
			m[strings.ToLower(k)] = v
		}
	}
	return m
}

// parseListing parses a listing's lines; self is the MLSD unique fact of
// the directory itself (type=cdir), when given.
func parseListing(data []byte, verb string) (out []ftpEntry, self string) {
	seen := map[string]bool{}
	lp := ftp.NewListParser(ftp.ListAuto) // the listing's first lines settle its format
	for _, line := range bytes.Split(data, []byte("\n")) {
		l := strings.TrimSuffix(string(line), "\r")
		if l == "" {
			continue
		}
		var fe ftpEntry
		switch verb {
		case "MLSD":
			fe.Entry = ftp.ParseMLSx(l)
			facts := mlsFacts(l)
			switch strings.ToLower(facts["type"]) {
			case "cdir":
				self = facts["unique"]
				continue
			case "pdir":
				continue
			}
			fe.unique = facts["unique"]
			if sp := strings.IndexByte(l, ' '); sp > 0 {
				fe.facts = l[:sp]
			}
			if v, ok := facts["modify"]; ok && !fe.ModTime.IsZero() {
				fe.exact = true
				fe.key = "modify=" + v
			}
		case "NLST":
			fe.Entry = ftp.ParseNLST(l)
			// NLST may give paths ("dir/name"): keep the last part.
			if i := strings.LastIndexByte(fe.Name, '/'); i >= 0 && i < len(fe.Name)-1 {
				fe.Name = fe.Name[i+1:]
			}
		default:
			fe.Entry = lp.Parse(l)
			fe.Name = listName(lp.Format(), fe.Entry)
			if !fe.Unparsed && !fe.ModTime.IsZero() {
				fe.noYear = lsNoYear(fe.Raw)
				if fe.noYear {
					fe.key = "list=" + fe.ModTime.Format("01-02 15:04")
				} else {
					fe.key = "list=" + fe.ModTime.Format("2006-01-02 15:04")
				}
			}
		}
		if fe.Unparsed || fe.Name == "" || fe.Name == "." || fe.Name == ".." || seen[fe.Name] {
			continue
		}
		seen[fe.Name] = true
		fe.key = "size=" + strconv.FormatInt(fe.Size, 10) + ";" + fe.key
		out = append(out, fe)
	}
	return out, self
}

// joinServer appends a name to a server path as it is (names are not
// cleaned: they are the server's).
func joinServer(dir, name string) string {
	if strings.HasSuffix(dir, "/") {
		return dir + name
	}
	return dir + "/" + name
}

// fingerprint is listingPrint of an ftp listing: each entry's type, name
// and what the listing says of it (size, date, facts).
func fingerprint(entries []ftpEntry) string {
	keys := make([]string, 0, len(entries))
	for _, fe := range entries {
		keys = append(keys, fmt.Sprintf("%d\x00%s\x00%s", fe.Type, fe.Name, fe.key))
	}
	return listingPrint(keys)
}
