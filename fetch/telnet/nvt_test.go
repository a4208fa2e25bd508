package telnet

import (
	"bytes"
	"net"
	"testing"
)

func TestEncode(t *testing.T) {
	cases := []struct {
		in, want string
		binary   bool
	}{
		{"a\nb", "a\r\nb", false},
		{"a\r\nb", "a\r\nb", false},
		{"a\rb", "a\r\x00b", false},
		{"\xff", "\xff\xff", false},
		{"a\r", "a\r\x00", false}, // the CR is flushed at the end
		{"a\nb\r\xff", "a\nb\r\xff\xff", true},
	}
	for _, c := range cases {
		cn := &conn{}
		got := cn.encode(nil, []byte(c.in), c.binary, false)
		got = cn.flushCR(got)
		if string(got) != c.want {
			t.Errorf("encode(%q, binary %v) = %q, want %q", c.in, c.binary, got, c.want)
		}
	}
	// A CR at the end of one chunk and LF at the start of the next is one
	// CR LF; a terminal's lone CR is sent at once as CR NUL.
	cn := &conn{}
	got := cn.encode(nil, []byte("x\r"), false, false)
	got = cn.encode(got, []byte("\ny"), false, false)
	if string(got) != "x\r\ny" {
		t.Errorf("CR LF across chunks = %q", got)
	}
	if got := (&conn{}).encode(nil, []byte("ls\r"), false, true); string(got) != "ls\r\x00" {
		t.Errorf("terminal CR = %q", got)
	}
}

// TestQMethod checks RFC 1143's rules: an agreement is answered once, a
// repeated one not at all, a refusal of an option that is off not at all.
func TestQMethod(t *testing.T) {
	var s side
	if r := s.recvEnable(true, cmdDO, cmdDONT); r.send != cmdDO || !r.changed || !s.on() {
		t.Fatalf("WILL in NO: %+v", r)
	}
	if r := s.recvEnable(true, cmdDO, cmdDONT); r.send != 0 || r.changed {
		t.Fatalf("WILL in YES answered: %+v", r)
	}
	if r := s.recvDisable(cmdDO, cmdDONT); r.send != cmdDONT || !r.changed || s.on() {
		t.Fatalf("WONT in YES: %+v", r)
	}
	if r := s.recvDisable(cmdDO, cmdDONT); r.send != 0 {
		t.Fatalf("WONT in NO answered: %+v", r)
	}
	if r := s.recvEnable(false, cmdDO, cmdDONT); r.send != cmdDONT || s.on() {
		t.Fatalf("refused WILL: %+v", r)
	}
	// Our own request, answered, and one queued behind it.
	s = side{}
	if c := s.askEnable(cmdWILL); c != cmdWILL || s.state != qWantYes {
		t.Fatalf("askEnable: %d %v", c, s.state)
	}
	if c := s.askDisable(cmdWONT); c != 0 || !s.opposite {
		t.Fatalf("askDisable while WANTYES should queue: %d %+v", c, s)
	}
	if r := s.recvEnable(true, cmdWILL, cmdWONT); r.send != cmdWONT || s.state != qWantNo {
		t.Fatalf("DO in WANTYES/OPPOSITE: %+v %+v", r, s)
	}
	if r := s.recvDisable(cmdWILL, cmdWONT); r.send != 0 || s.state != qNo {
		t.Fatalf("DONT in WANTNO: %+v %+v", r, s)
	}
	// A peer that answers its own request's refusal with an agreement.
	s = side{state: qWantNo}
	if r := s.recvEnable(true, cmdDO, cmdDONT); r.err == "" || s.state != qNo {
		t.Fatalf("WILL in WANTNO/EMPTY: %+v %+v", r, s)
	}
}

// TestParse feeds the parser one byte at a time and whole: the output is
// the same, without any protocol byte.
func TestParse(t *testing.T) {
	in := []byte("a\r\nb\r\x00c\xff\xffd\xff\xf1e\xff\xfa\x18\x01\xff\xf0f\xff\xfb\x03g\r")
	for _, terminal := range []bool{false, true} {
		want := "a\nb\rc\xffdefg\r"
		if terminal {
			want = "a\r\nb\rc\xffdefg\r"
		}
		for _, step := range []int{1, 3, len(in)} {
			client, server := net.Pipe()
			c := newConn(client, terminal, nil)
			go func() {
				buf := make([]byte, 64)
				for {
					if _, err := server.Read(buf); err != nil {
						return
					}
				}
			}()
			go func() {
				for i := 0; i < len(in); i += step {
					server.Write(in[i:min(i+step, len(in))])
				}
				server.Close()
			}()
			var out bytes.Buffer
			buf := make([]byte, 2)
			for {
				n, err := c.Read(buf)
				out.Write(buf[:n])
				if err != nil {
					break
				}
			}
			client.Close()
			if out.String() != want {
				t.Errorf("terminal %v, step %d: %q, want %q", terminal, step, out.String(), want)
			}
		}
	}
}

func TestWantsUser(t *testing.T) {
	for _, c := range []struct {
		list string
		want bool
	}{
		{"", true},
		{"\x00", true},
		{"\x00USER", true},
		{"\x03USER", false},
		{"\x00DISPLAY\x00USER", true},
		{"\x00DISPLAY", false},
	} {
		if got := wantsUser([]byte(c.list)); got != c.want {
			t.Errorf("wantsUser(%q) = %v", c.list, got)
		}
	}
	if got := appendEnvEscaped(nil, "a\x01b"); string(got) != "a\x02\x01b" {
		t.Errorf("escaped = %q", got)
	}
}

// FuzzParse: whatever a server sends, the parser does not fail, writes
// no more than it read, and an input without IAC and CR comes out as it
// went in.
func FuzzParse(f *testing.F) {
	f.Add([]byte("a\r\nb\xff\xff\xff\xfb\x01\xff\xfa\x18\x01\xff\xf0c"), false)
	f.Add([]byte("\xff\xfa\x27\x01\x00USER\xff\xf0\r"), true)
	f.Fuzz(func(t *testing.T, in []byte, terminal bool) {
		client, server := net.Pipe()
		defer client.Close()
		go func() {
			buf := make([]byte, 256)
			for {
				if _, err := server.Read(buf); err != nil {
					return
				}
			}
		}()
		c := newConn(client, terminal, nil)
		c.ttype, c.user = "xterm", "joe"
		copy(c.rbuf, in)
		c.w = min(len(in), len(c.rbuf))
		out := make([]byte, 0, len(in))
		buf := make([]byte, 7)
		for c.r < c.w && c.perr == nil {
			n := c.parse(buf)
			out = append(out, buf[:n]...)
		}
		server.Close()
		if len(out) > len(in) {
			t.Fatalf("%d bytes out of %d in", len(out), len(in))
		}
		if !bytes.ContainsAny(in, "\xff\r") && !bytes.Equal(out, in) {
			t.Fatalf("plain data changed: %q -> %q", in, out)
		}
	})
}
