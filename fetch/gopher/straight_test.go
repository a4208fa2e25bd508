package gopher_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
	"github.com/urlget/urlget/urlparse"
)

// An item read to its end (a binary, a raw reply) can be taken straight
// from the connection once what came with the reply's head is read; a menu,
// a text (dot-terminated, line ends converted) and anything over TLS
// cannot.
func TestStraightBody(t *testing.T) {
	data := fetchtest.Pattern(200000)
	site := &gophertest.Site{Items: map[string]*gophertest.Item{
		"":      {Type: '1', Menu: []string{"0Text\t/text"}},
		"/text": {Type: '0', Data: []byte("line\r\n")},
		"/bin":  {Type: '9', Data: data},
	}}
	plain := gophertest.Start(t, site)
	secure := gophertest.StartTLS(t, site)
	tlsCfg, err := gophertest.TrustedTLS()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		url      string
		raw      bool
		straight bool
	}{
		{"gopher://" + plain.Addr + "/9/bin", false, true},
		{"gopher://" + plain.Addr + "/1", true, true},
		{"gopher://" + plain.Addr + "/1", false, false},
		{"gopher://" + plain.Addr + "/0/text", false, false},
		{"gophers://" + secure.Addr + "/9/bin", false, false},
	} {
		u, err := urlparse.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		req := &fetch.Request{URL: &u, Options: fetch.Options{}}
		if tc.raw {
			req.Options[fetch.OptRaw] = "true"
		}
		res, err := gopher.Fetcher{Config: fetch.Config{TLS: tlsCfg}}.Open(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		sb, ok := res.Body.(fetch.StraightBody)
		if !ok {
			t.Fatalf("%s: the body is no fetch.StraightBody", tc.url)
		}
		// What came buffered with the head first, then the connection.
		var got bytes.Buffer
		buf := make([]byte, 1)
		for sb.Straight() == nil && got.Len() < 1<<20 {
			n, err := sb.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				break
			}
		}
		if r := sb.Straight(); (r != nil) != tc.straight {
			t.Errorf("%s raw=%v: Straight %T, want one: %v", tc.url, tc.raw, r, tc.straight)
		} else if r != nil {
			rest, err := io.ReadAll(r)
			if err != nil {
				t.Errorf("%s: %v", tc.url, err)
			}
			got.Write(rest)
			if u.Gopher.Type == '9' && !bytes.Equal(got.Bytes(), data) {
				t.Errorf("%s: %d bytes through Straight, want the item's %d", tc.url, got.Len(), len(data))
			}
			if n, err := sb.Read(buf); n != 0 || err != io.EOF {
				t.Errorf("%s: Read after the connection ended: %d, %v; want io.EOF", tc.url, n, err)
			}
		}
		res.Body.Close()
	}
}
