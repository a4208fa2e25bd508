package gophertest

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadRequest(t *testing.T) {
	tests := []struct {
		in   string
		want Request
	}{
		{"/hello.txt\r\n", Request{Line: "/hello.txt", Fields: []string{"/hello.txt"}, Selector: "/hello.txt"}},
		{"\r\n", Request{Line: "", Fields: []string{""}}},
		{"/s\tquery words\n", Request{Line: "/s\tquery words", Fields: []string{"/s", "query words"}, Selector: "/s", Search: "query words", HasSearch: true}},
		{"/x\t!+ABSTRACT\r\n", Request{Line: "/x\t!+ABSTRACT", Fields: []string{"/x", "!+ABSTRACT"}, Selector: "/x", Plus: "!+ABSTRACT", HasPlus: true}},
		{"/s\tq\t+\r\n", Request{Line: "/s\tq\t+", Fields: []string{"/s", "q", "+"}, Selector: "/s", Search: "q", HasSearch: true, Plus: "+", HasPlus: true}},
		{"/f\t+\t1\r\n+-1\r\nAda\r\n.\r\n", Request{Line: "/f\t+\t1", Fields: []string{"/f", "+", "1"}, Selector: "/f", Plus: "+", HasPlus: true,
			DataFlag: true, Data: []byte("+-1\r\nAda\r\n.\r\n"), DataLines: []string{"Ada"}}},
		{"/f\tq\t+\t1\r\n+4\r\nab\r\n", Request{Line: "/f\tq\t+\t1", Fields: []string{"/f", "q", "+", "1"}, Selector: "/f", Search: "q", HasSearch: true,
			Plus: "+", HasPlus: true, DataFlag: true, Data: []byte("+4\r\nab\r\n"), DataLines: []string{"ab"}}},
	}
	for _, tt := range tests {
		got, err := readRequest(bufio.NewReader(strings.NewReader(tt.in)))
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tt.in, *got, tt.want)
		}
	}
	if _, err := readRequest(bufio.NewReader(strings.NewReader(""))); err == nil {
		t.Errorf("empty input: no error")
	}
}

func TestDotStuff(t *testing.T) {
	got := string(DotStuff([]byte("a\n.\n..b\nc")))
	if want := "a\r\n..\r\n...b\r\nc\r\n.\r\n"; got != want {
		t.Errorf("DotStuff = %q, want %q", got, want)
	}
}

func TestServerRecordsAndTLS(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		var s *Server
		if useTLS {
			s = StartTLS(t, Bytes([]byte("reply")))
		} else {
			s = Start(t, Bytes([]byte("reply")))
		}
		var c net.Conn
		var err error
		if useTLS {
			c, err = tls.Dial("tcp", s.Addr, s.ClientTLS())
		} else {
			c, err = net.Dial("tcp", s.Addr)
		}
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "/sel\r\n")
		b, err := io.ReadAll(c)
		c.Close()
		if err != nil || string(b) != "reply" {
			t.Errorf("tls %v: %q %v", useTLS, b, err)
		}
		r := s.Requests()
		if len(r) != 1 || r[0].Selector != "/sel" || r[0].TLS != useTLS || s.Accepted() != 1 || s.BytesIn() != 6 {
			t.Errorf("tls %v: requests %+v accepted %d bytes %d", useTLS, r, s.Accepted(), s.BytesIn())
		}
	}
}

func TestCloseEndsStalledHandlers(t *testing.T) {
	s, err := Listen(Stall(), false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "x\r\n")
	for deadline := time.Now().Add(5 * time.Second); len(s.Requests()) == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return with a stalled handler")
	}
}
