package mailto

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/urlget/urlget/fetch"
)

// An address is one RFC 5322 addr-spec: local-part "@" domain.
type address struct {
	Local  string // as written: a dot-atom or a quoted-string with its quotes
	Domain string // ASCII: IDN U-labels converted to A-labels (RFC 5890)
}

// String is local@domain, the form used in header fields and on the
// envelope.
func (a address) String() string { return a.Local + "@" + a.Domain }

// utf8Local reports whether the local part needs SMTPUTF8 (RFC 6531): a
// non-ASCII local part has no ASCII form.
func (a address) utf8Local() bool { return !isASCII(a.Local) }

// Length caps: RFC 5321 §4.5.3.1 gives 64 and 255 octets; the local part
// is allowed more (quoted parts in the wild), still short enough that an
// address always fits one header line.
const (
	maxLocal  = 256
	maxDomain = 255
)

// idnaProfile converts domains for the envelope and header fields; it is
// idna.Lookup without the STD3 ASCII rules, so that a domain literal check
// stays ours and underscores (seen in real host names) pass.
var idnaProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false))

// parseAddress reads one addr-spec (RFC 5322 §3.4.1) as it stands after the
// RFC 6068 §2 percent-decoding: a dot-atom or quoted-string local part
// (UTF-8 allowed, RFC 6532), "@", and a domain: a dot-atom of labels,
// converted to ASCII, or a [domain literal]. what names the field in the
// error ("to", "cc", "--mail-from").
func parseAddress(s, what string) (address, error) {
	bad := func(why string) (address, error) {
		return address{}, fetch.NewError(fetch.ErrMalformed,
			"mailto: "+what+" address "+quote(s)+": "+why, nil)
	}
	if i := controlAt(s); i >= 0 {
		return bad("control character")
	}
	if !utf8.ValidString(s) {
		return bad("not UTF-8")
	}
	var local, rest string
	if strings.HasPrefix(s, `"`) {
		end := -1
		for i := 1; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '"' {
				end = i
				break
			}
		}
		if end < 0 {
			return bad("unterminated quoted local part")
		}
		local, rest = s[:end+1], s[end+1:]
		if !strings.HasPrefix(rest, "@") {
			return bad("no \"@\" after the quoted local part")
		}
		rest = rest[1:]
	} else {
		at := strings.LastIndexByte(s, '@')
		if at < 0 {
			return bad("no \"@\"")
		}
		local, rest = s[:at], s[at+1:]
		if !isDotAtom(local) {
			return bad("the local part is not a dot-atom (quote it: %22…%22)")
		}
	}
	if local == "" {
		return bad("empty local part")
	}
	if len(local) > maxLocal || len(rest) > maxDomain {
		return bad("too long")
	}
	if strings.HasPrefix(rest, "[") {
		if !strings.HasSuffix(rest, "]") || strings.ContainsAny(rest[1:len(rest)-1], "[]\\ ") {
			return bad("malformed domain literal")
		}
		return address{Local: local, Domain: rest}, nil
	}
	if rest == "" || !isDotAtom(rest) {
		return bad("malformed domain")
	}
	dom, err := idnaProfile.ToASCII(rest)
	if err != nil || !isDotAtom(dom) {
		return bad("domain not valid as an internationalized domain name")
	}
	return address{Local: local, Domain: dom}, nil
}

// isDotAtom reports whether s is an RFC 5322 dot-atom-text (with RFC 6532
// UTF-8): atext runs separated by single dots.
func isDotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || c == '.' || isAtext(c) {
			continue
		}
		return false
	}
	return true
}

func isAtext(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

// splitAddresses splits an address list ("a@x,b@y", RFC 6068's to= and
// cc= values) on the commas outside quoted strings, trimming spaces.
func splitAddresses(s string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if quoted {
				i++
			}
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// controlAt is the index of the first C0 control character or DEL in s
// (CR, LF and NUL among them), or -1.
func controlAt(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return i
		}
	}
	return -1
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// quote is s in Go quotes, cut to 80 bytes, safe for a one-line message.
func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return strconv.Quote(s)
}
