package prospero

import (
	"testing"

	"github.com/urlget/urlget/fetch/prospero/ardp"
)

// FuzzParseReply: any bytes parse or fail, without panicking, and a quoted
// token always reads back as itself.
func FuzzParseReply(f *testing.F) {
	f.Add([]byte("LINK  L FILE one.txt INTERNET-D 127.0.0.1(21525) ASCII '/a b' 0\nATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE 13' bytes'\n"))
	f.Add([]byte("ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA 'a''\n'\n"))
	f.Add([]byte("FAILURE NOT-FOUND\nFORWARDED INTERNET-D h(1) ASCII x 0"))
	f.Add([]byte("X 'unterminated"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		ParseReply(msg)
		tok := string(msg)
		lines, err := Lines([]byte("X " + Quote(tok)))
		if err != nil || len(lines) != 1 || len(lines[0]) != 2 || lines[0][1] != tok {
			t.Fatalf("Quote(%q) reads back as %q, %v", tok, lines, err)
		}
	})
}

// FuzzHeader: any datagram parses or fails; a parsed header written again
// parses to the same fields.
func FuzzHeader(f *testing.F) {
	for _, s := range []string{"\x09\x12\x34\x00\x01\x00\x01\x00\x00text", "\x03\x12\x34", "\x01x",
		"\x14\x12\x34\x00\x00\x00\x00\x00\x00\x00\x05\x00\xfe\x03\x00\x07\x00\x00\x00\x05",
		"\x13\x12\x34\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x7f\x00\x00\x01\x05\xf5"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, pkt []byte) {
		h, data, err := ardp.Parse(pkt)
		if err != nil {
			return
		}
		again, data2, err := ardp.Parse(h.Append(nil, data))
		if err != nil || string(data2) != string(data) {
			t.Fatalf("% x: written again fails: %v", pkt, err)
		}
		h.Len, again.Len = 0, 0
		if h.Option != ardp.OptRedirect && h.Option != ardp.OptRedirectNote && h.Option != ardp.OptQueueReply && h != again {
			t.Fatalf("% x: %+v written again parses as %+v", pkt, h, again)
		}
	})
}
