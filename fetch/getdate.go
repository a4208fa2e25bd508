package fetch

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ParseDate reads a date as curl's -z/--time-cond takes it (curl_getdate):
// the three HTTP forms ("Sun, 06 Nov 1994 08:49:37 GMT", "Sunday,
// 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994") and the looser
// forms around them: the fields in any order, the weekday optional, the
// day, month name and year ("6 Nov 1994", "1994 Nov 6", "06-Nov-94",
// "1994.Nov.6"), or YYYYMMDD ("20040912"), a time HH:MM[:SS], and a zone
// (GMT, UTC, a US zone name, or +HHMM / -HHMM). A date without a zone is
// UTC; one without a time is at midnight. Two-digit years are 1970-2069.
func ParseDate(s string) (time.Time, error) {
	bad := errors.New("not a date curl would take (for example \"Sun, 06 Nov 1994 08:49:37 GMT\" or \"20040912 15:05:58 -0700\")")
	year, month, day := -1, -1, -1
	hour, min, sec := 0, 0, 0
	haveTime, haveZone := false, false
	zone := 0 // seconds east of UTC
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isLetter(c):
			j := i
			for j < len(s) && isLetter(s[j]) {
				j++
			}
			w := strings.ToLower(s[i:j])
			i = j
			if m := monthOf(w); m > 0 && month < 0 {
				month = m
			} else if off, ok := zoneNames[w]; ok && !haveZone {
				zone, haveZone = off, true
			} else if !isWeekday(w) {
				return time.Time{}, bad
			}
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if !haveTime && j < len(s) && s[j] == ':' {
				// HH:MM[:SS]
				parts := []int{}
				k := i
				for len(parts) < 3 {
					e := k
					for e < len(s) && s[e] >= '0' && s[e] <= '9' {
						e++
					}
					if e == k || e-k > 2 {
						return time.Time{}, bad
					}
					n, _ := strconv.Atoi(s[k:e])
					parts = append(parts, n)
					k = e
					if k >= len(s) || s[k] != ':' {
						break
					}
					k++
				}
				if len(parts) < 2 {
					return time.Time{}, bad
				}
				hour, min = parts[0], parts[1]
				if len(parts) == 3 {
					sec = parts[2]
				}
				if hour > 23 || min > 59 || sec > 60 {
					return time.Time{}, bad
				}
				haveTime, i = true, k
				continue
			}
			digits := s[i:j]
			n, _ := strconv.Atoi(digits)
			if i > 0 && (s[i-1] == '+' || s[i-1] == '-') && len(digits) == 4 && !haveZone && (haveTime || year >= 0 && day >= 0) {
				off := (n/100)*3600 + (n%100)*60
				if n/100 > 14 || n%100 > 59 {
					return time.Time{}, bad
				}
				if s[i-1] == '-' {
					off = -off
				}
				zone, haveZone = off, true
			} else if len(digits) == 8 && year < 0 && month < 0 && day < 0 {
				year, month, day = n/10000, n/100%100, n%100
			} else if day < 0 && n >= 1 && n <= 31 && len(digits) <= 2 {
				day = n
			} else if year < 0 {
				year = n
				if len(digits) <= 2 {
					year += 1900
					if n < 70 {
						year += 100
					}
				}
			} else {
				return time.Time{}, bad
			}
			i = j
		default:
			i++ // separators: space , - / . +
		}
	}
	if year < 0 || month < 1 || month > 12 || day < 1 || day > 31 || year < 1970 {
		return time.Time{}, bad
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, 0, time.UTC)
	if t.Day() != day {
		return time.Time{}, bad
	}
	return t.Add(-time.Duration(zone) * time.Second), nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func monthOf(w string) int {
	for i, m := range []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"} {
		if w == m || len(w) > 3 && strings.HasPrefix(w, m) && strings.HasPrefix(strings.ToLower(time.Month(i+1).String()), w) {
			return i + 1
		}
	}
	return 0
}

func isWeekday(w string) bool {
	for d := time.Sunday; d <= time.Saturday; d++ {
		name := strings.ToLower(d.String())
		if w == name[:3] || w == name {
			return true
		}
	}
	return false
}

// zoneNames are the zone names curl_getdate knows best: UTC and the US
// ones (seconds east of UTC).
var zoneNames = map[string]int{
	"gmt": 0, "ut": 0, "utc": 0, "wet": 0, "z": 0,
	"bst": 3600, "cet": 3600, "met": 3600, "mewt": 3600, "cest": 7200, "eet": 7200,
	"est": -5 * 3600, "edt": -4 * 3600, "cst": -6 * 3600, "cdt": -5 * 3600,
	"mst": -7 * 3600, "mdt": -6 * 3600, "pst": -8 * 3600, "pdt": -7 * 3600,
}
