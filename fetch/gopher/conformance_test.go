package gopher_test

import (
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/gopher/gophertest"
)

// TestConformance runs the shared suite against the in-tree server, plain
// and over TLS.
func TestConformance(t *testing.T) {
	for _, tls := range []bool{false, true} {
		name := "gopher"
		if tls {
			name = "gophers"
		}
		t.Run(name, func(t *testing.T) {
			var s *gophertest.Server
			c := client(nil)
			if tls {
				s = gophertest.StartTLS(t, testSite())
				c.TLS = s.ClientTLS()
			} else {
				s = gophertest.Start(t, testSite())
			}
			stall := fetchtest.Stall(t, "\r\n", nil)
			stallBody := fetchtest.Stall(t, "\r\n", []byte("the start of a text\r\n"))
			early := fetchtest.CloseEarly(t, "\r\n", []byte("+1000\r\nnot a thousand bytes"))
			suite := fetchtest.Suite{
				Client:      c,
				Known:       s.URL("9/binary.bin"),
				KnownBody:   binData,
				Missing:     s.URL("0/nope.txt"),
				MissingKind: fetch.ErrNotFound,
				Dir:         s.URL("1/docs"),
				DirNames:    []string{"one.txt", "two.txt"},
				Inject:      s.URL("0/hello.txt%0D%0A/secret"),
				Received:    func() int { return int(s.Accepted()) },
			}
			if tls {
				suite.Stall = gophertest.StartTLS(t, gophertest.Stall()).URL("0/x")
				suite.StallBody = gophertest.StartTLS(t, gophertest.NoClose([]byte("the start of a text\r\n"))).URL("0/x")
				suite.Early = gophertest.StartTLS(t, gophertest.EarlyClose(1000, []byte("not a thousand bytes"))).URL("0/x%09%09+")
			} else {
				suite.Stall = "gopher://" + stall.Addr + "/0/x"
				suite.StallBody = "gopher://" + stallBody.Addr + "/0/x"
				suite.Early = "gopher://" + early.Addr + "/0/x%09%09+"
			}
			fetchtest.Run(t, suite)
			// A text item through the suite too (Known is binary above).
			suite.Known, suite.KnownBody = s.URL("0/hello.txt"), []byte("Hello, gopher world!\nSecond line.\n")
			t.Run("text", func(t *testing.T) { fetchtest.Run(t, suite) })
		})
	}
}
