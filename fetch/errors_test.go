package fetch_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
)

// TestKindIsError: errors.Is finds a Kind through an *Error anywhere in a
// chain, and only that Kind; a bare Kind is classified as itself.
func TestKindIsError(t *testing.T) {
	inner := fetch.NewError(fetch.ErrNotFound, "ftp: RETR /x: 550 no such file", nil)
	err := fmt.Errorf("fetching ftp://h/x: %w", inner)
	if !errors.Is(err, fetch.ErrNotFound) {
		t.Error("errors.Is(err, ErrNotFound) = false for a wrapped not-found error")
	}
	if errors.Is(err, fetch.ErrLoginDenied) {
		t.Error("errors.Is(err, ErrLoginDenied) = true for a not-found error")
	}
	if got := fetch.KindOf(fmt.Errorf("x: %w", fetch.ErrTimeout)); got != fetch.ErrTimeout {
		t.Errorf("KindOf(wrapped bare ErrTimeout) = %d, want %d", int(got), int(fetch.ErrTimeout))
	}
	if got := fetch.ExitCode(fetch.ErrNotFound); got != 78 {
		t.Errorf("ExitCode(ErrNotFound) = %d, want 78", got)
	}
}

// TestKindText: every Kind from ErrOther to the last has its own words and
// an exit code, so a kind added without them is caught here.
func TestKindText(t *testing.T) {
	seen := map[string]fetch.Kind{}
	for _, k := range fetch.Kinds() {
		s := k.Error()
		if s == "" || s == "fetch error" || strings.Contains(s, "--") {
			t.Errorf("Kind %d: text %q", int(k), s)
		}
		if o, dup := seen[s]; dup {
			t.Errorf("Kinds %d and %d share the text %q", int(o), int(k), s)
		}
		seen[s] = k
		if k != fetch.ErrOther && k.ExitCode() == 0 {
			t.Errorf("Kind %d (%s) has no exit code", int(k), s)
		}
	}
}
