package fetch

import "testing"

// --data-urlencode forms, as curl reads them (moved from cmd/urlget's
// TestRequestPartsShort).
func TestURLEncodeData(t *testing.T) {
	for in, want := range map[string]string{"a b": "a+b", "=x&y": "x%26y", "n=é/~": "n=%C3%A9%2F~", "plain.-_~": "plain.-_~"} {
		if got, err := URLEncodeData(in, nil); err != nil || string(got) != want {
			t.Errorf("--data-urlencode %q = %q %v, want %q", in, got, err, want)
		}
	}
}
