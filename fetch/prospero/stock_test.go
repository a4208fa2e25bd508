package prospero_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
	"github.com/urlget/urlget/fetch/prospero"
	"github.com/urlget/urlget/fetch/prospero/ardp"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
)

// An object the server knows by anonymous FTP lists PROSPERO-CONTENTS
// first, as dirsrv orders its methods; urlget fetches it from the FTP
// server (its AFTP method, through the ftp fetcher), as ISI's vget does,
// and never asks for its CONTENTS: the stock server crashes on that and
// answers nobody afterwards.
func TestAFTPBeforeContents(t *testing.T) {
	f := ftptest.New(t)
	data := []byte("from the ftp server\n")
	f.AddFile("/pub/README", data, time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC))
	host := "127.0.0.1(" + strconv.Itoa(f.Port) + ")"
	s := &prosperotest.Server{Root: "AFTP", Objects: map[string]*prosperotest.Object{
		"AFTP/pub/README": {Contents: []byte("not this\n"), Methods: [][]string{
			{"PROSPERO-CONTENTS", "", "", "", ""},
			{"AFTP", "INTERNET-D", host, "ASCII", "/pub/README", "BINARY"}}},
	}}
	e := start(t, s)
	res, got, err := get(t, nil, e.url("AFTP/pub/README"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("got %q, %v; want the ftp server's %q (server: %q)", got, err, data, s.Crashed())
	}
	if want := "ftp://127.0.0.1:" + strconv.Itoa(f.Port) + "/pub/README;type=i"; res.EffectiveURL != want {
		t.Errorf("effective URL %q, want %q", res.EffectiveURL, want)
	}
	for _, m := range s.Messages() {
		if strings.Contains(m, "GET-OBJECT-INFO CONTENTS") {
			t.Errorf("CONTENTS asked of an AFTP object:\n%s", m)
		}
	}
	if c := s.Crashed(); c != "" {
		t.Errorf("the server crashed: %s", c)
	}
	// --prospero-resolve still lists the methods in the server's order.
	_, got, err = get(t, &fetch.Client{Options: fetch.Options{prospero.OptResolve: "1"}}, e.url("AFTP/pub/README"))
	if err != nil || !strings.HasPrefix(string(got), e.url("AFTP/pub/README")+"\nftp://") {
		t.Errorf("resolve: %q %v", got, err)
	}
}

// The in-tree server fails as the stock dirsrv does: the CONTENTS of an
// AFTP object, or a GOPHER-GW name without host(port)/type/ (a gateway
// menu's parent), and it answers nothing more, to anyone (the client
// times out); Patched answers the CONTENTS.
func TestStockServerCrashes(t *testing.T) {
	obj := func() map[string]*prosperotest.Object {
		return map[string]*prosperotest.Object{
			"AFTP/x":                     {Contents: []byte("x\n"), Methods: [][]string{{"AFTP", "INTERNET-D", "127.0.0.1(1)", "ASCII", "/x", "BINARY"}}},
			"GOPHER-GW/127.0.0.1(70)/1/": {Dir: true, Links: []string{"LINK L NULL '' NULL NULL NULL NULL 0"}},
		}
	}
	contents := "GET-OBJECT-INFO CONTENTS ASCII AFTP/x 0\n"
	for _, c := range []struct {
		name, msg string
		patched   bool
		crash     string
	}{
		{"contents", contents, false, "CONTENTS of an AFTP object"},
		{"patched", contents, true, ""},
		{"parent of a menu", "DIRECTORY ASCII GOPHER-GW/127.0.0.1(70)/\nLIST ATTRIBUTES COMPONENTS\n", false, "assertion failed"},
		{"menu", "DIRECTORY ASCII GOPHER-GW/127.0.0.1(70)/1/\nLIST ATTRIBUTES COMPONENTS\n", false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &prosperotest.Server{Root: "AFTP", Objects: obj(), Patched: c.patched}
			e := start(t, s)
			reply, err := ask(t, e.addr, c.msg)
			switch {
			case c.crash == "" && err != nil:
				t.Fatalf("no reply: %v (%s)", err, s.Crashed())
			case c.crash != "" && (err == nil || !strings.Contains(s.Crashed(), c.crash)):
				t.Fatalf("reply %q, %v; crashed %q, want %q", reply, err, s.Crashed(), c.crash)
			}
			if _, err := ask(t, e.addr, "VERSION\n"); (err != nil) != (c.crash != "") {
				t.Errorf("VERSION afterwards: %v", err)
			}
		})
	}
}

// ask sends one Prospero message over ARDP (short timers) and returns the
// reply's text.
func ask(t *testing.T, addr, msg string) (string, error) {
	t.Helper()
	cfg := &ardp.Config{Timeout: 20 * time.Millisecond, Retries: 2}
	r, err := ardp.Send(ctxT(t, 5*time.Second), cfg, addr, 0, []byte(msg))
	if err != nil {
		return "", err
	}
	b, err := ardp.ReadMessage(r, 1<<20)
	return string(b), err
}

// gopherMenu is a GOPHER-GW menu as the ISI gateway lists one (gltovl):
// an empty and a worded text line (NULL links), a menu, a text document.
func gopherMenu(gwHost string) *prosperotest.Object {
	return &prosperotest.Object{Dir: true, Links: []string{
		"LINK L NULL '' NULL NULL NULL NULL 0",
		"ATTRIBUTE OBJECT APPLICATION OBJECT-INTERPRETATION SEQUENCE VOID",
		"LINK L NULL 'Welcome to the menu' NULL NULL NULL NULL 0",
		"ATTRIBUTE OBJECT APPLICATION OBJECT-INTERPRETATION SEQUENCE VOID",
		"LINK L DIRECTORY Docs INTERNET-D " + gwHost + " ASCII 'GOPHER-GW/127.0.0.1(70)/1/docs' 0",
		"ATTRIBUTE OBJECT APPLICATION OBJECT-INTERPRETATION SEQUENCE DIRECTORY",
		"LINK L EXTERNAL Hello INTERNET-D 127.0.0.1(70) ASCII /hello.txt 0",
		"ATTRIBUTE REPLACEMENT FIELD ACCESS-METHOD GOPHER '' '' '' '' TEXT",
	}}
}

// A gopher gateway's text lines are text lines of the listing (no
// prospero://NULL/NULL file), its menus and documents links as before.
func TestGopherGatewayInfoLines(t *testing.T) {
	s := &prosperotest.Server{Objects: map[string]*prosperotest.Object{}}
	e := start(t, s)
	s.Set("GOPHER-GW/127.0.0.1(70)/1/", gopherMenu(s.Host()))
	res, got, err := get(t, nil, e.url("GOPHER-GW/127.0.0.1(70)/1/"))
	if err != nil || !res.Dir {
		t.Fatalf("%q %v", got, err)
	}
	if strings.Contains(string(got), "NULL") {
		t.Errorf("the listing holds NULL links:\n%s", got)
	}
	var entries []fetch.Entry
	for _, l := range strings.SplitAfter(strings.TrimSuffix(string(got), "\n"), "\n") {
		entries = append(entries, prospero.ParseEntry([]byte(strings.TrimSuffix(l, "\n"))))
	}
	want := []struct {
		name, url string
		item      byte
	}{
		{"", "", 'i'},
		{"Welcome to the menu", "", 'i'},
		{"Docs", "prospero://" + e.addr + "/GOPHER-GW/127.0.0.1(70)/1/docs", 0},
		{"Hello", "gopher://127.0.0.1/0/hello.txt", 0},
	}
	if len(entries) != len(want) {
		t.Fatalf("%d entries, want %d:\n%s", len(entries), len(want), got)
	}
	for i, w := range want {
		if e := entries[i]; e.Unparsed || e.Name != w.name || e.URL != w.url || e.ItemType != w.item {
			t.Errorf("entry %d: %+v, want %q %q item %q", i, e, w.name, w.url, w.item)
		}
	}
	if c := s.Crashed(); c != "" {
		t.Errorf("the server crashed: %s", c)
	}
}
