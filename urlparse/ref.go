package urlparse

import (
	"strconv"
	"strings"
)

// HostKind says which production of RFC 3986 §3.2.2 a host matched.
type HostKind uint8

const (
	HostNone      HostKind = iota // no authority
	HostRegName                   // reg-name (possibly empty)
	HostIPv4                      // IPv4address
	HostIPv6                      // IP-literal holding an IPv6address
	HostIPvFuture                 // IP-literal holding an IPvFuture
)

func (k HostKind) String() string {
	switch k {
	case HostRegName:
		return "reg-name"
	case HostIPv4:
		return "ipv4"
	case HostIPv6:
		return "ipv6"
	case HostIPvFuture:
		return "ipvfuture"
	}
	return ""
}

// Ref is an RFC 3986 URI reference broken into its components.
//
// The Raw fields hold the component exactly as written (still
// percent-encoded, without its delimiter); they are substrings of the parsed
// input. The decoded fields hold the same component with every pct-encoded
// octet replaced by its byte: nothing else is changed, so a decoded field may
// hold any byte at all (see CheckLine). Parsing allocates only when some
// component contains a percent sign, and then only once.
type Ref struct {
	RawScheme   string // scheme as written ("" for a relative reference)
	Scheme      string // scheme in lower case
	HasAuth     bool   // "//" authority present
	HasUserinfo bool   // "@" present in the authority
	HasPassword bool   // ":" present in the userinfo
	HasPort     bool   // ":" present after the host (the port may still be empty)
	HasQuery    bool   // "?" present
	HasFragment bool   // "#" present
	HostKind    HostKind

	RawUserinfo string // userinfo as written
	RawHost     string // host as written; IP-literals keep their brackets
	RawPort     string // port digits as written
	RawPath     string
	RawQuery    string
	RawFragment string

	User     string // decoded userinfo before the first ":"
	Password string // decoded userinfo after the first ":"
	Host     string // decoded reg-name; IP address without brackets
	Port     int    // port number, -1 when absent or empty, 65536 when over 65535
	Path     string // decoded path
	Query    string // decoded query
	Fragment string // decoded fragment
}

// Error reports input that the RFC 3986 grammar (or a scheme's own syntax)
// rejects: the byte offset of the first offending byte and the rule it broke.
type Error struct {
	Input  string // the whole input
	Offset int    // byte offset into Input
	Rule   string // ABNF rule or scheme syntax that was broken
	Msg    string // what was wrong, in words
}

func (e *Error) Error() string {
	return "malformed URL " + strconv.Quote(e.Input) + " at byte " + strconv.Itoa(e.Offset) +
		": " + e.Msg + " (" + e.Rule + ")"
}

func errAt(s string, off int, rule, msg string) *Error {
	return &Error{Input: s, Offset: off, Rule: rule, Msg: msg}
}

func badByte(s string, off int, rule string) *Error {
	c := s[off]
	var what string
	switch {
	case c == '%':
		what = "bad percent-encoding"
	case c < 0x20 || c == 0x7f:
		what = "control byte " + strconv.QuoteRune(rune(c))
	case c >= 0x80:
		what = "non-ASCII byte 0x" + string(upperHex[c>>4]) + string(upperHex[c&15])
	default:
		what = "character " + strconv.QuoteRune(rune(c)) + " not allowed"
	}
	return errAt(s, off, rule, what)
}

// ParseRef parses s as an RFC 3986 URI-reference (absolute URI or relative
// reference). Anything the grammar rejects is an *Error; nothing is repaired.
func ParseRef(s string) (Ref, error) {
	var r Ref
	if err := r.parse(s); err != nil {
		return Ref{}, err
	}
	return r, nil
}

// ParseAbsolute parses s as an RFC 3986 URI: a scheme is required.
func ParseAbsolute(s string) (Ref, error) {
	r, err := ParseRef(s)
	if err == nil && r.RawScheme == "" {
		return Ref{}, errAt(s, 0, "URI", "no scheme")
	}
	return r, err
}

// scanPct checks s[i:j] against the class mask, allowing pct-encoded octets.
// It returns the offset of the first bad byte or -1, and whether a '%' was seen.
func scanPct(s string, i, j int, mask uint8) (bad int, pct bool) {
	for ; i < j; i++ {
		c := s[i]
		if class[c]&mask != 0 {
			continue
		}
		if c == '%' {
			if i+2 >= j || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return i, pct
			}
			pct = true
			i += 2
			continue
		}
		return i, pct
	}
	return -1, pct
}

func (r *Ref) parse(s string) error {
	r.Port = -1
	i := 0
	// scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
	if len(s) > 0 && class[s[0]]&cAlpha != 0 {
		j := 1
		for j < len(s) && class[s[j]]&cSchemeRest != 0 {
			j++
		}
		if j < len(s) && s[j] == ':' {
			r.RawScheme = s[:j]
			r.Scheme = lowerScheme(r.RawScheme)
			i = j + 1
		}
	}
	// Fragment and query split first: '#' cannot appear before the fragment,
	// '?' cannot appear in the authority or path.
	end := len(s)
	if k := strings.IndexByte(s[i:], '#'); k >= 0 {
		r.HasFragment = true
		r.RawFragment = s[i+k+1:]
		end = i + k
	}
	if k := strings.IndexByte(s[i:end], '?'); k >= 0 {
		r.HasQuery = true
		r.RawQuery = s[i+k+1 : end]
		end = i + k
	}
	pct := false
	if end-i >= 2 && s[i] == '/' && s[i+1] == '/' {
		r.HasAuth = true
		a := i + 2
		b := a
		for b < end && s[b] != '/' {
			b++
		}
		p, err := r.parseAuthority(s, a, b)
		if err != nil {
			return err
		}
		pct = pct || p
		i = b
	}
	r.RawPath = s[i:end]
	// path: pchar and "/"; a relative reference's first segment may not hold ':'.
	mask := cPchar
	noColon := r.RawScheme == "" && !r.HasAuth
	for k := i; k < end; k++ {
		c := s[k]
		if c == '/' {
			noColon = false
			continue
		}
		if class[c]&mask != 0 {
			if c == ':' && noColon {
				return errAt(s, k, "path-noscheme", "':' in the first segment of a relative reference (a scheme must start with a letter and hold only letters, digits, '+', '-', '.')")
			}
			continue
		}
		if c == '%' && k+2 < end && isHex(s[k+1]) && isHex(s[k+2]) {
			pct = true
			k += 2
			continue
		}
		return badByte(s, k, "path")
	}
	if r.HasQuery {
		if bad, p := scanPct(s, end+1, end+1+len(r.RawQuery), cQuery); bad >= 0 {
			return badByte(s, bad, "query")
		} else {
			pct = pct || p
		}
	}
	if r.HasFragment {
		off := len(s) - len(r.RawFragment)
		if bad, p := scanPct(s, off, len(s), cQuery); bad >= 0 {
			return badByte(s, bad, "fragment")
		} else {
			pct = pct || p
		}
	}
	r.decode(pct)
	return nil
}

// parseAuthority parses s[a:b] as authority = [ userinfo "@" ] host [ ":" port ].
func (r *Ref) parseAuthority(s string, a, b int) (pct bool, err error) {
	h := a
	if k := strings.IndexByte(s[a:b], '@'); k >= 0 {
		r.HasUserinfo = true
		r.RawUserinfo = s[a : a+k]
		// userinfo = *( unreserved / pct-encoded / sub-delims / ":" ): that is
		// pchar less "@", and it ends at the first "@".
		bad, p := scanPct(s, a, a+k, cPchar)
		if bad >= 0 {
			return false, badByte(s, bad, "userinfo")
		}
		pct = p
		h = a + k + 1
	}
	hostEnd := b
	if h < b && s[h] == '[' {
		k := strings.IndexByte(s[h:b], ']')
		if k < 0 {
			return false, errAt(s, h, "IP-literal", "'[' without closing ']'")
		}
		lit := s[h+1 : h+k]
		if len(lit) > 0 && (lit[0] == 'v' || lit[0] == 'V') {
			if off := checkIPvFuture(lit); off >= 0 {
				return false, errAt(s, h+1+off, "IPvFuture", "malformed IPvFuture literal")
			}
			r.HostKind = HostIPvFuture
		} else {
			if off := checkIPv6(lit); off >= 0 {
				return false, errAt(s, h+1+off, "IPv6address", "malformed IPv6 address")
			}
			r.HostKind = HostIPv6
		}
		hostEnd = h + k + 1
		if hostEnd < b && s[hostEnd] != ':' {
			return false, badByte(s, hostEnd, "authority")
		}
	} else {
		if k := strings.IndexByte(s[h:b], ':'); k >= 0 {
			hostEnd = h + k
		}
		bad, p := scanPct(s, h, hostEnd, cUnreserved|cSubDelim)
		if bad >= 0 {
			return false, badByte(s, bad, "host")
		}
		pct = pct || p
		if isIPv4(s[h:hostEnd]) {
			r.HostKind = HostIPv4
		} else {
			r.HostKind = HostRegName
		}
	}
	r.RawHost = s[h:hostEnd]
	if hostEnd < b {
		r.HasPort = true
		r.RawPort = s[hostEnd+1 : b]
		// port = *DIGIT: any number of digits is grammatical; a number
		// too large for TCP is refused by Parse, not here.
		n := 0
		for k := hostEnd + 1; k < b; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return false, badByte(s, k, "port")
			}
			if n <= maxPort {
				n = n*10 + int(c-'0')
			}
		}
		if len(r.RawPort) > 0 {
			r.Port = min(n, maxPort+1)
		}
	}
	return pct, nil
}

// lowerScheme returns the scheme in lower case, without allocating for the
// schemes urlget knows or for schemes already in lower case.
func lowerScheme(s string) string {
	lower := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			lower = false
			break
		}
	}
	if lower {
		return s
	}
	for _, k := range knownSchemes {
		if strings.EqualFold(s, k) {
			return k
		}
	}
	return strings.ToLower(s)
}

var knownSchemes = [...]string{"http", "https", "ftp", "gopher", "gophers", "mailto", "news", "nntp", "nntps", "telnet", "wais", "file", "prospero"}

// maxPort is the largest TCP port.
const maxPort = 65535

// IsIPv4Address reports whether s matches RFC 3986's IPv4address.
func IsIPv4Address(s string) bool { return isIPv4(s) }

// IsIPv6Address reports whether s matches RFC 3986's IPv6address.
func IsIPv6Address(s string) bool { return checkIPv6(s) < 0 }

// isIPv4 reports whether h matches IPv4address (dec-octets without leading zeros).
func isIPv4(h string) bool {
	dots, n, digits := 0, 0, 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c >= '0' && c <= '9':
			if digits == 1 && n == 0 {
				return false // leading zero
			}
			n = n*10 + int(c-'0')
			digits++
			if n > 255 {
				return false
			}
		case c == '.':
			if digits == 0 {
				return false
			}
			dots++
			n, digits = 0, 0
		default:
			return false
		}
	}
	return dots == 3 && digits > 0
}

// checkIPv6 validates an IPv6address (RFC 3986 §3.2.2); it returns the offset
// of the first problem within s, or -1.
func checkIPv6(s string) int {
	groups := 0
	double := false
	i := 0
	if len(s) == 0 {
		return 0
	}
	if s[0] == ':' {
		if len(s) < 2 || s[1] != ':' {
			return 0
		}
		double = true
		i = 2
		if i == len(s) {
			return -1
		}
	}
	for i < len(s) {
		// one h16, or an IPv4address as the last 32 bits
		j := i
		for j < len(s) && j-i < 5 && isHex(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '.' {
			// the rest must be an IPv4address
			if !isIPv4(s[i:]) {
				return i
			}
			groups += 2
			i = len(s)
			break
		}
		if j == i || j-i > 4 {
			return i
		}
		groups++
		i = j
		if i == len(s) {
			break
		}
		if s[i] != ':' {
			return i
		}
		i++
		if i < len(s) && s[i] == ':' {
			if double {
				return i
			}
			double = true
			i++
			if i == len(s) {
				break
			}
		} else if i == len(s) {
			return i - 1 // trailing single ':'
		}
	}
	if double {
		if groups > 7 {
			return len(s) - 1
		}
	} else if groups != 8 {
		return len(s) - 1
	}
	return -1
}

// checkIPvFuture validates "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
func checkIPvFuture(s string) int {
	i := 1
	for i < len(s) && isHex(s[i]) {
		i++
	}
	if i == 1 || i >= len(s) || s[i] != '.' {
		return i
	}
	i++
	if i == len(s) {
		return i - 1
	}
	for ; i < len(s); i++ {
		if c := s[i]; class[c]&(cUnreserved|cSubDelim) == 0 && c != ':' {
			return i
		}
	}
	return -1
}

// decode fills the decoded fields. Components without '%' share the input's
// bytes; the others are decoded into one buffer allocated once.
func (r *Ref) decode(pct bool) {
	user, pass := r.RawUserinfo, ""
	if k := strings.IndexByte(user, ':'); k >= 0 {
		r.HasPassword = true
		user, pass = user[:k], user[k+1:]
	}
	host := r.RawHost
	if r.HostKind == HostIPv6 || r.HostKind == HostIPvFuture {
		host = host[1 : len(host)-1]
	}
	if !pct {
		r.User, r.Password, r.Host = user, pass, host
		r.Path, r.Query, r.Fragment = r.RawPath, r.RawQuery, r.RawFragment
		return
	}
	var d decoder
	d.init(len(user) + len(pass) + len(host) + len(r.RawPath) + len(r.RawQuery) + len(r.RawFragment))
	r.User = d.add(user)
	r.Password = d.add(pass)
	r.Host = d.add(host)
	r.Path = d.add(r.RawPath)
	r.Query = d.add(r.RawQuery)
	r.Fragment = d.add(r.RawFragment)
}

// decoder percent-decodes several strings into one allocation. Strings with
// no '%' are returned unchanged and cost nothing.
type decoder struct {
	buf []byte
}

func (d *decoder) init(n int) { d.buf = make([]byte, 0, n) }

// add decodes s, which must already be known to hold only valid escapes.
func (d *decoder) add(s string) string {
	k := strings.IndexByte(s, '%')
	if k < 0 {
		return s
	}
	if d.buf == nil {
		d.buf = make([]byte, 0, len(s))
	}
	start := len(d.buf)
	d.buf = append(d.buf, s[:k]...)
	for i := k; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
		}
		d.buf = append(d.buf, c)
	}
	// The buffer's capacity was reserved up front, so later appends never
	// move bytes that earlier strings point at.
	return bytesString(d.buf[start:])
}

// Unescape percent-decodes s; malformed escapes are left as they are.
func Unescape(s string) string {
	var d decoder
	return d.add(s)
}

// String recomposes the reference from its raw components (RFC 3986 §5.3):
// the bytes of the input come back unchanged.
func (r *Ref) String() string {
	var b strings.Builder
	b.Grow(len(r.RawScheme) + len(r.RawUserinfo) + len(r.RawHost) + len(r.RawPort) + len(r.RawPath) + len(r.RawQuery) + len(r.RawFragment) + 8)
	r.writeTo(&b)
	return b.String()
}

func (r *Ref) writeTo(b *strings.Builder) {
	if r.RawScheme != "" {
		b.WriteString(r.RawScheme)
		b.WriteByte(':')
	}
	if r.HasAuth {
		b.WriteString("//")
		r.writeAuthority(b)
	}
	b.WriteString(r.RawPath)
	if r.HasQuery {
		b.WriteByte('?')
		b.WriteString(r.RawQuery)
	}
	if r.HasFragment {
		b.WriteByte('#')
		b.WriteString(r.RawFragment)
	}
}

func (r *Ref) writeAuthority(b *strings.Builder) {
	if r.HasUserinfo {
		b.WriteString(r.RawUserinfo)
		b.WriteByte('@')
	}
	b.WriteString(r.RawHost)
	if r.HasPort {
		b.WriteByte(':')
		b.WriteString(r.RawPort)
	}
}

// Authority returns the raw authority component (without "//").
func (r *Ref) Authority() string {
	var b strings.Builder
	r.writeAuthority(&b)
	return b.String()
}

// IsAbsolute reports whether the reference has a scheme.
func (r *Ref) IsAbsolute() bool { return r.RawScheme != "" }
