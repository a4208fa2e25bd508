package ftp_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp"
	"github.com/urlget/urlget/internal/testserver"
	"github.com/urlget/urlget/urlparse"
)

// asciiDownload is what each server sends for a TYPE A RETR of a file,
// after the client's CRLF -> LF conversion: vsftpd (ascii_download_enable)
// and ProFTPD send every line end as CRLF, so a CRLF in the file becomes
// LF; pure-ftpd puts a CR before every LF, even one that had a CR, so the
// conversion gives the file back.
func asciiDownload(kind testserver.FTPKind, file []byte) []byte {
	if kind == testserver.PureFTPd {
		return file
	}
	return bytes.ReplaceAll(file, []byte("\r\n"), []byte("\n"))
}

// realClient returns a Client for a real server: no connection reuse
// unless f is given.
func realClient(f *ftp.Fetcher, opts map[string]string) *fetch.Client {
	return client(f, opts)
}

func TestRealServers(t *testing.T) {
	testserver.OnEachFTP(t, func(t *testing.T, s *testserver.FTPServer) {
		testReal(t, s)
	})
}

func testReal(t *testing.T, s *testserver.FTPServer) {
	kind := s.Kind
	anon := "ftp://" + s.Addr
	user := "ftp://" + testserver.FTPUser + ":" + testserver.FTPPassword + "@" + s.Addr
	files := testserver.FTPFixtureFiles

	t.Run("Retrieve", func(t *testing.T) {
		for _, tc := range []struct{ url, file string }{
			{anon + "/pub/binary.bin", "pub/binary.bin"},
			{anon + "/pub/binary.bin;type=i", "pub/binary.bin"},
			{anon + "/pub/hello.txt;type=i", "pub/hello.txt"},
			{anon + "/pub/a/b/c/deep.txt;type=i", "pub/a/b/c/deep.txt"},
			{anon + "/pub/dir%20with%20spaces/file%20name.txt;type=i", "pub/dir with spaces/file name.txt"},
			{anon + "/pub/semi%3Bcolon.txt;type=i", "pub/semi;colon.txt"},
			{anon + "/pub/100%25.txt;type=i", "pub/100%.txt"},
			{anon + "/pub/1mb.txt;type=I", "pub/1mb.txt"},
			{anon + "/pub/link-to-hello;type=i", "pub/hello.txt"},
			{anon + "/readme.txt;type=i", "readme.txt"},
			{anon + "/pub/a/b/c/deep.txt", "pub/a/b/c/deep.txt"}, // no typecode: binary
			{anon + "/pub/binary.bin", "pub/binary.bin"},
		} {
			res, body, err := get(t, realClient(nil, nil), tc.url)
			if err != nil {
				t.Errorf("%s: %v", tc.url, err)
				continue
			}
			if !bytes.Equal(body, files[tc.file]) {
				t.Errorf("%s: %d bytes, want %d (%s)", tc.url, len(body), len(files[tc.file]), tc.file)
			}
			if res.Size != int64(len(files[tc.file])) {
				t.Errorf("%s: Size %d", tc.url, res.Size)
			}
		}
	})

	t.Run("UserLogin", func(t *testing.T) {
		_, body, err := get(t, realClient(nil, nil), user+"/private.txt;type=i")
		if err != nil || !bytes.Equal(body, testserver.FTPHomeFiles["private.txt"]) {
			t.Errorf("private.txt: %q, %v", body, err)
		}
		// An absolute path with %2F.
		abs := strings.ReplaceAll(strings.TrimPrefix(s.Anon, "/"), "/", "%2F")
		_, body, err = get(t, realClient(nil, nil), user+"/%2F"+abs+"/readme.txt;type=i")
		if err != nil || !bytes.Equal(body, files["readme.txt"]) {
			t.Errorf("%%2F absolute path: %q, %v", body, err)
		}
		// Same with -u instead of URL userinfo.
		c := realClient(nil, nil)
		c.User, c.Password, c.HasPassword = testserver.FTPUser, testserver.FTPPassword, true
		_, body, err = get(t, c, anon+"/private.txt;type=i")
		if err != nil || !bytes.Equal(body, testserver.FTPHomeFiles["private.txt"]) {
			t.Errorf("-u: %q, %v", body, err)
		}
	})

	t.Run("EmptySegment", func(t *testing.T) {
		// "//pub/hello.txt": a bare CWD, then CWD pub. pure-ftpd takes a
		// bare CWD to the login directory; vsftpd (550) and ProFTPD (501)
		// refuse it, which is ErrAccessDenied.
		_, body, err := get(t, realClient(nil, nil), anon+"//pub/hello.txt;type=i")
		if kind == testserver.PureFTPd {
			if err != nil || !bytes.Equal(body, files["pub/hello.txt"]) {
				t.Errorf("pure-ftpd: %q, %v", body, err)
			}
		} else if fetch.KindOf(err) != fetch.ErrAccessDenied {
			t.Errorf("%s: %v, want ErrAccessDenied", kind, err)
		}
	})

	t.Run("Typecodes", func(t *testing.T) {
		_, body, err := get(t, realClient(nil, nil), anon+"/pub/hello.txt;type=a")
		if want := asciiDownload(kind, files["pub/hello.txt"]); err != nil || !bytes.Equal(body, want) {
			t.Errorf(";type=a: %q, %v; want %q", body, err, want)
		}
		// No typecode: the server's bytes, whatever the name (as curl).
		_, body, err = get(t, realClient(nil, nil), anon+"/pub/hello.txt")
		if want := files["pub/hello.txt"]; err != nil || !bytes.Equal(body, want) {
			t.Errorf("no typecode: %q, %v; want %q", body, err, want)
		}
		_, body, err = get(t, realClient(nil, nil), anon+"/pub/hello.txt;type=i")
		if err != nil || !bytes.Equal(body, files["pub/hello.txt"]) {
			t.Errorf(";type=i: %q, %v", body, err)
		}
		res, body, err := get(t, realClient(nil, nil), anon+"/pub/;type=d")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		if bytes.Contains(body, []byte("\r")) {
			t.Errorf(";type=d listing holds CR: %q", body)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
			got[l] = true
		}
		for _, n := range []string{"binary.bin", "hello.txt", "1mb.txt", "a", "empty", "dir with spaces", "semi;colon.txt", "100%.txt", "link-to-hello"} {
			if !got[n] {
				t.Errorf(";type=d listing lacks %q: %q", n, body)
			}
		}
		if !res.Dir {
			t.Error(";type=d: Dir not set")
		}
	})

	t.Run("List", func(t *testing.T) {
		for _, opts := range []map[string]string{nil, {"ftp-mlsd": "1"}} {
			res, err := realClient(nil, opts).Open(ctx(t), anon+"/pub/")
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]fetch.Entry{}
			for e, err := range res.Entries() {
				if err != nil {
					t.Fatal(err)
				}
				if e.Unparsed {
					t.Errorf("%v: unparsed line %q", opts, e.Raw)
				}
				got[e.Name] = e
			}
			res.Body.Close()
			for rel, data := range files {
				dir, name := filepath.Split(rel)
				if dir != "pub/" {
					continue
				}
				e := got[name]
				if e.Type != fetch.EntryFile || e.Size != int64(len(data)) || e.ModTime.IsZero() {
					t.Errorf("%v %s: %+v", opts, name, e)
				}
				if want := anon + "/pub/" + strings.NewReplacer("%", "%25", ";", "%3B", " ", "%20").Replace(name); e.URL != want {
					t.Errorf("%v %s: URL %q, want %q", opts, name, e.URL, want)
				}
			}
			for _, d := range []string{"a", "empty", "dir with spaces"} {
				if got[d].Type != fetch.EntryDir {
					t.Errorf("%v %s: %+v", opts, d, got[d])
				}
			}
			if l := got["link-to-hello"]; opts == nil && (l.Type != fetch.EntryLink || l.Target != "hello.txt") {
				t.Errorf("LIST link: %+v", l)
			}
		}
	})

	t.Run("Resume", func(t *testing.T) {
		data := files["pub/binary.bin"]
		u, _ := urlparse.Parse(anon + "/pub/binary.bin")
		for _, off := range []int64{1, 4096, int64(len(data)) - 1, int64(len(data))} {
			res, err := realClient(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Offset: off})
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.Offset != off || !bytes.Equal(body, data[off:]) {
				t.Errorf("offset %d: Meta.Offset %d, %d bytes, %v", off, res.Offset, len(body), err)
			}
		}
		// The file changed after the part held: sent whole.
		fi, _ := os.Stat(filepath.Join(s.Anon, "pub/binary.bin"))
		res, err := realClient(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Offset: 100, Since: fi.ModTime().Add(-time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.Offset != 0 || !bytes.Equal(body, data) {
			t.Errorf("changed since: Offset %d, %d bytes, %v", res.Offset, len(body), err)
		}
	})

	t.Run("Head", func(t *testing.T) {
		u, _ := urlparse.Parse(anon + "/pub/binary.bin")
		res, err := realClient(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Head: true})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		fi, _ := os.Stat(filepath.Join(s.Anon, "pub/binary.bin"))
		if res.Size != fi.Size() || !res.ModTime.Equal(fi.ModTime().Truncate(time.Second)) {
			t.Errorf("HEAD: Size %d ModTime %v; file %d %v", res.Size, res.ModTime, fi.Size(), fi.ModTime())
		}
	})

	t.Run("Upload", func(t *testing.T) {
		name := "up-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ".bin"
		u, _ := urlparse.Parse(user + "/upload/" + name)
		data := files["pub/binary.bin"]
		n, err := ftp.Upload(ctx(t), realClient(nil, nil), &fetch.Request{URL: &u}, bytes.NewReader(data), false)
		if err != nil || n != int64(len(data)) {
			t.Fatalf("STOR: %d, %v", n, err)
		}
		if _, err := ftp.Upload(ctx(t), realClient(nil, nil), &fetch.Request{URL: &u}, strings.NewReader("tail"), true); err != nil {
			t.Fatalf("APPE: %v", err)
		}
		got, err := os.ReadFile(filepath.Join(s.Home, "upload", name))
		if err != nil || !bytes.Equal(got, append(append([]byte{}, data...), "tail"...)) {
			t.Errorf("stored %d bytes, %v", len(got), err)
		}
		au, _ := urlparse.Parse(anon + "/pub/" + name)
		if _, err := ftp.Upload(ctx(t), realClient(nil, nil), &fetch.Request{URL: &au}, strings.NewReader("x"), false); fetch.KindOf(err) != fetch.ErrUpload {
			t.Errorf("anonymous STOR: %v, want ErrUpload", err)
		}
	})

	t.Run("Modes", func(t *testing.T) {
		data := files["pub/binary.bin"]
		for _, opts := range []map[string]string{
			{"ftp-port": "-"},
			{"ftp-port": "127.0.0.1", "ftp-eprt": "0"},
			{"ftp-epsv": "0"},
			{"ftp-method": "singlecwd"},
			{"ftp-method": "nocwd"},
		} {
			_, body, err := get(t, realClient(nil, opts), anon+"/pub/binary.bin")
			if err != nil || !bytes.Equal(body, data) {
				t.Errorf("%v: %d bytes, %v", opts, len(body), err)
			}
		}
	})

	t.Run("Errors", func(t *testing.T) {
		for _, tc := range []struct {
			url  string
			kind fetch.Kind
		}{
			{"ftp://" + testserver.FTPUser + ":wrong@" + s.Addr + "/private.txt", fetch.ErrLoginDenied},
			{anon + "/pub/missing.bin", fetch.ErrNotFound},
			{anon + "/pub/missing.txt", fetch.ErrNotFound},
			{anon + "/nodir/x.bin", fetch.ErrAccessDenied},
		} {
			_, _, err := get(t, realClient(nil, nil), tc.url)
			if k := fetch.KindOf(err); k != tc.kind {
				t.Errorf("%s: %v (kind %d), want %d", tc.url, err, k, tc.kind)
			}
		}
	})

	t.Run("Reuse", func(t *testing.T) {
		f := &ftp.Fetcher{}
		defer f.CloseIdle()
		c := realClient(f, nil)
		paths := []string{"/pub/binary.bin", "/pub/a/b/c/deep.txt;type=i", "/readme.txt;type=i", "/pub/missing.bin", "/pub/hello.txt;type=i", "/pub/"}
		var control, data atomic.Int64
		c.Dialer = countDialer{s.Addr, &control, &data}
		for i, p := range paths {
			_, body, err := get(t, c, anon+p)
			if (err != nil) != (i == 3) {
				t.Errorf("%s: %v", p, err)
			}
			if i == 1 && !bytes.Equal(body, files["pub/a/b/c/deep.txt"]) {
				t.Errorf("%s: %q", p, body)
			}
		}
		// One control connection for all; one passive data connection each
		// (the missing file's too: EPSV comes before RETR).
		if control.Load() != 1 || data.Load() != int64(len(paths)) {
			t.Errorf("%d control and %d data connections, want 1 and %d", control.Load(), data.Load(), len(paths))
		}
		if f.IdleConns() != 1 {
			t.Errorf("%d idle connections, want 1", f.IdleConns())
		}
	})

	t.Run("Conformance", func(t *testing.T) {
		f := &ftp.Fetcher{}
		t.Cleanup(f.CloseIdle)
		fetchtest.Run(t, fetchtest.Suite{
			Client:      realClient(f, nil),
			Known:       anon + "/pub/binary.bin",
			KnownBody:   files["pub/binary.bin"],
			Missing:     anon + "/pub/missing.bin",
			MissingKind: fetch.ErrNotFound,
			Dir:         anon + "/pub/",
			DirNames:    []string{"binary.bin", "hello.txt", "a", "dir with spaces"},
			Inject:      anon + "/pub/x%0D%0ADELE%20binary.bin",
			Cannot: map[fetchtest.Case]string{
				fetchtest.CaseStall:     "a real server cannot be made to stall: the in-tree server's TestConformance does",
				fetchtest.CaseStallBody: "a real server cannot be made to stall: the in-tree server's TestConformance does",
				fetchtest.CaseEarly:     "a real server cannot be made to cut a body: the in-tree server's TestConformance does",
			},
		})
	})

	if kind == testserver.Vsftpd {
		t.Run("CommandLog", func(t *testing.T) { testVsftpdLog(t, s) })
	}
}

// countDialer counts connections to the control address and to others.
type countDialer struct {
	control       string
	ctrl, nonctrl *atomic.Int64
}

func (d countDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == d.control {
		d.ctrl.Add(1)
	} else {
		d.nonctrl.Add(1)
	}
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

// testVsftpdLog checks the exact command sequence, from vsftpd's protocol
// log, for RFC 1738's examples and the typecodes, in curl 7.88's order:
// PWD after the login, the data connection before TYPE and SIZE, TYPE A
// before a listing.
func testVsftpdLog(t *testing.T, s *testserver.FTPServer) {
	anon := "ftp://" + s.Addr
	login := []string{"USER anonymous", "PASS <password>", "PWD"}
	for _, tc := range []struct {
		path string
		opts map[string]string
		want []string
		kind fetch.Kind // 0: success
	}{
		{"/pub/a/b/c/deep.txt;type=i", nil, []string{"CWD pub", "CWD a", "CWD b", "CWD c", "EPSV", "TYPE I", "SIZE deep.txt", "RETR deep.txt"}, 0},
		{"/%2Fpub/hello.txt;type=i", nil, []string{"CWD /pub", "EPSV", "TYPE I", "SIZE hello.txt", "RETR hello.txt"}, 0},
		{"//pub/hello.txt;type=i", nil, []string{"CWD"}, fetch.ErrAccessDenied},
		{"/pub/;type=d", nil, []string{"CWD pub", "EPSV", "TYPE A", "NLST"}, 0},
		{"/pub/hello.txt;type=d", nil, []string{"CWD pub", "EPSV", "TYPE A", "NLST hello.txt"}, 0},
		{"/pub/hello.txt;type=a", nil, []string{"CWD pub", "EPSV", "TYPE A", "RETR hello.txt"}, 0},
		{"/pub/hello.txt", nil, []string{"CWD pub", "EPSV", "TYPE I", "SIZE hello.txt", "RETR hello.txt"}, 0},
		{"/pub/hello.txt;type=a", nil, []string{"CWD pub", "EPSV", "TYPE A", "RETR hello.txt"}, 0},
		{"/pub/binary.bin", nil, []string{"CWD pub", "EPSV", "TYPE I", "SIZE binary.bin", "RETR binary.bin"}, 0},
		{"/pub/", nil, []string{"CWD pub", "EPSV", "TYPE A", "LIST"}, 0},
		{"/pub/", map[string]string{"ftp-mlsd": "1"}, []string{"CWD pub", "FEAT", "EPSV", "TYPE A", "LIST"}, 0},
		{"/pub/a/b/c/deep.txt;type=i", map[string]string{"ftp-method": "singlecwd"}, []string{"CWD pub/a/b/c", "EPSV", "TYPE I", "SIZE deep.txt", "RETR deep.txt"}, 0},
		{"/pub/a/b/c/deep.txt;type=i", map[string]string{"ftp-method": "nocwd"}, []string{"EPSV", "TYPE I", "SIZE pub/a/b/c/deep.txt", "RETR pub/a/b/c/deep.txt"}, 0},
		{"/pub/binary.bin", map[string]string{"ftp-epsv": "0"}, []string{"CWD pub", "PASV", "TYPE I", "SIZE binary.bin", "RETR binary.bin"}, 0},
		{"/pub/missing.bin", nil, []string{"CWD pub", "EPSV", "TYPE I", "SIZE missing.bin", "RETR missing.bin", "CWD missing.bin"}, fetch.ErrNotFound}, // a directory without its "/"? (dirhint.go)
		{"/pub", nil, []string{"EPSV", "TYPE I", "SIZE pub", "RETR pub", "CWD pub", "EPSV", "TYPE A", "LIST"}, 0},                                      // listed (issue 16)
	} {
		before, err := s.Commands()
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = get(t, realClient(nil, tc.opts), anon+tc.path)
		if tc.kind == 0 && err != nil || tc.kind != 0 && fetch.KindOf(err) != tc.kind {
			t.Errorf("%s %v: %v, want kind %d", tc.path, tc.opts, err, tc.kind)
		}
		got, err := s.CommandLines(len(before))
		if err != nil {
			t.Fatal(err)
		}
		want := append(append(append([]string{}, login...), tc.want...), "QUIT")
		sameLines(t, tc.path+" "+mapString(tc.opts), got, want)
	}
	// Active mode: EPRT with the control connection's local address.
	before, _ := s.Commands()
	if _, _, err := get(t, realClient(nil, map[string]string{"ftp-port": "-"}), anon+"/pub/binary.bin"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.CommandLines(len(before))
	if len(got) != 9 || !strings.HasPrefix(got[4], "EPRT |1|127.0.0.1|") || got[7] != "RETR binary.bin" {
		t.Errorf("active mode commands: %q", got)
	}
	// Resume: REST after SIZE.
	before, _ = s.Commands()
	u, _ := urlparse.Parse(anon + "/pub/binary.bin")
	res, err := realClient(nil, nil).Do(ctx(t), &fetch.Request{URL: &u, Offset: 1000})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	got, _ = s.CommandLines(len(before))
	sameLines(t, "resume", got, append(append([]string{}, login...), "CWD pub", "EPSV", "TYPE I", "SIZE binary.bin", "REST 1000", "RETR binary.bin", "QUIT"))
}

func mapString(m map[string]string) string {
	var keys []string
	for k, v := range m {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}
