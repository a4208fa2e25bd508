package fetch_test

import (
	"io"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

func TestSkipReader(t *testing.T) {
	b, err := io.ReadAll(fetch.SkipReader(strings.NewReader("0123456789"), 4, "short"))
	if err != nil || string(b) != "456789" {
		t.Fatalf("skip 4: %q, %v", b, err)
	}
	b, err = io.ReadAll(fetch.SkipReader(strings.NewReader("0123"), 4, "short"))
	if err != nil || len(b) != 0 {
		t.Fatalf("skip all: %q, %v", b, err)
	}
	_, err = io.ReadAll(fetch.SkipReader(strings.NewReader("012"), 4, "too short"))
	if fetch.KindOf(err) != fetch.ErrResume || !strings.Contains(err.Error(), "too short") {
		t.Fatalf("shorter than the offset: %v, want ErrResume", err)
	}
}
