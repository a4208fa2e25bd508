package gopher_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch/fetchtest"
)

// TestGophersCloseNotifyBeforeClose serves gophers the way stunnel or socat
// in front of an inetd-style gopher server do: the item, then TLS's
// close_notify, and the TCP connection kept open until the client's own
// close_notify or close comes back. The end of the item is that
// close_notify; a client that waits for the TCP close instead (or for a
// receive low-water mark the few bytes of the alert never reach) hangs
// until its deadline. gophernicus behind socat hung this way in one run of
// three under load.
func TestGophersCloseNotifyBeforeClose(t *testing.T) {
	serverCfg, clientCfg := fetchtest.TLSConfigs(t)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", serverCfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	item := bytes.Repeat([]byte("0123456789abcdef"), 64)
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		tc := c.(*tls.Conn)
		tc.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := bufio.NewReader(tc).ReadString('\n'); err != nil {
			done <- err
			return
		}
		tc.Write(item)
		// The alert comes once the client waits for more (the case that
		// hung: a wake-up held back for 256 KiB is never given for it).
		time.Sleep(200 * time.Millisecond)
		tc.CloseWrite() // close_notify; the TCP connection stays open
		// Wait for the client to finish, as the relays do.
		_, err = io.Copy(io.Discard, tc)
		done <- err
	}()

	c := client(nil)
	c.TLS = clientCfg
	_, body, err := get(t, c, "gophers://"+ln.Addr().String()+"/9/item.bin")
	if err != nil {
		t.Fatalf("gophers item ended by close_notify: %v", err)
	}
	if !bytes.Equal(body, item) {
		t.Fatalf("got %d bytes, want %d", len(body), len(item))
	}
	if err := <-done; err != nil {
		t.Logf("server: %v", err)
	}
}
