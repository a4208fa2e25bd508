package mirror

import "time"

// racyZone is how far a server's local time, which menu dates, Gopher+
// Mod-Dates and ls dates are in (read as UTC), can lie behind UTC:
// UTC−12. skewSlack allows for the server's clock and ours disagreeing a
// little.
const (
	racyZone  = 12 * time.Hour
	skewSlack = time.Minute
)

// racyPrecision is, for a record's MTimeSource, how precise its date is
// and whether its time zone is unknown; false for a source that has no
// date to compare (or none that decides).
func racyPrecision(source string) (prec time.Duration, anyZone, ok bool) {
	switch source {
	case "menu": // gophernicus's menu minute, local time
		return time.Minute, true, true
	case "gopher+": // the Mod-Date's second, local time
		return time.Second, true, true
	case "list-noyear": // an ls date of the last months: the minute, local time
		return time.Minute, true, true
	case "list": // an older ls date: the day
		return 24 * time.Hour, true, true
	case "mdtm", "mlsd": // RFC 3659's UTC second
		return time.Second, false, true
	case "http": // Last-Modified, an HTTP-date: GMT, the second
		return time.Second, false, true
	}
	return 0, false, false
}

// racy reports whether the recorded copy r is "racy", as git and rsync call
// it: its recorded date (a menu's or an ls minute, the second of a Gopher+
// Mod-Date, an MDTM or a Last-Modified) could still have been current when
// it was fetched, so that a change made after the fetch within that minute
// or second, at the same size, leaves the date — and the menu line, the
// listing entry, nginx's ETag — as recorded. Where nothing tells the
// server's time zone any zone is allowed: a date that, read in UTC−12, is
// not over before the fetch began makes the copy racy, and the next run
// fetches it again (a copy with the same bytes is left alone) until a
// fetch begins after that.
func racy(r Record) bool {
	prec, anyZone, ok := racyPrecision(r.MTimeSource)
	if !ok {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, r.MTime)
	f := fetchedTime(r)
	if err != nil || f.IsZero() {
		return false
	}
	if anyZone {
		prec += racyZone
	}
	return t.Add(prec + skewSlack).After(f)
}

// racyWhy says why a racy copy is fetched again.
func racyWhy(r Record) string {
	zone := ""
	if _, anyZone, _ := racyPrecision(r.MTimeSource); anyZone {
		zone = ", the server's time zone unknown"
	}
	return "racy: its date (" + r.MTime + ", " + r.MTimeSource + zone + ") was maybe still current when it was fetched: a change since would not show"
}
