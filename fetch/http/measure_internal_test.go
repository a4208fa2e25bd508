package http

import (
	"bytes"
	"testing"
)

// TestHeaderLineMeasure: a line of an HTTP/1.x head over 100 KiB is found,
// in an interim (1xx) head too, but a long line of the body after the head
// is not, nor are HTTP/2 frames (no lines at all), however long.
func TestHeaderLineMeasure(t *testing.T) {
	long := bytes.Repeat([]byte("x"), maxHeaderLine+1)
	for _, tc := range []struct {
		name  string
		parts [][]byte
		over  bool
	}{
		{"head line", [][]byte{[]byte("HTTP/1.1 200 OK\r\nX-Big: "), long}, true},
		{"after a 100", [][]byte{[]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX: "), long}, true},
		{"body line", [][]byte{[]byte("HTTP/1.1 200 OK\r\nContent-Length: 200000\r\n\r\n"), long}, false},
		{"HTTP/2 frames", [][]byte{{0, 0, 0x12, 4, 0, 0, 0, 0, 0}, long}, false},
	} {
		rec := &recording{final: [2]int{-1, -1}}
		over := false
		for _, p := range tc.parts {
			_, _, over = rec.add(p)
		}
		if over != tc.over {
			t.Errorf("%s: over %v, want %v", tc.name, over, tc.over)
		}
	}
}
