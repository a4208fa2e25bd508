package download

import (
	"fmt"
	"os"
	"time"

	"github.com/urlget/urlget/fetch"
)

// TimeCondition reads a time condition as curl's -z/--time-cond takes
// it: a date (fetch.ParseDate), else the modification time of the file
// of that name. "-" before it asks for the resource only if it was not
// modified after t (unmodified: If-Unmodified-Since, Downloader's
// IfUnmodifiedSince); nothing, "+" (curl's explicit form) or "=" (curl's
// Last-Modified request field, which servers do not read) only if it was
// (If-Modified-Since, IfModifiedSince). Neither a date nor a file is an
// error, and curl then sends no condition.
func TimeCondition(s string) (t time.Time, unmodified bool, err error) {
	if s != "" {
		switch s[0] {
		case '-':
			s, unmodified = s[1:], true
		case '+', '=':
			s = s[1:]
		}
	}
	if t, err := fetch.ParseDate(s); err == nil {
		return t, unmodified, nil
	}
	fi, err := os.Stat(s)
	if err != nil {
		return time.Time{}, unmodified, fmt.Errorf("%q is neither a date nor a file", s)
	}
	return fi.ModTime(), unmodified, nil
}
