package gopher

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// Mode selects how Render shows a menu.
type Mode int

const (
	// Readable shows info lines as text and every other item as a label,
	// its display string and its URL:
	//
	//	       Welcome to the menu
	//	(TXT)  Hello  <gopher://127.0.0.1:41070/0/hello.txt>
	//	(DIR)  Docs  <gopher://127.0.0.1:41070/1/docs>
	//	(?)    Search  <gopher://127.0.0.1:41070/7/cgi-bin/search.cgi>
	//	(HTML) Example  <http://example.com/>
	//	(ERR)  'nope' does not exist
	//
	// An "h" item with a "URL:" selector shows the target URL itself.
	// Control characters from the server are shown as "?" (a menu cannot
	// send escape sequences to the terminal). A line that is not an item is
	// shown as "(???)" and the line; a line cut at the length limit says so.
	Readable Mode = iota
	// Raw copies the body byte for byte.
	Raw
	// JSON writes one JSON object per line of the menu (JSON Lines):
	//
	//	{"type":"0","display":"Hello","selector":"/hello.txt","host":"127.0.0.1","port":41070,"url":"gopher://…"}
	//
	// with "plus" ("+" or "?") for Gopher+ items, "target" for "h" URL:
	// links, and {"unparsed":true,"raw":"…"} (plus "truncated":true) for
	// lines that are not items. Bytes that are not UTF-8 become U+FFFD in
	// the strings; "url" always gives the exact selector bytes.
	JSON
)

// Render writes the menu read from body in the given mode, streaming: it
// holds one line at a time (at most DefaultMaxLine bytes of it). It stops
// at the "." line that ends a menu. Write errors are *fetch.Error of Kind
// ErrWrite; read errors are returned as they are.
func Render(w io.Writer, body io.Reader, mode Mode) error { return RenderFrom(w, body, mode, nil) }

// RenderFrom is Render for a menu fetched from the URL from: when that is a
// gophers URL, items on its host and port are shown with gophers URLs.
func RenderFrom(w io.Writer, body io.Reader, mode Mode, from *urlparse.URL) error {
	if mode == Raw {
		return copyRaw(w, body)
	}
	m := NewMenuReader(body)
	var own []byte
	var roots root
	// Items are appended straight into w's buffer when it has one
	// (fetch.Buffered's): no second copy of each line.
	ab, _ := w.(interface{ AvailableBuffer() []byte })
	for {
		it, err := m.nextView() // it is done with before the next call
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		scheme := schemeFor(it, from)
		line, inW := own[:0], false
		if ab != nil {
			if a := ab.AvailableBuffer(); cap(a) >= 4<<10 {
				line, inW = a, true
			}
		}
		switch mode {
		case JSON:
			line, err = appendJSON(line, it, scheme)
			if err != nil {
				return err
			}
		default:
			line = appendReadable(line, it, m.viewPrintable, scheme, &roots)
		}
		line = append(line, '\n')
		if !inW {
			own = line // keep what append grew; never w's buffer
		}
		if _, err := w.Write(line); err != nil {
			return &fetch.Error{Kind: fetch.ErrWrite, Msg: "gopher: writing the menu", Err: err}
		}
	}
}

// copyRaw copies body to w, telling write errors (ErrWrite) from read
// errors (returned as they are).
func copyRaw(w io.Writer, body io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return &fetch.Error{Kind: fetch.ErrWrite, Msg: "gopher: writing the menu", Err: werr}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func schemeFor(it *Item, from *urlparse.URL) string {
	if from != nil && from.Scheme == "gophers" {
		port := from.Port
		if port < 0 {
			port = DefaultPort
		}
		if strings.EqualFold(it.Host, from.Host) && it.Port == port {
			return "gophers"
		}
	}
	return "gopher"
}

// Labels shown by Readable for each item type.
var labels = [256]string{
	TypeText: "(TXT)", TypeMenu: "(DIR)", TypeCSO: "(CSO)", TypeError: "(ERR)",
	TypeBinHex: "(HQX)", TypeDOS: "(DOS)", TypeUUencoded: "(UUE)", TypeSearch: "(?)",
	TypeTelnet: "(TEL)", TypeBinary: "(BIN)", TypeMirror: "(MIR)", TypeGIF: "(GIF)",
	TypeImage: "(IMG)", TypeTN3270: "(3270)", TypeHTML: "(HTML)", TypeSound: "(SND)",
	TypeDoc: "(DOC)", 'p': "(PNG)", ';': "(MOV)", '<': "(SND)", ':': "(IMG)", 'M': "(MIME)",
	'c': "(CAL)", 'r': "(RTF)", 'x': "(XML)", 'P': "(PDF)",
}

const labelWidth = 7

func label(t byte) string {
	if l := labels[t]; l != "" {
		return l
	}
	return "(" + safeChar(t) + ")"
}

func safeChar(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return "?"
	}
	return string(c)
}

// paddedLabels holds every type's label padded to labelWidth.
var paddedLabels = func() (p [256]string) {
	for t := range p {
		p[t] = string(pad(nil, label(byte(t))))
	}
	return p
}()

func pad(b []byte, s string) []byte {
	b = append(b, s...)
	for n := utf8.RuneCountInString(s); n < labelWidth; n++ {
		b = append(b, ' ')
	}
	return b
}

// root holds the scheme://host:port/ of the last item's server: a menu
// lists many items of one server, whose URLs then share it.
type root struct {
	scheme, host string
	port         int
	b            []byte
}

func (r *root) append(b []byte, scheme, host string, port int) []byte {
	if r.b == nil || r.port != port || r.host != host || r.scheme != scheme {
		r.b = urlparse.AppendGopherRoot(r.b[:0], scheme, host, port)
		r.scheme, r.host, r.port = scheme, strings.Clone(host), port // host may view the read buffer
	}
	return append(b, r.b...)
}

// appendReadable appends the readable line of it; printable says its
// display string is all printable ASCII (nothing to clean).
func appendReadable(b []byte, it *Item, printable bool, scheme string, roots *root) []byte {
	display := func(b []byte) []byte {
		if printable {
			return append(b, it.Display...)
		}
		return appendClean(b, it.Display)
	}
	switch {
	case it.Unparsed:
		b = pad(b, "(???)")
		b = appendClean(b, it.Raw)
		if it.Truncated {
			b = append(b, " [line cut at "...)
			b = strconv.AppendInt(b, int64(len(it.Raw)), 10)
			b = append(b, " bytes]"...)
		}
		return b
	case it.Type == TypeInfo:
		b = pad(b, "")
		return display(b)
	case it.Type == TypeError:
		b = append(b, paddedLabels[it.Type]...)
		return display(b)
	}
	b = append(b, paddedLabels[it.Type]...)
	b = display(b)
	var target string
	var ok bool
	switch it.Type { // only these types have another target: no copy of it for the rest
	case TypeHTML:
		target, ok = it.HURL()
	case TypeTelnet, TypeTN3270:
		target, ok = it.SessionURL()
	}
	if ok {
		b = append(b, "  <"...)
		b = appendClean(b, target)
		return append(b, '>')
	}
	if it.Host == "" || it.Port <= 0 {
		return append(b, "  (no address)"...)
	}
	b = append(b, "  <"...)
	// Printable by construction: every byte of the type, selector and host
	// that is not a URL character is percent-encoded (an IPv6 host is only
	// hex digits, colons and dots).
	b = urlparse.AppendGopherPath(roots.append(b, scheme, it.Host, it.Port), it.Type, it.Selector)
	return append(b, '>')
}

// printableASCII returns the length of the run of printable ASCII bytes
// (0x20 to 0x7e) that s starts with, testing eight bytes at a time.
func printableASCII(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !printable8(s[i : i+8]) {
			break
		}
	}
	if i+8 > len(s) && len(s) >= 8 && printable8(s[len(s)-8:]) {
		return len(s) // the last eight bytes, overlapping the blocks checked
	}
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	return i
}

// printable8 reports whether the eight bytes of w are all printable ASCII.
func printable8(w string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	w = w[:8] // one 8-byte load, no bounds checks
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	// A byte below 0x20 borrows (x - 0x20…) with its high bit clear in x;
	// a byte of 0x7f or more has the high bit set in x or in x + 1 (a
	// carry out of 0xff comes from a byte already caught).
	return ((x-0x20*ones)&^x|x|(x+ones))&highs == 0
}

// appendClean appends s with control characters (C0, DEL, C1) replaced by
// "?"; bytes that are not UTF-8 are passed on (Latin-1 menus).
func appendClean(b []byte, s string) []byte {
	i := printableASCII(s)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			if s[i] >= 0x80 && s[i] < 0xa0 {
				b = append(b, '?') // raw C1 byte
			} else {
				b = append(b, s[i])
			}
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b = append(b, '?')
		default:
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return b
}

// jsonItem is the JSON form of an item.
type jsonItem struct {
	Type      string `json:"type,omitempty"`
	Display   string `json:"display,omitempty"`
	Selector  string `json:"selector,omitempty"`
	Host      string `json:"host,omitempty"`
	Port      *int   `json:"port,omitempty"`
	Plus      string `json:"plus,omitempty"`
	URL       string `json:"url,omitempty"`
	Target    string `json:"target,omitempty"`
	Unparsed  bool   `json:"unparsed,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Raw       string `json:"raw,omitempty"`
}

func appendJSON(b []byte, it *Item, scheme string) ([]byte, error) {
	var j jsonItem
	if it.Unparsed {
		j = jsonItem{Unparsed: true, Truncated: it.Truncated, Raw: it.Raw}
	} else {
		j = jsonItem{Type: string(rune(it.Type)), Display: it.Display, Selector: it.Selector, Host: it.Host,
			URL: it.URLWithScheme(scheme)}
		if it.Type >= 0x80 {
			j.Type = string([]byte{it.Type})
		}
		if it.Port >= 0 {
			p := it.Port
			j.Port = &p
		}
		if it.Plus != 0 {
			j.Plus = string(it.Plus)
		}
		if t, ok := it.HURL(); ok {
			j.Target = t
		} else if t, ok := it.SessionURL(); ok {
			j.Target = t
		}
	}
	out, err := json.Marshal(j)
	if err != nil {
		return b, err
	}
	return append(b, out...), nil
}
