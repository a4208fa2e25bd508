package mirror

import (
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// TestFTPMirrorVMS mirrors a server that lists in the VMS style (no MLSD):
// versions dropped, NAME.DIR;1 a directory NAME, a name without a type, a
// long name on a line of its own; a second run fetches nothing.
func TestFTPMirrorVMS(t *testing.T) {
	s := ftptest.New(t)
	configure(s, func(srv *ftptest.Server) {
		srv.ListStyle = ftptest.StyleVMS
		srv.NoMLSD = true
		srv.Features = []string{"EPSV", "MDTM", "PASV", "SIZE"}
	})
	want := map[string]string{
		"README.TXT":                  "read me\r\n",
		"NOTES":                       "no type\n",
		"A_RATHER_LONG_FILE_NAME.DAT": "long name\n",
		"SUB/X.C":                     "int x;\n",
		"SUB/DEEP/Y.TXT":              "deep\n",
	}
	for p, d := range want {
		s.AddFile("pub/"+p, []byte(d), t1)
	}
	dir := t.TempDir()
	url := "ftp://" + s.Addr + "/pub/"
	sum := mirrorOK(t, Options{URL: url, Dir: dir})
	if got, w := countsOf(sum), (counts{New: 5, Dirs: 3}); got != w {
		t.Errorf("counts = %+v, want %+v", got, w)
	}
	got := tree(t, dir)
	sameTree(t, got, want)
	if len(got) != len(want) {
		t.Errorf("tree = %q, want %q", got, want)
	}
	if r := records(t, dir)[url+"SUB/X.C"]; r.Path != "SUB/X.C" || r.MTime != "2024-03-04T05:06:07Z" {
		t.Errorf("SUB/X.C record = %+v", r)
	}
	n := len(s.Lines())
	sum = mirrorOK(t, Options{URL: url, Dir: dir})
	if got, w := countsOf(sum), (counts{Unchanged: 5, Dirs: 3}); got != w {
		t.Errorf("second run: counts = %+v, want %+v", got, w)
	}
	if got := retrs(s, n); len(got) != 0 {
		t.Errorf("second run fetched %q", got)
	}
}

// TestVMSListingNames: the versions of one file are one entry (the first
// listed, the newest); other formats keep their names.
func TestVMSListingNames(t *testing.T) {
	data := "Directory DISK$USER:[PUB]\r\n\r\n" +
		"FILE.TXT;3                1/1       2-JUN-1998 07:32:04  [FTP,FTP]  (RWED,RWED,RE,RE)\r\n" +
		"FILE.TXT;2                1/1       1-JUN-1998 07:32:04  [FTP,FTP]  (RWED,RWED,RE,RE)\r\n" +
		"DATA.DIR;1                1/1       2-JUN-1998 07:32:04  [FTP,FTP]  (RWED,RWED,RE,RE)\r\n" +
		"\r\nTotal of 3 files, 3/3 blocks.\r\n"
	entries, _ := parseListing([]byte(data), "LIST")
	var names []string
	for _, fe := range entries {
		names = append(names, fe.Name)
		if fe.Name == "FILE.TXT" && !fe.ModTime.Equal(time.Date(1998, 6, 2, 7, 32, 4, 0, time.UTC)) {
			t.Errorf("FILE.TXT: %v, want the newest version's time", fe.ModTime)
		}
	}
	if strings.Join(names, " ") != "FILE.TXT DATA" {
		t.Errorf("names %q, want FILE.TXT DATA", names)
	}
	unix := "-rw-r--r--   1 ftp ftp  5 Jan 02  2020 FILE.TXT;3\r\n"
	if entries, _ := parseListing([]byte(unix), "LIST"); len(entries) != 1 || entries[0].Name != "FILE.TXT;3" || entries[0].Type != fetch.EntryFile {
		t.Errorf("UNIX listing: %+v", entries)
	}
}
