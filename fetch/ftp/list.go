package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// ParseList parses one line of a LIST reply, whichever of the common
// formats it is in:
//
//   - UNIX "ls -l": "-rw-r--r-- 1 owner group 1234 Jan  2 12:34 name" (a time
//     for recent files, a year for older ones), "lrwxrwxrwx … name -> target",
//     devices "crw-rw-rw- 1 root root 1, 3 Jan 2 2020 null" (major, minor in
//     place of the size), with or without the group column, and ISO dates
//     ("2024-01-02 12:34");
//   - DOS/IIS: "01-02-24  12:34PM  <DIR>  name", "01-02-2024  13:34  1234 name";
//   - EPLF (Bernstein's Easily Parsed LIST Format): "+i8388621.48594,m825718503,r,s280,\tname";
//   - MLSD/MLST fact lines (RFC 3659), which some servers send for LIST too.
//
// Names are kept byte for byte (leading spaces, "/", "..", control bytes
// included): they are data, never paths — see SafeName. A line that fits
// no format ("total 12", a localised date, garbage) gives an Entry with
// Unparsed set and only Raw; it is never an error. Times without a year or
// zone are taken as UTC, in the year that puts them not after tomorrow.
func ParseList(line string) fetch.Entry {
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return unparsed(line)
	}
	switch c := line[0]; {
	case c == '+':
		if e, ok := parseEPLF(line); ok {
			return e
		}
	case c >= '0' && c <= '9':
		if e, ok := parseDOS(line); ok {
			return e
		}
	}
	if e, ok := parseUnix(line); ok {
		return e
	}
	if e, _, ok := parseMLSx(line); ok {
		return e
	}
	return unparsed(line)
}

// ParseNLST makes an entry of one NLST line: the name, type unknown.
func ParseNLST(line string) fetch.Entry {
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return unparsed(line)
	}
	return fetch.Entry{Name: line, Size: -1, Raw: line}
}

// ParseMLSx parses one line of an MLSD reply, or the fact line of an MLST
// reply (its leading space removed): "fact=value;fact=value; name"
// (RFC 3659 §7). type=file, dir, cdir, pdir, OS.unix=slink:TARGET and
// OS.unix=symlink are recognised; size and modify give Size and ModTime.
func ParseMLSx(line string) fetch.Entry {
	line = strings.TrimRight(line, "\r\n")
	if e, _, ok := parseMLSx(strings.TrimPrefix(line, " ")); ok {
		e.Raw = line
		return e
	}
	return unparsed(line)
}

func unparsed(line string) fetch.Entry {
	return fetch.Entry{Raw: line, Unparsed: true, Size: -1}
}

// parseMLSx also reports whether the entry is the listed directory itself
// or its parent (type=cdir or pdir).
func parseMLSx(line string) (e fetch.Entry, self bool, ok bool) {
	sp := strings.IndexByte(line, ' ')
	if sp <= 0 || line[sp-1] != ';' {
		return e, false, false
	}
	facts := line[:sp]
	e = fetch.Entry{Name: line[sp+1:], Size: -1, Raw: line}
	if e.Name == "" {
		return e, false, false
	}
	seen := false
	for _, f := range strings.Split(strings.TrimSuffix(facts, ";"), ";") {
		k, v, found := strings.Cut(f, "=")
		if !found || k == "" {
			return e, false, false
		}
		seen = true
		switch strings.ToLower(k) {
		case "type":
			lv := strings.ToLower(v)
			switch {
			case lv == "file":
				e.Type = fetch.EntryFile
			case lv == "dir":
				e.Type = fetch.EntryDir
			case lv == "cdir" || lv == "pdir":
				e.Type, self = fetch.EntryDir, true
			case strings.HasPrefix(lv, "os.unix=slink"):
				e.Type = fetch.EntryLink
				if _, t, ok := strings.Cut(v, ":"); ok {
					e.Target = t
				}
			case lv == "os.unix=symlink":
				e.Type = fetch.EntryLink
			default:
				e.Type = fetch.EntryOther
			}
		case "size":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				e.Size = n
			}
		case "modify":
			if t, err := ParseMDTM(v); err == nil {
				e.ModTime = t
			}
		}
	}
	return e, self, seen
}

// ParseMDTM reads an RFC 3659 time-val, YYYYMMDDHHMMSS[.sss], in UTC: the
// reply to MDTM and the MLSx modify fact.
func ParseMDTM(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	layout := "20060102150405"
	if i := strings.IndexByte(s, '.'); i >= 0 {
		layout += "." + strings.Repeat("0", len(s)-i-1)
	}
	return time.ParseInLocation(layout, s, time.UTC)
}

// parseEPLF reads "+fact,fact,…,\tname".
func parseEPLF(line string) (fetch.Entry, bool) {
	tab := strings.IndexByte(line, '\t')
	if tab < 0 || tab+1 >= len(line) {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Name: line[tab+1:], Size: -1, Raw: line, Type: fetch.EntryUnknown}
	for _, f := range strings.Split(line[1:tab], ",") {
		if f == "" {
			continue
		}
		switch f[0] {
		case '/':
			e.Type = fetch.EntryDir
		case 'r':
			if e.Type == fetch.EntryUnknown {
				e.Type = fetch.EntryFile
			}
		case 's':
			if n, err := strconv.ParseInt(f[1:], 10, 64); err == nil && n >= 0 {
				e.Size = n
			}
		case 'm':
			if n, err := strconv.ParseInt(f[1:], 10, 64); err == nil {
				e.ModTime = time.Unix(n, 0).UTC()
			}
		}
	}
	return e, true
}

// field is one whitespace-separated word of a line and where it ends.
type field struct {
	s   string
	end int
}

// fields splits line at runs of spaces and tabs, at most n fields.
func fields(line string, n int) []field {
	var out []field
	i := 0
	for len(out) < n {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		out = append(out, field{line[i:j], j})
		i = j
	}
	return out
}

// parseDOS reads an IIS/DOS style line: date, time, <DIR> or size, name.
func parseDOS(line string) (fetch.Entry, bool) {
	f := fields(line, 3)
	if len(f) < 3 || f[2].end >= len(line) {
		return fetch.Entry{}, false
	}
	d, ok := parseDOSTime(f[0].s, f[1].s)
	if !ok {
		return fetch.Entry{}, false
	}
	// The name starts after the run of spaces that follows the third field.
	i := f[2].end
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i >= len(line) {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Name: line[i:], Size: -1, ModTime: d, Raw: line}
	if strings.EqualFold(f[2].s, "<DIR>") {
		e.Type = fetch.EntryDir
	} else {
		n, err := strconv.ParseInt(strings.ReplaceAll(f[2].s, ",", ""), 10, 64)
		if err != nil || n < 0 {
			return fetch.Entry{}, false
		}
		e.Type, e.Size = fetch.EntryFile, n
	}
	return e, true
}

func parseDOSTime(date, clock string) (time.Time, bool) {
	ds := strings.FieldsFunc(date, func(r rune) bool { return r == '-' || r == '/' })
	if len(ds) != 3 {
		return time.Time{}, false
	}
	mon, err1 := strconv.Atoi(ds[0])
	day, err2 := strconv.Atoi(ds[1])
	year, err3 := strconv.Atoi(ds[2])
	if err1 != nil || err2 != nil || err3 != nil || mon < 1 || mon > 12 || day < 1 || day > 31 {
		return time.Time{}, false
	}
	switch {
	case len(ds[2]) == 2 && year < 70:
		year += 2000
	case len(ds[2]) == 2:
		year += 1900
	case len(ds[2]) != 4:
		return time.Time{}, false
	}
	c := strings.ToUpper(clock)
	pm, am := strings.HasSuffix(c, "PM"), strings.HasSuffix(c, "AM")
	c = strings.TrimSuffix(strings.TrimSuffix(c, "PM"), "AM")
	hs, ms, ok := strings.Cut(c, ":")
	if !ok {
		return time.Time{}, false
	}
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if err1 != nil || err2 != nil || h > 23 || m > 59 {
		return time.Time{}, false
	}
	if pm || am {
		if h < 1 || h > 12 {
			return time.Time{}, false
		}
		h %= 12
		if pm {
			h += 12
		}
	}
	return time.Date(year, time.Month(mon), day, h, m, 0, 0, time.UTC), true
}

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// now is the clock for dates without a year (tests set it).
var now = time.Now

// parseUnix reads an "ls -l" line.
func parseUnix(line string) (fetch.Entry, bool) {
	f := fields(line, 10)
	if len(f) < 6 || !isMode(f[0].s) {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Size: -1, Raw: line}
	switch f[0].s[0] {
	case '-':
		e.Type = fetch.EntryFile
	case 'd':
		e.Type = fetch.EntryDir
	case 'l':
		e.Type = fetch.EntryLink
	default:
		e.Type = fetch.EntryOther
	}
	// Find the date: "Mon DD HH:MM|YYYY" or "YYYY-MM-DD HH:MM". It starts
	// at field 3 at the earliest (mode, links, owner) and the size (or
	// "major, minor") is what comes right before it.
	for i := 3; i+1 < len(f); i++ {
		var t time.Time
		var last int // index of the date's last field
		if m, ok := months[strings.ToLower(f[i].s)]; ok && i+2 < len(f) {
			d, ok := parseLsDate(m, f[i+1].s, f[i+2].s)
			if !ok {
				continue
			}
			t, last = d, i+2
		} else if d, ok := parseISODate(f[i].s, f[i+1].s); ok {
			t, last = d, i+1
		} else {
			continue
		}
		sizeField := f[i-1].s
		if e.Type == fetch.EntryOther && (i >= 5 && strings.HasSuffix(f[i-2].s, ",") || strings.Contains(sizeField, ",")) {
			// Device: "major, minor" in place of the size.
		} else if strings.HasSuffix(f[i-1].s, ",") {
			continue
		} else {
			n, err := strconv.ParseInt(sizeField, 10, 64)
			if err != nil || n < 0 {
				continue
			}
			if e.Type != fetch.EntryOther {
				e.Size = n
			}
		}
		end := f[last].end
		if end+1 >= len(line) || line[end] != ' ' && line[end] != '\t' {
			return fetch.Entry{}, false // no name
		}
		e.ModTime = t
		e.Name = line[end+1:]
		if e.Type == fetch.EntryLink {
			if name, target, ok := strings.Cut(e.Name, " -> "); ok {
				e.Name, e.Target = name, target
			}
		}
		return e, e.Name != ""
	}
	return fetch.Entry{}, false
}

// isMode reports whether s looks like an ls mode: a type letter, nine
// permission letters, and an optional ACL or attribute marker.
func isMode(s string) bool {
	if len(s) < 10 || len(s) > 11 || !strings.ContainsRune("-dlcbpsDn", rune(s[0])) {
		return false
	}
	for i := 1; i < 10; i++ {
		if !strings.ContainsRune("-rwxsStTlL", rune(s[i])) {
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
		if err1 != nil || err2 != nil || h > 23 || mi > 59 {
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
