package gopher

import (
	"strings"
	"unicode/utf8"
)

// maxName bounds a local file name (most file systems allow 255 bytes).
const maxName = 255

// SafeName returns a local file name for an item with this selector, for
// -O: the last non-empty segment of the selector split at "/" (and "\"),
// with every control byte (below 0x20, and 0x7F) replaced by "_", a
// leading "." replaced by "_" (no hidden files, and never "." or ".."),
// cut to 255 bytes on a UTF-8 boundary. It returns "" when the selector
// names no file (empty, or only slashes): the caller must then refuse -O or
// choose a name itself. The result never contains "/" or "\" and is never
// "." or "..".
func SafeName(selector string) string {
	s := strings.TrimRight(selector, "/\\")
	if i := strings.LastIndexAny(s, "/\\"); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return ""
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			b[i] = '_'
		}
	}
	if b[0] == '.' {
		b[0] = '_'
	}
	if len(b) > maxName {
		n := maxName
		for n > 0 && !utf8.RuneStart(b[n]) {
			n--
		}
		if n == 0 {
			n = maxName // not UTF-8 at all: cut anywhere
		}
		b = b[:n]
	}
	return string(b)
}
