package testserver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// dataServer sends data to every connection, then closes.
func dataServer(t *testing.T, data []byte) string {
	return fetchtest.NewServer(t, func(c net.Conn) { c.Write(data) }).Addr
}

func readAllFrom(t *testing.T, addr string) ([]byte, time.Duration, error) {
	t.Helper()
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(c)
	return b, time.Since(start), err
}

func TestFaultProxyFaults(t *testing.T) {
	data := fetchtest.Pattern(1 << 20)
	target := dataServer(t, data)

	// Resets at seeded random points: the same seed, the same points; each
	// reset connection delivers exactly a prefix, then ECONNRESET; later
	// connections are whole.
	plan := ResetPlan(7, 3, 1000, 500000)
	again := ResetPlan(7, 3, 1000, 500000)
	p := StartFaultProxy(t, target, plan)
	for i := range 4 {
		got, _, err := readAllFrom(t, p.Addr())
		if want := again(i); want.Reset {
			// A prefix, then the reset (what the client had not read yet
			// may be lost with it, as on a real network).
			if int64(len(got)) > want.After || !bytes.Equal(got, data[:len(got)]) || !errors.Is(err, syscall.ECONNRESET) {
				t.Errorf("conn %d: %d bytes, %v; want up to %d then a reset", i, len(got), err, want.After)
			}
			if int64(len(got)) != want.After {
				t.Logf("conn %d: %d of %d bytes before the reset arrived", i, len(got), want.After)
			}
		} else if !bytes.Equal(got, data) || err != nil {
			t.Errorf("conn %d: %d bytes, %v; want all", i, len(got), err)
		}
	}
	if p.Conns() != 4 || p.Struck() != 3 {
		t.Errorf("conns %d, struck %d", p.Conns(), p.Struck())
	}

	half := StartFaultProxy(t, target, Always(Fault{After: 4096, HalfClose: true}))
	if got, _, err := readAllFrom(t, half.Addr()); len(got) != 4096 || err != nil {
		t.Errorf("half-close: %d bytes, %v; want 4096 then the end", len(got), err)
	}

	stall := StartFaultProxy(t, target, Always(Fault{After: 100, Stall: 300 * time.Millisecond}))
	if got, d, err := readAllFrom(t, stall.Addr()); !bytes.Equal(got, data) || err != nil || d < 300*time.Millisecond {
		t.Errorf("stall: %d bytes, %v, in %v", len(got), err, d)
	}
	forever := StartFaultProxy(t, target, Always(Fault{After: 100, Stall: StallForever}))
	c, _ := net.Dial("tcp", forever.Addr())
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	got, err := io.ReadAll(c)
	c.Close()
	var ne net.Error
	if len(got) != 100 || !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("stall forever: %d bytes, %v", len(got), err)
	}

	small := dataServer(t, data[:1000])
	trickle := StartFaultProxy(t, small, Always(Fault{After: 500, Trickle: 100, TrickleEvery: 50 * time.Millisecond}))
	if got, d, err := readAllFrom(t, trickle.Addr()); !bytes.Equal(got, data[:1000]) || err != nil || d < 200*time.Millisecond {
		t.Errorf("trickle: %d bytes, %v, in %v", len(got), err, d)
	}
}

// OnConnect runs before each connection is passed on, and SetTarget there
// moves it to a new server: how a test restarts a server between attempts.
func TestFaultProxyRestart(t *testing.T) {
	a := dataServer(t, []byte("first server"))
	b := dataServer(t, []byte("second server"))
	p := StartFaultProxy(t, a, nil)
	p.OnConnect(func(n int) {
		if n == 1 {
			p.SetTarget(b)
		}
	})
	for i, want := range []string{"first server", "second server"} {
		if got, _, err := readAllFrom(t, p.Addr()); string(got) != want || err != nil {
			t.Errorf("conn %d: %q, %v", i, got, err)
		}
	}
}

// An FTP fault proxy rewrites 229 and 227 replies to ports of its own and
// gives the data connections the data plan's faults.
func TestFaultProxyFTPData(t *testing.T) {
	data := fetchtest.Pattern(200000)
	dataAddr := dataServer(t, data)
	_, dport, _ := net.SplitHostPort(dataAddr)
	dp, _ := strconv.Atoi(dport)
	ftp := fetchtest.NewServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		fmt.Fprintf(c, "220 hello\r\n")
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			switch strings.TrimSpace(line) {
			case "EPSV":
				fmt.Fprintf(c, "229 Entering Extended Passive Mode (|||%d|)\r\n", dp)
			case "PASV":
				fmt.Fprintf(c, "227 Entering Passive Mode (127,0,0,1,%d,%d).\r\n", dp/256, dp%256)
			}
		}
	})
	p := StartFTPFaultProxy(t, ftp.Addr, nil, ResetPlan(3, 1, 5000, 5000))
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	br.ReadString('\n')
	for i, cmd := range []string{"EPSV", "PASV"} {
		fmt.Fprintf(c, "%s\r\n", cmd)
		reply, _ := br.ReadString('\n')
		var port int
		if m := epsvRe.FindStringSubmatch(reply); cmd == "EPSV" && m != nil {
			port, _ = strconv.Atoi(m[1])
		} else if m := pasvRe.FindStringSubmatch(reply); cmd == "PASV" && m != nil {
			hi, _ := strconv.Atoi(m[5])
			lo, _ := strconv.Atoi(m[6])
			port = hi*256 + lo
		}
		if port == 0 || port == dp {
			t.Fatalf("%s reply %q not rewritten", cmd, reply)
		}
		got, _, err := readAllFrom(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if i == 0 && (len(got) != 5000 || !errors.Is(err, syscall.ECONNRESET)) {
			t.Errorf("first data connection: %d bytes, %v; want 5000 then a reset", len(got), err)
		}
		if i == 1 && (!bytes.Equal(got, data) || err != nil) {
			t.Errorf("second data connection: %d bytes, %v", len(got), err)
		}
	}
	if p.DataConns() != 2 {
		t.Errorf("data connections %d", p.DataConns())
	}
}

// A cut passes After bytes, then ends the client's connection cleanly
// (EOF, no error) once the server has sent all of its data: the server
// sees a whole transfer.
func TestFaultProxyCut(t *testing.T) {
	data := fetchtest.Pattern(300000)
	wrote := make(chan error, 4)
	target := fetchtest.NewServer(t, func(c net.Conn) {
		_, err := c.Write(data)
		wrote <- err
	}).Addr
	for _, after := range []int64{0, 5000} {
		p := StartFaultProxy(t, target, Always(Fault{After: after, Cut: true}))
		got, _, err := readAllFrom(t, p.Addr())
		if int64(len(got)) != after || !bytes.Equal(got, data[:len(got)]) || err != nil {
			t.Errorf("cut after %d: %d bytes, %v; want %d then the end", after, len(got), err, after)
		}
		if werr := <-wrote; werr != nil {
			t.Errorf("cut after %d: the server's write failed: %v", after, werr)
		}
		if p.Struck() != 1 {
			t.Errorf("cut after %d: struck %d", after, p.Struck())
		}
	}
}
