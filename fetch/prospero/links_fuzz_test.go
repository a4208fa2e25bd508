package prospero

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/fuzzcheck"
	"github.com/urlget/urlget/urlparse"
)

// FuzzListing: the LINK and ATTRIBUTE lines of a directory reply of any
// bytes, as the client lists them: each link makes one listing line that
// ParseEntry reads back (type, size, time and URL as made, the name
// sanitized) or, for a link without a name, an unparsed line; every entry
// keeps the fetch.Entry contract; and the work is bounded by the reply.
// testdata/fuzz/FuzzListing holds the replies of the golden exchanges.
func FuzzListing(f *testing.F) {
	fuzzcheck.Seeds(f,
		"LINK  L FILE one.txt INTERNET-D 127.0.0.1(21525) ASCII '/a b' 0\nATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE 13' bytes'\n"+
			"ATTRIBUTE LINK FIELD LAST-MODIFIED 19940101120000Z\nLINK L DIRECTORY sub INTERNET-D 127.0.0.1 ASCII /a/sub 3\n",
		"LINK L EXTERNAL w.txt INTERNET-D ftp.example.net ASCII /pub/w.txt 0\nATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP '' '' '' BINARY\n"+
			"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE GOPHER '' '' '' 0\nATTRIBUTE OBJECT INTRINSIC UNIX-MODES SEQUENCE drwxr-xr-x\n",
		"LINK L SYMBOLIC '' INTERNET-D h(99999) ASCII '' ''\nLINK L FILE '  \t\x1b[31m' INTERNET-D '' ASCII x 1\n"+
			"ATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE -5 bytes\nATTRIBUTE OBJECT INTRINSIC OBJECT-INTERPRETATION SEQUENCE DIRECTORY\n",
		"LINK L FILE x\n", "ATTRIBUTE OBJECT\n", "NONE-FOUND\n", "FAILURE NOT-FOUND no such directory\n", "X 'unterminated",
	)
	u, err := urlparse.Parse("prospero://127.0.0.1:1525/a")
	if err != nil {
		f.Fatal(err)
	}
	t0 := &target{url: &u, host: u.Host, port: u.PortOrDefault(), hsoname: u.Prospero.HSOName}
	f.Fuzz(func(t *testing.T, msg []byte) {
		var r *Reply
		var lines []string
		fuzzcheck.Bounded(t, len(msg), func() {
			if r, err = ParseReply(msg); err != nil {
				return
			}
			for i := range r.Links {
				lines = append(lines, formatEntry(t0.entry(&r.Links[i])))
			}
		})
		if err != nil {
			return
		}
		for i, line := range lines {
			want := t0.entry(&r.Links[i])
			if strings.Count(line, "\n") != 1 || strings.Count(line, "\t") != 1 {
				t.Fatalf("%+v listed as %q", r.Links[i], line)
			}
			e := ParseEntry([]byte(strings.TrimSuffix(line, "\n")))
			fuzzcheck.Entry(t, e)
			name := strings.TrimLeft(fetch.Sanitize(want.Name), " ")
			if e.Unparsed != (name == "") || !e.Unparsed && (e.Name != name || e.Type != want.Type || e.Size != want.Size ||
				!e.ModTime.Equal(want.ModTime) || e.URL != want.URL) {
				t.Fatalf("%+v listed as %q reads as %+v", want, line, e)
			}
		}
	})
}
