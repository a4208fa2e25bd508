package prospero_test

// Integration tests: access methods that lead to real servers started by
// internal/testserver (vsftpd for AFTP, gophernicus and pygopherd for
// GOPHER), directly and through the lossy relay. They skip under -short,
// and fail when CI is set and a server is missing.

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	_ "github.com/urlget/urlget/fetch/ftp"
	_ "github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
	"github.com/urlget/urlget/internal/testserver"
)

// viaMethods serves one object per access method and fetches each,
// directly and through a lossy relay.
func viaMethods(t *testing.T, methods map[string][]string, want map[string][]byte, wantURL map[string]string) {
	t.Helper()
	objs := map[string]*prosperotest.Object{root: {Dir: true}}
	for name, m := range methods {
		objs[root+"/"+name] = &prosperotest.Object{Methods: [][]string{
			{"NFS", "INTERNET-D", "nfs.example", "ASCII", "/x", "/export"}, // skipped: unsupported
			m,
		}}
	}
	e := start(t, &prosperotest.Server{Objects: objs})
	relay := prosperotest.NewRelay(e.addr, 21)
	lossy := &env{srv: e.srv, addr: relay.Start(t)}
	for _, ev := range []*env{e, lossy} {
		for name := range methods {
			var v bytes.Buffer
			res, got, err := get(t, &fetch.Client{Verbose: &v}, ev.url(root+"/"+name))
			if err != nil {
				t.Errorf("%s via %s: %v\n%s", name, ev.addr, err, v.String())
				continue
			}
			if !bytes.Equal(got, want[name]) {
				t.Errorf("%s via %s: %q, want %q", name, ev.addr, got, want[name])
			}
			if res.EffectiveURL != wantURL[name] {
				t.Errorf("%s: effective URL %q, want %q", name, res.EffectiveURL, wantURL[name])
			}
			if !strings.Contains(v.String(), "access method NFS skipped") || !strings.Contains(v.String(), "Following referral") {
				t.Errorf("%s: -v does not show the chain:\n%s", name, v.String())
			}
		}
	}
}

func TestAFTPVsftpd(t *testing.T) {
	s := testserver.StartFTP(t, testserver.Vsftpd)
	host := "127.0.0.1(" + strconv.Itoa(s.Port) + ")"
	viaMethods(t,
		map[string][]string{
			"hello":  {"AFTP", "INTERNET-D", host, "ASCII", "/pub/hello.txt", "BINARY"},
			"binary": {"AFTP", "INTERNET-D", host, "ASCII", "/pub/binary.bin", "BINARY"},
			"spaces": {"AFTP", "INTERNET-D", host, "ASCII", "/pub/dir with spaces/file name.txt", "BINARY"},
		},
		map[string][]byte{
			"hello":  testserver.FTPHello,
			"binary": testserver.FTPBinaryData,
			"spaces": testserver.FTPFixtureFiles["pub/dir with spaces/file name.txt"],
		},
		map[string]string{
			"hello":  s.URL + "/pub/hello.txt;type=i",
			"binary": s.URL + "/pub/binary.bin;type=i",
			"spaces": s.URL + "/pub/dir%20with%20spaces/file%20name.txt;type=i",
		})
}

// testGopher: text as urlget gives it (gophernicus ends text lines with
// CRLF; they come out as LF).
func testGopher(t *testing.T, s *testserver.GopherServer, text string) {
	host := "127.0.0.1(" + strconv.Itoa(s.Port) + ")"
	viaMethods(t,
		map[string][]string{
			"hello":  {"GOPHER", "INTERNET-D", host, "ASCII", "/hello.txt", "TEXT"},
			"binary": {"GOPHER", "INTERNET-D", host, "ASCII", "/binary.bin", "9"},
		},
		map[string][]byte{
			"hello":  []byte(text),
			"binary": testserver.GopherBinary(),
		},
		map[string]string{
			"hello":  s.URL("0/hello.txt"),
			"binary": s.URL("9/binary.bin"),
		})
}

func TestGopherGophernicus(t *testing.T) {
	testGopher(t, testserver.Gophernicus(t), testserver.GopherHello)
}

func TestGopherPygopherd(t *testing.T) {
	testGopher(t, testserver.Pygopherd(t), testserver.GopherHello)
}
