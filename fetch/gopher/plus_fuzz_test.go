package gopher

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzPlusHeader: a Gopher+ header that parses has a length of -2, -1 or
// more, a success header has no text, and written again it parses the same.
func FuzzPlusHeader(f *testing.F) {
	fuzzcheck.Seeds(f, "+5340\r\n", "+-1\r\n", "+-2", "--1\r\n", "--2 Item is not available\r\n", "-1 text",
		"+-3", "+", "+1 2", "+999999999999999999", "+9999999999999999999", "+0x10", "--1 \x1b[31m\r\n", "220 not gopher+")
	f.Fuzz(func(t *testing.T, line []byte) {
		h, ok := ParseHeader(line)
		if !ok {
			return
		}
		if h.Length < LengthClose || h.OK && h.Text != "" {
			t.Fatalf("%q: %+v", line, h)
		}
		again := "-"
		if h.OK {
			again = "+"
		}
		again += strconv.FormatInt(h.Length, 10)
		if h.Text != "" {
			again += " " + h.Text
		}
		if back, ok := ParseHeader([]byte(again + "\r\n")); !ok || back != h {
			t.Fatalf("%q: %+v written as %q parses as %+v (%v)", line, h, again, back, ok)
		}
	})
}

// FuzzAttributes: a Gopher+ attribute reply ("!" or "$") of any bytes
// parses into items that each have blocks, block names without ":" or
// spaces, no LF in any field (a CR inside a line is the server's text);
// every +ASK block gives a question a line, and the answers made of its
// defaults never hold a LF or a lone "." (a CR is the server's own text,
// sent back to it); the errors are sanitized; and the work is bounded by
// the input.
func FuzzAttributes(f *testing.F) {
	fuzzcheck.Seeds(f,
		"+INFO: 0hello.txt\t/hello.txt\t127.0.0.1\t70\t+\r\n+ADMIN:\r\n Admin: Test Admin <admin@example.test>\r\n Mod-Date: Wed Jan  1 00:00:00 2025 <20250101000000>\r\n"+
			"+ABSTRACT:\r\n A short abstract for hello.txt\r\n+VIEWS:\r\n text/plain: <1k>\r\n application/gopher+-menu En_US: <2k>\r\n.\r\n",
		"+INFO: 0doc\t/doc\th\t70\t+\r\n+ADMIN:\r\n Admin: A <a@b>\r\n+ABSTRACT:\r\n abstract text\r\n+VIEWS:\r\n text/plain: <1k>\r\n"+
			"+INFO: 1dir\t/dir\th\t70\t+\r\n+VIEWS:\r\n application/gopher-menu: <1k>\r\n",
		"+INFO 0umn\t/umn\th\t70\t+\n+ASK:\n Ask: How many volts?\n Ask: Your name?\tAnonymous\n AskP: Password?\n AskL: Comments?\n"+
			" Choose: Deliver shock now?\tYes\tNot!\n Select: Toppings:\tcheese\tham\n Note: Thanks\n free text line\n ChooseF: file?\n",
		"+ASK:\n Ask: lone dot?\t.\n Choose: dot\t.\n \x1b[31mAsk: red?\n",
		"+ASK:\n \x1b]0;title\x07Ask: red?\n",
		" before any block\r\n+ABSTRACT:\r\n x\r\n", "+INFO: \r\n+INFO: \r\n", "+:\r\n +\r\n", "\r\n.\r\n", "",
		"+ASK:\n Choose: many\t"+strings.Repeat("\t", 4000)+"\n",
	)
	f.Fuzz(func(t *testing.T, data []byte) {
		var all []Attributes
		var err error
		fuzzcheck.Bounded(t, len(data), func() { all, err = ParseAttributes(bytes.NewReader(data)) })
		if err != nil {
			fuzzcheck.Printable(t, "the error", err.Error())
		}
		for _, a := range all {
			if len(a.Blocks) == 0 {
				t.Fatalf("%q: an item without blocks: %+v", data, a)
			}
			for _, b := range a.Blocks {
				if strings.ContainsAny(b.Name, ": \n") || strings.Contains(b.Value, "\n") {
					t.Fatalf("%q: block %q %q", data, b.Name, b.Value)
				}
				for _, l := range b.Lines {
					if strings.Contains(l, "\n") {
						t.Fatalf("%q: block %q: line %q", data, b.Name, l)
					}
				}
				if b.Name == "ASK" {
					checkAsk(t, b)
				}
			}
		}
	})
}

func checkAsk(t *testing.T, b Block) {
	t.Helper()
	qs := ParseAsk(b)
	if len(qs) != len(b.Lines) {
		t.Fatalf("%d lines gave %d questions", len(b.Lines), len(qs))
	}
	for i, q := range qs {
		if q.Raw != b.Lines[i] || strings.ContainsAny(q.Kind, " \t") {
			t.Fatalf("line %q gave %+v", b.Lines[i], q)
		}
	}
	out, err := Answer(qs, nil)
	if err != nil {
		fuzzcheck.Printable(t, "the error", err.Error())
		return
	}
	for _, l := range out {
		if l == "." || strings.Contains(l, "\n") {
			t.Fatalf("answer line %q", l)
		}
	}
}
