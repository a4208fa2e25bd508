package ftp

import (
	"testing"

	"github.com/urlget/urlget/fetch"
)

// Reply.Gone: the replies that say the session is over whatever was
// asked; SessionGone and fetch.Retryable on their errors.
func TestReplyGone(t *testing.T) {
	for _, c := range []struct {
		code int
		line string
		gone bool
	}{
		{421, "421 Timeout.", true},
		{500, "500 OOPS: priv_sock_get_int", true},
		{500, "500 OOPS: vsftpd: refusing to run with writable root inside chroot()", true},
		{500, "500 Unknown command.", false},
		{550, "550 OOPS.txt: No such file", false},
		{500, "500", false},
	} {
		r := &Reply{code: c.code, lines: []string{c.line}, verb: "RETR"}
		if r.Gone() != c.gone {
			t.Errorf("%q: Gone %v", c.line, r.Gone())
		}
		err := RefusedError("RETR", "f", r)
		if SessionGone(err) != c.gone || c.gone != fetch.Retryable(err) {
			t.Errorf("%q: SessionGone %v, Retryable %v", c.line, SessionGone(err), fetch.Retryable(err))
		}
	}
}
