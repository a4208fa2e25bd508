package fetch_test

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"hello.txt":        "hello.txt",
		"..":               "_.",
		".":                "_",
		".hidden":          "_hidden",
		"../../etc/passwd": "_._.._etc_passwd",
		"/etc/passwd":      "_etc_passwd",
		`a\b`:              "a_b",
		"bell\a\r\n":       "bell___",
		"":                 "",
		"dir with spaces":  "dir with spaces",
		"semi;colon%":      "semi;colon%",
	} {
		if got := fetch.SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("é", 200) // 400 bytes
	if got := fetch.SafeName(long); len(got) > 255 || !strings.HasPrefix(long, got) || len(got)%2 != 0 {
		t.Errorf("fetch.SafeName(long) = %d bytes", len(got))
	}
}
