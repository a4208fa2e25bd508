package gopher

import (
	"io"
	"strings"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/urlparse"
)

// An HTTP proxy gateway's 200 reply for a menu, sent as the gopher server
// sent it, becomes what a direct fetch gives: its body ends at the "."
// line (a renderer stops there, and nothing is read past it while the
// caller closes the body), unless the menu is asked for as sent; --raw
// leaves it the reply's bytes, not a menu, as a direct fetch does.
func TestGatewayReplyMenu(t *testing.T) {
	const items = "iwelcome\t\terror.host\t1\r\n1sub\t/sub\t127.0.0.1\t70\r\n"
	const sent = items + ".\r\ngarbage after the end\r\n"
	u, err := urlparse.Parse("gopher://127.0.0.1:7070/1/")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		opts    fetch.Options
		dir     bool
		want    string
		renders bool
	}{
		{"readable", nil, true, items, true},
		{"as sent", fetch.Options{fetch.OptAsSent: "1"}, true, sent, true},
		{"raw", fetch.Options{OptRaw: "1"}, false, sent, false},
	} {
		res := &fetch.Resource{Meta: fetch.Meta{Size: int64(len(sent)), ContentType: "application/gopher-menu"},
			Body: io.NopCloser(strings.NewReader(sent))}
		gatewayReply(res, &fetch.Request{URL: &u, Options: c.opts})
		if res.Dir != c.dir || (res.Render != nil) != c.renders {
			t.Errorf("%s: Dir %v, Render %v; want %v, %v", c.name, res.Dir, res.Render != nil, c.dir, c.renders)
		}
		got, err := io.ReadAll(res.Body)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: body %q (%v), want %q", c.name, got, err, c.want)
		}
	}
}
