package testserver

import (
	"fmt"
	"strings"
	"testing"
)

// fakeTB records how Require ends a test. Skip and Fatal stop the calling
// goroutine in the real testing.T; here they panic with errStop instead.
type fakeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

var errStop = fmt.Errorf("stopped")

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, a ...any) {
	f.skipped, f.msg = true, fmt.Sprintf(format, a...)
	panic(errStop)
}
func (f *fakeTB) Fatalf(format string, a ...any) {
	f.failed, f.msg = true, fmt.Sprintf(format, a...)
	panic(errStop)
}

func requireFake(binary string) (f *fakeTB, path string) {
	f = &fakeTB{}
	defer func() {
		if r := recover(); r != nil && r != errStop {
			panic(r)
		}
	}()
	path = Require(f, binary)
	return f, path
}

const missing = "urlget-no-such-server-binary"

func TestRequireMissing(t *testing.T) {
	t.Setenv("CI", "")
	f, _ := requireFake(missing)
	if !f.skipped || f.failed {
		t.Fatalf("without CI: skipped=%v failed=%v, want a skip", f.skipped, f.failed)
	}
	if !testing.Short() && !strings.Contains(f.msg, "scripts/test as root") {
		t.Errorf("skip message lacks the hint: %q", f.msg)
	}

	t.Setenv("CI", "true")
	f, _ = requireFake(missing)
	if testing.Short() {
		if !f.skipped {
			t.Errorf("-short with CI: want a skip, got %+v", f)
		}
		return
	}
	if !f.failed || f.skipped {
		t.Fatalf("with CI: skipped=%v failed=%v, want a failure", f.skipped, f.failed)
	}
	if !strings.Contains(f.msg, missing) {
		t.Errorf("failure message lacks the binary's name: %q", f.msg)
	}
}

func TestRequirePresent(t *testing.T) {
	t.Setenv("CI", "true")
	f, path := requireFake("sh")
	if testing.Short() {
		if !f.skipped {
			t.Errorf("-short: want a skip, got %+v", f)
		}
		return
	}
	if f.skipped || f.failed || !strings.HasSuffix(path, "/sh") {
		t.Errorf("Require(sh) = %q, %+v", path, f)
	}
}

func TestLookPathSbin(t *testing.T) {
	t.Setenv("PATH", "/nonexistent")
	if p, err := LookPath("nginx"); err == nil && !strings.HasPrefix(p, "/usr/sbin/") && !strings.HasPrefix(p, "/sbin/") && !strings.HasPrefix(p, "/usr/local/sbin/") {
		t.Errorf("LookPath(nginx) = %q", p)
	}
	if _, err := LookPath(missing); err == nil {
		t.Error("found a binary that does not exist")
	}
}
