package ftp

import (
	"strings"

	"github.com/urlget/urlget/fetch"
)

// ListFormat is the format of a LIST reply.
type ListFormat uint8

const (
	ListAuto    ListFormat = iota // not known: the first lines decide
	ListUnix                      // "ls -l", also without link count or group, ISO, CJK and AIX dates
	ListDOS                       // DOS/IIS: "01-02-24  12:34PM  <DIR>  name"
	ListEPLF                      // Bernstein's EPLF: "+i8388621.48594,m825718503,r,s280,\tname"
	ListMLSx                      // RFC 3659 fact lines sent for LIST
	ListVMS                       // OpenVMS: "NAME.TYPE;1  9/9  2-JUN-1998 07:32:04  [GROUP,OWNER]  (RWED,RWED,RWED,RE)"
	ListOS2                       // OS/2: "  0  DIR  05-12-97  16:44  NAME"
	ListNetWare                   // NetWare: "d [RWCEAFMS] owner  512 Apr 13 23:12 name"
	ListOS400                     // IBM i: "OWNER  4019 04/03/18 18:58:16 *STMF  name"
	ListMVS                       // z/OS and MVS datasets, PDS members, JES jobs (told apart by the header line)
	ListZOSUnix                   // z/OS "Enterprise Unix": "-C--E-----FTP B QUA1I1  18128  41 Aug 12 13:56 NAME"
)

var listFormatNames = [...]string{"auto", "unix", "dos", "eplf", "mlsx", "vms", "os2", "netware", "os400", "mvs", "zos-unix"}

func (f ListFormat) String() string {
	if int(f) < len(listFormatNames) {
		return listFormatNames[f]
	}
	return "ListFormat(?)"
}

// SystemListFormat gives the listing format a SYST reply's text suggests
// ("UNIX Type: L8", "Windows_NT", "VMS", "MVS is the operating system of
// this server", "OS/400", "OS/2", "NETWARE"), or ListAuto. It is a hint
// for NewListParser: the listing itself still decides when it does not fit.
func SystemListFormat(syst string) ListFormat {
	s := strings.ToUpper(syst)
	switch {
	case strings.Contains(s, "MVS"), strings.Contains(s, "Z/OS"), strings.Contains(s, "OS/390"):
		return ListMVS
	case strings.Contains(s, "OS/400"), strings.Contains(s, "OS400"):
		return ListOS400
	case strings.Contains(s, "VMS"):
		return ListVMS
	case strings.Contains(s, "OS/2"):
		return ListOS2
	case strings.Contains(s, "NETWARE"):
		return ListNetWare
	case strings.Contains(s, "WINDOWS_NT"):
		return ListDOS
	case strings.Contains(s, "UNIX"):
		return ListUnix
	}
	return ListAuto
}

// ListParser reads the lines of one LIST reply. The format is settled by
// the first line that parses (the hint's format tried first), and every
// later line is read in that format only: one odd line gives an Unparsed
// entry rather than a guess in another format. Header and summary lines
// ("total 12", "Directory USER1:[TEMP]", an MVS column header) are Unparsed
// and settle nothing, except that an MVS header tells the MVS list type.
//
// A VMS name too long for its column stands on a line of its own: that
// line gives an Unparsed entry and the next one the whole entry, its Raw
// holding both lines joined by "\r\n". A ListParser is not safe for
// concurrent use.
type ListParser struct {
	hint    ListFormat
	format  ListFormat
	mvs     int    // MVS list type, when format is ListMVS
	pending string // the name line of a wrapped VMS entry
}

// NewListParser returns a parser for one listing; hint is the format
// expected (SystemListFormat of the SYST reply), or ListAuto. MVS listings
// are only recognised with the ListMVS hint or their header line.
func NewListParser(hint ListFormat) *ListParser {
	return &ListParser{hint: hint}
}

// Format is the format the listing has shown so far (ListAuto until a line
// has parsed).
func (p *ListParser) Format() ListFormat { return p.format }

// Parse parses the next line of the listing.
func (p *ListParser) Parse(line string) fetch.Entry {
	line = strings.TrimRight(line, "\r\n")
	if p.pending != "" {
		first := p.pending
		p.pending = ""
		if e, ok := parseVMS(first + " " + line); ok {
			p.format = ListVMS
			e.Raw = first + "\r\n" + line
			return e
		}
	}
	if strings.TrimSpace(line) == "" {
		return unparsed(line)
	}
	if p.format != ListAuto {
		if e, ok := p.parseAs(p.format, line); ok {
			return e
		}
		return p.unparsedOrPending(line)
	}
	if t := mvsHeader(line); t != mvsUnknown && (p.hint == ListMVS || t != mvsJES) {
		p.hint, p.mvs = ListMVS, t
		return unparsed(line)
	}
	if strings.HasPrefix(line, "Directory ") && strings.Contains(line, ":[") {
		p.hint = ListVMS // "Directory USER1:[TEMP]"
		return unparsed(line)
	}
	if p.hint != ListAuto {
		if e, ok := p.parseAs(p.hint, line); ok {
			p.format = p.hint
			return e
		}
	}
	for _, f := range detectOrder {
		if f == p.hint {
			continue
		}
		if e, ok := p.parseAs(f, line); ok {
			p.format = f
			return e
		}
	}
	return p.unparsedOrPending(line)
}

// detectOrder is the order formats are tried in on a listing's first
// lines; each format's lines are unlike the others', the stricter first.
// MVS is not in it: its member lines (a name alone) would match anything.
var detectOrder = []ListFormat{ListEPLF, ListMLSx, ListUnix, ListNetWare, ListZOSUnix, ListDOS, ListOS2, ListVMS, ListOS400}

func (p *ListParser) unparsedOrPending(line string) fetch.Entry {
	if (p.format == ListVMS || p.format == ListAuto && p.hint != ListMVS) && isVMSName(strings.TrimSpace(line)) && !strings.ContainsAny(strings.TrimSpace(line), " \t") {
		p.pending = strings.TrimSpace(line)
	}
	return unparsed(line)
}

func (p *ListParser) parseAs(f ListFormat, line string) (fetch.Entry, bool) {
	switch f {
	case ListUnix:
		// A few servers indent their lines.
		if e, ok := parseUnix(strings.TrimLeft(line, " ")); ok {
			e.Raw = line
			return e, true
		}
	case ListDOS:
		return parseDOS(line)
	case ListEPLF:
		return parseEPLF(line)
	case ListMLSx:
		if looksMLSx(line) {
			e, _, ok := parseMLSx(line)
			return e, ok
		}
	case ListVMS:
		return parseVMS(line)
	case ListOS2:
		return parseOS2(line)
	case ListNetWare:
		return parseNetWare(line)
	case ListOS400:
		return parseOS400(line)
	case ListZOSUnix:
		return parseEnterpriseUnix(line)
	case ListMVS:
		return p.parseMVS(line)
	}
	return fetch.Entry{}, false
}

// parseMVS reads a line of the MVS list type the header told, or, without
// a header, the first type that fits. z/OS lists UNIX directories (HFS) in
// ls -l form.
func (p *ListParser) parseMVS(line string) (fetch.Entry, bool) {
	switch p.mvs {
	case mvsDataset:
		return parseMVSDataset(line)
	case mvsMember:
		return parseMVSMember(line)
	case mvsJES:
		return parseMVSJES(line)
	}
	if e, ok := parseUnix(line); ok {
		return e, ok
	}
	// The strictest first: a member line may be a name alone.
	for _, k := range []struct {
		t     int
		parse func(string) (fetch.Entry, bool)
	}{{mvsDataset, parseMVSDataset}, {mvsJES, parseMVSJES}, {mvsMember, parseMVSMember}} {
		if e, ok := k.parse(line); ok {
			p.mvs = k.t
			return e, true
		}
	}
	return fetch.Entry{}, false
}
