// Package urlglob expands URL globs as curl does: one command-line argument
// such as
//
//	http://example.com/archive[1996-1999]/vol[1-4]/part{a,b,c}.html
//
// stands for many URLs. The forms, as curl 7.88 reads them:
//
//	{a,b,c}      each element in turn; "\" takes the next character as it is
//	             (so "\," and "\}" are an element's own), an empty element
//	             is allowed but for "{}"
//	[1-100]      the numbers; a first number written with a leading zero
//	             pads every number to its width: [001-100] gives 001 … 100
//	[1-100:10]   every 10th: 1, 11, … 91
//	[a-z]        the letters (any two bytes, the first a letter, at most 25
//	             apart); [a-z:2] every second
//	\{ \[ \} \]  the character itself, outside a pattern
//	[::1]  []    left as they are: an IPv6 address, or an empty pair
//
// Several patterns give every combination, the rightmost changing fastest.
// Glob.All gives them one at a time, so that a glob of a billion URLs takes
// no more memory than one of two. Match.Expand fills an output name
// template: "#1" is the current value of the first pattern, "#2" of the
// second, …; a "#" followed by any other number stays as it is.
//
// A malformed glob is an *Error naming curl's reason and the 1-based
// position curl names (curl exits 3 with it). The positions are curl's,
// including its quirks: a "}" that closes a set is not counted, nor are the
// bytes of an IPv6 address or a "[]" kept as they are.
//
// It is a package of its own, outside the CLI, because a program that
// takes URLs in curl's form (a mirroring job list, a test harness) needs
// the same expansion; and outside fetch and urlparse, because a glob is not
// a URL but a way of writing many: nothing here knows a scheme.
package urlglob

import (
	"iter"
	"net"
	"strconv"
	"strings"
)

// MaxPatterns is curl's bound on the parts of a glob (patterns and the
// literal text between them): a glob with more is "too many globs".
const MaxPatterns = 100

// An Error says why a glob is malformed, as curl does: Reason is curl's
// text ("bad range", "unmatched brace", …), Pos the 1-based position in
// Glob curl reports (0 when curl names none).
type Error struct {
	Reason string
	Pos    int
	Glob   string
}

func (e *Error) Error() string {
	if e.Pos == 0 {
		return e.Reason
	}
	return e.Reason + " in URL position " + strconv.Itoa(e.Pos)
}

// Caret is the glob and, under it, a "^" at the position: the two lines
// curl prints after the message.
func (e *Error) Caret() string {
	if e.Pos == 0 {
		return e.Glob
	}
	return e.Glob + "\n" + strings.Repeat(" ", e.Pos-1) + "^"
}

// A Glob is a parsed glob.
type Glob struct {
	parts []part
	globs int    // patterns that are not literal text: #1 … #globs
	count uint64 // URLs it gives
}

// part is literal text (one element), a set, or a range.
type part struct {
	kind  byte     // 'f' literal, 's' set, 'n' numbers, 'a' letters
	elems []string // literal, set
	min   uint64   // numbers, letters
	step  uint64
	n     uint64 // values in the range
	pad   int    // numbers: width
}

func (p *part) size() uint64 {
	if p.kind == 'f' || p.kind == 's' {
		return uint64(len(p.elems))
	}
	return p.n
}

// value is the i-th value of the part.
func (p *part) value(i uint64) string {
	switch p.kind {
	case 'n':
		s := strconv.FormatUint(p.min+i*p.step, 10)
		if len(s) < p.pad {
			s = strings.Repeat("0", p.pad-len(s)) + s
		}
		return s
	case 'a':
		return string(rune(byte(p.min + i*p.step)))
	}
	return p.elems[i]
}

// Parse reads a glob. max, when over 0, bounds the number of URLs it may
// give: more is an *Error. Without it the bound is curl's: the count
// fitting in 64 bits ("range overflow").
func Parse(glob string, max uint64) (*Glob, error) {
	p := parser{s: glob, pos: 1, g: &Glob{count: 1}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if max > 0 && p.g.count > max {
		return nil, &Error{Reason: "the glob gives " + strconv.FormatUint(p.g.count, 10) + " URLs, over the limit of " + strconv.FormatUint(max, 10), Glob: glob}
	}
	return p.g, nil
}

// Escape writes s so that Parse reads it back as one URL, s itself: a
// backslash before every "{", "[", "}" and "]" (what curl's -g does for a
// single URL).
func Escape(s string) string {
	if !strings.ContainsAny(s, "{[]}") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte("{[]}", s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Len is the number of URLs the glob gives.
func (g *Glob) Len() uint64 { return g.count }

// Patterns is the number of patterns ({…} and […]): the #N an output name
// template may use.
func (g *Glob) Patterns() int { return g.globs }

// A Match is one URL of a glob, with the values its patterns took.
type Match struct {
	URL    string
	Values []string // Values[0] is #1
}

// Expand fills template as curl fills an -o name: "#N", N one of the
// glob's patterns (1 … Patterns), becomes that pattern's value; a "#" not
// followed by such a number is kept.
func (m Match) Expand(template string) string {
	if !strings.Contains(template, "#") {
		return template
	}
	var b strings.Builder
	for i := 0; i < len(template); {
		c := template[i]
		if c == '#' && i+1 < len(template) && isDigit(template[i+1]) {
			j := i + 1
			for j < len(template) && isDigit(template[j]) {
				j++
			}
			if n, err := strconv.Atoi(template[i+1 : j]); err == nil && n >= 1 && n <= len(m.Values) {
				b.WriteString(m.Values[n-1])
				i = j
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// All gives the URLs in curl's order: every combination of the patterns'
// values, the rightmost pattern changing fastest. Each Match is new: it
// may be kept.
func (g *Glob) All() iter.Seq[Match] {
	return func(yield func(Match) bool) {
		idx := make([]uint64, len(g.parts))
		size := 0
		for {
			var b strings.Builder
			b.Grow(size)
			values := make([]string, 0, g.globs)
			for i := range g.parts {
				p := &g.parts[i]
				v := p.value(idx[i])
				b.WriteString(v)
				if p.kind != 'f' {
					values = append(values, v)
				}
			}
			size = b.Len() + 8
			if !yield(Match{URL: b.String(), Values: values}) {
				return
			}
			i := len(idx) - 1
			for ; i >= 0; i-- {
				if idx[i]++; idx[i] < g.parts[i].size() {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				return
			}
		}
	}
}

// parser follows curl's glob_parse, glob_set and glob_range (curl 7.88),
// position counting included.
type parser struct {
	s   string
	i   int // next byte of s
	pos int // curl's position
	g   *Glob
	lit []byte
}

func (p *parser) fail(reason string, pos int) error {
	return &Error{Reason: reason, Pos: pos, Glob: p.s}
}

func (p *parser) add(pt part) error {
	p.g.parts = append(p.g.parts, pt)
	if len(p.g.parts) >= MaxPatterns {
		return p.fail("too many globs", p.pos)
	}
	return nil
}

// multiply counts a pattern's values into the total.
func (p *parser) multiply(n uint64, pos int) error {
	if n != 0 && p.g.count > (1<<64-1)/n {
		return p.fail("range overflow", pos)
	}
	p.g.count *= n
	return nil
}

func (p *parser) parse() error {
	s := p.s
	for p.i < len(s) {
		p.lit = p.lit[:0]
		for p.i < len(s) && s[p.i] != '{' {
			c := s[p.i]
			if c == '[' {
				if skip := literalBrackets(s[p.i:]); skip > 0 {
					// curl copies these without counting them.
					p.lit = append(p.lit, s[p.i:p.i+skip]...)
					p.i += skip
					continue
				}
				break
			}
			if c == '}' || c == ']' {
				return p.fail("unmatched close brace/bracket", p.pos)
			}
			if c == '\\' && p.i+1 < len(s) && strings.IndexByte("{[}]", s[p.i+1]) >= 0 {
				p.i++
				p.pos++
			}
			p.lit = append(p.lit, s[p.i])
			p.i++
			p.pos++
		}
		if len(p.lit) > 0 {
			if err := p.add(part{kind: 'f', elems: []string{string(p.lit)}}); err != nil {
				return err
			}
			continue
		}
		if p.i >= len(s) {
			break
		}
		open := s[p.i]
		p.i++
		p.pos++
		var pt part
		var err error
		if open == '{' {
			pt, err = p.set()
		} else {
			pt, err = p.rangePattern()
		}
		if err != nil {
			return err
		}
		p.g.globs++
		if err := p.add(pt); err != nil {
			return err
		}
	}
	return nil
}

// literalBrackets is how many bytes at the start of s, which starts with
// "[", curl keeps as they are: an IPv6 address in brackets, or "[]".
func literalBrackets(s string) int {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return 0
	}
	addr := s[1:end]
	if zone := strings.Index(addr, "%25"); zone >= 0 {
		addr = addr[:zone]
	}
	if strings.Contains(addr, ":") && net.ParseIP(addr) != nil {
		return end + 1
	}
	if end == 1 {
		return 2
	}
	return 0
}

// set reads a {…} set, the "{" read.
func (p *parser) set() (part, error) {
	s := p.s
	open := p.pos - 1 // curl names the "{" when the set is not closed
	start := p.i
	pt := part{kind: 's'}
	var elem []byte
	for {
		if p.i >= len(s) {
			return pt, p.fail("unmatched brace", open)
		}
		switch c := s[p.i]; c {
		case '{', '[':
			return pt, p.fail("nested brace", p.pos)
		case ']':
			return pt, p.fail("unexpected close bracket", p.pos)
		case '}', ',':
			if c == '}' && p.i == start {
				return pt, p.fail("empty string within braces", p.pos)
			}
			pt.elems = append(pt.elems, string(elem))
			elem = elem[:0]
			p.i++
			if c == '}' {
				// curl does not count the closing brace.
				return pt, p.multiply(uint64(len(pt.elems)), 0)
			}
			p.pos++
		default:
			if c == '\\' && p.i+1 < len(s) {
				p.i++
				p.pos++
			}
			elem = append(elem, s[p.i])
			p.i++
			p.pos++
		}
	}
}

// rangePattern reads a […] range, the "[" read.
func (p *parser) rangePattern() (part, error) {
	s := p.s
	begin := p.i
	switch {
	case p.i < len(s) && isAlpha(s[p.i]):
		return p.letters()
	case p.i < len(s) && isDigit(s[p.i]):
		return p.numbers()
	}
	return part{}, p.fail("bad range specification", p.pos+(p.i-begin))
}

// letters reads "X-Y]" or "X-Y:STEP]".
func (p *parser) letters() (part, error) {
	s, begin := p.s, p.i
	ok := p.i+3 < len(s) && s[p.i+1] == '-'
	var lo, hi byte
	step := uint64(1)
	if ok {
		lo, hi = s[p.i], s[p.i+2]
		switch s[p.i+3] {
		case ':':
			n, j, good := strtoul(s, p.i+4)
			if !good || j == p.i+4 || j >= len(s) || s[j] != ']' {
				step = 0
			} else {
				step, p.i = n, j+1
			}
		case ']':
			p.i += 4
		default:
			ok = false
		}
	}
	p.pos += p.i - begin
	if !ok || step == 0 || step > 1<<31-1 || (lo == hi && step != 1) ||
		(lo != hi && (lo > hi || step > uint64(hi-lo) || hi-lo > 'z'-'a')) {
		return part{}, p.fail("bad range", p.pos)
	}
	pt := part{kind: 'a', min: uint64(lo), step: step, n: uint64(hi-lo)/step + 1}
	return pt, p.multiply(pt.n, p.pos)
}

// numbers reads "M-N]" or "M-N:STEP]", blanks allowed after "-".
func (p *parser) numbers() (part, error) {
	s, begin := p.s, p.i
	pad := 0
	if s[p.i] == '0' {
		for j := p.i; j < len(s) && isDigit(s[j]); j++ {
			pad++
		}
	}
	var hi, step uint64
	ok := false
	lo, j, good := strtoul(s, p.i)
	if good && j < len(s) && s[j] == '-' {
		p.i = j + 1
		for p.i < len(s) && (s[p.i] == ' ' || s[p.i] == '\t') {
			p.i++
		}
		if p.i < len(s) && isDigit(s[p.i]) {
			if hi, j, ok = strtoul(s, p.i); ok {
				step = 1
				if j < len(s) && s[j] == ':' {
					p.i = j + 1
					step, j, ok = strtoul(s, p.i)
				}
				if ok = ok && j < len(s) && s[j] == ']'; ok {
					p.i = j + 1
				}
			}
		}
	}
	p.pos += p.i - begin
	if !ok || step == 0 || (lo == hi && step != 1) || (lo != hi && (lo > hi || step > hi-lo)) {
		return part{}, p.fail("bad range", p.pos)
	}
	pt := part{kind: 'n', min: lo, step: step, n: (hi-lo)/step + 1, pad: pad}
	if pt.n == 0 {
		// 0 … 2^64-1 by 1: more values than 64 bits count. curl 7.88
		// takes it as none; it is refused here.
		return part{}, p.fail("range overflow", p.pos)
	}
	return pt, p.multiply(pt.n, p.pos)
}

// strtoul reads an unsigned decimal number at s[i:] as C's strtoul does:
// leading white space and a "+" allowed, "-" giving a number past every
// bound here; no digits at all is 0 with j = i; good is false only when
// the number overflows. j is where the number ends.
func strtoul(s string, i int) (n uint64, j int, good bool) {
	j = i
	for j < len(s) && (s[j] == ' ' || s[j] >= '\t' && s[j] <= '\r') {
		j++
	}
	neg := false
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		neg = s[j] == '-'
		j++
	}
	d := j
	for j < len(s) && isDigit(s[j]) {
		if n > (1<<64-1-uint64(s[j]-'0'))/10 {
			return 0, j, false
		}
		n = n*10 + uint64(s[j]-'0')
		j++
	}
	if j == d {
		return 0, i, true
	}
	if neg && n != 0 {
		n = 1<<64 - 1
	}
	return n, j, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
