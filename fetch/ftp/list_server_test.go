package ftp_test

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// TestListVMSServer lists a directory of a server in the VMS style: the
// header and total lines are Unparsed, the wrapped entry is joined, and
// the entries' URLs fetch the files.
func TestListVMSServer(t *testing.T) {
	s := ftptest.New(t)
	configure(s, func(s *ftptest.Server) {
		s.ListStyle = ftptest.StyleVMS
		s.NoMLSD = true
		s.Features = []string{"EPSV", "PASV", "SIZE"}
	})
	s.AddFile("/pub/README.TXT", []byte("read me\n"), mod)
	s.AddFile("/pub/A_RATHER_LONG_FILE_NAME.DAT", []byte("long\n"), mod)
	s.AddFile("/pub/SUB/X.C", []byte("x\n"), mod)
	c := client(nil, nil)
	res, err := c.Open(ctx(t), "ftp://"+s.Addr+"/pub/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got []string
	urls := map[string]string{}
	for e, err := range res.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		if e.Unparsed {
			continue
		}
		got = append(got, e.Name+" "+map[fetch.EntryType]string{fetch.EntryFile: "file", fetch.EntryDir: "dir"}[e.Type])
		if e.Type == fetch.EntryFile && !e.ModTime.Equal(mod) {
			t.Errorf("%s: time %v, want %v", e.Name, e.ModTime, mod)
		}
		urls[e.Name] = e.URL
	}
	want := "A_RATHER_LONG_FILE_NAME.DAT;1 file|README.TXT;1 file|SUB.DIR;1 dir"
	if strings.Join(got, "|") != want {
		t.Fatalf("entries %q, want %q", strings.Join(got, "|"), want)
	}
	_, body, err := get(t, c, urls["README.TXT;1"])
	if err != nil || string(body) != "read me\n" {
		t.Errorf("GET %s: %q, %v", urls["README.TXT;1"], body, err)
	}
}
