package ftp

import (
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/fuzzcheck"
)

// TestListParserLocks: the first line that parses settles the format; a
// later line of another format is Unparsed, not read in that format.
func TestListParserLocks(t *testing.T) {
	p := NewListParser(ListAuto)
	if e := p.Parse("total 12"); !e.Unparsed || p.Format() != ListAuto {
		t.Fatalf("header: %+v, format %v", e, p.Format())
	}
	if e := p.Parse("01-02-24  12:34PM       <DIR>          Some Dir"); e.Unparsed || e.Type != fetch.EntryDir || p.Format() != ListDOS {
		t.Fatalf("DOS line: %+v, format %v", e, p.Format())
	}
	unix := "-rw-r--r--    1 0        0              13 Jan 02  2020 hello.txt"
	if e := p.Parse(unix); !e.Unparsed || e.Raw != unix {
		t.Errorf("UNIX line in a DOS listing: %+v, want Unparsed", e)
	}
	if e := NewListParser(ListAuto).Parse(unix); e.Unparsed || e.Name != "hello.txt" {
		t.Errorf("UNIX line alone: %+v", e)
	}
}

// TestListParserVMS: headers, a wrapped entry, the summary line.
func TestListParserVMS(t *testing.T) {
	p := NewListParser(SystemListFormat("215 VMS system type."))
	lines := []string{
		"Directory USER1:[TEMP]",
		"",
		"UNZIP_AND_ATTACH_FILES.COM;12",
		"                        14/15         24-JUL-2002 14:35:40  [TRANSLATED]    (RWE,RWE,RWE,RE)",
		"DATA.DIR;1               1/9           2-JUN-1998 07:32:04  [GROUP,OWNER]    (RWED,RWED,RWED,RE)",
		"-rw-r--r--    1 0        0              13 Jan 02  2020 hello.txt",
		"Total of 3 files, 16/33 blocks.",
	}
	var got []fetch.Entry
	for _, l := range lines {
		got = append(got, p.Parse(l))
	}
	for _, i := range []int{0, 1, 2, 5, 6} {
		if !got[i].Unparsed {
			t.Errorf("line %d %q: %+v, want Unparsed", i, lines[i], got[i])
		}
	}
	want := fetch.Entry{Name: "UNZIP_AND_ATTACH_FILES.COM;12", Type: fetch.EntryFile, Size: -1,
		ModTime: utc(2002, 7, 24, 14, 35, 40), Raw: lines[2] + "\r\n" + lines[3]}
	if got[3] != want {
		t.Errorf("wrapped entry\n got %+v\nwant %+v", got[3], want)
	}
	if got[4].Name != "DATA.DIR;1" || got[4].Type != fetch.EntryDir || got[4].Size != -1 {
		t.Errorf("directory: %+v", got[4])
	}
	if p.Format() != ListVMS {
		t.Errorf("format %v, want vms", p.Format())
	}
}

// TestListParserMVS: the header tells the list type; without the MVS hint
// a member line (a name alone) is no entry.
func TestListParserMVS(t *testing.T) {
	p := NewListParser(ListAuto)
	p.Parse(" Name     VV.MM   Created       Changed      Size  Init   Mod   Id")
	e := p.Parse("SAVE03    01.03 2002/09/12 2002/10/11 09:37    11    11     0 KIL001")
	if e.Name != "SAVE03" || e.ModTime != utc(2002, 10, 11, 9, 37, 0) || p.Format() != ListMVS {
		t.Errorf("member: %+v, format %v", e, p.Format())
	}
	if e := NewListParser(ListAuto).Parse("SAVE04"); !e.Unparsed {
		t.Errorf("a lone name without MVS hint: %+v", e)
	}
	p = NewListParser(SystemListFormat("215 MVS is the operating system of this server. FTP Server is running on z/OS."))
	p.Parse("Volume Unit    Referred Ext Used Recfm Lrecl BlkSz Dsorg Dsname")
	if e := p.Parse("SAVE01 3390   2004/06/23  1    1  FB     128  6144  PO    INCOMING.RPTBM024.D061704"); e.Type != fetch.EntryDir || e.Name != "INCOMING.RPTBM024.D061704" {
		t.Errorf("dataset: %+v", e)
	}
	p = NewListParser(ListMVS)
	if e := p.Parse("IBMUSER2 JOB01906 IBMUSER  OUTPUT A        RC=0000 3 spool files"); e.Name != "JOB01906" {
		t.Errorf("JES job: %+v", e)
	}
}

func TestSystemListFormat(t *testing.T) {
	for syst, want := range map[string]ListFormat{
		"UNIX Type: L8":     ListUnix,
		"Windows_NT":        ListDOS,
		"VMS V5.5 Type: L8": ListVMS,
		"OS/400 is the remote operating system. The TCP/IP version is \"V5R1M0\"": ListOS400,
		"OS/2":               ListOS2,
		"NETWARE  Type : L8": ListNetWare,
		"Plan 9":             ListAuto,
	} {
		if got := SystemListFormat(syst); got != want {
			t.Errorf("SystemListFormat(%q) = %v, want %v", syst, got, want)
		}
	}
}

func TestVMSLocalName(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  bool
		want string
	}{
		{"FILE.TXT;3", false, "FILE.TXT"},
		{"DATA.DIR;1", true, "DATA"},
		{"DATA.DIR;1", false, "DATA.DIR"},
		{"A.;2", false, "A"},
		{"plain.txt", false, "plain.txt"},
		{"x;y", false, "x;y"},
	} {
		if got := VMSLocalName(tc.name, tc.dir); got != tc.want {
			t.Errorf("VMSLocalName(%q, %v) = %q, want %q", tc.name, tc.dir, got, tc.want)
		}
	}
}

// FuzzListParser: no line or pair of lines makes a parser panic, and an
// entry that parsed has a name and a size of -1 or more.
func FuzzListParser(f *testing.F) {
	for _, c := range loadListCases(f) {
		f.Add(uint8(0), c.Line)
	}
	f.Fuzz(func(t *testing.T, hint uint8, lines string) {
		p := NewListParser(ListFormat(hint % uint8(len(listFormatNames))))
		for _, l := range []string{lines, lines, "NAME.TXT;1", lines} {
			fuzzcheck.Entry(t, p.Parse(l))
		}
		fuzzcheck.Entry(t, ParseMLSx(lines))
	})
}
