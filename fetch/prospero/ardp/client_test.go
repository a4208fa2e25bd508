package ardp_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/prospero/ardp"
	"github.com/urlget/urlget/fetch/prospero/prosperotest"
)

const root = prosperotest.DefaultRoot

var fast = &ardp.Config{Timeout: 40 * time.Millisecond, Retries: 4}

func server(t *testing.T, s *prosperotest.Server) string {
	if s.Objects == nil {
		s.Objects = map[string]*prosperotest.Object{
			root + "/big": {Contents: bytes.Repeat([]byte("0123456789'\n"), 20000)},
		}
	}
	return s.Start(t)
}

func contentsRequest(name string) []byte {
	return []byte("VERSION 5 t\nGET-OBJECT-INFO CONTENTS ASCII '" + root + "/" + name + "' 0\n")
}

// Closing a reply before its end cancels the request at the server.
func TestCloseCancels(t *testing.T) {
	s := &prosperotest.Server{}
	addr := server(t, s)
	r, err := ardp.Send(context.Background(), fast, addr, 0, contentsRequest("big"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(r, make([]byte, 5000)); err != nil {
		t.Fatal(err)
	}
	r.Close()
	// The cancel is a datagram: look for it until the server has had it,
	// or for long enough that it is surely lost.
	cancelled := false
	for deadline := time.Now().Add(5 * time.Second); !cancelled && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, p := range s.Packets() {
			if h, _, err := ardp.Parse(p); err == nil && h.Option == ardp.OptCancel && h.CID == r.CID() {
				cancelled = true
			}
		}
	}
	if !cancelled {
		t.Error("no cancel reached the server")
	}
	if _, err := r.Read(make([]byte, 10)); err == nil {
		t.Error("Read after Close succeeded")
	}
}

// A redirect moves the transaction to the server it names.
func TestRedirect(t *testing.T) {
	real := server(t, &prosperotest.Server{})
	front := server(t, &prosperotest.Server{RedirectTo: netip.MustParseAddrPort(real)})
	var log []string
	cfg := *fast
	cfg.Verbose = func(l string) { log = append(log, l) }
	r, err := ardp.Send(context.Background(), &cfg, front, 0, contentsRequest("big"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := ardp.ReadMessage(r, 1<<20)
	if err != nil || !bytes.HasPrefix(b, []byte("ATTRIBUTE OBJECT INTRINSIC CONTENTS")) || r.Addr() != real {
		t.Fatalf("%d bytes, %v, at %s", len(b), err, r.Addr())
	}
	if !strings.Contains(strings.Join(log, "\n"), "redirects to "+real) {
		t.Errorf("log: %q", log)
	}
}

// The connect timeout bounds the wait for a first packet; the context
// bounds everything.
func TestFirstReplyAndDeadline(t *testing.T) {
	addr := server(t, &prosperotest.Server{Hostile: prosperotest.EndlessWait, WaitSecs: 1})
	cfg := *fast
	cfg.WaitUnit = 10 * time.Millisecond
	cfg.MaxWaits = 1000
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	begin := time.Now()
	r, err := ardp.Send(ctx, &cfg, addr, 0, contentsRequest("big"))
	if err == nil {
		_, err = ardp.ReadMessage(r, 1<<20)
	}
	if fetch.KindOf(err) != fetch.ErrTimeout || time.Since(begin) > time.Second {
		t.Errorf("endless waits: %v after %v", err, time.Since(begin))
	}
	// Too many waits in a row, without a deadline.
	cfg.MaxWaits = 5
	r, err = ardp.Send(context.Background(), &cfg, addr, 0, contentsRequest("big"))
	if err == nil {
		_, err = ardp.ReadMessage(r, 1<<20)
	}
	if fetch.KindOf(err) != fetch.ErrTimeout || !strings.Contains(err.Error(), "wait") {
		t.Errorf("waits bounded: %v", err)
	}
}

// A reply longer than the caller's limit is ErrTooLarge.
func TestReadMessageLimit(t *testing.T) {
	addr := server(t, &prosperotest.Server{})
	r, err := ardp.Send(context.Background(), fast, addr, 0, contentsRequest("big"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ardp.ReadMessage(r, 10000); fetch.KindOf(err) != fetch.ErrTooLarge {
		t.Errorf("limit: %v", err)
	}
}

// Nobody listening: the ICMP errors do not end the transaction early, the
// retransmission timer and the context do.
func TestNobodyListening(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close() // the port is now closed: every datagram gets "port unreachable"
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	r, err := ardp.Send(ctx, &ardp.Config{}, addr, 0, []byte("VERSION\n"))
	if err == nil {
		_, err = ardp.ReadMessage(r, 100)
	}
	if fetch.KindOf(err) != fetch.ErrTimeout || time.Since(begin) > time.Second {
		t.Errorf("%v after %v", err, time.Since(begin))
	}
	// With short timers and no deadline, the retries run out.
	r, err = ardp.Send(context.Background(), &ardp.Config{Timeout: 10 * time.Millisecond, Retries: 2}, addr, 0, []byte("VERSION\n"))
	if err == nil {
		_, err = ardp.ReadMessage(r, 100)
	}
	if fetch.KindOf(err) != fetch.ErrTimeout || !strings.Contains(err.Error(), "2 retransmissions") {
		t.Errorf("retries: %v", err)
	}
}
