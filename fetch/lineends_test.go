package fetch_test

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/urlget/urlget/fetch"
)

func TestLFReader(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\r\n":       "a\nb\n",
		"a\r\r\nb\r\n":     "a\r\nb\n", // pure-ftpd's doubled CR
		"no newline\r":     "no newline\r",
		"\r\r\r\n":         "\r\r\n",
		"lf only\n":        "lf only\n",
		"cr\rmid":          "cr\rmid",
		"":                 "",
		"\r\n\r\n\r\n":     "\n\n\n",
		"x\r\ny\rz\r\n\r1": "x\ny\rz\n\r1",
	} {
		for _, r := range []func(io.Reader) io.Reader{
			func(r io.Reader) io.Reader { return r },
			iotest.OneByteReader,
			iotest.HalfReader,
		} {
			got, err := io.ReadAll(iotest.OneByteReader(fetch.LFReader(r(strings.NewReader(in)))))
			if err != nil || string(got) != want {
				t.Errorf("crlf(%q) = %q, %v; want %q", in, got, err, want)
			}
			got, _ = io.ReadAll(fetch.LFReader(r(strings.NewReader(in))))
			if string(got) != want {
				t.Errorf("crlf(%q) = %q; want %q", in, got, want)
			}
		}
	}
}
