package mirror

import (
	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp"
)

// listName is the name the mirror uses for an entry of a LIST listing in
// format f, both on the server (the next CWD, LIST, RETR) and, through
// EncodeName, on the local disk. It is the entry's name, except in a VMS
// listing: "FILE.TXT;3" is FILE.TXT (a VMS server gives the newest version
// of a name without one, and VMS lists the newest version first: the older
// versions are the same name again and are skipped), "NAME.DIR;1" is the
// directory NAME, and "NAME.;1" (no type) is NAME.
func listName(f ftp.ListFormat, e fetch.Entry) string {
	if f != ftp.ListVMS {
		return e.Name
	}
	return ftp.VMSLocalName(e.Name, e.Type == fetch.EntryDir)
}
