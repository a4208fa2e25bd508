package http

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
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

// TestRecorderReadsAfterRequest: what a server says before the request
// goes out (a greeting on the port) is not read until the first Write,
// so the Transport takes it as the reply to that request; and Close ends
// a Read still waiting.
func TestRecorderReadsAfterRequest(t *testing.T) {
	client, server := net.Pipe()
	defer server.Close()
	go io.WriteString(server, "220 ftp ready\r\n")
	d := &dialer{}
	r := d.record(client)
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 64)
		n, _ := r.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		t.Fatalf("read %q before any request was written", s)
	case <-time.After(100 * time.Millisecond):
	}
	go io.Copy(io.Discard, server)
	if _, err := r.Write([]byte("GET / HTTP/1.1\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "220 ftp ready\r\n" {
		t.Fatalf("read %q after the request, want the greeting", s)
	}

	c2, s2 := net.Pipe()
	defer s2.Close()
	r2 := d.record(c2)
	done := make(chan error, 1)
	go func() {
		_, err := r2.Read(make([]byte, 8))
		done <- err
	}()
	r2.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a Read on a closed connection gave no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a Read waiting for the first request")
	}
}
