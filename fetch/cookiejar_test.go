package fetch_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/internal/fuzzcheck"
)

// FuzzCookieFile: a cookie file (-b FILE, which may come from anywhere) of
// any bytes loads or fails; what loads, saved (-c) and loaded again, saves
// the same; and the work is bounded by the file.
func FuzzCookieFile(f *testing.F) {
	fuzzcheck.Seeds(f,
		"# Netscape HTTP Cookie File\n#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\told\tv1\n127.0.0.1\tFALSE\t/other\tFALSE\t0\telsewhere\tv2\n127.0.0.1\tFALSE\t/\tFALSE\t1\texpired\tv3\n",
		"# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n\n.example.com\tTRUE\t/\tTRUE\t4102444800\tsid\tabc\r\nexample.com\tFALSE\t/p\tFALSE\t0\tnoval\n",
		"a\tb\tc\td\te\tf\tg", "a\tb\tc\td\t-5\tf\tg\n", "a\tb\tc\td\t0\tf\tg\th\n", "#HttpOnly_#x\tTRUE\t/\tTRUE\t0\tn\tv\n",
		"#HttpOnly_\n", "..\tTRUE\t\tTRUE\t9223372036854775807\t\t\r\r\n",
	)
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	load := func(data []byte) (string, error) {
		c := fetch.NewCookieJar()
		fetch.SetCookieClock(c, func() time.Time { return now })
		if err := c.Load(bytes.NewReader(data)); err != nil {
			return "", err
		}
		var saved strings.Builder
		err := c.Save(&saved)
		return saved.String(), err
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var saved string
		var err error
		fuzzcheck.Bounded(t, len(data), func() { saved, err = load(data) })
		if err != nil {
			return
		}
		again, err := load([]byte(saved))
		if err != nil || again != saved {
			t.Fatalf("%q saved as\n%q\nwhich loads and saves as\n%q (%v)", data, saved, again, err)
		}
	})
}

// TestCookieForAnotherDomain: a cookie a server sets for a domain it is
// not in is not kept for the -c file, from which a later -b would load it
// for that domain.
func TestCookieForAnotherDomain(t *testing.T) {
	c := fetch.NewCookieJar()
	u := &url.URL{Scheme: "http", Host: "www.example.net", Path: "/"}
	c.SetCookies(u, []*http.Cookie{{Name: "a", Value: "1", Domain: "example.org"}, {Name: "b", Value: "2", Domain: ".example.net"}})
	var saved strings.Builder
	if err := c.Save(&saved); err != nil {
		t.Fatal(err)
	}
	if s := saved.String(); strings.Contains(s, "example.org") || !strings.Contains(s, ".example.net\tTRUE\t/\tFALSE\t0\tb\t2\n") {
		t.Errorf("saved:\n%s", s)
	}
}

// TestCookieDomainAddress: a Domain that is the host's address makes a
// host cookie, written without the leading dot and with FALSE, as curl
// writes it (and net/http's jar keeps it); a Domain that is a part of the
// address is refused.
func TestCookieDomainAddress(t *testing.T) {
	c := fetch.NewCookieJar()
	u := &url.URL{Scheme: "http", Host: "127.0.0.1:8080", Path: "/"}
	c.SetCookies(u, []*http.Cookie{{Name: "a", Value: "1", Domain: "127.0.0.1"}, {Name: "b", Value: "2", Domain: "0.0.1"}})
	var saved strings.Builder
	if err := c.Save(&saved); err != nil {
		t.Fatal(err)
	}
	if s := saved.String(); strings.Contains(s, "\tb\t") || !strings.HasSuffix(s, "\n127.0.0.1\tFALSE\t/\tFALSE\t0\ta\t1\n") {
		t.Errorf("saved:\n%s", s)
	}
}

// TestCookieOverlaysSecure: over plain http a cookie that would replace
// or shadow a Secure one of its name, domain and first path segment is
// dropped (RFC 6265bis §5.6 step 15, as curl 7.88 drops it): curl's tests
// 1561 (its -c file's cookies, in any order) and 414 (the Cookie sent
// after).
func TestCookieOverlaysSecure(t *testing.T) {
	set := func(c *fetch.CookieJar, raw string, lines ...string) {
		u, _ := url.Parse(raw)
		h := http.Header{}
		for _, l := range lines {
			h.Add("Set-Cookie", l)
		}
		c.SetCookies(u, (&http.Response{Header: h}).Cookies())
	}
	c := fetch.NewCookieJar()
	set(c, "https://www.example.com/15610001",
		"super=secret; domain=example.com; path=/1561; secure;",
		"supersuper=secret; domain=example.com; path=/1561/login/; secure;",
		"__Secure-SID=12345; Domain=example.com",
		"__SecURE-SID=12346; Secure; Domain=example.com",
		"supersupersuper=secret; __Secure-SID=12346; Secure; Domain=example.com",
		"__Host-SID=22345",
		"__Host-SID=22346; Secure",
		"__Host-SID=22347; Domain=example.com",
		"__Host-SID=22348; Domain=example.com; Path=/",
		"__Host-SID=22349; Secure; Domain=example.com; Path=/",
		"__Host-SID=12346; Secure; Path=/")
	set(c, "http://www.example.com/15610002",
		"super=plain; domain=example.com; path=/1561; httponly;",
		"super=plain; domain=example.com; path=/1561/; httponly;",
		"super=plain; domain=example.com; path=/15; httponly;",
		"public=yes; domain=example.com; path=/foo;",
		"supersuper=plain; domain=example.com; path=/1561/login/en;",
		"supersuper=plain; domain=example.com; path=/1561/login;",
		"secureoverhttp=yes; domain=example.com; path=/1561; secure;",
		"__Secure-SID=22345; Domain=example.com",
		"__SecuRE-SID=22346; Secure; Domain=example.com",
		"__Host-SID=32345",
		"__Host-SID=32346; Secure",
		"__Host-SID=32347; Domain=example.com",
		"__Host-SID=32348; Domain=example.com; Path=/",
		"__Host-SID=32349; Secure; Domain=example.com; Path=/",
		"__Host-SID=32350; Secure; Path=/")
	var saved strings.Builder
	if err := c.Save(&saved); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(saved.String(), "\n") {
		if l != "" && (!strings.HasPrefix(l, "#") || strings.HasPrefix(l, "#HttpOnly_")) {
			got = append(got, l)
		}
	}
	want := []string{ // curl's test 1561, its order
		".example.com\tTRUE\t/foo\tFALSE\t0\tpublic\tyes",
		"#HttpOnly_.example.com\tTRUE\t/15\tFALSE\t0\tsuper\tplain",
		"www.example.com\tFALSE\t/\tTRUE\t0\t__Host-SID\t12346",
		".example.com\tTRUE\t/\tTRUE\t0\tsupersupersuper\tsecret",
		".example.com\tTRUE\t/\tTRUE\t0\t__SecURE-SID\t12346",
		".example.com\tTRUE\t/1561/login/\tTRUE\t0\tsupersuper\tsecret",
		".example.com\tTRUE\t/1561\tTRUE\t0\tsuper\tsecret",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("1561: saved\n%q\nwant (curl)\n%q", got, want)
	}

	c = fetch.NewCookieJar()
	set(c, "https://attack.invalid/a/b/414", "SESSIONID=originaltoken; secure", "second=originaltoken; secure; path=/a")
	set(c, "http://attack.invalid/a/b/4140002", "SESSIONID=hacker; domain=attack.invalid;", "second=replacement; path=/a/b")
	u, _ := url.Parse("https://attack.invalid/a/b/4140003")
	if got, want := c.CookieHeader(u), "SESSIONID=originaltoken; second=originaltoken"; got != want {
		t.Errorf("414: Cookie: %q, want (curl) %q", got, want)
	}
}

// TestCookiePrefixes: a "__Secure-" cookie without Secure, and a
// "__Host-" one without Secure, with a Domain or with a Path other than
// "/", are dropped (RFC 6265bis §4.1.3, as curl drops them: curl's test
// 1561); the same cookies with what the prefix asks for are kept, and
// sent over https.
func TestCookiePrefixes(t *testing.T) {
	c := fetch.NewCookieJar()
	u := &url.URL{Scheme: "https", Host: "www.example.com", Path: "/x/y"}
	c.SetCookies(u, []*http.Cookie{
		{Name: "__Secure-a", Value: "no"},
		{Name: "__Secure-b", Value: "yes", Secure: true, Domain: "example.com"},
		{Name: "__secure-c", Value: "no", Domain: "example.com"},
		{Name: "__Host-d", Value: "no", Path: "/"},
		{Name: "__Host-e", Value: "no", Secure: true, Domain: "example.com", Path: "/"},
		{Name: "__Host-f", Value: "no", Secure: true, Path: "/x"},
		{Name: "__Host-g", Value: "no", Secure: true},
		{Name: "__HOST-h", Value: "yes", Secure: true, Path: "/"},
		{Name: "__Hostile", Value: "yes"},
	})
	if got, want := c.CookieHeader(u), "__Hostile=yes; __Secure-b=yes; __HOST-h=yes"; got != want { // longer paths first
		t.Errorf("Cookie: %q, want %q", got, want)
	}
}

// TestCookieNewSession: with NewSession (curl's -j), the session cookies
// of a file are not loaded, and so not sent nor saved; those with an
// expiry are; a session cookie received afterwards is kept.
func TestCookieNewSession(t *testing.T) {
	file := "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\ts\n127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tlasting\tl\n"
	u, _ := url.Parse("http://127.0.0.1/")
	for _, ns := range []bool{false, true} {
		c := fetch.NewCookieJar()
		c.NewSession = ns
		if err := c.Load(strings.NewReader(file)); err != nil {
			t.Fatal(err)
		}
		c.SetCookies(u, []*http.Cookie{{Name: "fresh", Value: "f"}})
		var names []string
		for _, k := range c.Cookies(u) {
			names = append(names, k.Name)
		}
		var saved strings.Builder
		c.Save(&saved)
		want := "session lasting fresh"
		if ns {
			want = "lasting fresh"
		}
		if got := strings.Join(names, " "); got != want || strings.Contains(saved.String(), "\tsession\t") == ns {
			t.Errorf("NewSession %v: sends %q, want %q; saves\n%s", ns, got, want, saved.String())
		}
	}
}

// TestCookieFileSkipsLines: a line of a cookie file that is not 6 or 7
// fields (a header line) is skipped, as curl skips it; the lines around it
// load; two tabs in a row separate two fields, as in curl.
func TestCookieFileSkipsLines(t *testing.T) {
	file := "HTTP/1.1 200 OK\n" +
		"127.0.0.1\tFALSE\t/\tFALSE\t0\t\tdoubled\tx\n" +
		"127.0.0.1\tFALSE\t/\tFALSE\t0\tgood\tg\n" +
		"Set-Cookie: header=h; path=/\n" +
		"127.0.0.1\tFALSE\t/\tFALSE\t0\tempty\n"
	c := fetch.NewCookieJar()
	if err := c.Load(strings.NewReader(file)); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("http://127.0.0.1/")
	var got []string
	for _, k := range c.Cookies(u) {
		got = append(got, k.Name+"="+k.Value)
	}
	if s := strings.Join(got, " "); s != "doubled=x good=g empty=" {
		t.Errorf("loaded %q, want \"doubled=x good=g empty=\"", s)
	}
}

// cookieFileJar is a jar with cookies of each kind a file holds: host and
// domain, secure, HttpOnly, a session one and one with an expiry.
func cookieFileJar(value string) *fetch.CookieJar {
	c := fetch.NewCookieJar()
	u := &url.URL{Scheme: "https", Host: "www.example.net", Path: "/a/b"}
	c.SetCookies(u, []*http.Cookie{
		{Name: "host", Value: value},
		{Name: "dom", Value: "d", Domain: "example.net", Path: "/", Secure: true, HttpOnly: true},
		{Name: "lasting", Value: "l", Expires: time.Now().Add(time.Hour).Truncate(time.Second)},
	})
	return c
}

func savedText(t *testing.T, c *fetch.CookieJar) string {
	t.Helper()
	var b strings.Builder
	if err := c.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// dirNames lists dir, to see that no temporary file is left in it.
func dirNames(t *testing.T, dir string) string { return strings.Join(fetchtest.DirNames(t, dir), " ") }

// TestCookieJarFiles: SaveFile and LoadFile (curl's -c FILE and -b FILE)
// round trip, replace a file whole keeping its mode, follow a link, write
// a device in place, and fail naming the file: a missing one recognised
// as fs.ErrNotExist, the reason alone given by PathCause.
func TestCookieJarFiles(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "jar.txt")
	c := cookieFileJar("v1")
	if err := c.SaveFile(name); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved file: %v %v, want mode 0600", fi, err)
	}
	back := fetch.NewCookieJar()
	if err := back.LoadFile(name); err != nil {
		t.Fatal(err)
	}
	want := savedText(t, c)
	if got := savedText(t, back); got != want || strings.Count(got, "\n") != 6 {
		t.Errorf("loaded back, saves\n%s\nwant\n%s", got, want)
	}
	u, _ := url.Parse("https://www.example.net/a/x")
	var sent []string
	for _, k := range back.Cookies(u) {
		sent = append(sent, k.Name+"="+k.Value)
	}
	if got := strings.Join(sent, " "); got != "host=v1 lasting=l dom=d" {
		t.Errorf("loaded back, sends %q", got)
	}

	// A file already there is replaced whole, its mode kept.
	os.Chmod(name, 0o640)
	c2 := cookieFileJar("v2")
	if err := c2.SaveFile(name); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != savedText(t, c2) {
		t.Errorf("saved over a file:\n%s", b)
	}
	if fi, _ := os.Stat(name); fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file has mode %v, want 0640", fi.Mode())
	}

	// A link is followed: the file it points to is replaced, the link stays.
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("jar.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := c.SaveFile(link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(name); string(b) != want {
		t.Errorf("saved through a link, the file holds:\n%s", b)
	}
	// A named pipe (or a device, as /dev/stdout) is written to, not replaced.
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(pipe, os.O_RDWR, 0) // a reader, so that SaveFile's open does not wait
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.SetReadDeadline(time.Now().Add(10 * time.Second))
	if err := c.SaveFile(pipe); err != nil {
		t.Errorf("save to a pipe: %v", err)
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != want {
		t.Errorf("read from the pipe %q (%v)", got, err)
	}
	if fi, err := os.Lstat(pipe); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the pipe is now %v (%v)", fi, err)
	}
	if got := dirNames(t, dir); got != "jar.txt link.txt pipe" {
		t.Errorf("directory holds %q", got)
	}

	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("# Netscape HTTP Cookie File\nexample.net\tFALSE\t/\tFALSE\tsoon\tn\tv\n"), 0o600)
	for _, tc := range []struct {
		name, err, cause string
		missing          bool
	}{
		{filepath.Join(dir, "none.txt"), "cannot read cookie file " + dir + "/none.txt: no such file or directory", "no such file or directory", true},
		{bad, "cannot read cookie file " + bad + ": line 2: expiry \"soon\" is not a number", "line 2: expiry \"soon\" is not a number", false},
		{dir, "cannot read cookie file " + dir + ": is a directory", "is a directory", false},
	} {
		err := fetch.NewCookieJar().LoadFile(tc.name)
		if err == nil || err.Error() != tc.err || fetch.PathCause(err).Error() != tc.cause || errors.Is(err, fs.ErrNotExist) != tc.missing {
			t.Errorf("LoadFile(%s): %v (cause %v), want %q, missing %v", tc.name, err, fetch.PathCause(err), tc.err, tc.missing)
		}
	}
	for _, tc := range []struct{ name, err string }{
		{dir, "cannot write cookie file " + dir + ": is a directory"},
		{filepath.Join(dir, "no", "jar.txt"), "cannot write cookie file " + dir + "/no/jar.txt: cannot create a file in " + dir + "/no: no such file or directory"},
	} {
		if err := c.SaveFile(tc.name); err == nil || err.Error() != tc.err {
			t.Errorf("SaveFile(%s): %v, want %q", tc.name, err, tc.err)
		}
	}
	if got := dirNames(t, dir); got != "bad.txt jar.txt link.txt pipe" {
		t.Errorf("directory holds %q", got)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o700)
		os.WriteFile(filepath.Join(ro, "jar.txt"), []byte("old\n"), 0o600)
		os.Chmod(ro, 0o500)
		defer os.Chmod(ro, 0o700)
		err := c.SaveFile(filepath.Join(ro, "jar.txt"))
		if want := "cannot write cookie file " + ro + "/jar.txt: cannot create a file in " + ro + ": permission denied"; err == nil || err.Error() != want {
			t.Errorf("save in a read-only directory: %v, want %q", err, want)
		}
		if b, _ := os.ReadFile(filepath.Join(ro, "jar.txt")); string(b) != "old\n" {
			t.Errorf("the file in a read-only directory now holds %q", b)
		}
		if got := dirNames(t, ro); got != "jar.txt" {
			t.Errorf("the read-only directory holds %q", got)
		}
	}
}

// TestCookieJarSaveFails: a save that fails while writing (here the file
// size limit, RLIMIT_FSIZE, in a child process) leaves the old file as it
// was and no temporary file beside it.
func TestCookieJarSaveFails(t *testing.T) {
	if dir := os.Getenv("URLGET_COOKIE_SAVE_CHILD"); dir != "" {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 16, Max: 16}); err != nil {
			t.Fatal(err)
		}
		err := cookieFileJar("v").SaveFile(filepath.Join(dir, "jar.txt"))
		os.Stdout.WriteString("SaveFile: " + fmt.Sprint(err) + "\n")
		return
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "jar.txt")
	old := "# Netscape HTTP Cookie File\nexample.net\tFALSE\t/\tFALSE\t0\told\tv\n"
	if err := os.WriteFile(name, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCookieJarSaveFails$", "-test.v")
	cmd.Env = append(os.Environ(), "URLGET_COOKIE_SAVE_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if want := "SaveFile: cannot write cookie file " + name + ": file too large\n"; !strings.Contains(string(out), want) {
		t.Errorf("child says\n%s\nwant %q", out, want)
	}
	if b, _ := os.ReadFile(name); string(b) != old {
		t.Errorf("the old file now holds %q", b)
	}
	if got := dirNames(t, dir); got != "jar.txt" {
		t.Errorf("a failed save left %q", got)
	}
}

// TestCookieJarSavesAtOnce: saves running at once each replace the file
// whole (no temporary name shared), and leave nothing beside it.
func TestCookieJarSavesAtOnce(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "jar.txt")
	jars := []*fetch.CookieJar{cookieFileJar("first"), cookieFileJar("second")}
	texts := map[string]bool{savedText(t, jars[0]): true, savedText(t, jars[1]): true}
	var wg sync.WaitGroup
	errs := make(chan error, 2*20)
	for _, c := range jars {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				errs <- c.SaveFile(name)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(name); !texts[string(b)] {
		t.Errorf("after saves at once the file holds\n%s", b)
	}
	if got := dirNames(t, dir); got != "jar.txt" {
		t.Errorf("saves at once left %q", got)
	}
}

// TestCookieHeaderCurlOrder: the Cookie field is made as curl makes it
// (its tests 6, 46, 442): the jar's cookies longest path first, then
// longest domain, longest name, the newest first; at most 150, the first
// stored; then the -b texts as given, joined by ";".
func TestCookieHeaderCurlOrder(t *testing.T) {
	c := fetch.NewCookieJar()
	file := "www.example.com\tFALSE\t/\tFALSE\t0\tmooo\tindeed\n" +
		"www.example.com\tFALSE\t/want\tFALSE\t0\tmooo2\tindeed2\n" +
		"www.example.com\tFALSE\t/want\tFALSE\t0\tempty\t\n" +
		".example.com\tTRUE\t/want\tFALSE\t0\tshort\tdomain\n" +
		"www.example.com\tFALSE\t/want\tFALSE\t0\tlonger\tname\n" +
		"other.example\tFALSE\t/\tFALSE\t0\tnot\tsent\n"
	if err := c.Load(strings.NewReader(file)); err != nil {
		t.Fatal(err)
	}
	c.AddText("name=contents;name2=content2")
	c.AddText("name3=content3")
	u := &url.URL{Scheme: "http", Host: "www.example.com", Path: "/want/page"}
	want := "longer=name; empty=; mooo2=indeed2; short=domain; mooo=indeed; name=contents;name2=content2;name3=content3"
	if got := c.CookieHeader(u); got != want {
		t.Errorf("Cookie:\n%s\nwant (curl's):\n%s", got, want)
	}

	many := fetch.NewCookieJar()
	var b strings.Builder
	for i := 1; i <= 160; i++ {
		fmt.Fprintf(&b, "www.example.com\tFALSE\t/\tFALSE\t0\tn%d\tv\n", i)
	}
	if err := many.Load(strings.NewReader(b.String())); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(many.CookieHeader(u), "; ")
	if len(got) != 150 || got[0] != "n150=v" || got[149] != "n1=v" {
		t.Errorf("160 cookies: %d sent, first %q last %q; want 150, n150=v to n1=v", len(got), got[0], got[len(got)-1])
	}
}

// TestCookieExpiresAnyDate: an Expires net/http cannot read is read as RFC
// 6265 §5.1.1 reads a cookie date, as curl reads it (its test 1104): a date
// in the past deletes the cookie, one to come is the cookie's expiry, and
// one that cannot be read at all leaves a session cookie.
func TestCookieExpiresAnyDate(t *testing.T) {
	c := fetch.NewCookieJar()
	u := &url.URL{Scheme: "http", Host: "127.0.0.1", Path: "/"}
	resp := &http.Response{Header: http.Header{"Set-Cookie": {
		"old=1; path=/; expires=Thu Jan  1 00:00:00 GMT 1970;",
		"later=2; path=/; expires=Fri Feb 13 11:56:27 GMT 2037;",
		"twodigit=3; path=/; expires=Sat, 13-Feb-38 11:56:27 GMT",
		"unread=4; path=/; expires=soon",
		"gone=5; path=/; expires=1-Jan-99 23:59:59",
	}}}
	c.SetCookies(u, resp.Cookies())
	if got := c.CookieHeader(u); got != "twodigit=3; unread=4; later=2" {
		t.Errorf("Cookie %q, want the three not expired", got)
	}
	var saved strings.Builder
	if err := c.Save(&saved); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\t2118138987\tlater\t2\n", "\t2149674987\ttwodigit\t3\n", "\t0\tunread\t4\n"} {
		if !strings.Contains(saved.String(), want) {
			t.Errorf("saved file lacks %q:\n%s", want, saved.String())
		}
	}
}
