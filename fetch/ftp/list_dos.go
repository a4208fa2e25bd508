package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// The PC family: DOS/IIS ("MM-DD-YY  HH:MMPM  <DIR>|size  name") and OS/2
// ("size  [attributes]  [DIR]  MM-DD-YY  HH:MM  name").

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
	name := nameAfter(line, f[2].end)
	if name == "" {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Name: name, Size: -1, ModTime: d, Raw: line}
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

// nameAfter is the rest of line after the run of spaces that follows end.
func nameAfter(line string, end int) string {
	i := end
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	return line[i:]
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
	if err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
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

// parseOS2 reads an OS/2 line: size, optional attribute letters (capitals:
// A, R, S, H), optional DIR, date, time, name.
func parseOS2(line string) (fetch.Entry, bool) {
	f := fields(line, 6)
	if len(f) < 4 || !isDigits(f[0].s) {
		return fetch.Entry{}, false
	}
	i := 1
	if strings.Trim(f[i].s, "ARSH") == "" && f[i].s != "DIR" {
		i++
	}
	dir := i < len(f) && f[i].s == "DIR"
	if dir {
		i++
	}
	if i+1 >= len(f) {
		return fetch.Entry{}, false
	}
	d, ok := parseDOSTime(f[i].s, f[i+1].s)
	if !ok || strings.ContainsAny(f[i+1].s, "AaPp") || !strings.Contains(f[i].s, "-") {
		return fetch.Entry{}, false
	}
	name := nameAfter(line, f[i+1].end)
	if name == "" {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Name: name, Type: fetch.EntryFile, Size: -1, ModTime: d, Raw: line}
	if dir {
		e.Type = fetch.EntryDir
	}
	if n, err := strconv.ParseInt(f[0].s, 10, 64); err == nil {
		e.Size = n
	}
	return e, true
}
