package http

import (
	"io"
	"net"

	"github.com/urlget/urlget/fetch"
)

// bulkMin is the smallest low-water mark worth a system call: below it
// (a loopback segment is 64 KiB) a body's reads go as they come.
const bulkMin = 64 << 10

// bulkBody reads an HTTP/1.1 body of known length (Content-Length, a
// range's part) with the connection's receive low-water mark raised
// (fetch.LowWater): the reader is woken once up to fetch.BulkReadSize
// bytes are waiting instead of for every segment.
//
// The mark is never more than the bytes still due, less one: the reads
// before the last stop one byte short of the end, and the read that takes
// that byte, and so ends the body, runs with the mark at 1. net/http
// puts the connection back in its pool within that read, and its next
// reply's head (maybe a few bytes: a 304) must wake the reader.
type bulkBody struct {
	io.ReadCloser // net/http's body
	lw            *fetch.LowWater
	due           int64 // bytes not yet read
}

// newBulkBody wraps body, size bytes long, read from nc (the recorder's
// connection); body itself when the mark cannot or need not be raised:
// TLS, a small body, an unknown length (chunked, or until the close).
func newBulkBody(body io.ReadCloser, size int64, nc net.Conn) io.ReadCloser {
	if size <= bulkMin {
		return body
	}
	lw := fetch.NewLowWater(nc)
	if lw == nil {
		return body
	}
	return &bulkBody{ReadCloser: body, lw: lw, due: size}
}

func (b *bulkBody) Read(p []byte) (int, error) {
	mark := 1
	if b.due > bulkMin {
		mark = int(min(b.due-1, fetch.BulkReadSize))
		if int64(len(p)) >= b.due {
			p = p[:b.due-1]
		}
	}
	n, err := b.lw.Read(b.ReadCloser, p, mark)
	b.due -= int64(n)
	return n, err
}
