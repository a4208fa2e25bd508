package download_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/urlget/urlget/download"
)

// TestTimeCondition: curl's -z argument, a date or a file's modification
// time, "-" for If-Unmodified-Since, "+" and "=" (or nothing) for
// If-Modified-Since, and neither a date nor a file an error naming it.
func TestTimeCondition(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "old.html")
	mtime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	date := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	for _, tc := range []struct {
		arg        string
		want       time.Time
		unmodified bool
		err        string
	}{
		{"Sun, 06 Nov 1994 08:49:37 GMT", date, false, ""},
		{"+Sun, 06 Nov 1994 08:49:37 GMT", date, false, ""},
		{"=Sun, 06 Nov 1994 08:49:37 GMT", date, false, ""},
		{"-Sun, 06 Nov 1994 08:49:37 GMT", date, true, ""},
		{"19941106 10:49:37 +0200", date, false, ""},
		{file, mtime, false, ""},
		{"-" + file, mtime, true, ""},
		{"+" + file, mtime, false, ""},
		{filepath.Join(dir, "none"), time.Time{}, false, `"` + dir + `/none" is neither a date nor a file`},
		{"-" + filepath.Join(dir, "none"), time.Time{}, true, `"` + dir + `/none" is neither a date nor a file`},
		{"yesterday", time.Time{}, false, `"yesterday" is neither a date nor a file`},
		{"-", time.Time{}, true, `"" is neither a date nor a file`},
		{"", time.Time{}, false, `"" is neither a date nor a file`},
	} {
		got, unmodified, err := download.TimeCondition(tc.arg)
		var msg string
		if err != nil {
			msg = err.Error()
		}
		if !got.Equal(tc.want) || unmodified != tc.unmodified || msg != tc.err {
			t.Errorf("TimeCondition(%q) = %v, %v, %q; want %v, %v, %q", tc.arg, got, unmodified, msg, tc.want, tc.unmodified, tc.err)
		}
	}
}
