package warc

import (
	"bytes"
	"crypto/sha1"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// Records written, gzip per record or plain, read back the same: the
// header fields, the block from several parts, the digests.
func TestWriteReadBack(t *testing.T) {
	for _, gz := range []bool{true, false} {
		var buf bytes.Buffer
		w := NewWriter(&buf, gz, "x.warc.gz")
		if err := w.Warcinfo([][2]string{{"software", "test"}}); err != nil {
			t.Fatal(err)
		}
		head := "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n"
		body := strings.NewReader("hello world")
		block := Concat{{R: strings.NewReader(head), Size: int64(len(head))}, {R: body, Off: 6, Size: 5}, {R: body, Size: 6}}
		if err := w.Write(Record{Type: TypeResponse, TargetURI: "http://h/x", Date: time.Unix(0, 0), ContentType: HTTPResponse,
			Block: block, BlockSize: block.Size(), PayloadOffset: int64(len(head))}); err != nil {
			t.Fatal(err)
		}
		if gz && buf.Bytes()[0] != 0x1f {
			t.Fatal("not gzip")
		}
		r, err := NewReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		h, b, err := r.Next()
		if err != nil || h["WARC-Type"] != TypeWarcinfo || string(b) != "software: test\r\n" || h["WARC-Filename"] != "x.warc.gz" {
			t.Fatalf("warcinfo: %v %q %v", h, b, err)
		}
		info := h["WARC-Record-ID"]
		h, b, err = r.Next()
		want := head + "worldhello "
		if err != nil || string(b) != want || h["WARC-Warcinfo-ID"] != info || h["WARC-Target-URI"] != "http://h/x" ||
			h["WARC-Date"] != "1970-01-01T00:00:00.000000Z" || h["Content-Length"] != strconv.Itoa(len(want)) {
			t.Fatalf("response: %v %q %v", h, b, err)
		}
		sum := func(s string) string { x := sha1.New(); x.Write([]byte(s)); return Digest(x) }
		if h["WARC-Block-Digest"] != sum(want) || h["WARC-Payload-Digest"] != sum("worldhello ") {
			t.Errorf("digests %q %q", h["WARC-Block-Digest"], h["WARC-Payload-Digest"])
		}
		if _, _, err := r.Next(); err != io.EOF {
			t.Errorf("after the last record: %v", err)
		}
	}
}

func TestConcatReadAt(t *testing.T) {
	src := strings.NewReader("0123456789")
	c := Concat{{R: src, Off: 2, Size: 3}, {R: src, Size: 0}, {R: src, Off: 7, Size: 3}}
	if err := iotest.TestReader(io.NewSectionReader(c, 0, c.Size()), []byte("234789")); err != nil {
		t.Error(err)
	}
}
