package gophertest

import (
	"bufio"
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch/internal/lineproto"
)

// Site is a Handler serving a fixed set of items by selector, in the
// manner of a Gopher+ server (UMN gopherd): RFC 1436 replies to plain
// requests, Gopher+ replies to requests with a gopher+ string.
type Site struct {
	// Items by selector.
	Items map[string]*Item
	// Admin is the +ADMIN "Admin:" value and the address in Gopher+
	// errors (default "Test Admin <admin@example.test>").
	Admin string
	// NoMenuDot leaves out the "." line after menus (as pygopherd does).
	NoMenuDot bool
	// ModTime is the Mod-Date of every item (default 2024-01-02 03:04:05 UTC).
	ModTime time.Time
}

// Item is one resource of a Site.
type Item struct {
	Type    byte   // item type; '1' for a menu
	Display string // display string in menus and +INFO
	// Data is the document (text or binary). Text items are sent as they
	// are unless DotStuff is set.
	Data []byte
	// DotStuff sends a text the RFC 1436 way: lines beginning with "."
	// get another ".", and a "." line ends it.
	DotStuff bool
	// Menu holds the lines of a menu: each is "TYPE display TAB selector"
	// (host and port of the server are added) or a complete line with
	// host and port (it then has three TABs and is sent as it is).
	Menu []string
	// Search answers a type 7 search with menu lines (as Menu).
	Search func(query string) []string
	// Plus marks the item "+" in menus (a Gopher+ item); Ask items are
	// marked "?".
	Plus bool
	// Abstract is the +ABSTRACT block (lines without the leading space).
	Abstract string
	// Views are alternate representations by view name ("text/plain",
	// "application/postscript En_US", …). The first listed in ViewOrder
	// (or Data's type, text/plain or application/octet-stream) is the
	// default.
	Views     map[string][]byte
	ViewOrder []string
	// Ask is the +ASK block, one question per line ("Ask: Name?\tdefault").
	Ask []string
	// Answer builds the reply to a +ASK form from the answer lines.
	Answer func(answers []string) []byte
	// PlusLength chooses the Gopher+ transfer form of the data: 0 sends
	// "+N" (exact length), -1 "+-1" (dot-terminated), -2 "+-2" (until
	// close).
	PlusLength int
	// ErrorCode, when not 0, makes every request for the item fail with
	// this Gopher+ error code (and an error item for plain requests), and
	// Data as the message.
	ErrorCode int
}

func (s *Site) admin() string {
	if s.Admin != "" {
		return s.Admin
	}
	return "Test Admin <admin@example.test>"
}

func (s *Site) modTime() time.Time {
	if s.ModTime.IsZero() {
		return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	}
	return s.ModTime
}

// ServeGopher implements Handler.
func (s *Site) ServeGopher(c *Conn, r *Request) {
	it := s.Items[r.Selector]
	if it == nil || it.ErrorCode != 0 {
		msg := "'" + r.Selector + "' does not exist"
		code := 1
		if it != nil {
			msg, code = string(it.Data), it.ErrorCode
		}
		if r.HasPlus {
			fmt.Fprintf(c, "--2\r\n%d %s\r\n%s\r\n", code, s.admin(), msg)
		} else {
			fmt.Fprintf(c, "3%s\t\terror.host\t1\r\n", msg)
		}
		return
	}
	switch {
	case !r.HasPlus:
		s.plain(c, r, it)
	case r.DataFlag:
		s.answer(c, r, it)
	case strings.HasPrefix(r.Plus, "!"):
		fmt.Fprintf(c, "+-2\r\n")
		c.WriteString(s.attributes(c, r.Selector, it, blockFilter(r.Plus[1:])))
	case strings.HasPrefix(r.Plus, "$"):
		s.dirAttributes(c, r, it)
	case strings.HasPrefix(r.Plus, "+"):
		s.view(c, r, it, strings.TrimPrefix(r.Plus, "+"))
	default:
		fmt.Fprintf(c, "--1\r\n1 %s\r\nunknown gopher+ string %q\r\n.\r\n", s.admin(), r.Plus)
	}
}

func (s *Site) plain(c *Conn, r *Request, it *Item) {
	switch it.Type {
	case '1':
		c.Write(s.menu(c, it.Menu, true))
	case '7':
		if it.Search == nil {
			return
		}
		c.Write(s.menu(c, it.Search(r.Search), true))
	default:
		if it.DotStuff {
			c.Write(DotStuff(it.Data))
		} else {
			c.Write(it.Data)
		}
	}
}

// DotStuff returns text the RFC 1436 way: every line beginning with "."
// gets another ".", line ends become CRLF, and a "." line ends it
// (lineproto.DotWriter, as the clients write SMTP and NNTP data).
func DotStuff(text []byte) []byte {
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	dw := lineproto.NewDotWriter(w)
	dw.Write(text)
	dw.Close()
	return b.Bytes()
}

// menu renders menu lines with the server's host and port.
func (s *Site) menu(c *Conn, lines []string, dot bool) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(s.menuLine(c, l, true))
	}
	if dot && !s.NoMenuDot {
		b.WriteString(".\r\n")
	}
	return b.Bytes()
}

func (s *Site) menuLine(c *Conn, l string, flag bool) string {
	if strings.Count(l, "\t") >= 3 {
		return l + "\r\n"
	}
	sel := ""
	if i := strings.IndexByte(l, '\t'); i >= 0 {
		sel = l[i+1:]
	}
	if l != "" && l[0] == 'i' {
		return l + "\t\tnull.host\t1\r\n"
	}
	line := l + "\t" + c.Server.Host + "\t" + strconv.Itoa(c.Server.Port)
	if flag {
		if it := s.Items[sel]; it != nil {
			switch {
			case len(it.Ask) > 0:
				line += "\t?"
			case it.Plus:
				line += "\t+"
			}
		}
	}
	return line + "\r\n"
}

// descriptor is the gopher+ item line of sel (for +INFO).
func (s *Site) descriptor(c *Conn, sel string, it *Item) string {
	flag := "+"
	if len(it.Ask) > 0 {
		flag = "?"
	}
	return fmt.Sprintf("%c%s\t%s\t%s\t%d\t%s", it.Type, it.Display, sel, c.Server.Host, c.Server.Port, flag)
}

// blockFilter parses "+ABSTRACT+ADMIN" into names (nil: all blocks).
func blockFilter(s string) map[string]bool {
	if s == "" {
		return nil
	}
	m := map[string]bool{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ' ' }) {
		m[f] = true
	}
	return m
}

func (s *Site) views(it *Item) []string {
	if len(it.ViewOrder) > 0 {
		return it.ViewOrder
	}
	var vs []string
	switch it.Type {
	case '0':
		vs = append(vs, "text/plain")
	case '1', '7':
		vs = append(vs, "application/gopher+-menu")
	default:
		vs = append(vs, "application/octet-stream")
	}
	var more []string
	for v := range it.Views {
		if v != vs[0] {
			more = append(more, v)
		}
	}
	sort.Strings(more)
	return append(vs, more...)
}

func (s *Site) viewData(it *Item, v string) ([]byte, bool) {
	if d, ok := it.Views[v]; ok {
		return d, true
	}
	if v == "" || v == s.views(it)[0] {
		return it.Data, true
	}
	return nil, false
}

// attributes renders the attribute blocks of one item.
func (s *Site) attributes(c *Conn, sel string, it *Item, only map[string]bool) string {
	var b strings.Builder
	want := func(n string) bool { return only == nil || only[n] }
	fmt.Fprintf(&b, "+INFO: %s\r\n", s.descriptor(c, sel, it))
	if want("ADMIN") {
		t := s.modTime()
		fmt.Fprintf(&b, "+ADMIN:\r\n Admin: %s\r\n Mod-Date: %s <%s>\r\n", s.admin(), t.Format(time.ANSIC), t.Format("20060102150405"))
	}
	if want("VIEWS") {
		b.WriteString("+VIEWS:\r\n")
		for _, v := range s.views(it) {
			d, _ := s.viewData(it, v)
			fmt.Fprintf(&b, " %s: <%dk>\r\n", v, (len(d)+1023)/1024)
		}
	}
	if it.Abstract != "" && want("ABSTRACT") {
		b.WriteString("+ABSTRACT:\r\n")
		for _, l := range strings.Split(it.Abstract, "\n") {
			b.WriteString(" " + l + "\r\n")
		}
	}
	if len(it.Ask) > 0 && want("ASK") {
		b.WriteString("+ASK:\r\n")
		for _, l := range it.Ask {
			b.WriteString(" " + l + "\r\n")
		}
	}
	return b.String()
}

func (s *Site) dirAttributes(c *Conn, r *Request, it *Item) {
	if it.Type != '1' {
		fmt.Fprintf(c, "--1\r\n1 %s\r\n'%s' is not a directory\r\n.\r\n", s.admin(), r.Selector)
		return
	}
	fmt.Fprintf(c, "+-2\r\n")
	only := blockFilter(r.Plus[1:])
	for _, l := range it.Menu {
		sel := ""
		if i := strings.IndexByte(l, '\t'); i >= 0 {
			sel = l[i+1:]
		}
		if sub := s.Items[sel]; sub != nil && l[0] != 'i' {
			c.WriteString(s.attributes(c, sel, sub, only))
		}
	}
}

func (s *Site) view(c *Conn, r *Request, it *Item, view string) {
	var data []byte
	switch {
	case it.Type == '1' && (view == "" || strings.HasPrefix(view, "application/gopher")):
		data = s.menuPlus(c, it.Menu)
	case it.Type == '7' && (view == "" || strings.HasPrefix(view, "application/gopher")):
		if it.Search != nil {
			data = s.menuPlus(c, it.Search(r.Search))
		}
	default:
		d, ok := s.viewData(it, view)
		if !ok {
			fmt.Fprintf(c, "--1\r\n1 %s\r\nno view %q of '%s'\r\n.\r\n", s.admin(), view, r.Selector)
			return
		}
		data = d
	}
	s.sendPlus(c, it.PlusLength, data)
}

func (s *Site) menuPlus(c *Conn, lines []string) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(s.menuLine(c, l, true))
	}
	return b.Bytes()
}

// sendPlus sends data with a Gopher+ header of the given form.
func (s *Site) sendPlus(c *Conn, form int, data []byte) {
	switch form {
	case -1:
		c.WriteString("+-1\r\n")
		c.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			c.WriteString("\r\n")
		}
		c.WriteString(".\r\n")
	case -2:
		c.WriteString("+-2\r\n")
		c.Write(data)
	default:
		fmt.Fprintf(c, "+%d\r\n", len(data))
		c.Write(data)
	}
}

func (s *Site) answer(c *Conn, r *Request, it *Item) {
	if len(it.Ask) == 0 || it.Answer == nil {
		fmt.Fprintf(c, "--1\r\n1 %s\r\n'%s' has no +ASK form\r\n.\r\n", s.admin(), r.Selector)
		return
	}
	s.sendPlus(c, it.PlusLength, it.Answer(r.DataLines))
}
