package apdu

import (
	"strconv"
	"strings"
)

// Message building: Begin reserves the header, the APDU is appended, and
// End writes the header once the APDU's length is known. Within an APDU,
// beginHLI and endHLI do the same for the header length indicator.

// Begin reserves room for a message header at the end of b.
func Begin(b []byte) []byte {
	return append(b, make([]byte, HeaderLen)...)
}

// End writes header h at b[start:] (where Begin reserved it) for the APDU
// appended since.
func End(b []byte, start int, h Header) []byte {
	AppendHeader(b[start:start], h, len(b)-start-HeaderLen)
	return b
}

func beginHLI(b []byte) ([]byte, int) { return append(b, 0, 0), len(b) }

func endHLI(b []byte, at int) []byte {
	n := len(b) - at - 2
	b[at], b[at+1] = byte(n>>8), byte(n)
	return b
}

// cintLen is the length of v as a compressed integer.
func cintLen(v int) int {
	n := 1
	for v >>= 7; v > 0; v >>= 7 {
		n++
	}
	return n
}

// anyLen is the length of a tagged item holding l bytes.
func anyLen(tag, l int) int { return cintLen(tag) + cintLen(l) + l }

func appendUint24(b []byte, v int) []byte { return append(b, byte(v>>16), byte(v>>8), byte(v)) }

// Bit 0 (0x80) of the Init options: willSearch. willPresent (0x40) or
// willDelete (0x20) make freeWAIS-sf reject the Init.
const optWillSearch = 0x80

// AppendInit appends an Init message: protocol version 1, willSearch only,
// preferred and maximum message size maxRecord, and the implementation
// name when not "". Sending one is optional (Lynx never does); it tells the
// server the largest message the client takes.
func AppendInit(b []byte, maxRecord uint32, implName string) []byte {
	start := len(b)
	b = Begin(b)
	b, hli := beginHLI(b)
	b = append(b, PDUInit)
	b = AppendAny(b, TagProtocolVersion, []byte{0x80})
	b = AppendAny(b, TagOptions, []byte{optWillSearch})
	b = AppendNum(b, TagPreferredMsgSize, maxRecord)
	b = AppendNum(b, TagMaximumRecordSize, maxRecord)
	if implName != "" {
		b = AppendString(b, TagImplementationNm, implName)
	}
	b = endHLI(b, hli)
	return End(b, start, ClientHeader)
}

// Init is a decoded Init APDU (what a server needs of it).
type Init struct {
	Options   byte   // first byte of the options bitmap
	MaxRecord uint32 // MaximumRecordSize; 0 when absent
}

// ParseInit decodes an Init APDU.
func ParseInit(a []byte) (Init, error) {
	z, _, err := split(a, PDUInit, 0)
	if err != nil {
		return Init{}, err
	}
	var in Init
	it := NewItems(z)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		switch item.Tag {
		case TagOptions:
			if len(item.Value) > 0 {
				in.Options = item.Value[0]
			}
		case TagMaximumRecordSize:
			if in.MaxRecord, err = Num(item.Value); err != nil {
				return Init{}, err
			}
		}
	}
	return in, it.Err()
}

// WillPresentOrDelete reports whether the Init asks for Present or Delete,
// which freeWAIS-sf refuses.
func (in Init) WillPresentOrDelete() bool { return in.Options&0x60 != 0 }

// AppendInitResponse appends an InitResponse message under header h:
// accepted or not, and the message size the server will keep to.
func AppendInitResponse(b []byte, h Header, accept bool, maxRecord uint32) []byte {
	start := len(b)
	b = Begin(b)
	b, hli := beginHLI(b)
	result := byte(0)
	if accept {
		result = 1
	}
	b = append(b, PDUInitResponse, result)
	b = AppendAny(b, TagProtocolVersion, []byte{0x80})
	b = AppendAny(b, TagOptions, []byte{optWillSearch})
	b = AppendNum(b, TagPreferredMsgSize, maxRecord)
	b = AppendNum(b, TagMaximumRecordSize, maxRecord)
	b = endHLI(b, hli)
	b = AppendCInt(b, TagUserInfo)
	b = AppendCInt(b, 6)
	b = AppendNum(b, TagChunkCode, 0)
	b = AppendNum(b, TagChunkIDLength, 0)
	return End(b, start, h)
}

// InitResponse is a decoded InitResponse APDU.
type InitResponse struct {
	Accepted  bool
	MaxRecord uint32 // 0 when absent
}

// ParseInitResponse decodes an InitResponse APDU.
func ParseInitResponse(a []byte) (InitResponse, error) {
	z, _, err := split(a, PDUInitResponse, 1)
	if err != nil {
		return InitResponse{}, err
	}
	r := InitResponse{Accepted: a[3] != 0}
	it := NewItems(z)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		if item.Tag == TagMaximumRecordSize {
			if r.MaxRecord, err = Num(item.Value); err != nil {
				return InitResponse{}, err
			}
		}
	}
	return r, it.Err()
}

// split checks an APDU's HLI and PDU type and returns the tagged items of
// its Z39.50 part (after fixed bytes of fixed fields) and the part after
// it (WAIS items).
func split(a []byte, pdu byte, fixed int) (z, rest []byte, err error) {
	if len(a) < 3 {
		return nil, nil, formatErr("APDU of %d bytes", len(a))
	}
	hli := int(a[0])<<8 | int(a[1])
	if hli > len(a)-2 {
		return nil, nil, formatErr("header length indicator %d, but only %d bytes follow", hli, len(a)-2)
	}
	if hli < 1+fixed {
		return nil, nil, formatErr("header length indicator %d too short for PDU %d", hli, pdu)
	}
	if a[2] != pdu {
		return nil, nil, formatErr("PDU type %d, want %d", a[2], pdu)
	}
	return a[3+fixed : 2+hli], a[2+hli:], nil
}

// PDUType is the PDU type of an APDU, 0 when it is too short to say.
func PDUType(a []byte) byte {
	if len(a) < 3 {
		return 0
	}
	return a[2]
}

// Attribute lists of a retrieval query (use, relation, then four times
// "ignore"): the DocID, the document type, the first byte and the byte
// after the last.
const (
	attrDocID = "un re ig ig ig ig"
	attrType  = "wt re ig ig ig ig"
	attrStart = "wb ro ig ig ig ig"
	attrEnd   = "wb rl ig ig ig ig"
)

// elementSet is the ElementSetNames of a retrieval: database name (empty),
// " ", 0x1F, the element set name.
const elementSet = " \x1fDocument Text"

// beginSearch starts a Search message: the header and HLI reserved, the
// PDU type, the three set bounds (which freeWAIS-sf ignores), the replace
// indicator, the result set name, the database and the query type.
func beginSearch(b []byte, bounds [3]int, resultSet, database, queryType string) ([]byte, int) {
	b = Begin(b)
	b, hli := beginHLI(b)
	b = append(b, PDUSearch)
	for _, n := range bounds {
		b = appendUint24(b, n)
	}
	b = append(b, 1) // replace indicator
	b = AppendString(b, TagResultSetName, resultSet)
	b = AppendString(b, TagDatabaseNames, database)
	b = AppendString(b, TagQueryType, queryType)
	return b, hli
}

// AppendSearch appends a relevance search (query type "3") on database for
// seed (the words as typed; "" asks freeWAIS-sf for its help records),
// returning at most maxDocs document headers. The bytes are those of
// waissearch and Lynx (set bounds 30/5000/30, empty result set name,
// DateFactor 1).
func AppendSearch(b []byte, database, seed string, maxDocs uint32) []byte {
	start := len(b)
	b, hli := beginSearch(b, [3]int{30, 5000, 30}, "", database, "3")
	b = endHLI(b, hli)
	var num [12]byte
	mx := AppendNum(num[:0], TagMaxDocs, maxDocs)
	n := anyLen(TagSeedWords, len(seed)) + 3 + len(mx)
	b = AppendCInt(b, TagUserInfo)
	b = AppendCInt(b, n)
	b = AppendString(b, TagSeedWords, seed)
	b = AppendNum(b, TagDateFactor, 1)
	b = append(b, mx...)
	return End(b, start, ClientHeader)
}

// AppendRetrieval appends the retrieval of bytes [first, end) of a document
// (a search with a type-1 query, as waissearch and Lynx send it: set
// bounds 10/16/15, result set "FOO", reference id "3", element set
// "Document Text"). docType is the document's type ("TEXT" when unknown):
// freeWAIS-sf needs one.
func AppendRetrieval(b []byte, database string, docID []byte, docType string, first, end int64) []byte {
	start := len(b)
	b, hli := beginSearch(b, [3]int{10, 16, 15}, "FOO", database, "1")
	b = AppendString(b, TagElementSetNames, elementSet)
	b = AppendString(b, TagReferenceID, "3")
	b = endHLI(b, hli)
	var d1, d2 [20]byte
	fs := strconv.AppendInt(d1[:0], first, 10)
	es := strconv.AppendInt(d2[:0], end, 10)
	attr := anyLen(TagAttributeList, len(attrDocID))
	and := anyLen(TagOperator, 1)
	n := 4*attr + 3*and + anyLen(TagTerm, len(docID)) + anyLen(TagTerm, len(docType)) +
		anyLen(TagTerm, len(fs)) + anyLen(TagTerm, len(es))
	b = AppendCInt(b, TagQuery)
	b = AppendCInt(b, n)
	b = AppendString(b, TagAttributeList, attrDocID)
	b = AppendAny(b, TagTerm, docID)
	b = AppendString(b, TagAttributeList, attrType)
	b = AppendString(b, TagTerm, docType)
	b = AppendString(b, TagOperator, "a")
	b = AppendString(b, TagAttributeList, attrStart)
	b = AppendAny(b, TagTerm, fs)
	b = AppendString(b, TagOperator, "a")
	b = AppendString(b, TagAttributeList, attrEnd)
	b = AppendAny(b, TagTerm, es)
	b = AppendString(b, TagOperator, "a")
	return End(b, start, ClientHeader)
}

// Search is a decoded Search APDU: a relevance search (QueryType "3") or
// a retrieval (QueryType "1").
type Search struct {
	QueryType     string
	Database      string // the first of the DatabaseNames
	ResultSetName string
	ReferenceID   []byte // nil when absent

	// Relevance search.
	Seed       string
	MaxDocs    int // -1 when absent
	HasSeed    bool
	HasUserBlk bool

	// Retrieval: one document and a byte range.
	DocID      []byte
	DocType    string
	HasType    bool
	Start, End int64 // -1 when absent
}

// ParseSearch decodes a Search APDU. An unknown tag in its Z39.50 part is
// an error, as it is for freeWAIS-sf.
func ParseSearch(a []byte) (*Search, error) {
	z, rest, err := split(a, PDUSearch, 10)
	if err != nil {
		return nil, err
	}
	s := &Search{MaxDocs: -1, Start: -1, End: -1}
	it := NewItems(z)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		switch item.Tag {
		case TagResultSetName:
			s.ResultSetName = string(item.Value)
		case TagDatabaseNames:
			db, _, _ := strings.Cut(string(item.Value), "\x1f")
			s.Database = db
		case TagQueryType:
			s.QueryType = string(item.Value)
		case TagElementSetNames:
		case TagReferenceID:
			s.ReferenceID = item.Value
		default:
			return nil, formatErr("unexpected tag %d in a search", item.Tag)
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	it = NewItems(rest)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		switch item.Tag {
		case TagUserInfo:
			s.HasUserBlk = true
			if err := s.userInfo(item.Value); err != nil {
				return nil, err
			}
		case TagQuery:
			if err := s.query(item.Value); err != nil {
				return nil, err
			}
		}
	}
	return s, it.Err()
}

func (s *Search) userInfo(v []byte) error {
	it := NewItems(v)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		switch item.Tag {
		case TagSeedWords:
			s.Seed, s.HasSeed = string(item.Value), true
		case TagMaxDocs:
			n, err := Num(item.Value)
			if err != nil {
				return err
			}
			s.MaxDocs = int(min(n, 1<<30))
		}
	}
	return it.Err()
}

func (s *Search) query(v []byte) error {
	it := NewItems(v)
	attr := ""
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		switch item.Tag {
		case TagAttributeList:
			attr = string(item.Value)
		case TagTerm:
			var err error
			switch {
			case strings.HasPrefix(attr, "un "):
				s.DocID = item.Value
			case strings.HasPrefix(attr, "wt "):
				s.DocType, s.HasType = string(item.Value), true
			case strings.HasPrefix(attr, "wb ro"):
				s.Start, err = decimal(item.Value)
			case strings.HasPrefix(attr, "wb rl"):
				s.End, err = decimal(item.Value)
			default:
				return formatErr("unsupported attribute list %q", attr)
			}
			if err != nil {
				return err
			}
		case TagOperator:
		default:
			return formatErr("unexpected tag %d in a type-1 query", item.Tag)
		}
	}
	return it.Err()
}

func decimal(v []byte) (int64, error) {
	if len(v) == 0 || len(v) > 18 {
		return 0, formatErr("bad number %q", v)
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, formatErr("bad number %q", v)
		}
		n = n*10 + int64(c-'0')
	}
	return n, nil
}

// DocHeader is one search hit (a DocumentHeader group, tag 150).
type DocHeader struct {
	DocID     []byte
	Score     uint32
	BestMatch uint32
	Length    uint32 // DocumentLength in bytes
	Lines     uint32
	Types     []string // the first is the document's default type
	Source    string
	Date      string
	Headline  string
}

// MaxTypes bounds the types kept per header.
const MaxTypes = 16

// Response is what a SearchResponse carries.
type Response struct {
	Status        byte
	Returned      int // NumberOfRecordsReturned
	ReferenceID   []byte
	SeedWordsUsed string

	Headers []DocHeader // at most the maxHeaders given to ParseResponse
	More    int         // headers beyond maxHeaders, dropped

	// A retrieval's text (DocumentText group, tag 153): a slice of the
	// APDU, valid until it is reused.
	HasText bool
	Text    []byte
	TextID  []byte

	Diags []Diag
}

// AppendResponse appends a SearchResponse message under header h.
func AppendResponse(b []byte, h Header, r *Response) []byte {
	start := len(b)
	b = Begin(b)
	b, hli := beginHLI(b)
	b = append(b, PDUSearchResponse, r.Status)
	b = appendUint24(b, 0)
	b = appendUint24(b, r.Returned)
	b = appendUint24(b, 0)
	b = AppendNum(b, TagPresentStatus, 0)
	if r.ReferenceID != nil {
		b = AppendAny(b, TagReferenceID, r.ReferenceID)
	}
	b = endHLI(b, hli)
	// The user-information block; its length is known once it is built, so
	// it is built after a placeholder of the largest length and moved.
	b = AppendCInt(b, TagUserInfo)
	at := len(b)
	b = append(b, 0, 0, 0, 0)
	if r.SeedWordsUsed != "" {
		b = AppendString(b, TagSeedWordsUsed, r.SeedWordsUsed)
	}
	for i := range r.Headers {
		b = appendHeaderGroup(b, &r.Headers[i])
	}
	if r.HasText {
		n := anyLen(TagDocID, len(r.TextID)) + 3 + anyLen(TagDocText, len(r.Text))
		b = AppendCInt(b, TagDocTextGroup)
		b = AppendCInt(b, n)
		b = AppendAny(b, TagDocID, r.TextID)
		b = AppendNum(b, TagVersion, 0)
		b = AppendAny(b, TagDocText, r.Text)
	}
	for _, d := range r.Diags {
		b = AppendDiag(b, d.Code, d.Text)
	}
	n := len(b) - at - 4
	var l [4]byte
	ln := AppendCInt(l[:0], n)
	copy(b[at:], ln)
	b = append(b[:at+len(ln)], b[at+4:]...)
	return End(b, start, h)
}

func appendHeaderGroup(b []byte, d *DocHeader) []byte {
	var g []byte
	g = AppendAny(g, TagDocID, d.DocID)
	g = AppendNum(g, TagScore, d.Score)
	g = AppendNum(g, TagBestMatch, d.BestMatch)
	g = AppendNum(g, TagDocLength, d.Length)
	g = AppendNum(g, TagLines, d.Lines)
	var tb []byte
	for _, t := range d.Types {
		tb = AppendString(tb, TagType, t)
	}
	g = AppendAny(g, TagTypeBlock, tb)
	g = AppendString(g, TagSource, d.Source)
	g = AppendString(g, TagDate, d.Date)
	g = AppendString(g, TagHeadline, d.Headline)
	return AppendAny(b, TagDocHeaderGroup, g)
}

// ParseResponse decodes a SearchResponse APDU, keeping at most maxHeaders
// document headers (the others are counted in More). Text is a slice of a.
func ParseResponse(a []byte, maxHeaders int) (*Response, error) {
	z, rest, err := split(a, PDUSearchResponse, 10)
	if err != nil {
		return nil, err
	}
	r := &Response{Status: a[3], Returned: int(a[7])<<16 | int(a[8])<<8 | int(a[9])}
	it := NewItems(z)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		if item.Tag == TagReferenceID {
			r.ReferenceID = item.Value
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	it = NewItems(rest)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		switch item.Tag {
		case TagUserInfo:
			if err := r.userInfo(item.Value, maxHeaders); err != nil {
				return nil, err
			}
		case TagDiagnostic:
			r.Diags = append(r.Diags, *item.Diag)
		}
	}
	if err := it.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

// maxDiags bounds the diagnostics kept from one response.
const maxDiags = 16

func (r *Response) userInfo(v []byte, maxHeaders int) error {
	it := NewItems(v)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		switch item.Tag {
		case TagSeedWordsUsed:
			r.SeedWordsUsed = string(item.Value)
		case TagDocHeaderGroup, TagShortHeader, TagLongHeader:
			if len(r.Headers) >= maxHeaders {
				r.More++
				continue
			}
			h, err := parseHeaderGroup(item.Value)
			if err != nil {
				return err
			}
			r.Headers = append(r.Headers, h)
		case TagDocTextGroup:
			if r.HasText {
				return formatErr("more than one document text in a response")
			}
			if err := r.textGroup(item.Value); err != nil {
				return err
			}
		case TagDiagnostic:
			if len(r.Diags) < maxDiags {
				r.Diags = append(r.Diags, *item.Diag)
			}
		}
	}
	return it.Err()
}

func (r *Response) textGroup(v []byte) error {
	it := NewItems(v)
	for item, ok := it.Next(); ok; item, ok = it.Next() {
		switch item.Tag {
		case TagDocID:
			r.TextID = item.Value
		case TagDocText:
			r.Text, r.HasText = item.Value, true
		case TagDiagnostic:
			if len(r.Diags) < maxDiags {
				r.Diags = append(r.Diags, *item.Diag)
			}
		}
	}
	if !r.HasText && it.Err() == nil {
		r.HasText, r.Text = true, nil
	}
	return it.Err()
}

func parseHeaderGroup(v []byte) (DocHeader, error) {
	var h DocHeader
	it := NewItems(v)
	var err error
	for item, ok := it.Next(); ok && err == nil; item, ok = it.Next() {
		switch item.Tag {
		case TagDocID:
			h.DocID = append([]byte(nil), item.Value...)
		case TagScore:
			h.Score, err = Num(item.Value)
		case TagBestMatch:
			h.BestMatch, err = Num(item.Value)
		case TagDocLength:
			h.Length, err = Num(item.Value)
		case TagLines:
			h.Lines, err = Num(item.Value)
		case TagTypeBlock:
			tb := NewItems(item.Value)
			for t, ok := tb.Next(); ok; t, ok = tb.Next() {
				if t.Tag == TagType && len(h.Types) < MaxTypes {
					h.Types = append(h.Types, string(t.Value))
				}
			}
			err = tb.Err()
		case TagType:
			if len(h.Types) < MaxTypes {
				h.Types = append(h.Types, string(item.Value))
			}
		case TagSource:
			h.Source = string(item.Value)
		case TagDate:
			h.Date = string(item.Value)
		case TagHeadline:
			h.Headline = string(item.Value)
		}
	}
	if err == nil {
		err = it.Err()
	}
	return h, err
}
