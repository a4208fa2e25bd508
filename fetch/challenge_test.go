package fetch

import "testing"

// OffersScheme finds a scheme among several challenges in one field value
// (curl's test 1204: `X-MobileMe-AuthToken realm="Newcastle", Basic
// realm="fun fun  fun"`), and not in a parameter or a quoted string.
func TestOffersSchemeSeveralChallenges(t *testing.T) {
	for _, tc := range []struct {
		values []string
		scheme string
		want   bool
	}{
		{[]string{`X-MobileMe-AuthToken realm="Newcastle", Basic realm="fun fun  fun"`}, "Basic", true},
		{[]string{`Digest realm="a", nonce="b", Basic realm="c"`}, "basic", true},
		{[]string{`Digest realm="a", nonce="b"`, `NTLM`}, "NTLM", true},
		{[]string{`Negotiate, NTLM`}, "NTLM", true},
		{[]string{`Basic`}, "Basic", true},
		{[]string{`Digest realm="x, Basic realm"`}, "Basic", false},
		{[]string{`Digest realm="a \", Basic b"`}, "Basic", false},
		{[]string{`Digest realm=Basic`}, "Basic", false},
		{[]string{`Bearer abc==, Digest realm="a"`}, "Basic", false},
	} {
		if got := OffersScheme(tc.values, tc.scheme); got != tc.want {
			t.Errorf("OffersScheme(%q, %q) = %v, want %v", tc.values, tc.scheme, got, tc.want)
		}
	}
}
