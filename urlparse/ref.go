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
// component contains a percent sign (or the scheme is an unknown one written
// in upper case), and then only once.
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
//
// The two layers give two verdicts. With Scheme empty, Input is not a URI
// reference at all (RFC 3986, or RFC 3987 for the IRI parsers). With Scheme
// set, Input is a valid URI and only the rules of that scheme refuse it (an
// http URL without "//" and a host, a port over 65535, an ftp ;type=x):
// Parse then returns the generic components (URL.Ref) beside the error.
type Error struct {
	Input  string // the whole input
	Offset int    // byte offset into Input
	Rule   string // ABNF rule or scheme syntax that was broken
	Msg    string // what was wrong, in words
	Scheme string // lower-case scheme whose own syntax was broken; "" for the generic grammar
}

func (e *Error) Error() string {
	what := "malformed URL "
	if e.Scheme != "" {
		what = "not a valid " + e.Scheme + " URL "
	}
	return what + strconv.Quote(e.Input) + " at byte " + strconv.Itoa(e.Offset) +
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
func ParseRef(s string) (r Ref, err error) {
	if err = r.parse(s, false); err != nil {
		return Ref{}, err
	}
	return r, nil
}

// ParseAbsolute parses s as an RFC 3986 URI: a scheme is required.
func ParseAbsolute(s string) (r Ref, err error) {
	if err = r.parse(s, true); err != nil {
		return Ref{}, err
	}
	return r, nil
}

// noScheme is the error for input that does not start with scheme ":";
// j is the offset of the first byte that cannot continue a scheme (the end
// of the input when the scheme runs to the end).
func noScheme(s string, j int) *Error {
	return errAt(s, j, "scheme", "no scheme (a URL starts with a scheme name and ':', as in http: or ftp:)")
}

// scan checks s from offset k against the class mask, allowing pct-encoded
// octets, and stops at the first byte that is neither (or at the end). It
// returns that offset, the offset of the byte that spoils a pct-encoded
// octet there (or -1), and whether a '%' was seen.
func scan(s string, k int, mask uint16) (stop, badPct int, pct bool) {
	for k < len(s) {
		// eight, then four bytes a step while all are in the class (mask
		// is one class bit), then one at a time up to the byte that is not
		t := s[k:]
		for len(t) >= 8 && class[t[0]]&class[t[1]]&class[t[2]]&class[t[3]]&
			class[t[4]]&class[t[5]]&class[t[6]]&class[t[7]]&mask != 0 {
			t = t[8:]
		}
		if len(t) >= 4 && class[t[0]]&class[t[1]]&class[t[2]]&class[t[3]]&mask != 0 {
			t = t[4:]
		}
		for len(t) > 0 && class[t[0]]&mask != 0 {
			t = t[1:]
		}
		k = len(s) - len(t)
		if len(t) == 0 || t[0] != '%' {
			break
		}
		if len(t) < 3 || class[t[1]]&class[t[2]]&cHex == 0 {
			return k, pctBad(s, k), pct
		}
		pct = true
		k += 3
	}
	return k, -1, pct
}

// scanPct checks s[i:j] against the class mask, allowing pct-encoded octets.
// It returns the offset of the first bad byte or -1, whether that byte
// spoils a pct-encoded octet, and whether a '%' was seen.
func scanPct(s string, i, j int, mask uint16) (bad int, badPct, pct bool) {
	k, bp, pct := scan(s[:j], i, mask)
	switch {
	case bp >= 0:
		return bp, true, pct
	case k < j:
		return k, false, pct
	}
	return -1, false, pct
}

// pctBad checks the pct-encoded octet whose '%' is at s[i]. It returns -1
// when two hex digits follow, or else the offset of the first byte that is
// not one (len(s) when s stops short): that byte, not the '%', is where the
// input goes wrong.
func pctBad(s string, i int) int {
	for k := i + 1; k <= i+2; k++ {
		if k >= len(s) || !isHex(s[k]) {
			return k
		}
	}
	return -1
}

// pctErr reports a '%' at s[i] not followed by two hex digits, at offset
// off (pctBad's answer).
func pctErr(s string, off int, rule string) *Error {
	return errAt(s, off, rule, "bad percent-encoding ('%' must be followed by two hex digits)")
}

// componentErr reports the bad byte scanPct found.
func componentErr(s string, off int, badPct bool, rule string) *Error {
	if badPct {
		return pctErr(s, off, rule)
	}
	return badByte(s, off, rule)
}

// Bits saying which fields decode must compute into its buffer: the
// components that hold a '%', and the scheme when it is an unknown one
// written with upper case.
const (
	decScheme uint8 = 1 << iota
	decUserinfo
	decHost
	decPath
	decQuery
	decFragment
)

// parse splits and checks s in one pass from left to right. The components
// are delimited as RFC 3986 §3 and appendix B delimit them (the authority
// runs to the first "/", "?" or "#", the path to the first "?" or "#", the
// query to the first "#"), and the error is the first bad byte of the first
// bad component. With abs, a scheme is required.
func (r *Ref) parse(s string, abs bool) error {
	r.Port = -1
	var dec uint8
	// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"; the union
	// of the classes of its bytes says whether it holds upper case.
	i, j, cl := 0, 0, uint16(0)
	if len(s) > 0 && class[s[0]]&cAlpha != 0 {
		for j, cl = 1, class[s[0]]; j < len(s) && class[s[j]]&cSchemeRest != 0; j++ {
			cl |= class[s[j]]
		}
	}
	if j > 0 && j < len(s) && s[j] == ':' {
		r.RawScheme = s[:j]
		r.Scheme = r.RawScheme
		if cl&cUpper != 0 {
			if r.Scheme = knownScheme(r.RawScheme); r.Scheme == "" {
				dec |= decScheme
			}
		}
		i = j + 1
	} else if abs {
		return noScheme(s, j)
	}
	if len(s)-i >= 2 && s[i] == '/' && s[i+1] == '/' {
		r.HasAuth = true
		b, p, err := r.parseAuthority(s, i+2)
		if err != nil {
			return err
		}
		dec |= p
		i = b
	}
	// path: pchar and "/"; a relative reference's first segment may not
	// hold ':' (path-noscheme).
	k, bad, p := i, -1, false
	if r.RawScheme == "" && !r.HasAuth {
		if k, bad, p = scan(s, k, cSegmentNC); bad < 0 && k < len(s) && s[k] == ':' {
			return colonErr(s, k)
		}
	}
	if bad < 0 {
		var p2 bool
		k, bad, p2 = scan(s, k, cPath)
		p = p || p2
	}
	if bad >= 0 {
		return pctErr(s, bad, "path")
	}
	if p {
		dec |= decPath
	}
	r.RawPath = s[i:k]
	if k < len(s) && s[k] == '?' {
		q := k + 1
		if k, bad, p = scan(s, q, cQuery); bad >= 0 {
			return pctErr(s, bad, "query")
		}
		if p {
			dec |= decQuery
		}
		r.HasQuery = true
		r.RawQuery = s[q:k]
	}
	if k < len(s) && s[k] == '#' {
		f := k + 1
		if k, bad, p = scan(s, f, cQuery); bad >= 0 {
			return pctErr(s, bad, "fragment")
		}
		if p {
			dec |= decFragment
		}
		r.HasFragment = true
		r.RawFragment = s[f:k]
	}
	if k < len(s) {
		rule := "path"
		switch {
		case r.HasFragment:
			rule = "fragment"
		case r.HasQuery:
			rule = "query"
		}
		return badByte(s, k, rule)
	}
	r.decode(dec)
	return nil
}

// colonErr reports the ':' at s[k] in the first segment of a relative
// reference. When all before it could be a scheme but for its first byte
// ("3ttp:"), that first byte is the one to blame.
func colonErr(s string, k int) *Error {
	if k > 0 {
		j := 0
		for j < k && class[s[j]]&cSchemeRest != 0 {
			j++
		}
		if j == k {
			return errAt(s, 0, "scheme", "a scheme must start with a letter")
		}
	}
	return errAt(s, k, "path-noscheme", "':' in the first segment of a relative reference (a scheme must start with a letter and hold only letters, digits, '+', '-', '.')")
}

// parseAuthority parses the authority that starts at s[a] and runs to the
// first "/", "?" or "#" (or the end), and returns that end:
// authority = [ userinfo "@" ] host [ ":" port ].
func (r *Ref) parseAuthority(s string, a int) (b int, dec uint8, err error) {
	// The common authority, a reg-name or IPv4 host with an optional port,
	// is checked in one scan; anything else (userinfo, an IP-literal, a bad
	// byte) is taken apart below.
	h, bad, p := scan(s, a, cRegName)
	b = h
	if bad < 0 && b < len(s) && s[b] == ':' {
		b++
		for b < len(s) && s[b]-'0' <= 9 {
			b++
		}
	}
	if bad < 0 && (b == len(s) || s[b] == '/' || s[b] == '?' || s[b] == '#') {
		if p {
			dec = decHost
		}
		return b, dec, r.setHostPort(s, a, h, b)
	}
	for b < len(s) && s[b] != '/' && s[b] != '?' && s[b] != '#' {
		b++
	}
	h = a
	if k := strings.IndexByte(s[a:b], '@'); k >= 0 {
		r.HasUserinfo = true
		r.RawUserinfo = s[a : a+k]
		// userinfo = *( unreserved / pct-encoded / sub-delims / ":" ): that is
		// pchar less "@", and it ends at the first "@".
		bad, badPct, p := scanPct(s, a, a+k, cPchar)
		if bad >= 0 {
			return b, 0, componentErr(s, bad, badPct, "userinfo")
		}
		if p {
			dec = decUserinfo
		}
		h = a + k + 1
	}
	if h < b && s[h] == '[' {
		k := strings.IndexByte(s[h:b], ']')
		if k < 0 {
			// reported where the ']' should have been
			return b, 0, errAt(s, b, "IP-literal", "'[' without closing ']'")
		}
		lit := s[h+1 : h+k]
		if len(lit) > 0 && (lit[0] == 'v' || lit[0] == 'V') {
			if off := checkIPvFuture(lit); off >= 0 {
				return b, 0, errAt(s, h+1+off, "IPvFuture", "malformed IPvFuture literal")
			}
			r.HostKind = HostIPvFuture
		} else {
			if off := checkIPv6(lit); off >= 0 {
				return b, 0, errAt(s, h+1+off, "IPv6address", "malformed IPv6 address")
			}
			r.HostKind = HostIPv6
		}
		hostEnd := h + k + 1
		if hostEnd < b && s[hostEnd] != ':' {
			return b, 0, badByte(s, hostEnd, "authority")
		}
		r.RawHost = s[h:hostEnd]
		return b, dec, r.setPort(s, hostEnd, b)
	}
	hostEnd := b
	if k := strings.IndexByte(s[h:b], ':'); k >= 0 {
		hostEnd = h + k
	}
	bad, badPct, p := scanPct(s, h, hostEnd, cRegName)
	if bad >= 0 {
		return b, 0, componentErr(s, bad, badPct, "host")
	}
	if p {
		dec |= decHost
	}
	return b, dec, r.setHostPort(s, h, hostEnd, b)
}

// setHostPort sets the reg-name or IPv4address host s[h:hostEnd], which
// holds only unreserved characters, sub-delims and pct-encoded octets, and
// the port s[hostEnd+1:b] when s[hostEnd] is ':' (hostEnd < b).
func (r *Ref) setHostPort(s string, h, hostEnd, b int) error {
	r.RawHost = s[h:hostEnd]
	r.HostKind = HostRegName
	if hostEnd > h && s[h]-'0' <= 9 && isIPv4(r.RawHost) {
		r.HostKind = HostIPv4
	}
	return r.setPort(s, hostEnd, b)
}

// setPort sets the port s[hostEnd+1:b] when s[hostEnd] is the ':' that
// starts one (hostEnd < b).
func (r *Ref) setPort(s string, hostEnd, b int) error {
	if hostEnd == b {
		return nil
	}
	r.HasPort = true
	r.RawPort = s[hostEnd+1 : b]
	// port = *DIGIT: any number of digits is grammatical; a number too
	// large for TCP is refused by Parse, not here.
	n := 0
	for k := hostEnd + 1; k < b; k++ {
		c := s[k]
		if c < '0' || c > '9' {
			return badByte(s, k, "port")
		}
		if n <= maxPort {
			n = n*10 + int(c-'0')
		}
	}
	if len(r.RawPort) > 0 {
		r.Port = min(n, maxPort+1)
	}
	return nil
}

// knownScheme returns the lower-case name of a scheme urlget finds in text
// (schemeDef.inText) written in any case, or "".
func knownScheme(s string) string {
	for k, d := range schemeDefs {
		if d.inText && strings.EqualFold(s, k) {
			return k
		}
	}
	return ""
}

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
// within s of the first byte that cannot be part of one (len(s) when s stops
// short), or -1.
func checkIPv6(s string) int {
	if len(s) == 0 {
		return 0
	}
	groups := 0 // h16 groups so far; an IPv4address counts as two
	double := false
	i := 0
	if s[0] == ':' {
		if len(s) < 2 || s[1] != ':' {
			return 0 // a single leading ':'
		}
		double, i = true, 2
		if i == len(s) {
			return -1 // "::"
		}
	}
	for {
		// one h16, or an IPv4address as the last 32 bits
		j := i
		for j < len(s) && isHex(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '.' {
			if !isIPv4(s[i:]) || groups+2 > 8 || double && groups+2 > 7 {
				return i
			}
			groups += 2
			break
		}
		switch {
		case j == i:
			return i // a group must start here
		case j-i > 4:
			return i + 4 // an h16 has at most four digits
		}
		groups++
		if groups > 8 || double && groups > 7 {
			return i // one group too many
		}
		if j == len(s) {
			break
		}
		if s[j] != ':' {
			return j
		}
		i = j + 1
		if i == len(s) {
			return i // a single trailing ':'
		}
		if s[i] == ':' {
			if double || groups > 7 {
				return i // a second "::", or "::" after eight groups
			}
			double = true
			i++
			if i == len(s) {
				break
			}
		}
	}
	if !double && groups != 8 {
		return len(s) // too few groups
	}
	return -1
}

// checkIPvFuture validates "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" );
// it returns the offset of the first bad byte (len(s) when s stops short), or -1.
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
		return i
	}
	for ; i < len(s); i++ {
		if c := s[i]; class[c]&(cUnreserved|cSubDelim) == 0 && c != ':' {
			return i
		}
	}
	return -1
}

// decode fills the decoded fields and Scheme. Fields that need no work
// share the input's bytes; the others (those dec names) are computed into
// one buffer allocated once.
func (r *Ref) decode(dec uint8) {
	user, pass := r.RawUserinfo, ""
	if user != "" {
		if k := strings.IndexByte(user, ':'); k >= 0 {
			r.HasPassword = true
			user, pass = user[:k], user[k+1:]
		}
	}
	host := r.RawHost
	if r.HostKind == HostIPv6 || r.HostKind == HostIPvFuture {
		host = host[1 : len(host)-1]
	}
	r.User, r.Password, r.Host = user, pass, host
	r.Path, r.Query, r.Fragment = r.RawPath, r.RawQuery, r.RawFragment
	if dec == 0 {
		return
	}
	n := len(r.RawScheme) + len(r.RawPath) + len(r.RawQuery) + len(r.RawFragment)
	if dec&(decUserinfo|decHost) != 0 {
		n += len(r.RawUserinfo) + len(host)
	}
	var d decoder
	d.init(n) // at most this long: cheaper to add up than to trim
	if dec&decScheme != 0 {
		r.Scheme = d.lower(r.RawScheme)
	}
	if dec&decUserinfo != 0 {
		r.User, r.Password = d.add(user), d.add(pass)
	}
	if dec&decHost != 0 {
		r.Host = d.add(host)
	}
	if dec&decPath != 0 {
		r.Path = d.add(r.RawPath)
	}
	if dec&decQuery != 0 {
		r.Query = d.add(r.RawQuery)
	}
	if dec&decFragment != 0 {
		r.Fragment = d.add(r.RawFragment)
	}
}

// decodeMask says which raw components hold a '%'.
func (r *Ref) decodeMask() uint8 {
	var m uint8
	for _, c := range [...]struct {
		bit uint8
		s   string
	}{{decUserinfo, r.RawUserinfo}, {decHost, r.RawHost}, {decPath, r.RawPath}, {decQuery, r.RawQuery}, {decFragment, r.RawFragment}} {
		if strings.IndexByte(c.s, '%') >= 0 {
			m |= c.bit
		}
	}
	return m
}

// decoder percent-decodes several strings into one allocation. Strings with
// no '%' are returned unchanged and cost nothing.
type decoder struct {
	buf []byte
}

func (d *decoder) init(n int) { d.buf = make([]byte, 0, n) }

// add decodes s; malformed escapes are copied as they are.
func (d *decoder) add(s string) string {
	k := strings.IndexByte(s, '%')
	if k < 0 {
		return s
	}
	if d.buf == nil {
		d.buf = make([]byte, 0, len(s))
	}
	start := len(d.buf)
	for k >= 0 {
		d.buf = append(d.buf, s[:k]...)
		if k+2 < len(s) && isHex(s[k+1]) && isHex(s[k+2]) {
			d.buf = append(d.buf, unhex(s[k+1])<<4|unhex(s[k+2]))
			s = s[k+3:]
		} else {
			d.buf = append(d.buf, '%')
			s = s[k+1:]
		}
		k = strings.IndexByte(s, '%')
	}
	d.buf = append(d.buf, s...)
	// The buffer's capacity was reserved up front, so later appends never
	// move bytes that earlier strings point at.
	return bytesString(d.buf[start:])
}

// lower adds s in lower case.
func (d *decoder) lower(s string) string {
	start := len(d.buf)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c-'A' < 26 {
			c += 'a' - 'A'
		}
		d.buf = append(d.buf, c)
	}
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
