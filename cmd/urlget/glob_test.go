package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/download"
	"github.com/urlget/urlget/internal/testserver"
)

// globFixture starts nginx on a root with files for globs to pick.
func globFixture(t *testing.T) *testserver.NginxServer {
	t.Helper()
	testserver.Require(t, "nginx")
	root := t.TempDir()
	for _, name := range []string{"f1.txt", "f2.txt", "f3.txt", "a.txt", "b.txt", "p01.txt", "p03.txt", "x/1.txt", "x/2.txt", "y/1.txt", "y/2.txt"} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("this is "+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return testserver.StartNginx(t, testserver.NginxConfig{Root: root})
}

// settledRequests is the access log after line from, once nginx has stopped
// adding to it; the User-Agent (the last field) is cut off.
func settledRequests(t *testing.T, s *testserver.NginxServer, from int) []string {
	t.Helper()
	prev := -1
	var lines []string
	for range 100 {
		all, err := s.Requests()
		if err == nil {
			if len(all) == 1 && all[0] == "" {
				all = nil
			}
			if len(all) == prev {
				lines = all
				break
			}
			prev = len(all)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var out []string
	for _, l := range lines[min(from, len(lines)):] {
		if i := strings.LastIndex(l, ` "`); i > 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return out
}

// TestGlobBesideCurl runs globs with curl and with urlget against the same
// nginx: the same requests in the same order, the same stdout, stderr (but
// for the program's name), files and exit status.
func TestGlobBesideCurl(t *testing.T) {
	s := globFixture(t)
	curl := testserver.Require(t, "curl")
	base := s.URL
	cases := []struct {
		name string
		args []string
		code int
		// ucode, when set, is urlget's exit status where it differs on
		// purpose: urlget refuses a URL with characters RFC 1738 calls
		// unsafe ("{", "[", …) where curl sends them as they are, so a
		// glob's escaped brackets are written %5B, as the RFC asks.
		ucode int
	}{
		{"range -o #1", []string{base + "/f[1-3].txt", "-o", "out_#1.txt"}, 0, 0},
		{"set -O", []string{"-O", base + "/{a,b}.txt"}, 0, 0},
		{"two patterns #2_#1", []string{base + "/{x,y}/[1-2].txt", "-o", "#2_#1.txt"}, 0, 0},
		{"padded step", []string{base + "/p[01-03:2].txt", "-o", "n#1"}, 0, 0},
		{"letters", []string{base + "/[a-b].txt", "-o", "l_#1_#9"}, 0, 0},
		{"to stdout", []string{base + "/f[1-3].txt"}, 0, 0},
		{"one -o for all", []string{"-o", "same", base + "/f[1-3].txt"}, 0, 0},
		{"-o per argument", []string{"-o", "g#1", base + "/f[2-3].txt", base + "/a.txt", "-o", "second", base + "/{b}.txt"}, 0, 0},
		{"-o then stdout", []string{"-o", "g#1", base + "/f[1-2].txt", base + "/{a,b}.txt"}, 0, 0},
		{"--remote-name-all", []string{"--remote-name-all", base + "/{a,b}.txt", "-o", "f#1", base + "/f[1-2].txt"}, 0, 0},
		{"--no-remote-name", []string{"--remote-name-all", "--output-dir", ".", "--no-remote-name", base + "/a.txt", base + "/b.txt"}, 0, 0},
		{"--output-dir", []string{"--create-dirs", "--output-dir", "od", "-O", base + "/[a-b].txt", base + "/f[1-2].txt", "-o", "n/#1"}, 0, 0},
		{"--create-dirs", []string{"--create-dirs", base + "/f[1-2].txt", "-o", "d#1/out"}, 0, 0},
		{"no dir", []string{base + "/f[1-2].txt", "-o", "d#1/out"}, 23, 0},
		{"-f in a glob", []string{"-f", base + "/f[2-4].txt", "-o", "o#1"}, 22, 0},
		{"bad glob", []string{base + "/f[1-3.txt"}, 3, 0},
		{"bad glob after a good one", []string{base + "/a.txt", base + "/{b", base + "/f1.txt"}, 3, 0},
		{"bad set", []string{base + "/f{1,{2}}.txt"}, 3, 0},
		{"-g", []string{"-g", base + "/f%5B1-3%5D.txt", "-o", "o#1"}, 0, 0},
		{"-g unsafe", []string{"-g", base + "/f[1-3].txt", "-o", "o#1"}, 0, 3},
		{"escaped", []string{base + "/\\[a\\].txt"}, 0, 3},
		{"ipv6 kept", []string{"http://[::1]:1/f[1-2]", "-o", "o#1"}, 7, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-sS"}, tc.args...)
			cdir, udir := t.TempDir(), t.TempDir()

			from := len(settledRequests(t, s, 0))
			cout, cerr, ccode := curlIn(t, curl, cdir, args)
			creqs := settledRequests(t, s, from)

			from += len(creqs)
			uout, uerr, ucode := urlgetIn(t, udir, args)
			ureqs := settledRequests(t, s, from)

			want := tc.code
			if tc.ucode != 0 {
				want = tc.ucode
			}
			if ccode != tc.code || ucode != want {
				t.Errorf("exit: curl %d, urlget %d, want %d and %d (urlget stderr %q)", ccode, ucode, tc.code, want, uerr)
			}
			if tc.ucode != 0 {
				return
			}
			if !slices.Equal(creqs, ureqs) {
				t.Errorf("requests differ:\nurlget %q\ncurl   %q", ureqs, creqs)
			}
			if cout != uout {
				t.Errorf("stdout differs:\nurlget %q\ncurl   %q", clip(uout), clip(cout))
			}
			if tc.code == 3 {
				// The message, the glob and the caret, line for line.
				want := strings.ReplaceAll(cerr, "curl: ", "urlget: ")
				if uerr != want {
					t.Errorf("stderr differs:\nurlget %q\ncurl   %q", uerr, want)
				}
			}
			compareTrees(t, cdir, udir)
		})
	}
}

// TestGlobLimit: a glob over the limit is curl's exit 3 with the glob,
// before any request.
func TestGlobLimit(t *testing.T) {
	srv := newFakeSrv(map[string]*fakeFile{"/f1": {data: []byte("one\n")}})
	r := runCLI(t, srv, "http://h/f1", "http://h/[1-100000001]")
	want := "urlget: (3) the glob gives 100000001 URLs, over the limit of 100000000:\nhttp://h/[1-100000001]\n"
	if r.code != 3 || r.stderr != want || len(srv.reqs) != 1 {
		t.Errorf("over the limit: exit %d, stderr %q, %d requests; want 3, %q, 1", r.code, r.stderr, len(srv.reqs), want)
	}
	if r := runCLI(t, srv, "-s", "http://h/[1-100000001]"); r.code != 3 || r.stderr != "" {
		t.Errorf("-s: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestGlobStreams: the URLs of a glob are made one at a time as they are
// fetched, never collected first: taking the first few of a glob of 100
// million costs a few allocations.
func TestGlobStreams(t *testing.T) {
	c := &fetchCmd{o: &fetchOpts{urls: []string{"http://h/[1-49999999]/{a,b}", "http://h/x"},
		outputs: []download.Target{{Name: "o#1#2"}}}}
	var got []string
	allocs := testing.AllocsPerRun(3, func() {
		got = got[:0]
		for j := range c.jobs() {
			got = append(got, j.URL+" "+j.Target.Name)
			if len(got) == 3 {
				break
			}
		}
	})
	want := []string{"http://h/1/a o1a", "http://h/1/b o1b", "http://h/2/a o2a"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if allocs > 100 {
		t.Errorf("%v allocations for 3 URLs", allocs)
	}
}

// TestFirstURLs: what is known of the URLs before any is fetched (is one
// an http URL, for -u's password prompt) is known of a glob's first URL.
func TestFirstURLs(t *testing.T) {
	o := &fetchOpts{urls: []string{"http://h/f[1-3]", "{ftp,http}://h/", "http://h/{", "http://h/x"}}
	if got, want := firstURLs(o), []string{"http://h/f1", "ftp://h/", "http://h/{", "http://h/x"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	o.globOff = true
	if got := firstURLs(o); !slices.Equal(got, o.urls) {
		t.Errorf("-g: got %q", got)
	}
	if !anyHTTP(firstURLs(&fetchOpts{urls: []string{"http://h/f[1-3]"}})) {
		t.Error("a glob of http URLs is not http")
	}
}
