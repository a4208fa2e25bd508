package mirror

import (
	"fmt"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// The ftp walk lists depth first: the listings waiting are those beside
// the path walked, not a whole level of the tree (a wide tree's level
// held 10,000 listings, its largest state: issue 37). So the listing
// after that of a directory with subdirectories is one of them.
func TestFTPListsDepthFirst(t *testing.T) {
	s := ftptest.New(t)
	const fan = 5
	for a := 0; a < fan; a++ {
		for b := 0; b < fan; b++ {
			s.AddFile(fmt.Sprintf("pub/a%d/b%d/f.txt", a, b), []byte("x\n"), t1)
		}
	}
	dir := t.TempDir()
	sum := mirrorOK(t, Options{URL: "ftp://" + s.Addr + "/pub/", Dir: dir, Parallel: 1})
	if sum.New != fan*fan {
		t.Fatalf("%+v", countsOf(sum))
	}
	// The directories in the order listed: a CWD, then the MLSD.
	var listed []string
	cwd := ""
	for _, l := range s.Lines() {
		switch {
		case strings.HasPrefix(l, "CWD "):
			cwd = strings.TrimPrefix(l, "CWD ")
		case l == "MLSD":
			listed = append(listed, cwd)
		}
	}
	want := []string{"/pub"}
	for a := 0; a < fan; a++ {
		want = append(want, fmt.Sprintf("/pub/a%d", a))
		for b := 0; b < fan; b++ {
			want = append(want, fmt.Sprintf("/pub/a%d/b%d", a, b))
		}
	}
	if strings.Join(listed, " ") != strings.Join(want, " ") {
		t.Errorf("listed in the order\n%s\nwant depth first, in each listing's order\n%s", strings.Join(listed, " "), strings.Join(want, " "))
	}
}
