package gopher

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestParseHeader(t *testing.T) {
	tests := []struct {
		line string
		want Header
		ok   bool
	}{
		{"+34\r\n", Header{OK: true, Length: 34}, true},
		{"+0\n", Header{OK: true, Length: 0}, true},
		{"+-1\r\n", Header{OK: true, Length: -1}, true},
		{"+-2", Header{OK: true, Length: -2}, true},
		{"--1\r\n", Header{OK: false, Length: -1}, true},
		{"--2\r\n", Header{OK: false, Length: -2}, true},
		{"-1 Item is not available\r\n", Header{OK: false, Length: 1, Text: "Item is not available"}, true},
		{"+123456789012345678\r\n", Header{OK: true, Length: 123456789012345678}, true},
		// Not headers: plain replies beginning with + or -.
		{"+1234567890123456789\r\n", Header{}, false},
		{"+-3\r\n", Header{}, false},
		{"+12 bytes\r\n", Header{}, false},
		{"+\r\n", Header{}, false},
		{"+abc\r\n", Header{}, false},
		{"-\r\n", Header{}, false},
		{"Hello\r\n", Header{}, false},
		{"+INFO: 0x\t/x\th\t70\r\n", Header{}, false},
		{"", Header{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseHeader([]byte(tt.line))
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseHeader(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParsePlusError(t *testing.T) {
	// pygopherd's reply to a missing item.
	e := parsePlusError(Header{Length: -2}, []byte("1 Fixture Admin <admin@example.net>\r\n'/nope' does not exist (no handler found)\r\n"))
	if e.Code != 1 || e.Admin != "Fixture Admin <admin@example.net>" || e.Message != "'/nope' does not exist (no handler found)" || !e.Plus {
		t.Errorf("pygopherd error = %+v", e)
	}
	if !e.NotFound() || e.Denied() {
		t.Errorf("NotFound %v Denied %v", e.NotFound(), e.Denied())
	}
	// Dot-terminated, two message lines.
	e = parsePlusError(Header{Length: -1}, []byte("2 Admin <a@b>\r\nload too high\r\ncome back later\r\n.\r\n"))
	if e.Code != 2 || e.Message != "load too high\ncome back later" || e.NotFound() {
		t.Errorf("busy error = %+v", e)
	}
	// Moved, with the new place.
	e = parsePlusError(Header{Length: -1}, []byte("3 <a@b>\r\n0New place\t/new\tother.host\t7070\r\n.\r\n"))
	if e.Code != 3 || e.Item == nil || e.Item.URL() != "gopher://other.host:7070/0/new" {
		t.Errorf("moved error = %+v", e)
	}
	if !strings.Contains(e.Error(), "gopher://other.host:7070/0/new") {
		t.Errorf("moved Error() = %q", e.Error())
	}
	// UMN style, code on the header line.
	e = parsePlusError(Header{Length: 1, Text: "Item is not available"}, nil)
	if e.Code != 1 || e.Message != "Item is not available" {
		t.Errorf("UMN error = %+v", e)
	}
	// No code at all.
	e = parsePlusError(Header{Length: -2}, []byte("something broke\n"))
	if e.Code != 0 || e.Message != "something broke" {
		t.Errorf("codeless error = %+v", e)
	}
}

func TestServerErrorKinds(t *testing.T) {
	for _, c := range []struct {
		e                *ServerError
		notFound, denied bool
	}{
		{&ServerError{Message: "Error: File or directory not found! (null)"}, true, false},
		{&ServerError{Message: "'/x' does not exist (no handler found)"}, true, false},
		{&ServerError{Message: "Error: Access denied!"}, false, true},
		{&ServerError{Message: "Permission denied"}, false, true},
		{&ServerError{Message: "Server busy"}, false, false},
		{&ServerError{Code: 1}, true, false},
	} {
		if c.e.NotFound() != c.notFound || c.e.Denied() != c.denied {
			t.Errorf("%q: NotFound %v Denied %v, want %v %v", c.e.Message, c.e.NotFound(), c.e.Denied(), c.notFound, c.denied)
		}
	}
	// Control characters from the server do not reach the message.
	e := &ServerError{Message: "bad\x1b[31mred\r\nline"}
	if s := e.Error(); strings.ContainsAny(s, "\x1b\r\n") {
		t.Errorf("Error() = %q keeps control characters", s)
	}
}

const pygopherdAttrs = "+INFO: 0hello.txt\t/hello.txt\t127.0.0.1\t41070\t+\r\n" +
	"+ADMIN:\r\n Admin: Fixture Admin <admin@example.net>\r\n Mod-Date: Sat Nov 21 07:37:18 2026 <20261121073718>\r\n" +
	"+VIEWS:\r\n text/plain: <0k>\r\n application/postscript En_US: <12k>\r\n Text/plain De_DE:\r\n" +
	"+ABSTRACT:\r\n A short abstract for hello.txt\r\n second line\r\n"

func TestParseAttributesOne(t *testing.T) {
	all, err := ParseAttributes(strings.NewReader(pygopherdAttrs))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Fatalf("%d items", len(all))
	}
	a := all[0]
	if a.Info.Type != '0' || a.Info.Selector != "/hello.txt" || a.Info.Port != 41070 || a.Info.Plus != '+' || a.Info.Unparsed {
		t.Errorf("Info = %+v", a.Info)
	}
	names := []string{}
	for _, b := range a.Blocks {
		names = append(names, b.Name)
	}
	if !reflect.DeepEqual(names, []string{"INFO", "ADMIN", "VIEWS", "ABSTRACT"}) {
		t.Errorf("blocks %v", names)
	}
	if got := a.Abstract(); got != "A short abstract for hello.txt\nsecond line" {
		t.Errorf("Abstract = %q", got)
	}
	adm := a.Admin()
	if adm["Admin"] != "Fixture Admin <admin@example.net>" || adm["Mod-Date"] != "Sat Nov 21 07:37:18 2026 <20261121073718>" {
		t.Errorf("Admin = %v", adm)
	}
	wantViews := []View{{Type: "text/plain", Size: "0k"}, {Type: "application/postscript", Language: "En_US", Size: "12k"}, {Type: "Text/plain", Language: "De_DE"}}
	if got := a.Views(); !reflect.DeepEqual(got, wantViews) {
		t.Errorf("Views = %+v", got)
	}
	if p := wantViews[1].Param(); p != "+application/postscript En_US" {
		t.Errorf("Param = %q", p)
	}
	if p := wantViews[0].Param(); p != "+text/plain" {
		t.Errorf("Param = %q", p)
	}
	if _, ok := a.Block("+ASK"); ok {
		t.Errorf("found an ASK block")
	}
}

func TestParseAttributesDirectory(t *testing.T) {
	// "$": one group per item; UMN-style "+INFO " without a colon; a "."
	// ends the reply (gophernicus's canned root reply).
	reply := "+INFO 1Main menu\t\t127.0.0.1\t41071\r\n+VIEWS:\r\n application/gopher+-menu: <512b>\r\n" +
		"+INFO: 0one.txt\t/docs/one.txt\th\t70\t+\r\n+ADMIN:\r\n Admin: A <a@b>\r\n" +
		"+INFO: 0two.txt\t/docs/two.txt\th\t70\t+\r\n" +
		".\r\n+INFO: 0after-terminator\t/x\th\t70\r\n"
	all, err := ParseAttributes(strings.NewReader(reply))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("%d items, want 3", len(all))
	}
	if all[0].Info.Display != "Main menu" || all[0].Info.Type != '1' || len(all[0].Blocks) != 2 {
		t.Errorf("item 0 = %+v", all[0])
	}
	if v := all[0].Views(); len(v) != 1 || v[0].Type != "application/gopher+-menu" || v[0].Size != "512b" {
		t.Errorf("views %+v", v)
	}
	if all[1].Info.Selector != "/docs/one.txt" || all[1].Admin()["Admin"] != "A <a@b>" {
		t.Errorf("item 1 = %+v", all[1])
	}
	if all[2].Info.Selector != "/docs/two.txt" || len(all[2].Blocks) != 1 {
		t.Errorf("item 2 = %+v", all[2])
	}
}

func TestParseAttributesNoInfo(t *testing.T) {
	all, err := ParseAttributes(strings.NewReader("+ABSTRACT:\n text\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || !all[0].Info.Unparsed || all[0].Abstract() != "text" {
		t.Errorf("%+v", all)
	}
	all, err = ParseAttributes(strings.NewReader(""))
	if err != nil || len(all) != 0 {
		t.Errorf("empty reply: %+v, %v", all, err)
	}
}

func TestParseAttributesTooLarge(t *testing.T) {
	r := io.MultiReader(strings.NewReader("+INFO: 0x\t/x\th\t70\r\n+ABSTRACT:\r\n"), &lineGen{line: " abstract line that goes on\r\n", left: 2 * MaxAttributeBytes})
	_, err := ParseAttributes(r)
	if !errors.Is(err, ErrAttributesTooLarge) {
		t.Errorf("err = %v, want ErrAttributesTooLarge", err)
	}
}

type lineGen struct {
	line string
	left int
	buf  []byte
}

func (g *lineGen) Read(p []byte) (int, error) {
	if len(g.buf) == 0 {
		if g.left <= 0 {
			return 0, io.EOF
		}
		g.buf = []byte(g.line)
		g.left -= len(g.line)
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func TestParseAsk(t *testing.T) {
	b := Block{Name: "ASK", Lines: []string{
		"Ask: How many volts?",
		"Ask: Your name?\tAnonymous",
		"AskP: Password?",
		"AskL: Comments?",
		"Choose: Deliver shock now?\tYes\tNot!",
		"Select: Toppings:\tcheese\tham",
		"Note: Thanks for filling this in",
		"free text line",
	}}
	got := ParseAsk(b)
	want := []Question{
		{Kind: "Ask", Prompt: "How many volts?", Raw: b.Lines[0]},
		{Kind: "Ask", Prompt: "Your name?", Default: "Anonymous", Raw: b.Lines[1]},
		{Kind: "AskP", Prompt: "Password?", Raw: b.Lines[2]},
		{Kind: "AskL", Prompt: "Comments?", Raw: b.Lines[3]},
		{Kind: "Choose", Prompt: "Deliver shock now?", Choices: []string{"Yes", "Not!"}, Raw: b.Lines[4]},
		{Kind: "Select", Prompt: "Toppings:", Choices: []string{"cheese", "ham"}, Raw: b.Lines[5]},
		{Kind: "Note", Prompt: " Thanks for filling this in", Raw: b.Lines[6]},
		{Kind: "Note", Prompt: "free text line", Raw: b.Lines[7]},
	}
	// "Note: x" keeps the text after the colon and space as prompt.
	want[6].Prompt = "Thanks for filling this in"
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseAsk:\n got %+v\nwant %+v", got, want)
	}
	needs := 0
	for _, q := range got {
		if q.NeedsAnswer() {
			needs++
		}
	}
	if needs != 6 {
		t.Errorf("%d questions need answers, want 6", needs)
	}
}

func TestAnswer(t *testing.T) {
	qs := ParseAsk(Block{Lines: []string{
		"Ask: Volts?",
		"Ask: Name?\tAnonymous",
		"Note: hello",
		"AskL: Comments?",
		"Choose: Shock?\tYes\tNot!",
	}})
	got, err := Answer(qs, []string{"230", "Ada", "fine", "Not!"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"230", "Ada", "1", "fine", "Not!"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Answer = %q, want %q", got, want)
	}
	// Choice by number; defaults fill missing answers at the end.
	qs2 := ParseAsk(Block{Lines: []string{"Choose: Shock?\tYes\tNot!", "Ask: Name?\tAnonymous"}})
	got, err = Answer(qs2, []string{"2"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Not!", "Anonymous"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Answer = %q, want %q", got, want)
	}
	var ae *AskError
	// Missing answer without a default.
	if _, err := Answer(qs, []string{"230"}); !errors.As(err, &ae) || !reflect.DeepEqual(ae.Missing, []int{3, 4}) {
		t.Errorf("missing answers: %v (%+v)", err, ae)
	}
	// Not a choice.
	if _, err := Answer(qs2, []string{"Maybe"}); !errors.As(err, &ae) || !reflect.DeepEqual(ae.Missing, []int{0}) {
		t.Errorf("bad choice: %v", err)
	}
	if _, err := Answer(qs2, []string{"3"}); err == nil {
		t.Errorf("choice 3 of 2 accepted")
	}
	// Too many answers.
	if _, err := Answer(qs2, []string{"1", "x", "extra"}); !errors.As(err, &ae) {
		t.Errorf("too many answers: %v", err)
	}
	// A lone "." would end the data block.
	if _, err := Answer(ParseAsk(Block{Lines: []string{"Ask: x?"}}), []string{"."}); err == nil {
		t.Errorf("lone dot accepted")
	}
	// ChooseF would send a local file.
	if _, err := Answer(ParseAsk(Block{Lines: []string{"ChooseF: file?"}}), []string{"/etc/passwd"}); !errors.As(err, &ae) {
		t.Errorf("ChooseF: %v", err)
	}
}
