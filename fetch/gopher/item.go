package gopher

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Item is one line of a gopher menu (RFC 1436 §3.8, with the Gopher+ fifth
// field):
//
//	TYPE Display TAB Selector TAB Host TAB Port [TAB +|?] CRLF
//
// All strings hold the bytes as the server sent them (gopher has no
// character set: often UTF-8 or Latin-1); nothing is trimmed.
type Item struct {
	Type     byte   // item type: '0' text, '1' menu, '7' search, 'i' info, …
	Display  string // display string (without the type byte)
	Selector string
	Host     string
	Port     int    // -1 when the port field is missing or not a number
	RawPort  string // the port field as sent
	// Plus is the Gopher+ flag of the fifth field: '+' (a Gopher+ item) or
	// '?' (a Gopher+ item with a +ASK form), 0 when there is none.
	Plus byte
	// Extra holds the fields after the port as sent (TAB-separated) when
	// they are anything else than a lone "+" or "?".
	Extra string
	// Fields is the number of TAB-separated fields the line had (a complete
	// item has 4, or 5 with the Gopher+ flag).
	Fields int
	// Raw is the line as received, without its line end.
	Raw string
	// Unparsed is set when the line is not a valid menu item: only Raw (and
	// whatever fields could be split) is meaningful. Truncated is set when
	// the line was longer than the reader's limit and Raw holds only its
	// beginning.
	Unparsed  bool
	Truncated bool
}

// Item types of RFC 1436 and common use.
const (
	TypeText      = '0'
	TypeMenu      = '1'
	TypeCSO       = '2'
	TypeError     = '3'
	TypeBinHex    = '4'
	TypeDOS       = '5'
	TypeUUencoded = '6'
	TypeSearch    = '7'
	TypeTelnet    = '8'
	TypeBinary    = '9'
	TypeMirror    = '+'
	TypeGIF       = 'g'
	TypeImage     = 'I'
	TypeTN3270    = 'T'
	TypeHTML      = 'h'
	TypeInfo      = 'i'
	TypeSound     = 's'
	TypeDoc       = 'd'
)

// ErrBadItem is wrapped by the errors ParseItem returns.
var ErrBadItem = errors.New("gopher: malformed menu line")

// ItemError says what is wrong with a menu line.
type ItemError struct {
	Line   string // the line, possibly truncated for the message
	Reason string
}

func (e *ItemError) Error() string {
	l := e.Line
	if len(l) > 80 {
		l = l[:80] + "…"
	}
	return "gopher: malformed menu line " + strconv.Quote(l) + ": " + e.Reason
}

func (e *ItemError) Unwrap() error { return ErrBadItem }

// ParseItem parses one menu line. The line end (CRLF or LF) may be present
// or not. Info ('i') and error ('3') lines may lack the selector, host and
// port fields, as many servers send them; any other item needs all four
// fields and a numeric port of at most 65535. On error the returned Item
// still has Raw, Type and whatever fields were found, with Unparsed set.
func ParseItem(line []byte) (Item, error) {
	return parseItem(string(trimEOL(line)))
}

// parseItem parses a line without its line end: the Item's strings are
// substrings of raw.
func parseItem(raw string) (Item, error) {
	var it Item
	_, err := parseInto(&it, raw)
	return it, err
}

// parseInto is parseItem filling *it in place (a renderer reuses one Item
// for every line of a menu). It also tells whether the display string is
// all printable ASCII: the scan that finds its end finds that too.
func parseInto(it *Item, raw string) (printable bool, err error) {
	*it = Item{Raw: raw, Port: -1}
	if len(raw) == 0 {
		it.Unparsed = true
		return true, &ItemError{Reason: "empty line"}
	}
	it.Type = raw[0]
	// The first four TAB-separated fields, and the rest as it stands.
	rest, more := raw[1:], false
	it.Fields = 1
	// A TAB is not printable: the printable run ends at the display's end
	// when the display is clean.
	switch n := printableASCII(rest); {
	case n == len(rest):
		it.Display, rest, printable = rest, "", true
	case rest[n] == '\t':
		it.Display, rest, more, printable = rest[:n], rest[n+1:], true, true
	default:
		it.Display, rest, more = cutTab(rest)
	}
	if more {
		it.Fields = 2
		if it.Selector, rest, more = cutTab(rest); more {
			it.Fields = 3
			if it.Host, rest, more = cutTab(rest); more {
				it.Fields = 4
				it.RawPort, rest, more = cutTab(rest)
				if p, ok := parsePort(it.RawPort); ok {
					it.Port = p
				}
				if more {
					it.Fields += 1 + strings.Count(rest, "\t")
					if rest == "+" || rest == "?" {
						it.Plus = rest[0]
					} else {
						it.Extra = rest
					}
				}
			}
		}
	}
	if it.Type < 0x21 || it.Type == 0x7f {
		it.Unparsed = true
		return printable, &ItemError{Line: it.Raw, Reason: "item type " + strconv.QuoteRune(rune(it.Type)) + " is not a printable character"}
	}
	lenient := it.Type == TypeInfo || it.Type == TypeError
	switch {
	case it.Fields < 4 && !lenient:
		it.Unparsed = true
		return printable, &ItemError{Line: it.Raw, Reason: strconv.Itoa(it.Fields) + " fields, want display, selector, host and port"}
	case it.Fields >= 4 && it.Port < 0 && !lenient:
		it.Unparsed = true
		return printable, &ItemError{Line: it.Raw, Reason: "port " + strconv.Quote(it.RawPort) + " is not a number from 0 to 65535"}
	}
	return printable, nil
}

// cutTab is strings.Cut(s, "\t") without its general-separator path.
func cutTab(s string) (before, after string, found bool) {
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

// parsePort accepts 1 to 5 ASCII digits with a value of at most 65535
// (leading and trailing spaces are tolerated: some servers pad).
func parsePort(s string) (int, bool) {
	if s == "" || !isDigit(s[0]) || !isDigit(s[len(s)-1]) {
		s = strings.TrimSpace(s)
	}
	if s == "" || len(s) > 5 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if n > 65535 {
		return 0, false
	}
	return n, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// IsInfo reports whether the item is an informational line (type 'i'),
// which is text to show, not something to fetch.
func (it Item) IsInfo() bool { return it.Type == TypeInfo }

// HURL returns the target of an "h" item whose selector is "URL:" followed
// by a URL (the convention for links out of gopherspace; "/URL:" is
// accepted too, as some servers write it), and whether the item is one.
func (it Item) HURL() (string, bool) {
	if it.Type != TypeHTML || it.Unparsed {
		return "", false
	}
	s := it.Selector
	if strings.HasPrefix(s, "/URL:") {
		s = s[1:]
	}
	if len(s) > 4 && strings.EqualFold(s[:4], "URL:") {
		return s[4:], true
	}
	return "", false
}

// URL returns the item's gopher URL, gopher://host:port/TYPE+selector
// (urlparse.GopherURL: the port is left out when it is 70), with every byte
// of the type and selector that is not a pchar or "/" percent-encoded ("?",
// "#", "%", space, TAB, bytes >= 0x80 …), so that parsing the URL gives back
// exactly the same selector bytes. Info and error lines, unparsed lines and
// lines without a host or with port 0 have no URL (""). Use URLWithScheme
// for gophers.
func (it Item) URL() string { return it.URLWithScheme("gopher") }

// URLWithScheme is URL with another scheme ("gophers" for items reached over
// TLS).
func (it Item) URLWithScheme(scheme string) string {
	if it.Unparsed || it.Type == TypeInfo || it.Type == TypeError || it.Host == "" || it.Port <= 0 {
		return ""
	}
	return urlparse.GopherURL(scheme, it.Host, it.Port, it.Type, it.Selector)
}

// Target is what the item points to for a person: for an "h" item with a
// "URL:" selector the target URL itself, for a telnet or tn3270 item its
// session URL (SessionURL), otherwise the item's gopher URL.
func (it Item) Target() string {
	if u, ok := it.HURL(); ok {
		return u
	}
	if u, ok := it.SessionURL(); ok {
		return u
	}
	return it.URL()
}

// SessionURL is the URL of the interactive session a telnet (8) or tn3270
// (T) item names: telnet://USER@HOST:PORT/ or tn3270://…, the selector
// being the user name to log in with (RFC 1436; RFC 4266 §2.2), left out
// when empty, and the port when it is 23.
func (it Item) SessionURL() (string, bool) {
	var scheme string
	switch it.Type {
	case TypeTelnet:
		scheme = "telnet"
	case TypeTN3270:
		scheme = "tn3270"
	default:
		return "", false
	}
	if it.Unparsed || it.Host == "" || it.Port <= 0 {
		return "", false
	}
	return urlparse.SessionURL(scheme, it.Selector, it.Host, it.Port), true
}

// EntryType classifies an item type for fetch.Entry: menus are
// directories, "h" items with a URL: selector are links, fetchable
// documents are files, and info, error, search, telnet, CSO and mirror
// lines are EntryOther.
func EntryType(t byte) fetch.EntryType {
	switch t {
	case TypeMenu:
		return fetch.EntryDir
	case TypeInfo, TypeError, TypeSearch, TypeTelnet, TypeTN3270, TypeCSO, TypeMirror:
		return fetch.EntryOther
	}
	return fetch.EntryFile
}

// Entry converts the item to a fetch.Entry: Name is the display string,
// URL the item's URL with the given scheme ("gopher" or "gophers"; "" means
// "gopher"), Target the URL of an "h" URL: link or the session URL of a
// telnet or tn3270 item (SessionURL), ItemType and Plus the item type and
// Gopher+ flag, Raw the line.
func (it Item) Entry(scheme string) fetch.Entry {
	if scheme == "" {
		scheme = "gopher"
	}
	e := fetch.Entry{Name: it.Display, Type: EntryType(it.Type), Size: -1, Raw: it.Raw, Unparsed: it.Unparsed, ItemType: it.Type, Plus: it.Plus}
	if it.Unparsed {
		e.Name, e.ItemType, e.Plus = "", 0, 0
		e.Type = fetch.EntryUnknown
		return e
	}
	e.URL = it.URLWithScheme(scheme)
	if u, ok := it.HURL(); ok {
		e.Type = fetch.EntryLink
		e.Target = u
	} else if u, ok := it.SessionURL(); ok {
		e.Target = u
	}
	return e
}

// isTerminator reports whether line (with or without its line end) is the
// lone "." that ends an RFC 1436 menu or text.
func isTerminator(line []byte) bool { return bytes.Equal(trimEOL(line), []byte{'.'}) }
