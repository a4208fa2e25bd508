package mirror

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch/gopher"
)

// docFacts is what a menu (and the Gopher+ attributes) stated of a
// document: its date, and its size, which gopher only ever states
// approximately (lo..hi bytes, hi < 0 when nothing stated one).
type docFacts struct {
	mod      time.Time // the Gopher+ Mod-Date (server local time read as UTC), zero when none
	date     time.Time // the menu line's date (gophernicus: the minute, local time read as UTC), zero when none
	lo, hi   int64     // the stated size's bounds; hi < 0: no size stated
	sizeText string    // the size as stated ("50.0 MB", "<10k>")
}

// gophernicusLine matches the end of a gophernicus menu line's display
// string: the file's date to the minute and its size with one decimal
// ("2026-Dec-06 19:54     0.0 KB"; a directory has "--------").
var gophernicusLine = regexp.MustCompile(`(\d{4}-(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-\d{2} \d{2}:\d{2}) +(?:(\d+)\.(\d) ([KMGT])B|-+)$`)

// menuDocFacts reads the date and size gophernicus writes into the display
// string of a menu line. The size is "%.1f" of KB, MB, GB or TB (1024
// based), so it is only approximate: the exact size lies within half a
// tenth of the unit (plus a byte for the float's rounding) — "0.0 KB" is
// 0 to 52 bytes, "50.0 MB" 52,376,370 to 52,481,229.
func menuDocFacts(display string) docFacts {
	f := docFacts{hi: -1}
	if len(display) < 20 || !strings.HasSuffix(display, "B") && !strings.HasSuffix(display, "-") {
		return f // not gophernicus's: spare the expression
	}
	m := gophernicusLine.FindStringSubmatch(display)
	if m == nil {
		return f
	}
	if t, err := time.ParseInLocation("2006-Jan-02 15:04", m[1], time.UTC); err == nil {
		f.date = t
	}
	if m[2] == "" {
		return f
	}
	whole, err := strconv.ParseInt(m[2], 10, 64)
	if err != nil || whole > 1<<20 {
		return f
	}
	unit := int64(1024) << (10 * strings.Index("KMGT", m[4]))
	tenths := whole*10 + int64(m[3][0]-'0')
	f.lo = max(0, (tenths*unit-unit/2)/10-1)
	f.hi = (tenths*unit+unit/2)/10 + 1
	f.sizeText = m[2] + "." + m[3] + " " + m[4] + "B"
	return f
}

// viewBounds is the size of the default (first) view that Gopher+
// attributes state ("<10k>", "<512b>", "<1.5M>"): approximate, rounded in
// no stated way, so one unit either side. ok is false when there is none.
func viewBounds(a *gopher.Attributes) (lo, hi int64, text string, ok bool) {
	if a == nil {
		return 0, 0, "", false
	}
	vs := a.Views()
	if len(vs) == 0 || vs[0].Size == "" {
		return 0, 0, "", false
	}
	s := strings.TrimSpace(vs[0].Size)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, 0, "", false
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	var unit float64
	switch strings.TrimSuffix(strings.ToLower(s[i:]), "b") {
	case "":
		unit = 1
	case "k":
		unit = 1 << 10
	case "m":
		unit = 1 << 20
	case "g":
		unit = 1 << 30
	default:
		return 0, 0, "", false
	}
	if err != nil || n < 0 || n > 1<<20 {
		return 0, 0, "", false
	}
	return int64(max(0, (n-1)*unit)), int64((n+1)*unit) + 1, "<" + vs[0].Size + ">", true
}

// stated reports whether the facts state a size.
func (f docFacts) stated() bool { return f.hi >= 0 }

// fits reports whether n bytes can be the stated size: not fewer than its
// lower bound. More is not taken as wrong: gophernicus sends a text with
// CRLF line ends (one byte more a line than its menu's size), and a file
// may have grown since its menu was read; a cut copy is short.
func (f docFacts) fits(n int64) bool { return !f.stated() || f.lo <= n }

// sizeErr is why n bytes are not the stated size.
func (f docFacts) sizeErr(n int64) string {
	return fmt.Sprintf("%d bytes, where the server states %s (%d to %d bytes): cut short", n, f.sizeText, f.lo, f.hi)
}

// scriptOutput reports whether the selector names what gophernicus runs as
// a CGI script (anything below a "cgi-bin" directory): what it sends is
// the script's output, not the file whose size the menu states.
func scriptOutput(sel string) bool {
	for _, n := range selectorNames(sel) {
		if n == "cgi-bin" {
			return true
		}
	}
	return false
}
