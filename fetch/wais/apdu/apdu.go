// Package apdu encodes and decodes the messages of WAIS, the Z39.50-1988
// dialect that freeWAIS-sf, waissearch and Lynx speak on TCP port 210.
//
// Every message is a 25-byte ASCII header followed by an APDU. An APDU is a
// 2-byte big-endian "header length indicator" (HLI) counting the Z39.50 part
// that follows it (PDU type byte, fixed fields, tagged items), then an
// optional part of WAIS items: a user-information block (tag 99) after a
// relevance search and in responses, a type-1 Query (tag 21) in a
// retrieval.
//
// Tags and lengths are compressed integers: base 128, most significant
// group first, 0x80 set on every byte but the last (150 is 81 16).
//
// Both the client (package wais) and the test server (package waistest)
// build and read their messages here, so the two cannot drift apart. Every
// decoder is bounded by the slice it is given: a length that points past
// the end is an error, never a read past it or an allocation.
package apdu

import (
	"errors"
	"fmt"
	"strconv"
)

// HeaderLen is the length of the WAIS message header.
const HeaderLen = 25

// PDU types.
const (
	PDUInit           = 20
	PDUInitResponse   = 21
	PDUSearch         = 22
	PDUSearchResponse = 23
)

// Z39.50 tags (zutil.h) used on the wire.
const (
	TagReferenceID       = 2
	TagProtocolVersion   = 3
	TagOptions           = 4
	TagPreferredMsgSize  = 5
	TagMaximumRecordSize = 6
	TagIDAuthentication  = 7
	TagImplementationID  = 8
	TagImplementationNm  = 9
	TagImplementationVer = 10
	TagResultSetName     = 17
	TagDatabaseNames     = 18
	TagElementSetNames   = 19
	TagQueryType         = 20
	TagQuery             = 21
	TagResultSetStatus   = 26
	TagPresentStatus     = 27
	TagDiagnostic        = 28
	TagAttributeList     = 44
	TagTerm              = 45
	TagOperator          = 46
)

// WAIS tags (wprot.h).
const (
	TagUserInfo      = 99
	TagChunkCode     = 100
	TagChunkIDLength = 101
	TagSeedWords     = 106
	TagDateFactor    = 111
	TagMaxDocs       = 114
	TagSeedWordsUsed = 115
	TagDocID         = 116
	TagVersion       = 117
	TagScore         = 118
	TagBestMatch     = 119
	TagDocLength     = 120
	TagSource        = 121
	TagDate          = 122
	TagHeadline      = 123
	TagDocText       = 127
	TagLines         = 131
	TagTypeBlock     = 132
	TagType          = 133

	TagDocHeaderGroup = 150
	TagShortHeader    = 151
	TagLongHeader     = 152
	TagDocTextGroup   = 153
	TagHeadlineGroup  = 154
	TagCodesGroup     = 155
)

// endOfRecord ends a diagnostic record (not counted in its length).
const endOfRecord = 0x1d

// MaxCInt is the largest compressed integer: four bytes of seven bits.
const MaxCInt = 1<<28 - 1

// ErrFormat is wrapped by every decoding error.
var ErrFormat = errors.New("malformed WAIS message")

func formatErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, a...)...)
}

// Header is a WAIS message header. The server echoes the type, version,
// server name, compression and encoding of the request it answers.
type Header struct {
	Length      int64  // APDU length in bytes
	Type        byte   // 'z': a Z39.50 APDU
	Version     byte   // '2'
	Server      string // 10 bytes, space padded ("wais")
	Compression byte   // ' ': none
	Encoding    byte   // ' ': none
}

// ClientHeader is the header every client sends (apart from Length).
var ClientHeader = Header{Type: 'z', Version: '2', Server: "wais", Compression: ' ', Encoding: ' '}

// AppendHeader appends h with length n: "%010d", type, version, the
// server name padded to 10 bytes, compression, encoding, and the unused
// checksum '0'.
func AppendHeader(b []byte, h Header, n int) []byte {
	var d [10]byte
	s := strconv.AppendInt(d[:0], int64(n), 10)
	for i := len(s); i < 10; i++ {
		b = append(b, '0')
	}
	b = append(b, s...)
	b = append(b, h.Type, h.Version)
	name := h.Server
	if len(name) > 10 {
		name = name[:10]
	}
	b = append(b, name...)
	for i := len(name); i < 10; i++ {
		b = append(b, ' ')
	}
	return append(b, h.Compression, h.Encoding, '0')
}

// ParseHeader reads a 25-byte header. The length must be ten decimal
// digits and the type 'z' (the only one in use); compression and encoding
// must be ' ' (nothing else was ever implemented).
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderLen {
		return Header{}, formatErr("header of %d bytes", len(b))
	}
	var h Header
	for _, c := range b[:10] {
		if c < '0' || c > '9' {
			return Header{}, formatErr("header length %q is not ten digits", b[:10])
		}
		h.Length = h.Length*10 + int64(c-'0')
	}
	h.Type, h.Version = lower(b[10]), b[11]
	h.Server = string(b[12:22])
	h.Compression, h.Encoding = lower(b[22]), lower(b[23])
	if h.Type != 'z' {
		return Header{}, formatErr("message type %q, want 'z'", h.Type)
	}
	if h.Compression != ' ' || h.Encoding != ' ' {
		return Header{}, formatErr("compression %q, encoding %q: only plain messages are supported", h.Compression, h.Encoding)
	}
	return h, nil
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// AppendCInt appends v (0 ≤ v ≤ MaxCInt) as a compressed integer.
func AppendCInt(b []byte, v int) []byte {
	if v < 0 || v > MaxCInt {
		panic("apdu: compressed integer out of range: " + strconv.Itoa(v))
	}
	n := 1
	for x := v >> 7; x > 0; x >>= 7 {
		n++
	}
	for i := n - 1; i >= 0; i-- {
		c := byte(v>>(7*i)) & 0x7f
		if i > 0 {
			c |= 0x80
		}
		b = append(b, c)
	}
	return b
}

// CInt reads a compressed integer from the start of b: its value and its
// length in bytes. More than four bytes, or b ending inside it, is an
// error.
func CInt(b []byte) (v, n int, err error) {
	for n < len(b) {
		c := b[n]
		n++
		v = v<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return v, n, nil
		}
		if n == 4 {
			return 0, 0, formatErr("compressed integer longer than 4 bytes")
		}
	}
	return 0, 0, formatErr("message ends inside a compressed integer")
}

// AppendAny appends a tagged item: tag, length, bytes.
func AppendAny(b []byte, tag int, v []byte) []byte {
	b = AppendCInt(b, tag)
	b = AppendCInt(b, len(v))
	return append(b, v...)
}

// AppendString is AppendAny for a string (an empty one is "tag 00").
func AppendString(b []byte, tag int, s string) []byte {
	b = AppendCInt(b, tag)
	b = AppendCInt(b, len(s))
	return append(b, s...)
}

// AppendNum appends a number item (writeNum): tag, size, the value in the
// fewest big-endian bytes (1 for 0–255, 2 below 65536, 3 below 2^24, else 4).
func AppendNum(b []byte, tag int, v uint32) []byte {
	n := 4
	switch {
	case v < 1<<8:
		n = 1
	case v < 1<<16:
		n = 2
	case v < 1<<24:
		n = 3
	}
	b = AppendCInt(b, tag)
	b = AppendCInt(b, n)
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// Num decodes the value of a number item (1 to 4 big-endian bytes).
func Num(v []byte) (uint32, error) {
	if len(v) == 0 || len(v) > 4 {
		return 0, formatErr("number of %d bytes", len(v))
	}
	var x uint32
	for _, c := range v {
		x = x<<8 | uint32(c)
	}
	return x, nil
}

// AppendDiag appends a diagnostic record (tag 28) in freeWAIS's own
// layout: 1c, a 2-byte length L, the 2-character code, the text, a
// surrogate flag byte (L = 2 + len(text) + 1), and 1d.
func AppendDiag(b []byte, code, text string) []byte {
	if len(code) != 2 {
		panic("apdu: a diagnostic code has 2 characters")
	}
	l := 2 + len(text) + 1
	b = append(b, TagDiagnostic, byte(l>>8), byte(l))
	b = append(b, code...)
	b = append(b, text...)
	return append(b, 0, endOfRecord)
}

// Diag is a diagnostic record from the server.
type Diag struct {
	Code string // two characters, e.g. "S1", "SF"
	Text string // add-info, as sent
}

// Item is one tagged item: its tag and value (a slice of the message).
// A diagnostic record has Tag 28 and Diag set.
type Item struct {
	Tag   int
	Value []byte
	Diag  *Diag
}

// Items walks the tagged items of b in order. Its errors wrap ErrFormat.
type Items struct {
	b   []byte
	err error
}

// NewItems returns a walker over b.
func NewItems(b []byte) *Items { return &Items{b: b} }

// Next returns the next item; false at the end of the items or on an
// error (see Err).
func (it *Items) Next() (Item, bool) {
	if it.err != nil || len(it.b) == 0 {
		return Item{}, false
	}
	tag, n, err := CInt(it.b)
	if err != nil {
		it.err = err
		return Item{}, false
	}
	if tag == TagDiagnostic {
		return it.diag()
	}
	l, m, err := CInt(it.b[n:])
	if err != nil {
		it.err = err
		return Item{}, false
	}
	if l > len(it.b)-n-m {
		it.err = formatErr("item %d claims %d bytes, %d remain", tag, l, len(it.b)-n-m)
		return Item{}, false
	}
	v := it.b[n+m : n+m+l]
	it.b = it.b[n+m+l:]
	return Item{Tag: tag, Value: v}, true
}

func (it *Items) diag() (Item, bool) {
	b := it.b
	if len(b) < 3 {
		it.err = formatErr("diagnostic record cut short")
		return Item{}, false
	}
	l := int(b[1])<<8 | int(b[2])
	if l < 3 || l > len(b)-3 {
		it.err = formatErr("diagnostic record claims %d bytes, %d remain", l, len(b)-3)
		return Item{}, false
	}
	body := b[3 : 3+l]
	rest := b[3+l:]
	if len(rest) > 0 && rest[0] == endOfRecord {
		rest = rest[1:]
	}
	d := &Diag{Code: string(body[:2]), Text: string(body[2 : l-1])}
	it.b = rest
	return Item{Tag: TagDiagnostic, Value: body, Diag: d}, true
}

// Err is the error that stopped Next, if any.
func (it *Items) Err() error { return it.err }
