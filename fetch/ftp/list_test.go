package ftp

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/urlget/urlget/fetch"
)

func utc(y int, m time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, m, d, h, mi, s, 0, time.UTC)
}

func TestParseList(t *testing.T) {
	defer func(f func() time.Time) { now = f }(now)
	now = func() time.Time { return utc(2024, 3, 10, 12, 0, 0) }
	tests := []struct {
		line string
		want fetch.Entry
	}{
		// vsftpd
		{"-rw-r--r--    1 0        0              13 Jan 02 12:34 hello.txt",
			fetch.Entry{Name: "hello.txt", Type: fetch.EntryFile, Size: 13, ModTime: utc(2024, 1, 2, 12, 34, 0)}},
		// A recent-looking date after today is last year's.
		{"-rw-r--r--    1 0        0              13 Dec 24 08:00 xmas.txt",
			fetch.Entry{Name: "xmas.txt", Type: fetch.EntryFile, Size: 13, ModTime: utc(2023, 12, 24, 8, 0, 0)}},
		{"drwxr-xr-x    2 0        0            4096 Mar 01  2019 pub",
			fetch.Entry{Name: "pub", Type: fetch.EntryDir, Size: 4096, ModTime: utc(2019, 3, 1, 0, 0, 0)}},
		{"lrwxrwxrwx    1 0        0               9 Feb 29  2020 link-to-hello -> hello.txt",
			fetch.Entry{Name: "link-to-hello", Type: fetch.EntryLink, Size: 9, ModTime: utc(2020, 2, 29, 0, 0, 0), Target: "hello.txt"}},
		// pure-ftpd: wider columns, day padded.
		{"-rw-r--r--    1 0          0                  5 Jan  2 12:34 file name.txt",
			fetch.Entry{Name: "file name.txt", Type: fetch.EntryFile, Size: 5, ModTime: utc(2024, 1, 2, 12, 34, 0)}},
		// Leading spaces of a name are kept (one separator after the time).
		{"-rw-r--r--    1 ftp      ftp             5 Jan 02  2024   spaced",
			fetch.Entry{Name: "  spaced", Type: fetch.EntryFile, Size: 5, ModTime: utc(2024, 1, 2, 0, 0, 0)}},
		// No group column.
		{"-rw-r--r--   1 owner      1234 Jan 02  2023 nogroup",
			fetch.Entry{Name: "nogroup", Type: fetch.EntryFile, Size: 1234, ModTime: utc(2023, 1, 2, 0, 0, 0)}},
		// Devices: major, minor in place of a size.
		{"crw-rw-rw-    1 0        0          1,   3 Jan 02  2020 null",
			fetch.Entry{Name: "null", Type: fetch.EntryOther, Size: -1, ModTime: utc(2020, 1, 2, 0, 0, 0)}},
		{"brw-rw----    1 0        6          8,0 Jan 02  2020 sda",
			fetch.Entry{Name: "sda", Type: fetch.EntryOther, Size: -1, ModTime: utc(2020, 1, 2, 0, 0, 0)}},
		// ACL marker, sticky bits.
		{"drwxrwxrwt+  10 root     root         4096 Jan 02  2024 tmp",
			fetch.Entry{Name: "tmp", Type: fetch.EntryDir, Size: 4096, ModTime: utc(2024, 1, 2, 0, 0, 0)}},
		// ISO dates.
		{"-rw-r--r-- 1 user group 42 2023-11-05 17:45 iso.txt",
			fetch.Entry{Name: "iso.txt", Type: fetch.EntryFile, Size: 42, ModTime: utc(2023, 11, 5, 17, 45, 0)}},
		// A name that looks like a date.
		{"-rw-r--r-- 1 u g 7 Jan 02  2024 Feb 03 2020",
			fetch.Entry{Name: "Feb 03 2020", Type: fetch.EntryFile, Size: 7, ModTime: utc(2024, 1, 2, 0, 0, 0)}},
		// DOS / IIS.
		{"01-02-24  12:34PM       <DIR>          Some Dir",
			fetch.Entry{Name: "Some Dir", Type: fetch.EntryDir, Size: -1, ModTime: utc(2024, 1, 2, 12, 34, 0)}},
		{"11-30-1999  12:05AM             1,234 old.exe",
			fetch.Entry{Name: "old.exe", Type: fetch.EntryFile, Size: 1234, ModTime: utc(1999, 11, 30, 0, 5, 0)}},
		{"03-04-2021  17:00                 99 h24.txt",
			fetch.Entry{Name: "h24.txt", Type: fetch.EntryFile, Size: 99, ModTime: utc(2021, 3, 4, 17, 0, 0)}},
		// EPLF.
		{"+i8388621.48594,m825718503,r,s280,\tdjb.html",
			fetch.Entry{Name: "djb.html", Type: fetch.EntryFile, Size: 280, ModTime: time.Unix(825718503, 0).UTC()}},
		{"+i8388621.50690,m824255907,/,\t514",
			fetch.Entry{Name: "514", Type: fetch.EntryDir, Size: -1, ModTime: time.Unix(824255907, 0).UTC()}},
		// MLSD lines sent for LIST.
		{"type=file;size=12;modify=20240102030405; a b.txt",
			fetch.Entry{Name: "a b.txt", Type: fetch.EntryFile, Size: 12, ModTime: utc(2024, 1, 2, 3, 4, 5)}},
	}
	for _, tc := range tests {
		got := ParseList(tc.line)
		tc.want.Raw = tc.line
		if got != tc.want {
			t.Errorf("ParseList(%q)\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
	for _, bad := range []string{
		"total 12",
		"",
		"-rw-r--r-- 1 u g 12 Foo 02 12:00 localised",
		"-rw-r--r-- 1 u g 12 Jan 02 12:00",
		"drwxr-xr-x",
		"01-02-24 12:34PM",
		"garbage",
		"+nofacts",
		"type=file;size=1;",
		// A link whose name is empty: the arrow right after the date.
		"lxxxxxxxx 0 MAY 1 0000  -> 0",
		"lrwxrwxrwx 1 u g 9 Jan 02  2020  -> target",
	} {
		got := ParseList(bad)
		if !got.Unparsed || got.Raw != bad || got.Name != "" || got.Size != -1 {
			t.Errorf("ParseList(%q) = %+v, want Unparsed with Raw", bad, got)
		}
	}
}

func TestParseMLSx(t *testing.T) {
	tests := []struct {
		line string
		want fetch.Entry
	}{
		// pure-ftpd
		{"type=file;size=13;modify=20240102123456;UNIX.mode=0644;UNIX.uid=0;UNIX.gid=0;unique=803g2a; hello.txt",
			fetch.Entry{Name: "hello.txt", Type: fetch.EntryFile, Size: 13, ModTime: utc(2024, 1, 2, 12, 34, 56)}},
		// ProFTPD
		{"modify=20240102123456;perm=flcdmpe;type=dir;unique=803U2A;UNIX.group=0;UNIX.mode=0755;UNIX.owner=0; pub",
			fetch.Entry{Name: "pub", Type: fetch.EntryDir, Size: -1, ModTime: utc(2024, 1, 2, 12, 34, 56)}},
		{"type=cdir;modify=20240102123456; .",
			fetch.Entry{Name: ".", Type: fetch.EntryDir, Size: -1, ModTime: utc(2024, 1, 2, 12, 34, 56)}},
		{"type=OS.unix=slink:/pub/hello.txt;size=9; link",
			fetch.Entry{Name: "link", Type: fetch.EntryLink, Size: 9, Target: "/pub/hello.txt"}},
		{"type=OS.unix=symlink;size=9; link2",
			fetch.Entry{Name: "link2", Type: fetch.EntryLink, Size: 9}},
		{"Type=FILE;Size=5;Modify=20240102123456.789; upper",
			fetch.Entry{Name: "upper", Type: fetch.EntryFile, Size: 5, ModTime: time.Date(2024, 1, 2, 12, 34, 56, 789e6, time.UTC)}},
		// An entry without facts (RFC 3659: "[facts] SP pathname"): the
		// MLST caller removes the space that starts its fact line, not ParseMLSx.
		{" /no/facts",
			fetch.Entry{Name: "/no/facts", Size: -1}},
		{" type=file;size=1; /pub/x",
			fetch.Entry{Name: "type=file;size=1; /pub/x", Size: -1}},
		// "sizd", the size some servers give directories.
		{"type=dir;sizd=4096; d",
			fetch.Entry{Name: "d", Type: fetch.EntryDir, Size: 4096}},
		// Names with spaces and semicolons.
		{"type=file;size=1;  two; spaces",
			fetch.Entry{Name: " two; spaces", Type: fetch.EntryFile, Size: 1}},
	}
	for _, tc := range tests {
		got := ParseMLSx(tc.line)
		tc.want.Raw = tc.line
		if got != tc.want {
			t.Errorf("ParseMLSx(%q)\n got %+v\nwant %+v", tc.line, got, tc.want)
		}
	}
	for _, bad := range []string{"", "name only", "type=file name", "=x; y", "type=file;", " ", "modify=2014; short", "type=dir;size; x"} {
		if got := ParseMLSx(bad); !got.Unparsed {
			t.Errorf("ParseMLSx(%q) = %+v, want Unparsed", bad, got)
		}
	}
}

func TestParseMDTM(t *testing.T) {
	for in, want := range map[string]time.Time{
		"20240102030405":     utc(2024, 1, 2, 3, 4, 5),
		"19980615100045.014": time.Date(1998, 6, 15, 10, 0, 45, 14e6, time.UTC),
		" 20240102030405 ":   utc(2024, 1, 2, 3, 4, 5),
	} {
		got, err := ParseMDTM(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseMDTM(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "2024", "2024010203040x", "20241302030405"} {
		if _, err := ParseMDTM(bad); err == nil {
			t.Errorf("ParseMDTM(%q) accepted", bad)
		}
	}
}

func TestParseNLST(t *testing.T) {
	if e := ParseNLST("pub/a b"); e.Name != "pub/a b" || e.Type != fetch.EntryUnknown || e.Size != -1 || e.Unparsed {
		t.Errorf("%+v", e)
	}
	if e := ParseNLST(""); !e.Unparsed {
		t.Errorf("empty NLST line: %+v", e)
	}
}

func TestParsePassive(t *testing.T) {
	for line, want := range map[string]int{
		"229 Entering Extended Passive Mode (|||6446|)": 6446,
		"229 ok (!!!1!)":   1,
		"229 (|||65535|)":  65535,
		"229 (|||0|)":      0,
		"229 (|||65536|)":  0,
		"229 (||6446|)":    0,
		"229 (|||6446!)":   0,
		"229 no parens":    0,
		"229 (|1|::1|64|)": 0,
	} {
		got, ok := ParseEPSV(line)
		if got != want || ok != (want != 0) {
			t.Errorf("ParseEPSV(%q) = %d, %v; want %d", line, got, ok, want)
		}
	}
	for line, want := range map[string]string{
		"227 Entering Passive Mode (192,168,1,2,19,136).": "192.168.1.2:5000",
		"227 Entering Passive Mode 10,0,0,1,0,21":         "10.0.0.1:21",
		"227 =127,0,0,1,200,10":                           "127.0.0.1:51210",
		"227 (256,0,0,1,1,1)":                             "",
		"227 (1,2,3,4,5)":                                 "",
		"227 (1,2,3,4,0,0)":                               "",
		"227 no numbers":                                  "",
	} {
		ip, p, ok := ParsePASV(line)
		got := ""
		if ok {
			got = ip.String() + ":" + itoa(p)
		}
		if got != want {
			t.Errorf("ParsePASV(%q) = %q, want %q", line, got, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func newReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, MaxReplyLine) }

// writerConn is a net.Conn that only writes.
type writerConn struct {
	net.Conn
	w io.Writer
}

func (c writerConn) Write(p []byte) (int, error) { return c.w.Write(p) }

func TestReplyParsing(t *testing.T) {
	tests := []struct {
		in    string
		code  int
		lines int
		ok    bool
	}{
		{"220 hello\r\n", 220, 1, true},
		{"220-first\r\n220 last\r\n", 220, 2, true},
		{"230-first\r\n 230 indented is text\r\n230-still going\r\n230\r\n", 230, 4, true},
		{"211-x\r\n123 other code\r\n211 End\r\n", 211, 3, true},
		{"2200 bad\r\n", 0, 0, false},
		{"abc\r\n", 0, 0, false},
		{"099 low\r\n", 0, 0, false},
		{"220-never ends\r\n", 0, 0, false},
		{"220 bare LF\n", 220, 1, true},
	}
	for _, tc := range tests {
		c := &conn{br: newReader(strings.NewReader(tc.in))}
		r, err := c.readReply()
		if (err == nil) != tc.ok {
			t.Errorf("%q: err %v", tc.in, err)
			continue
		}
		if tc.ok && (r.code != tc.code || len(r.lines) != tc.lines) {
			t.Errorf("%q: code %d, %d lines", tc.in, r.code, len(r.lines))
		}
	}
	// Long lines are cut, the rest dropped; the next reply is read intact.
	in := "220 " + strings.Repeat("x", 3*MaxReplyLine) + "\r\n221 next\r\n"
	c := &conn{br: newReader(iotest.HalfReader(strings.NewReader(in)))}
	r, err := c.readReply()
	if err != nil || len(r.lines[0]) != MaxReplyLine {
		t.Fatalf("long line: %v, %d bytes kept", err, len(r.lines[0]))
	}
	if r, err = c.readReply(); err != nil || r.code != 221 {
		t.Errorf("after a long line: %v %v", r, err)
	}
	// Too many lines.
	many := "230-a\r\n" + strings.Repeat("x\r\n", MaxReplyLines+1) + "230 end\r\n"
	c = &conn{br: newReader(strings.NewReader(many))}
	if _, err := c.readReply(); fetch.KindOf(err) != fetch.ErrProtocol {
		t.Errorf("too many lines: %v", err)
	}
}

func TestParsePWD(t *testing.T) {
	for in, want := range map[string]string{
		`257 "/" is current directory`:       "/",
		`257 "/a ""quoted"" dir" is current`: `/a "quoted" dir`,
		`257 "/home/urlget"`:                 "/home/urlget",
	} {
		if got, ok := ParsePWD(in); !ok || got != want {
			t.Errorf("ParsePWD(%q) = %q, %v", in, got, ok)
		}
	}
	for _, bad := range []string{`257 /no/quotes`, `257 "unterminated`} {
		if _, ok := ParsePWD(bad); ok {
			t.Errorf("ParsePWD(%q) accepted", bad)
		}
	}
}

// The command writer refuses CR, LF and NUL on its own, whatever the
// caller checked.
func TestSendRefusesLineBreaks(t *testing.T) {
	var buf bytes.Buffer
	c := &conn{raw: writerConn{w: &buf}}
	for _, arg := range []string{"a\r\nDELE b", "a\nb", "a\x00b", "\r"} {
		if err := c.send("RETR", arg, true); fetch.KindOf(err) != fetch.ErrMalformed {
			t.Errorf("send(RETR %q): %v", arg, err)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q", buf.String())
	}
	if err := c.send("CWD", "", false); err != nil || buf.String() != "CWD\r\n" {
		t.Errorf("bare CWD: %q %v", buf.String(), err)
	}
}

func TestCRLFReader(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\r\n":       "a\nb\n",
		"a\r\r\nb\r\n":     "a\r\nb\n", // pure-ftpd's doubled CR
		"no newline\r":     "no newline\r",
		"\r\r\r\n":         "\r\r\n",
		"lf only\n":        "lf only\n",
		"cr\rmid":          "cr\rmid",
		"":                 "",
		"\r\n\r\n\r\n":     "\n\n\n",
		"x\r\ny\rz\r\n\r1": "x\ny\rz\n\r1",
	} {
		for _, r := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r },
			iotest.OneByteReader,
			iotest.HalfReader,
		} {
			got, err := io.ReadAll(iotest.OneByteReader(newCRLFReader(r(strings.NewReader(in)))))
			if err != nil || string(got) != want {
				t.Errorf("crlf(%q) = %q, %v; want %q", in, got, err, want)
			}
			got, _ = io.ReadAll(newCRLFReader(r(strings.NewReader(in))))
			if string(got) != want {
				t.Errorf("crlf(%q) = %q; want %q", in, got, want)
			}
		}
	}
	for in, want := range map[string]string{"a\nb\r\nc": "a\r\nb\r\nc", "\n\n": "\r\n\r\n"} {
		got, _ := io.ReadAll(&lfToCRLF{r: iotest.OneByteReader(strings.NewReader(in))})
		if string(got) != want {
			t.Errorf("lfToCRLF(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGuessType(t *testing.T) {
	for name, want := range map[string]byte{
		"readme.txt": 'a', "INDEX.HTML": 'a', "x.c": 'a', "patch.diff": 'a', "a.b.md": 'a',
		"file.bin": 'i', "x.txt.gz": 'i', "README": 'i', "noext.": 'i', ".txt": 'a',
		"archive.tar": 'i', "photo.JPG": 'i', "dir.txt/x": 'i', "": 'i',
	} {
		if got := GuessType(name); got != want {
			t.Errorf("GuessType(%q) = %c, want %c", name, got, want)
		}
	}
}
