package gopher

import (
	"strings"

	"github.com/urlget/urlget/fetch"
)

// SafeName returns a local file name for an item with this selector, for
// -O: the last non-empty segment of the selector split at "/" (and "\"),
// with every control byte (below 0x20, and 0x7F) replaced by "_", a
// leading "." replaced by "_" (no hidden files, and never "." or ".."),
// cut to 255 bytes on a UTF-8 boundary. It returns "" when the selector
// names no file (empty, or only slashes): the caller must then refuse -O or
// choose a name itself. The result is fetch.SafeName of that segment: never
// "/" or "\" in it, never "." or "..".
func SafeName(selector string) string {
	s := strings.TrimRight(selector, "/\\")
	if i := strings.LastIndexAny(s, "/\\"); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return ""
	}
	return fetch.SafeName(s)
}
