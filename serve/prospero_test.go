package serve

import (
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/prospero/prosperotest"
	"github.com/urlget/urlget/internal/testserver"
)

// A Prospero directory behind the gateway, on the in-tree server that
// fails as the stock dirsrv does: a native directory links its parent; a
// GOPHER-GW menu does not (its parent's name crashes dirsrv), and its
// text lines are text, not rows of files named prospero://NULL/NULL.
func TestProsperoPages(t *testing.T) {
	root := prosperotest.DefaultRoot
	s := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root: {Dir: true}, root + "/pub": {Dir: true}, root + "/pub/a.txt": {Contents: []byte("a\n")},
	}}
	addr := s.Start(t)
	menu := "GOPHER-GW/127.0.0.1(70)/1/"
	s.Set(menu, &prosperotest.Object{Dir: true, Links: []string{
		"LINK L NULL '' NULL NULL NULL NULL 0",
		"LINK L NULL 'Welcome <b>to</b> the menu' NULL NULL NULL NULL 0",
		"LINK L DIRECTORY Docs INTERNET-D " + s.Host() + " ASCII 'GOPHER-GW/127.0.0.1(70)/1/docs' 0",
	}})
	_, srv := gateway(t, Options{})

	_, body := get(t, srv, "/prospero://"+addr+"/"+root+"/pub", "")
	if !strings.Contains(body, `<a href="/prospero://`+addr+`/`+root+`">↑ parent directory</a>`) || !strings.Contains(body, ">a.txt</a>") {
		t.Errorf("the native directory's page:\n%s", body)
	}
	_, body = get(t, srv, "/prospero://"+addr+"/"+menu, "")
	if strings.Contains(body, "parent directory") {
		t.Errorf("the gateway menu links a parent:\n%s", body)
	}
	if strings.Contains(body, "NULL") || !strings.Contains(body, `<tr><td colspan="4"><pre class="t">Welcome &lt;b&gt;to&lt;/b&gt; the menu</pre></td></tr>`) {
		t.Errorf("the menu's text lines are not text:\n%s", body)
	}
	if !strings.Contains(body, `>Docs/</a>`) {
		t.Errorf("the menu lacks its Docs menu:\n%s", body)
	}
	checkPage(t, body, "a")
	if c := s.Crashed(); c != "" {
		t.Errorf("the server crashed: %s", c)
	}
}

// A Prospero file known by anonymous FTP (an AFTP access method, listed
// after PROSPERO-CONTENTS as dirsrv orders them) through the gateway, on
// the in-tree server that crashes as the stock dirsrv does when asked for
// such an object's CONTENTS: the page is vsftpd's file, fetched by the
// access method as ISI's vget does, and the server is still answering.
func TestProsperoAFTP(t *testing.T) {
	ftp := testserver.StartFTP(t, testserver.Vsftpd)
	root := prosperotest.DefaultRoot
	s := &prosperotest.Server{Objects: map[string]*prosperotest.Object{
		root: {Dir: true},
		root + "/hello.txt": {Contents: []byte("not this\n"), Methods: [][]string{
			{"PROSPERO-CONTENTS", "", "", "", ""},
			{"AFTP", "INTERNET-D", ftp.Host + "(" + strconv.Itoa(ftp.Port) + ")", "ASCII", "/pub/hello.txt", "BINARY"}}},
	}}
	addr := s.Start(t)
	_, srv := gateway(t, Options{})
	res, body := get(t, srv, "/prospero://"+addr+"/"+root+"/hello.txt", "")
	if res.StatusCode != 200 || body != string(testserver.FTPHello) {
		t.Errorf("the AFTP object: %d %q, want vsftpd's %q (server: %q)", res.StatusCode, body, testserver.FTPHello, s.Crashed())
	}
	if c := s.Crashed(); c != "" {
		t.Errorf("the server crashed: %s", c)
	}
	if _, body := get(t, srv, "/prospero://"+addr+"/"+root, ""); !strings.Contains(body, ">hello.txt</a>") {
		t.Errorf("the directory, after it:\n%s", body)
	}
}
