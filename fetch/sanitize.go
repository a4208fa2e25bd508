package fetch

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes server text safe to show on a terminal or in an error
// message: C0 controls (TAB included), DEL, C1 controls (U+0080–U+009F)
// and bytes that are not UTF-8 become "?", so that no escape sequence
// reaches the terminal and no line or tab-separated field is broken. It
// returns s itself when there is nothing to replace.
func Sanitize(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) {
			b.WriteByte('?')
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func unsafeRune(r rune, n int) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r == utf8.RuneError && n == 1)
}

// SanitizeLine is Sanitize for a one-line message: surrounding spaces
// trimmed, and cut to at most max bytes (on a character boundary, with
// "…" added) when max > 0.
func SanitizeLine(s string, max int) string {
	s = strings.TrimSpace(Sanitize(s))
	if max > 0 && len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
