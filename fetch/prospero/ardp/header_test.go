package ardp

import (
	"bytes"
	"encoding/hex"
	"net/netip"
	"strings"
	"testing"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// The header forms seen on the wire, both ways: the 9-octet header of a
// data packet; the short forms (3 octets: packet 1 of 1; 7: a sequence
// number, total unknown); the longer ones that carry an acknowledgement, a
// wait, flags or an option; and the extensions past octet 13 (window,
// queue position, redirect address).
func TestHeaderForms(t *testing.T) {
	for _, tc := range []struct {
		wire string
		h    Header
	}{
		{"09 12 34 00 01 00 01 00 00", Header{Len: 9, CID: 0x1234, Seq: 1, Total: 1}},
		{"09 12 34 00 02 00 03 00 00", Header{Len: 9, CID: 0x1234, Seq: 2, Total: 3}},
		{"0f 12 34 00 01 00 03 00 00 00 00 08 00 00 20", Header{CID: 0x1234, Seq: 1, Total: 3, Flags: FlagWindow, Window: 32}},
		{"09 12 34 00 00 00 00 00 10", Header{Len: 9, CID: 0x1234, RcvdThru: 16}},
		{"0d 12 34 00 00 00 00 00 00 00 00 00 01", Header{CID: 0x1234, Option: OptCancel}},
		{"03 12 34", Header{CID: 0x1234, Seq: 1, Total: 1}},
		{"07 12 34 00 05 00 00", Header{CID: 0x1234, Seq: 5}},
		{"0c 12 34 00 10 00 00 00 01 00 00 80", Header{CID: 0x1234, Seq: 16, RcvdThru: 1, Flags: FlagPleaseAck}},
		{"0b 12 34 00 00 00 00 00 00 00 b4", Header{CID: 0x1234, Wait: 180}},
		{"14 12 34 00 00 00 00 00 00 00 05 00 fe 03 00 07 00 00 00 05", Header{CID: 0x1234, Wait: 5, Option: OptQueueReply,
			QueuePos: 7, HasQueuePos: true, QueueSecs: 5, HasQueueSec: true}},
		{"13 12 34 00 00 00 00 00 00 00 00 00 04 7f 00 00 01 05 f5", Header{CID: 0x1234, Option: OptRedirect,
			Redirect: netip.MustParseAddrPort("127.0.0.1:1525")}},
	} {
		wire := unhex(tc.wire)
		if got := tc.h.Append(nil, nil); !bytes.Equal(got, wire) {
			t.Errorf("Append %+v = % x, want % x", tc.h, got, wire)
		}
		h, data, err := Parse(append(wire, "text"...))
		want := tc.h
		want.Len = len(wire)
		if err != nil || string(data) != "text" || h != want {
			t.Errorf("Parse(% x) = %+v %q %v\nwant %+v", wire, h, data, err, want)
		}
	}
}

func TestParseShortAndBad(t *testing.T) {
	h, data, err := Parse(unhex("01 41"))
	if err != nil || h.Seq != 1 || h.Total != 1 || h.CID != 0 || string(data) != "A" {
		t.Errorf("1-octet header: %+v %q %v", h, data, err)
	}
	for _, bad := range []string{"", "56 45 52", "81 00", "05 12 34", "0d 12 34 00 00 00 00 00 00 00 00 02 00", "0d 12 34 00 00 00 00 00 00 00 00 00 04"} {
		if _, _, err := Parse(unhex(bad)); err == nil {
			t.Errorf("Parse(%s) accepted", bad)
		}
	}
}

func TestSplit(t *testing.T) {
	msg := bytes.Repeat([]byte("0123456789"), 250) // 2500 bytes
	parts := Split(msg)
	if len(parts) != 2 || len(parts[0]) != DataLen || len(parts[1]) != DataLen {
		t.Errorf("2500 bytes: %d parts", len(parts))
	}
	parts = Split(msg[:2501-1-1])
	if len(parts) != 2 || len(parts[1]) != 1249 {
		t.Errorf("2499 bytes: %d parts", len(parts))
	}
	if got := Split(nil); len(got) != 1 || len(got[0]) != 0 {
		t.Errorf("empty: %q", got)
	}
}

func TestNewCID(t *testing.T) {
	seen := map[uint16]bool{}
	for range 70000 {
		c := NewCID()
		if c == 0 {
			t.Fatal("cid 0")
		}
		seen[c] = true
	}
	if len(seen) != 65535 {
		t.Errorf("%d distinct ids", len(seen))
	}
}
