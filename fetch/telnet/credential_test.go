package telnet

import "testing"

// checkCredential refuses exactly IAC, CR, LF and NUL, wherever they
// stand, and lets every other byte through: a Latin-1 password (0xe9) is
// no IAC, though it is no UTF-8 either.
func TestCheckCredential(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"plain", true}, {"caf\xe9", true}, {"\x80\xfe", true}, {"é", true},
		{"a\xffb", false}, {"\xff", false}, {"a\rb", false}, {"a\n", false}, {"\x00", false},
	} {
		if err := checkCredential("password", tc.s); (err == nil) != tc.ok {
			t.Errorf("%q: %v, want ok=%v", tc.s, err, tc.ok)
		}
	}
}
