package fetch

import "unicode/utf8"

// maxName bounds a local file name (most file systems allow 255 bytes).
const maxName = 255

// SafeName returns a local file name for a name a server gave (a listing
// entry, the last segment of a URL or selector), for -O and the mirror. A
// server's names are data: this makes
// one path component of them that cannot leave the directory it is
// written in. Every "/" and "\" becomes "_" (the name stays one component,
// and "a/b" does not collide with "b"), so does every control byte (below
// 0x20, and 0x7F); a leading "." becomes "_" (no hidden files, never "."
// or ".."); the result is cut to 255 bytes on a UTF-8 boundary. It returns
// "" for an empty name: the caller must then refuse or choose a name
// itself.
func SafeName(name string) string {
	if name == "" {
		return ""
	}
	b := []byte(name)
	for i, c := range b {
		if c < 0x20 || c == 0x7f || c == '/' || c == '\\' {
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
			n = maxName
		}
		b = b[:n]
	}
	return string(b)
}
