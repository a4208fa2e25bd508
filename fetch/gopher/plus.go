package gopher

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// Header is the first line of a Gopher+ reply (Gopher+ §2.3):
//
//	+5340   success, exactly 5340 bytes follow
//	+-1     success, data ends with a "." line
//	+-2     success, data ends when the server closes the connection
//	--1     failure, the error text ends with a "." line (also -N, --2)
type Header struct {
	OK     bool  // '+' (success) or '-' (error)
	Length int64 // >= 0: exact length; -1: dot-terminated; -2: until close
	// Text is what follows the length on an error header ("-1 Item is not
	// available", as UMN gopherd writes them); "" otherwise.
	Text string
}

// Gopher+ transfer lengths that are not byte counts.
const (
	LengthDot   = -1 // data ends with a "." line
	LengthClose = -2 // data ends when the connection closes
)

// maxHeader bounds a Gopher+ header line: a sign, a 19-digit count and CRLF
// fit many times over; an error header may carry a short text.
const maxHeader = 512

// ParseHeader parses a Gopher+ reply header line (with or without its line
// end). It reports false for anything else: a plain gopher reply begins
// with data instead, which is how a server without Gopher+ (gophernicus
// answers "+" with the bare document) is recognised.
func ParseHeader(line []byte) (Header, bool) {
	line = trimEOL(line)
	if len(line) < 2 || (line[0] != '+' && line[0] != '-') {
		return Header{}, false
	}
	h := Header{OK: line[0] == '+'}
	rest := line[1:]
	num := rest
	if i := bytes.IndexByte(rest, ' '); i >= 0 {
		if h.OK {
			return Header{}, false // a success header is a number alone
		}
		num, h.Text = rest[:i], string(bytes.TrimSpace(rest[i+1:]))
	}
	neg := false
	if len(num) > 0 && num[0] == '-' {
		neg, num = true, num[1:]
	}
	if len(num) == 0 || len(num) > 18 {
		return Header{}, false
	}
	var n int64
	for _, c := range num {
		if c < '0' || c > '9' {
			return Header{}, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		if n != 1 && n != 2 {
			return Header{}, false
		}
		n = -n
	}
	h.Length = n
	return h, true
}

// ServerError is an error reported by the server: an error item (type 3)
// in place of the resource, a Gopher+ error reply, or a known plain-text
// error page. It is wrapped in a *fetch.Error whose Kind follows Kind().
type ServerError struct {
	// Code is the Gopher+ error code (1 not available, 2 try again later,
	// 3 moved), 0 for an error item or error page.
	Code int
	// Admin is the rest of the first line of a Gopher+ error (usually the
	// administrator's name and <address>).
	Admin string
	// Message is the error text for people: the display string of an error
	// item, the remaining lines of a Gopher+ error.
	Message string
	// Item is the error item as sent (type 3), or the new location of a
	// moved item (Gopher+ code 3) when the server gave one.
	Item *Item
	// Plus is set for a Gopher+ error reply.
	Plus bool
}

func (e *ServerError) Error() string {
	var b strings.Builder
	b.WriteString("gopher server error")
	if e.Code != 0 {
		b.WriteString(" ")
		b.WriteString(strconv.Itoa(e.Code))
		switch e.Code {
		case 1:
			b.WriteString(" (item not available)")
		case 2:
			b.WriteString(" (try again later)")
		case 3:
			b.WriteString(" (item moved)")
		}
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(fetch.SanitizeLine(e.Message, 300))
	}
	if e.Code == 3 && e.Item != nil {
		if u := e.Item.URL(); u != "" {
			b.WriteString(" (now at ")
			b.WriteString(u)
			b.WriteString(")")
		}
	}
	return b.String()
}

// NotFound reports whether the error says that the item does not exist:
// Gopher+ code 1 ("item is not available"), or an error item or page whose
// text says "not found", "does not exist", "no such" or "doesn't exist".
func (e *ServerError) NotFound() bool {
	if e.Code == 1 {
		return true
	}
	m := strings.ToLower(e.Message)
	for _, s := range []string{"not found", "does not exist", "doesn't exist", "no such", "nonexistent", "not exist"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// Denied reports whether the error text says access was refused.
func (e *ServerError) Denied() bool {
	m := strings.ToLower(e.Message)
	for _, s := range []string{"access denied", "permission denied", "forbidden", "not allowed", "unauthorized", "unauthorised"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// parsePlusError parses the body of a Gopher+ error reply: the first line
// holds the error code, then usually the administrator; the other lines are
// the message.
func parsePlusError(h Header, data []byte) *ServerError {
	e := &ServerError{Plus: true}
	if h.Text != "" {
		// "-1 Item is not available": code on the header line.
		e.Code = int(-h.Length)
		if h.Length >= 0 {
			e.Code = int(h.Length)
		}
		e.Message = h.Text
		return e
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "." {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > 0 {
		first := strings.TrimSpace(lines[0])
		code, rest, _ := strings.Cut(first, " ")
		if n, err := strconv.Atoi(code); err == nil && n >= 0 && n < 1000 {
			e.Code = n
			e.Admin = strings.TrimSpace(rest)
			lines = lines[1:]
		}
	}
	e.Message = strings.TrimSpace(strings.Join(lines, "\n"))
	if e.Code == 3 && len(lines) > 0 {
		// "Following the error-code is the gopher descriptor of where it
		// now lives": on the first line or the next.
		for _, l := range append([]string{e.Admin}, lines...) {
			if it, err := ParseItem([]byte(l)); err == nil && it.Type != TypeInfo && it.Type != TypeError {
				e.Item = &it
				break
			}
		}
	}
	return e
}

// Block is one Gopher+ attribute block: "+NAME: value" followed by lines
// that each begin with a space.
type Block struct {
	Name  string   // without the leading "+" and the ":", e.g. "ABSTRACT"
	Value string   // the rest of the "+NAME:" line (the +INFO descriptor, a reference…)
	Lines []string // the following lines, each without its leading space
}

// Text returns the block's lines joined with "\n".
func (b Block) Text() string { return strings.Join(b.Lines, "\n") }

// Attributes are the attribute blocks of one item, as returned for "!" (one
// item) or "$" (one per item of a directory): the +INFO block first.
type Attributes struct {
	Info   Item    // the +INFO descriptor (Unparsed when missing or bad)
	Blocks []Block // every block in order, +INFO included
}

// Block returns the first block with this name ("ABSTRACT" or "+ABSTRACT").
func (a *Attributes) Block(name string) (Block, bool) {
	name = strings.TrimPrefix(name, "+")
	for _, b := range a.Blocks {
		if b.Name == name {
			return b, true
		}
	}
	return Block{}, false
}

// Abstract returns the text of the +ABSTRACT block ("" when none).
func (a *Attributes) Abstract() string {
	b, _ := a.Block("ABSTRACT")
	return b.Text()
}

// Admin returns the attributes of the +ADMIN block ("Admin", "Mod-Date", …)
// by name, with their values trimmed.
func (a *Attributes) Admin() map[string]string {
	b, ok := a.Block("ADMIN")
	if !ok {
		return nil
	}
	m := map[string]string{}
	for _, l := range b.Lines {
		if k, v, ok := strings.Cut(l, ":"); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

// ModDate is the +ADMIN block's Mod-Date ("… <YYYYMMDDhhmmss>"), read
// as UTC (Gopher+ names no zone); ok is false when there is none.
func (a *Attributes) ModDate() (t time.Time, ok bool) {
	s := a.Admin()["Mod-Date"]
	i := strings.LastIndexByte(s, '<')
	k := strings.LastIndexByte(s, '>')
	if i < 0 || k < i+15 {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("20060102150405", s[i+1:k], time.UTC)
	return t, err == nil
}

// View is one line of a +VIEWS block: "Content-Type[ language]: <size>".
type View struct {
	Type     string // MIME type, e.g. "text/plain"
	Language string // e.g. "En_US", "" when none
	Size     string // what was between "<" and ">", e.g. "10k"; "" when none
}

// Param is the gopher+ string that asks for this view: "+" followed by the
// type and, when there is one, a space and the language.
func (v View) Param() string {
	if v.Language != "" {
		return "+" + v.Type + " " + v.Language
	}
	return "+" + v.Type
}

// Views parses the +VIEWS block.
func (a *Attributes) Views() []View {
	b, ok := a.Block("VIEWS")
	if !ok {
		return nil
	}
	var vs []View
	for _, l := range b.Lines {
		spec, size, _ := strings.Cut(l, ":")
		f := strings.Fields(spec)
		if len(f) == 0 {
			continue
		}
		v := View{Type: f[0]}
		if len(f) > 1 {
			v.Language = strings.Join(f[1:], " ")
		}
		if i := strings.IndexByte(size, '<'); i >= 0 {
			if j := strings.IndexByte(size[i:], '>'); j > 0 {
				v.Size = size[i+1 : i+j]
			}
		}
		vs = append(vs, v)
	}
	return vs
}

// Limits on attribute replies held in memory.
const (
	// MaxAttributeBytes bounds the blocks of one item (one +INFO group).
	MaxAttributeBytes = 1 << 20
	// MaxAttributesTotal bounds what ParseAttributes returns in all; use
	// an AttributeReader to go through a larger "$" reply item by item.
	MaxAttributesTotal = 16 << 20
)

// ErrAttributesTooLarge is returned when an item's attributes (or all of
// them, for ParseAttributes) exceed the limits above.
var ErrAttributesTooLarge = errors.New("gopher: attribute reply too large")

// AttributeReader reads a Gopher+ attribute reply (the data after the
// "+-2" or "+N" header) one item at a time, with bounded lines.
type AttributeReader struct {
	lr      lineReader
	pending *Block // the "+INFO" line that starts the next item
	done    bool
	err     error
}

// NewAttributeReader returns an AttributeReader reading from r.
func NewAttributeReader(r io.Reader) *AttributeReader {
	return &AttributeReader{lr: newLineReader(r, DefaultMaxLine)}
}

// Next returns the attributes of the next item, or io.EOF. Blocks before
// the first +INFO (which a conforming server does not send) are returned
// as an item of their own, with an Unparsed Info. A "." line ends the
// reply.
func (r *AttributeReader) Next() (Attributes, error) {
	if r.err != nil {
		return Attributes{}, r.err
	}
	var a Attributes
	size := 0
	var cur *Block
	flush := func() {
		if cur != nil {
			a.Blocks = append(a.Blocks, *cur)
			cur = nil
		}
	}
	if r.pending != nil {
		cur, r.pending = r.pending, nil
		a.Info = infoItem(cur.Value)
	} else {
		a.Info = Item{Unparsed: true, Port: -1}
	}
	for !r.done {
		line, _, _, err := r.lr.next()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			r.err = err
			return Attributes{}, err
		}
		if isTerminator(line) {
			r.done = true
			break
		}
		size += len(line) + 1
		if size > MaxAttributeBytes {
			r.err = ErrAttributesTooLarge
			return Attributes{}, r.err
		}
		if len(line) > 0 && line[0] == '+' {
			// "+NAME: value", or "+NAME value" as UMN gopherd writes
			// +INFO: the name ends at the first ":" or space.
			s := string(line[1:])
			name, value := s, ""
			if i := strings.IndexAny(s, ": "); i >= 0 {
				name, value = s[:i], s[i+1:]
				if s[i] == ':' {
					value = strings.TrimPrefix(value, " ")
				}
			}
			b := &Block{Name: name, Value: value}
			if b.Name == "INFO" && (cur != nil || len(a.Blocks) > 0) {
				flush()
				r.pending = b
				return a, nil
			}
			flush()
			cur = b
			if b.Name == "INFO" {
				a.Info = infoItem(value)
			}
			continue
		}
		if cur == nil {
			cur = &Block{}
		}
		cur.Lines = append(cur.Lines, strings.TrimPrefix(string(line), " "))
	}
	flush()
	if len(a.Blocks) == 0 {
		return Attributes{}, io.EOF
	}
	return a, nil
}

func infoItem(s string) Item {
	it, _ := ParseItem([]byte(s))
	return it
}

// ParseAttributes parses a whole Gopher+ attribute reply (what follows the
// header of a "!" or "$" reply) into one Attributes per +INFO item. It
// holds at most MaxAttributesTotal bytes of attributes.
func ParseAttributes(r io.Reader) ([]Attributes, error) {
	ar := NewAttributeReader(r)
	var all []Attributes
	total := 0
	for {
		a, err := ar.Next()
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		for _, b := range a.Blocks {
			total += len(b.Name) + len(b.Value) + 2
			for _, l := range b.Lines {
				total += len(l) + 1
			}
		}
		if total > MaxAttributesTotal {
			return all, ErrAttributesTooLarge
		}
		all = append(all, a)
	}
}

// Question is one line of a +ASK block (Gopher+ §2.8).
type Question struct {
	// Kind is the keyword: Ask, AskP (password: answer not echoed), AskL
	// (several lines), AskF (a local file name), Select (check boxes),
	// Choose (one of Choices), ChooseF (a local file to send), Note (text
	// to show, needs no answer), or any other keyword as sent.
	Kind    string
	Prompt  string
	Default string   // the default answer for Ask, AskP, AskL, AskF; "" when none
	Choices []string // the choices of Choose and Select
	Raw     string   // the line as sent
}

// NeedsAnswer reports whether the question takes an answer line.
func (q Question) NeedsAnswer() bool { return q.Kind != "Note" }

// ParseAsk parses the lines of a +ASK block. Lines that are not
// "Keyword: …" are returned with an empty Kind and need no answer.
func ParseAsk(b Block) []Question {
	var qs []Question
	for _, l := range b.Lines {
		q := Question{Raw: l}
		kw, rest, ok := strings.Cut(l, ":")
		if !ok || strings.ContainsAny(kw, " \t") {
			q.Kind, q.Prompt = "Note", l
			qs = append(qs, q)
			continue
		}
		q.Kind = kw
		rest = strings.TrimPrefix(rest, " ")
		f := strings.Split(rest, "\t")
		q.Prompt = f[0]
		switch kw {
		case "Choose", "Select":
			q.Choices = f[1:]
		default:
			if len(f) > 1 {
				q.Default = f[1]
			}
		}
		qs = append(qs, q)
	}
	return qs
}

// AskError reports a +ASK form that cannot be answered from the answers
// given (Request.Options["gopher-ask"]): the CLI can show the questions and
// ask again. Missing holds the indexes in Questions of the questions
// without a usable answer.
type AskError struct {
	Questions []Question
	Missing   []int
	Reason    string
}

func (e *AskError) Error() string {
	var b strings.Builder
	b.WriteString("gopher +ASK form: ")
	b.WriteString(e.Reason)
	for i, k := range e.Missing {
		if i == 3 {
			b.WriteString(", …")
			break
		}
		q := e.Questions[k]
		b.WriteString(": ")
		b.WriteString(fetch.Sanitize(q.Kind)) // the server's keyword, which may be any bytes
		b.WriteString(" ")
		b.WriteString(strconv.Quote(q.Prompt))
	}
	return b.String()
}

// Answer matches answers (one per question that needs one, in order) to
// the questions and returns the lines to send to the server (Gopher+ §2.8):
// one line per answer, except AskL, sent as a line count (always 1 here)
// followed by the line. A missing answer takes the question's default when
// it has one. A Choose answer must be one of the choices, or its number
// counting from 1. ChooseF (sending a local file) is refused.
func Answer(qs []Question, answers []string) ([]string, error) {
	var out []string
	var missing []int
	next := 0
	for i, q := range qs {
		if !q.NeedsAnswer() {
			continue
		}
		if q.Kind == "ChooseF" {
			return nil, &AskError{Questions: qs, Missing: []int{i}, Reason: "ChooseF (sending a local file) is not supported"}
		}
		a, ok := "", false
		if next < len(answers) {
			a, ok = answers[next], true
			next++
		}
		if !ok {
			if q.Default == "" {
				missing = append(missing, i)
				continue
			}
			a = q.Default
		}
		if q.Kind == "Choose" && len(q.Choices) > 0 {
			c, good := choose(q.Choices, a)
			if !good {
				return nil, &AskError{Questions: qs, Missing: []int{i}, Reason: strconv.Quote(a) + " is not one of the choices"}
			}
			a = c
		}
		if a == "." {
			return nil, &AskError{Questions: qs, Missing: []int{i}, Reason: `an answer may not be a lone "." (it would end the data block)`}
		}
		if q.Kind == "AskL" {
			out = append(out, "1")
		}
		out = append(out, a)
	}
	if len(missing) > 0 {
		return nil, &AskError{Questions: qs, Missing: missing, Reason: "no answer given"}
	}
	if next < len(answers) {
		return nil, &AskError{Questions: qs, Reason: strconv.Itoa(len(answers)) + " answers given for " + strconv.Itoa(next) + " questions"}
	}
	return out, nil
}

func choose(choices []string, a string) (string, bool) {
	for _, c := range choices {
		if c == a {
			return c, true
		}
	}
	if n, err := strconv.Atoi(a); err == nil && n >= 1 && n <= len(choices) {
		return choices[n-1], true
	}
	return "", false
}

// askInput is the form of an +ASK block for a person to fill in: the
// fetch.InputNeededError whose answers, one a line, go to OptAsk.
func askInput(ae *AskError) error {
	qs := make([]fetch.Question, len(ae.Questions))
	for i, q := range ae.Questions {
		qs[i] = fetch.Question{Prompt: q.Prompt, Secret: q.Kind == "AskP", Choices: q.Choices, Default: q.Default, Note: !q.NeedsAnswer()}
	}
	return &fetch.InputNeededError{Key: OptAsk, Questions: qs, Err: ae}
}
