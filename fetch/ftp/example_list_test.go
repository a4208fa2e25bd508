package ftp_test

import (
	"fmt"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
)

// A VMS listing: the header settles nothing, the first entry settles the
// format, a long name's entry spans two lines.
func ExampleListParser() {
	p := ftp.NewListParser(ftp.SystemListFormat("VMS V7.3-2"))
	for _, line := range []string{
		"Directory DISK$USER:[PUB]",
		"README.TXT;2                 1/3        2-JUN-1998 07:32:04  [FTP,FTP]  (RWED,RWED,RE,RE)",
		"A_RATHER_LONG_FILE_NAME.DAT;1",
		"                            14/15      24-JUL-2002 14:35:40  [FTP,FTP]  (RWED,RWED,RE,RE)",
		"SRC.DIR;1                    1/3        2-JUN-1998 07:32:04  [FTP,FTP]  (RWED,RWED,RE,RE)",
		"Total of 3 files.",
	} {
		e := p.Parse(line)
		if e.Unparsed {
			continue
		}
		fmt.Println(e.Name, "→", ftp.VMSLocalName(e.Name, e.Type == fetch.EntryDir), e.ModTime.Format("2006-01-02 15:04:05"))
	}
	fmt.Println(p.Format())
	// Output:
	// README.TXT;2 → README.TXT 1998-06-02 07:32:04
	// A_RATHER_LONG_FILE_NAME.DAT;1 → A_RATHER_LONG_FILE_NAME.DAT 2002-07-24 14:35:40
	// SRC.DIR;1 → SRC 1998-06-02 07:32:04
	// vms
}
