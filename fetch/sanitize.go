package fetch

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Sanitize makes server text safe to show on a terminal or in an error
// message: C0 controls (TAB included), DEL, C1 controls (U+0080–U+009F)
// and bytes that are not UTF-8 become "?", so that no escape sequence
// reaches the terminal and no line or tab-separated field is broken. It
// returns s itself when there is nothing to replace.
func Sanitize(s string) string {
	i := safePrefix(s)
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

// safePrefix is the length of s's longest prefix without a rune that
// Sanitize or Logf would replace.
func safePrefix(s string) int {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) {
			break
		}
		i += n
	}
	return i
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

// OneLine is SanitizeLine for a message that may span lines (an error
// wrapping a server's multi-line reply): every run of white space, line
// breaks included, becomes one space.
func OneLine(s string) string {
	return SanitizeLine(strings.Join(strings.Fields(s), " "), 0)
}

// Logf writes one line of verbose output to w, nothing when w is nil: the
// formatted text with C0 controls, DEL, C1 controls and bytes that are not
// UTF-8 shown as escapes (TAB as \t, CR as \r, LF as \n, the others as
// \xNN), so that text from a server can neither drive the terminal nor
// forge a line of the log. It is the one sanitiser of every scheme's
// verbose output.
func Logf(w io.Writer, format string, a ...any) {
	if w == nil {
		return
	}
	io.WriteString(w, visible(fmt.Sprintf(format, a...))+"\n")
}

// visible escapes what Logf escapes.
func visible(s string) string {
	i := safePrefix(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case unsafeRune(r, n):
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
