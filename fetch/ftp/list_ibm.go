package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// IBM midrange and mainframe listings: OS/400 (IBM i) and MVS (z/OS
// datasets, the members of a partitioned dataset, and JES job lists).

// parseOS400 reads "OWNER  size date time *TYPE  name"; members (*MEM) have
// no size and date: "OWNER  *MEM  FILE.FILE/MEMBER.MBR". The name is the
// last component of the path given; "dir1/" is a directory.
func parseOS400(line string) (fetch.Entry, bool) {
	f := fields(line, 6)
	if len(f) < 2 {
		return fetch.Entry{}, false
	}
	var typ field
	var name string
	e := fetch.Entry{Size: -1, Raw: line}
	switch {
	case len(f) >= 6 && strings.HasPrefix(f[4].s, "*"):
		n, err := strconv.ParseInt(f[1].s, 10, 64)
		if err != nil || n < 0 {
			return fetch.Entry{}, false
		}
		t, ok := parseOS400Time(f[2].s, f[3].s)
		if !ok {
			return fetch.Entry{}, false
		}
		e.Size, e.ModTime, typ = n, t, f[4]
	case len(f) >= 3 && f[1].s == "*MEM":
		typ = f[1]
	default:
		return fetch.Entry{}, false
	}
	name = nameAfter(line, typ.end)
	if name == "" || e.ModTime.IsZero() != (typ.s == "*MEM") {
		return fetch.Entry{}, false
	}
	switch typ.s {
	case "*DIR", "*LIB", "*FLR":
		e.Type = fetch.EntryDir
	case "*STMF", "*FILE", "*MEM", "*DOC", "*DSTMF", "*USRSPC":
		e.Type = fetch.EntryFile
	default:
		e.Type = fetch.EntryOther
	}
	if strings.HasSuffix(name, "/") {
		e.Type = fetch.EntryDir
		name = strings.TrimRight(name, "/")
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		return fetch.Entry{}, false
	}
	e.Name = name
	return e, true
}

// parseOS400Time reads the date in the orders IBM i servers use: yy/MM/dd
// (the default), MM/dd/yy, and dd.MM.yy; then HH:mm:ss.
func parseOS400Time(date, clock string) (time.Time, bool) {
	sep := "/"
	if strings.Contains(date, ".") {
		sep = "."
	}
	ds := strings.Split(date, sep)
	if len(ds) != 3 || len(clock) != 8 {
		return time.Time{}, false
	}
	var n [3]int
	for i, s := range ds {
		v, err := strconv.Atoi(s)
		if err != nil || len(s) != 2 {
			return time.Time{}, false
		}
		n[i] = v
	}
	orders := [][3]int{{0, 1, 2}, {2, 0, 1}} // y, m, d positions
	if sep == "." {
		orders = [][3]int{{2, 1, 0}}
	}
	t, err := time.Parse("15:04:05", clock)
	if err != nil {
		return time.Time{}, false
	}
	for _, o := range orders {
		y, m, d := n[o[0]], n[o[1]], n[o[2]]
		if m < 1 || m > 12 || d < 1 || d > 31 {
			continue
		}
		if y < 70 {
			y += 2000
		} else {
			y += 1900
		}
		return time.Date(y, time.Month(m), d, t.Hour(), t.Minute(), t.Second(), 0, time.UTC), true
	}
	return time.Time{}, false
}

// The MVS list types; which one a listing is shows in its header line.
const (
	mvsUnknown = iota
	mvsDataset
	mvsMember
	mvsJES
)

// mvsHeader tells the list type from an MVS listing's first line:
// "Volume Unit    Referred Ext Used Recfm Lrecl BlkSz Dsorg Dsname",
// " Name     VV.MM   Created       Changed      Size  Init   Mod   Id",
// "JOBNAME  JOBID    OWNER    STATUS CLASS".
func mvsHeader(line string) int {
	f := strings.Fields(line)
	switch {
	case len(f) >= 2 && f[0] == "Volume" && f[len(f)-1] == "Dsname":
		return mvsDataset
	case len(f) >= 2 && f[0] == "Name" && f[len(f)-1] == "Id":
		return mvsMember
	case len(f) >= 2 && f[0] == "JOBNAME" && f[1] == "JOBID":
		return mvsJES
	}
	return mvsUnknown
}

// parseMVSDataset reads a dataset line: "VOLUME UNIT YYYY/MM/DD EXT USED
// RECFM LRECL BLKSZ DSORG DSNAME" (EXT and USED may run together), or a
// migrated or offline dataset ("Migrated  NAME", "ARCIVE Not Direct Access
// Device  NAME"). Partitioned datasets (PO, PO-E) are directories of
// members. The Referred date is the last use, not a change: no ModTime.
func parseMVSDataset(line string) (fetch.Entry, bool) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Name: f[len(f)-1], Type: fetch.EntryFile, Size: -1, Raw: line}
	switch {
	case len(f) == 2 && f[0] == "Migrated":
	case strings.Contains(line, " Not Direct Access Device "):
	case len(f) >= 9 && len(f) <= 10 && isMVSDate(f[2]):
		switch dsorg := f[len(f)-2]; dsorg {
		case "PO", "PO-E":
			e.Type = fetch.EntryDir
		case "PS", "DA", "IS", "VS":
		default:
			return fetch.Entry{}, false
		}
	default:
		return fetch.Entry{}, false
	}
	return e, true
}

func isMVSDate(s string) bool {
	_, err := time.Parse("2006/01/02", s)
	return err == nil
}

// parseMVSMember reads a member line of a partitioned dataset: "NAME VV.MM
// created changed HH:MM size init mod id", or the name alone.
func parseMVSMember(line string) (fetch.Entry, bool) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return fetch.Entry{}, false
	}
	e := fetch.Entry{Name: f[0], Type: fetch.EntryFile, Size: -1, Raw: line}
	if len(f) == 1 {
		return e, true
	}
	if len(f) < 5 || !isMVSDate(f[2]) {
		return fetch.Entry{}, false
	}
	t, err := time.ParseInLocation("2006/01/02 15:04", f[3]+" "+f[4], time.UTC)
	if err != nil {
		return fetch.Entry{}, false
	}
	e.ModTime = t
	return e, true
}

// parseMVSJES reads a JES job list line, "JOBNAME JOBID [OWNER] STATUS …"
// (JES interface levels 1 and 2). The entry is the job's spool output,
// fetched by its job id.
func parseMVSJES(line string) (fetch.Entry, bool) {
	f := strings.Fields(line)
	if len(f) < 3 || !isJobID(f[1]) {
		return fetch.Entry{}, false
	}
	return fetch.Entry{Name: f[1], Type: fetch.EntryFile, Size: -1, Raw: line}, true
}

// isJobID: JOB, TSU or STC and five digits, or J and seven.
func isJobID(s string) bool {
	switch {
	case len(s) == 8 && (strings.HasPrefix(s, "JOB") || strings.HasPrefix(s, "TSU") || strings.HasPrefix(s, "STC")):
		return isDigits(s[3:])
	case len(s) == 8 && s[0] == 'J':
		return isDigits(s[1:])
	}
	return false
}
