package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// The UNIX family: "ls -l" lines and the listings built like them (NetWare,
// z/OS UNIX System Services' "Enterprise Unix", MacOS "Peter" servers with
// no link count).

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// now is the clock for dates without a year (tests set it).
var now = time.Now

// parseUnix reads an "ls -l" line: mode, [links], owner and group (of any
// number of words), size (or "major, minor" for a device), date, name.
func parseUnix(line string) (fetch.Entry, bool) {
	f := fields(line, maxFields)
	if len(f) < 5 {
		return fetch.Entry{}, false
	}
	mode, rest := f[0].s, ""
	if len(mode) > 10 && mode[10] >= '0' && mode[10] <= '9' {
		// "drwxr-x---1464": the link count run into a ten-letter mode.
		mode, rest = mode[:10], mode[10:]
	} else if len(mode) > 11 && strings.ContainsRune("+@.", rune(mode[10])) {
		mode, rest = mode[:11], mode[11:] // "drwxr-x---+1464"
	}
	if !isMode(mode) || rest != "" && !isDigits(rest) {
		return fetch.Entry{}, false
	}
	// The link count, when there is one, is a number: "1ftp" is garbage.
	if c := f[1].s[0]; rest == "" && c >= '0' && c <= '9' && !isDigits(f[1].s) {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Size: -1, Raw: line}
	switch mode[0] {
	case '-', 'f':
		e.Type = fetch.EntryFile
	case 'd':
		e.Type = fetch.EntryDir
	case 'l':
		e.Type = fetch.EntryLink
	default:
		e.Type = fetch.EntryOther
	}
	size, ok := lsTail(line, f, 2, &e)
	if !ok {
		return fetch.Entry{}, false
	}
	// Owner and group: one column each, a column's words one space apart
	// (Cygwin allows spaces); a third column means a garbled line.
	owner := 1
	if rest == "" && f[1].s[0] >= '0' && f[1].s[0] <= '9' {
		owner = 2
	}
	if columns := 0; owner < size {
		for j := owner; j < size-1; j++ {
			if gap := line[f[j].end : f[j+1].end-len(f[j+1].s)]; gap != " " {
				columns++
			}
		}
		if columns > 1 {
			return fetch.Entry{}, false
		}
	}
	if e.Type == fetch.EntryLink {
		if name, target, ok := strings.Cut(e.Name, " -> "); ok {
			if name == "" {
				// "… 2000  -> x": the arrow where the name should be. A
				// link without a name is no entry (not one named " ").
				return fetch.Entry{}, false
			}
			e.Name, e.Target = name, target
		}
	}
	return e, true
}

// maxFields bounds the words of a line a parser looks at (a line is at
// most fetch.MaxLineLength bytes; owner and group rarely take more than a
// few words).
const maxFields = 64

// lsTail finds the date of an ls-like line at field from or later, the size
// right before it and the name after it, and fills e. The first date that
// fits wins: a name may look like a date too.
// It returns the index of the size's first field.
func lsTail(line string, f []field, from int, e *fetch.Entry) (int, bool) {
	for i := max(from, 1); i+1 < len(f); i++ {
		t, last, ok := lsDate(f, i)
		if !ok {
			continue
		}
		sizeField, size := f[i-1].s, i-1
		if e.Type == fetch.EntryOther && (i >= from+1 && strings.HasSuffix(f[i-2].s, ",") || strings.Contains(sizeField, ",")) {
			// Device: "major, minor" in place of the size.
			if !strings.Contains(sizeField, ",") {
				size--
			}
		} else if !isDigits(sizeField) {
			continue
		} else if n, err := strconv.ParseInt(sizeField, 10, 64); err == nil && e.Type != fetch.EntryOther {
			e.Size = n
		} // A size beyond int64 stays unknown: the entry is still good.
		end := f[last].end
		if end+1 >= len(line) || line[end] != ' ' && line[end] != '\t' {
			return 0, false // no name
		}
		e.ModTime = t
		e.Name = line[end+1:]
		return size, e.Name != ""
	}
	return 0, false
}

// lsDate reads the date that starts at field i: "Mon DD HH:MM|YYYY",
// "DD Mon HH:MM|YYYY" (AIX), "M月 D日 HH:MM|YYYY年" (Chinese, Japanese;
// Korean 월 일 년), or "YYYY-MM-DD HH:MM". last is the date's last field.
func lsDate(f []field, i int) (t time.Time, last int, ok bool) {
	if i+2 < len(f) {
		if m, ok := months[strings.ToLower(f[i].s)]; ok {
			t, ok := parseLsDate(m, f[i+1].s, f[i+2].s)
			return t, i + 2, ok
		}
		if m, ok := months[strings.ToLower(f[i+1].s)]; ok && len(f[i].s) <= 2 {
			t, ok := parseLsDate(m, f[i].s, f[i+2].s)
			return t, i + 2, ok
		}
		if m, ok := cjkNumber(f[i].s, "月", "월"); ok && m >= 1 && m <= 12 {
			day := f[i+1].s
			if d, ok := cjkNumber(day, "日", "일"); ok {
				day = strconv.Itoa(d)
			}
			tod := f[i+2].s
			if y, ok := cjkNumber(tod, "年", "년"); ok {
				tod = strconv.Itoa(y)
			}
			t, ok := parseLsDate(time.Month(m), day, tod)
			return t, i + 2, ok
		}
	}
	t, ok = parseISODate(f[i].s, f[i+1].s)
	return t, i + 1, ok
}

// cjkNumber reads "12月" (any of the suffixes): the number before it.
func cjkNumber(s string, suffixes ...string) (int, bool) {
	for _, suf := range suffixes {
		if n, ok := strings.CutSuffix(s, suf); ok && len(n) <= 4 && isDigits(n) {
			v, _ := strconv.Atoi(n)
			return v, true
		}
	}
	return 0, false
}

// isMode reports whether s looks like an ls mode: a type letter and nine
// permission letters, each in its place (r, w, then x/s/S/t/T/l/L or "-"),
// and an optional ACL or attribute marker. A mode one letter short
// ("drw-r--rw") is taken too, its letters only checked against the set.
func isMode(s string) bool {
	if len(s) < 9 || len(s) > 11 || !strings.ContainsRune("-dlcbpsDnf", rune(s[0])) {
		return false
	}
	if len(s) == 9 {
		return strings.Trim(s[1:], "-rwxsStTlL") == ""
	}
	for i := 1; i < 10; i++ {
		allowed := [3]string{"r-", "w-", "xsStTlL-"}[(i-1)%3]
		if strings.IndexByte(allowed, s[i]) < 0 {
			return false
		}
	}
	return len(s) == 10 || strings.ContainsRune("+@.", rune(s[10]))
}

func parseLsDate(m time.Month, day, tod string) (time.Time, bool) {
	d, err := strconv.Atoi(day)
	if err != nil || d < 1 || d > 31 {
		return time.Time{}, false
	}
	if hs, ms, ok := strings.Cut(tod, ":"); ok {
		h, err1 := strconv.Atoi(hs)
		mi, err2 := strconv.Atoi(ms)
		if err1 != nil || err2 != nil || h < 0 || h > 23 || mi < 0 || mi > 59 || len(ms) != 2 {
			return time.Time{}, false
		}
		n := now().UTC()
		t := time.Date(n.Year(), m, d, h, mi, 0, 0, time.UTC)
		if t.After(n.Add(24 * time.Hour)) {
			t = t.AddDate(-1, 0, 0)
		}
		return t, true
	}
	y, err := strconv.Atoi(tod)
	if err != nil || len(tod) != 4 {
		return time.Time{}, false
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC), true
}

func parseISODate(date, tod string) (time.Time, bool) {
	if len(date) != 10 || date[4] != '-' || date[7] != '-' {
		return time.Time{}, false
	}
	if len(tod) > 5 && tod[5] == ':' {
		tod = tod[:5] // seconds, fractions: minutes are enough
	}
	t, err := time.ParseInLocation("2006-01-02 15:04", date+" "+tod, time.UTC)
	return t, err == nil
}

// parseNetWare reads a NetWare line: "d [RWCEAFMS] owner  512 Apr 13 23:12 name".
func parseNetWare(line string) (fetch.Entry, bool) {
	f := fields(line, maxFields)
	if len(f) < 7 || len(f[0].s) != 1 || !strings.HasPrefix(f[1].s, "[") || !strings.HasSuffix(f[1].s, "]") {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Size: -1, Raw: line}
	switch f[0].s {
	case "d":
		e.Type = fetch.EntryDir
	case "-":
		e.Type = fetch.EntryFile
	default:
		return fetch.Entry{}, false
	}
	if strings.Trim(f[1].s[1:len(f[1].s)-1], "RWCEAFMS-") != "" {
		return fetch.Entry{}, false
	}
	_, ok := lsTail(line, f, 3, &e)
	return e, ok
}

// parseEnterpriseUnix reads z/OS UNIX System Services' listing of MVS
// data: "-C--E-----FTP B QUA1I1  18128  41 Aug 12 13:56 QUADTEST", ten
// attribute letters (capitals or "-") run into the next word. Entries are
// files.
func parseEnterpriseUnix(line string) (fetch.Entry, bool) {
	f := fields(line, maxFields)
	if len(f) < 5 || len(f[0].s) < 10 {
		return fetch.Entry{}, false
	}
	caps := false
	for i := 0; i < 10; i++ {
		c := f[0].s[i]
		if c != '-' && (c < 'A' || c > 'Z') {
			return fetch.Entry{}, false
		}
		caps = caps || c != '-'
	}
	if !caps {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Size: -1, Raw: line, Type: fetch.EntryFile}
	_, ok := lsTail(line, f, 1, &e)
	return e, ok
}
