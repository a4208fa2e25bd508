package urlparse

import "strings"

// Extract finds the URLs in running text, as RFC 1738 appendix
// ("Recommendations for URLs in Context") and RFC 3986 appendix C describe:
//
//   - "<URL:…>" wrappers; whitespace (spaces, tabs, line breaks) inside is
//     not part of the URL and is removed;
//   - "<…>" wrappers whose content starts with a scheme, likewise (the
//     content of a wrapper is one URL: when it does not parse, nothing in
//     it is returned);
//   - bare URLs of the schemes urlget knows (http, https, ftp, gopher,
//     gophers, mailto, news, nntp, nntps, telnet, wais, file, prospero),
//     which end at whitespace or at a byte that cannot appear in a URL
//     ('"', '<', '>', '\\', '^', '`', '{', '|', '}', controls, non-ASCII),
//     less trailing sentence punctuation (".", ",", ";", ":", "!", "?",
//     "'") and a ")" or "]" that closes nothing inside the URL.
//
// Only strings that Parse accepts are returned, in the order they occur.
// Start and End are the byte span in text, the wrapper included.
func Extract(text string) []Found {
	var out []Found
	nextLT, nextGT := -1, -1 // cached positions of the next '<' and '>' (len(text) when none)
	for i := 0; i < len(text); {
		c := text[i]
		if c == '<' {
			if nextGT < i {
				nextGT = indexFrom(text, i, '>')
			}
			if nextLT <= i {
				nextLT = indexFrom(text, i+1, '<')
			}
			if nextGT < len(text) && nextGT < nextLT {
				if f, isWrapper, ok := wrapped(text, i, nextGT); isWrapper {
					// A wrapper's content is one URL or none: a piece of
					// a broken one is not looked for.
					if ok {
						out = append(out, f)
					}
					i = nextGT + 1
					continue
				}
			}
			i++
			continue
		}
		if class[c]&cAlpha != 0 && (i == 0 || class[text[i-1]]&cSchemeRest == 0) {
			j := i + 1
			for j < len(text) && class[text[j]]&cSchemeRest != 0 {
				j++
			}
			if j < len(text) && text[j] == ':' && isKnownScheme(text[i:j]) {
				if f, ok := bare(text, i, j+1); ok {
					out = append(out, f)
					i = f.End
					continue
				}
			}
			i = j
			continue
		}
		i++
	}
	return out
}

// indexFrom returns the index of the first c in text[from:], or len(text).
func indexFrom(text string, from int, c byte) int {
	if from >= len(text) {
		return len(text)
	}
	if k := strings.IndexByte(text[from:], c); k >= 0 {
		return from + k
	}
	return len(text)
}

func isKnownScheme(s string) bool { return knownScheme(s) != "" }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// wrapped reads text[lt:gt+1] as a wrapper: "<URL:…>" with any scheme, or
// "<…>" whose content starts with a scheme and ":". isWrapper says whether
// it is one, ok whether its content, without whitespace, parses.
func wrapped(text string, lt, gt int) (f Found, isWrapper, ok bool) {
	inner := text[lt+1 : gt]
	if len(inner) >= 4 && strings.EqualFold(inner[:4], "URL:") {
		inner = inner[4:]
	} else if j := schemeLen(inner); j == 0 || j == len(inner) || inner[j] != ':' {
		return Found{}, false, false
	}
	url := removeSpace(inner)
	if _, err := Parse(url); err != nil {
		return Found{}, true, false
	}
	return Found{URL: url, Start: lt, End: gt + 1}, true, true
}

// schemeLen returns the length of the ALPHA *( ALPHA / DIGIT / "+" / "-" /
// "." ) that s starts with (0 when s does not start with a letter).
func schemeLen(s string) int {
	if len(s) == 0 || class[s[0]]&cAlpha == 0 {
		return 0
	}
	j := 1
	for j < len(s) && class[s[j]]&cSchemeRest != 0 {
		j++
	}
	return j
}

// removeSpace returns s without its whitespace; it allocates only when
// there is whitespace inside.
func removeSpace(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) })
	k := 0
	for k < len(s) && !isSpace(s[k]) {
		k++
	}
	if k == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if !isSpace(s[i]) {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// isURLByte reports whether c may appear in a URI: unreserved, reserved
// or "%".
func isURLByte(c byte) bool {
	if class[c]&cQuery != 0 {
		return true
	}
	switch c {
	case '%', '#', '[', ']':
		return true
	}
	return false
}

// bare reads a bare URL whose scheme starts at i and whose ":" ends at
// rest-1.
func bare(text string, i, rest int) (Found, bool) {
	end := rest
	for end < len(text) && isURLByte(text[end]) {
		end++
	}
trim:
	for end > rest {
		switch text[end-1] {
		case '.', ',', ';', ':', '!', '?', '\'':
		case ')':
			if strings.Count(text[i:end], "(") >= strings.Count(text[i:end], ")") {
				break trim
			}
		case ']':
			if strings.Count(text[i:end], "[") >= strings.Count(text[i:end], "]") {
				break trim
			}
		default:
			break trim
		}
		end--
	}
	if end == rest {
		return Found{}, false
	}
	url := text[i:end]
	if _, err := Parse(url); err != nil {
		return Found{}, false
	}
	return Found{URL: url, Start: i, End: end}, true
}
