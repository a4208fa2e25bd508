package fetch

import (
	"context"
	"net"
	"testing"
)

func TestMetaInfo(t *testing.T) {
	m := Meta{Proto: "HTTP/1.0", Status: 302, Reason: "Found", Location: "http://h/x",
		Header:    Header{{Name: "A", Value: "b"}},
		Redirects: []Meta{{Proto: "HTTP/1.1", Status: 301}}}
	if got := m.HTTPVersion(); got != "1" {
		t.Errorf("HTTPVersion = %q, want 1", got)
	}
	if got := (&Meta{}).HTTPVersion(); got != "0" {
		t.Errorf("HTTPVersion of a non-HTTP reply = %q, want 0", got)
	}
	if got := m.RedirectURL(); got != "http://h/x" {
		t.Errorf("RedirectURL = %q", got)
	}
	// "HTTP/1.1 301 \r\n\r\n" + "HTTP/1.0 302 Found\r\nA: b\r\n\r\n"
	if got, want := m.HeaderSize(), int64(len("HTTP/1.1 301 \r\n\r\n")+len("HTTP/1.0 302 Found\r\nA: b\r\n\r\n")); got != want {
		t.Errorf("HeaderSize = %d, want %d", got, want)
	}
	ip, port, ok := AddrPort(&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 70})
	if ip != "127.0.0.1" || port != 70 || !ok {
		t.Errorf("AddrPort = %q %d %v", ip, port, ok)
	}
}

func TestTimerRecordsOnlyCurrent(t *testing.T) {
	var tm Timer
	ctx := tm.Context(context.Background())
	tr := ContextTrace(ctx)
	var a, b Timing
	tm.Begin(&a)
	tr.BodySent(3)
	tm.End(&a)
	tr.BodySent(5) // no one's
	tm.Begin(&b)
	tr.Connected(nil, nil, true)
	if a.Uploaded != 3 || b.Uploaded != 0 || b.Connects != 1 || a.Connects != 0 {
		t.Errorf("a = %+v, b = %+v", a, b)
	}
}
