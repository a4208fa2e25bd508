package http

import (
	"testing"
)

// TestCredentialLine: the -H lines left out on another origin.
func TestCredentialLine(t *testing.T) {
	for line, want := range map[string]bool{
		"Authorization: Bearer x": true, "authorization;": true, " Cookie : a=b": true, "cookie:": true,
		"Cookie2: x": false, "X-Authorization: y": false, "Accept: */*": false, "Set-Cookie: a": false,
	} {
		if credentialLine(line) != want {
			t.Errorf("%q: %v, want %v", line, !want, want)
		}
	}
}
