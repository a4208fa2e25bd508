package main

import (
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch/telnet/telnettest"
)

// TestTelnetScriptCLI: stdin is the session's input, stdout its output,
// exit 0 when the server closes (in-tree server; the real ones are in
// telnet_integration_test.go).
func TestTelnetScriptCLI(t *testing.T) {
	sh := &telnettest.Shell{}
	s := telnettest.Start(t, sh.Handle)
	code, out, errs := runSession(t, "echo hi there\nexit\n", "--max-time", "10", "--telnet-window", "90x20", s.URL("joe"))
	if code != 0 || !strings.Contains(out, "hi there\n") || !strings.Contains(out, "logout\n") {
		t.Fatalf("exit %d, output %q, stderr %q", code, out, errs)
	}
	if got := sh.Last(); got.Cols != 90 || got.Rows != 20 || got.User != "joe" {
		t.Errorf("server saw %dx%d user %q", got.Cols, got.Rows, got.User)
	}
	// Credentials that would break out of the data: refused before connecting.
	code, _, errs = runSession(t, "", s.URL("jo%FFe"))
	if code != 3 || s.Accepted() != 1 {
		t.Errorf("0xFF in the user: exit %d (%s), %d connections", code, errs, s.Accepted())
	}
}
