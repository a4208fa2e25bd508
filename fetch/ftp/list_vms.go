package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// VMS (OpenVMS DIRECTORY/FULL-like output of MultiNet, TCPware, UCX):
//
//	1-JUN.LIS;1              9/9           2-JUN-1998 07:32:04  [GROUP,OWNER]    (RWED,RWED,RWED,RE)
//	DATA.DIR;1               1/9           2-JUN-1998 07:32:04  [TRANSLATED]     (,RWED,RWED,RE)
//	UCX$REXECD_STARTUP.LOG;1098
//	                         4/15         24-FEB-2003 13:17:24  [POSTWARE,LP]    (RWED,RWED,RE,)
//
// The name keeps its version (";1": RETR of it fetches that version) and a
// directory is NAME.DIR;N. The size is unknown (-1): the blocks used
// ("9/9": used/allocated) only bound it, and a mirror comparing sizes would
// fetch every file again. A name
// too long for its column stands alone on its line and the rest follows on
// the next: ListParser joins the two.

// isVMSName reports whether s is NAME.TYPE;VERSION.
func isVMSName(s string) bool {
	semi := strings.LastIndexByte(s, ';')
	if semi <= 0 || !isDigits(s[semi+1:]) {
		return false
	}
	return strings.IndexByte(s[:semi], '.') >= 0
}

// parseVMS reads one VMS entry (both lines of a wrapped one joined by a space).
func parseVMS(line string) (fetch.Entry, bool) {
	f := fields(line, 8)
	if len(f) < 4 || !isVMSName(f[0].s) {
		return fetch.Entry{}, false
	}
	used, _, _ := strings.Cut(f[1].s, "/") // blocks used/allocated
	if !isDigits(used) {
		return fetch.Entry{}, false
	}
	if _, alloc, ok := strings.Cut(f[1].s, "/"); ok && !isDigits(alloc) {
		return fetch.Entry{}, false
	}
	t, ok := parseVMSTime(f[2].s, f[3].s)
	if !ok {
		return fetch.Entry{}, false
	}
	// Then, optionally, [owner] and (protection); anything else is garbage.
	rest := strings.TrimSpace(line[f[3].end:])
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexAny(rest, "] \t")
		if end < 0 {
			end = len(rest)
		}
		if !vmsOwner(rest[1:end]) {
			return fetch.Entry{}, false
		}
		rest = strings.TrimSpace(strings.TrimPrefix(rest[end:], "]"))
	}
	if rest != "" && !vmsProtection(rest) {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Name: f[0].s, Type: fetch.EntryFile, Size: -1, ModTime: t, Raw: line}
	if strings.HasSuffix(strings.ToUpper(e.Name[:strings.LastIndexByte(e.Name, ';')]), ".DIR") {
		e.Type = fetch.EntryDir
	}
	return e, true
}

// vmsOwner: "GROUP,OWNER", "TRANSLATED", "[AP_HTTPD,APACHE$WWW" (a UIC cut
// by its column): letters, digits, "$" and "_", with at most one comma.
func vmsOwner(s string) bool {
	a, b, _ := strings.Cut(s, ",")
	ok := func(w string) bool {
		for i := 0; i < len(w); i++ {
			c := w[i]
			if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '$' || c == '_') {
				return false
			}
		}
		return true
	}
	return a != "" && ok(a) && ok(b)
}

// vmsProtection: "(RWED,RWED,RE,)", four groups of R, W, E, D letters.
func vmsProtection(s string) bool {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return false
	}
	groups := strings.Split(s[1:len(s)-1], ",")
	if len(groups) != 4 {
		return false
	}
	for _, g := range groups {
		if strings.Trim(g, "RWEDrwed") != "" {
			return false
		}
	}
	return true
}

var vmsMonths = map[string]time.Month{
	"JAN": 1, "FEB": 2, "MAR": 3, "APR": 4, "MAY": 5, "JUN": 6,
	"JUL": 7, "AUG": 8, "SEP": 9, "OCT": 10, "NOV": 11, "DEC": 12,
}

// parseVMSTime reads "2-JUN-1998" and "07:32:04" (seconds and hundredths
// optional).
func parseVMSTime(date, clock string) (time.Time, bool) {
	ds := strings.Split(date, "-")
	if len(ds) != 3 {
		return time.Time{}, false
	}
	d, err1 := strconv.Atoi(ds[0])
	y, err2 := strconv.Atoi(ds[2])
	m, ok := vmsMonths[strings.ToUpper(ds[1])]
	if err1 != nil || err2 != nil || !ok || d < 1 || d > 31 || len(ds[2]) != 4 {
		return time.Time{}, false
	}
	clock, frac, _ := strings.Cut(clock, ".")
	if frac != "" && !isDigits(frac) {
		return time.Time{}, false
	}
	parts := strings.Split(clock, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return time.Time{}, false
	}
	var hms [3]int
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || len(p) != 2 && i > 0 || n < 0 || n > [3]int{23, 59, 59}[i] {
			return time.Time{}, false
		}
		hms[i] = n
	}
	return time.Date(y, m, d, hms[0], hms[1], hms[2], 0, time.UTC), true
}

// VMSLocalName maps a VMS listing name to the name it has without version
// and directory suffix: "FILE.TXT;3" → "FILE.TXT", "NAME.DIR;1" → "NAME"
// (when dir), "A.;2" → "A". A name that is not NAME.TYPE;VERSION is given
// back as it is.
func VMSLocalName(name string, dir bool) string {
	if !isVMSName(name) {
		return name
	}
	base := name[:strings.LastIndexByte(name, ';')]
	if dir && len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".DIR") {
		return base[:len(base)-4]
	}
	return strings.TrimSuffix(base, ".")
}
