package main

import (
	"testing"

	"github.com/urlget/urlget/internal/testserver"
)

// TestNextBesideCurl: -:/--next beside curl on nginx: each group's own
// -o, -w, -f, -I and -L; the global options (-s, -Z) for all; a bad option
// in any group fetches nothing.
func TestNextBesideCurl(t *testing.T) {
	s, _ := nginxFixture(t)
	curl := testserver.Require(t, "curl")
	base := s.URL
	cases := []sideCase{
		{name: "-o each", args: []string{"-o", "a", base + "/small.txt", "--next", "-o", "b", base + "/big.bin"}},
		{name: "-w first only", args: []string{"-w", "A %{url} %{http_code}\\n", "-o", "a", base + "/small.txt", "--next", "-o", "b", base + "/dir/index.txt"}},
		{name: "-: and -w second", args: []string{"-o", "a", base + "/small.txt", "-:", "-w", "%{http_code}\\n", "-o", "b", base + "/missing"}},
		{name: "-I then a body", args: []string{"-I", base + "/small.txt", "--next", base + "/small.txt"}, normalize: dropDate},
		{name: "-L first only", args: []string{"-L", "-o", "a", base + "/old", "--next", "-o", "b", base + "/old"}},
		{name: "globs", args: []string{base + "/{small.txt,empty}", "-o", "g#1", "--next", "-O", base + "/dir/{index}.txt"}},
		{name: "an empty group", args: []string{"-o", "a", base + "/small.txt", "--next", "--next", "-o", "b", base + "/big.bin"}},
		{name: "-Z for all", args: []string{"-Z", "-o", "a", base + "/small.txt", "--next", "-o", "b", base + "/big.bin", "-o", "c", base + "/dir/index.txt"}},
		{name: "-s for all", args: []string{"http://127.0.0.1:1/", "--next", "-o", "a", base + "/small.txt", "--next", "http://127.0.0.1:1/"}, code: 7},
		{name: "bad option later", args: []string{"-o", "a", base + "/small.txt", "--next", "--bogus", base + "/small.txt"}, code: 2},
		{name: "no URL after", args: []string{"-o", "a", base + "/small.txt", "--next"}, code: 2},
		{name: "--next as a value", args: []string{"-o", "--next", base + "/small.txt"}},
		// curl 7.88 exits with the last transfer's status; urlget with the
		// last failure's, as without --next.
		{name: "-f first only", args: []string{"-f", "-o", "a", base + "/missing", "--next", "-o", "b", base + "/missing"}, ucode: 22},
	}
	runSideBySide(t, curl, cases)

	// -S and -s given in one group hold for the others: the failure of
	// the first is told, that of the last too.
	b := besideCurl(t, curl, []string{"-S", "http://127.0.0.1:1/", "--next", "http://127.0.0.1:1/"}, nil)
	if b.ucode != 7 || b.uerr != "urlget: (7) could not connect to 127.0.0.1:1: connection refused\nurlget: (7) could not connect to 127.0.0.1:1: connection refused\n" {
		t.Errorf("-sS in the first group: exit %d, stderr %q", b.ucode, b.uerr)
	}
	b = besideCurl(t, curl, []string{"http://127.0.0.1:1/", "--next", "http://127.0.0.1:1/"}, nil)
	if b.ucode != 7 || b.uerr != "" {
		t.Errorf("-s in the first group: exit %d, stderr %q", b.ucode, b.uerr)
	}
}

func TestSplitNext(t *testing.T) {
	fs := newFetchFlags(env{}, &fetchOpts{})
	for _, c := range []struct {
		args []string
		want int // groups; 0: none
	}{
		{[]string{"u1", "u2"}, 0},
		{[]string{"u1", "--next", "u2"}, 2},
		{[]string{"u1", "-:", "-o", "x", "u2", "--next", "u3"}, 3},
		{[]string{"-o", "--next", "u1"}, 0}, // a value
		{[]string{"-so", "-:", "u1"}, 0},    // a cluster's value
		{[]string{"u1", "--", "--next"}, 0}, // after --: a URL
		{[]string{"-s", "u1", "--next"}, 2}, // an empty last group (refused later)
		{[]string{"--output=x", "--next", "u"}, 2},
	} {
		if got := len(splitNext(c.args, fs)); got != c.want {
			t.Errorf("%q: %d groups, want %d", c.args, got, c.want)
		}
	}
}
