package ftp_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/fetch/ftp/ftptest"
)

// A binary RETR copied by fetch.CopyBody goes straight from the data
// connection, and the transfer's end is still the final reply and the
// size: a 426 after every byte, or fewer bytes than SIZE, is ErrPartial;
// an ASCII transfer is converted, not taken straight.
func TestCopyBodyStraight(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  string
		hook ftptest.Hook
		want []byte
		kind fetch.Kind // 0: no error
	}{
		{name: "binary", url: "/pub/binary.bin", want: binary},
		{name: "ascii", url: "/pub/hello.txt;type=a", want: []byte("hello\nworld\n")},
		{name: "426 after every byte", url: "/pub/binary.bin", want: binary, kind: fetch.ErrPartial,
			hook: ftptest.ShortData("binary.bin", binary, len(binary), "426 Connection closed; transfer aborted")},
		{name: "short of SIZE", url: "/pub/binary.bin", want: binary[:len(binary)/2], kind: fetch.ErrPartial,
			hook: ftptest.ShortData("binary.bin", binary, len(binary)/2, "226 Transfer complete")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t)
			configure(s, func(s *ftptest.Server) { s.Hook = tc.hook })
			res, err := client(nil, nil).Open(ctx(t), "ftp://"+s.Addr+tc.url)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			sink, got := fetchtest.Sink(t)
			if !fetch.CanGoStraight(sink, res.Body) {
				t.Error("CanGoStraight: false for an ftp body")
			}
			n, err := fetch.CopyBody(sink, res.Body, nil)
			sink.Close()
			b := <-got
			if tc.kind == 0 && err != nil {
				t.Errorf("%v", err)
			} else if tc.kind != 0 {
				fetchtest.WantKind(t, err, tc.kind)
			}
			if n != int64(len(b)) || !bytes.Equal(b, tc.want) {
				t.Errorf("copied %d, received %d bytes %s, want %d", n, len(b), fmt.Sprintf("%.20q", b), len(tc.want))
			}
		})
	}
}

// A listing copied by fetch.CopyBody has its lines end in LF as one read
// through the body has (fetch.TextReader): the conversion is not gone
// round by taking the data connection straight.
func TestCopyBodyListingLF(t *testing.T) {
	s := newServer(t)
	open := func() *fetch.Resource {
		res, err := client(nil, nil).Open(ctx(t), "ftp://"+s.Addr+"/pub/")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	want, err := io.ReadAll(open().Body)
	if err != nil || len(want) == 0 || bytes.Contains(want, []byte("\r")) {
		t.Fatalf("the listing read: %v %q", err, want)
	}
	sink, got := fetchtest.Sink(t)
	_, err = fetch.CopyBody(sink, open().Body, nil)
	sink.Close()
	if b := <-got; err != nil || !bytes.Equal(b, want) {
		t.Errorf("the listing copied: %v %q, want %q", err, b, want)
	}
}
