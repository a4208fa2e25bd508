package fetch_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/testserver"
)

func TestConnectAndHandshakeErrors(t *testing.T) {
	var d fetch.Dialer // nil: a net.Dialer
	// A port nobody listens on: connection refused.
	closed := testserver.FreeAddr(t) // nothing listens there
	if _, err := fetch.Connect(context.Background(), d, closed, "x: connecting to"); fetch.KindOf(err) != fetch.ErrConnect {
		t.Errorf("refused: %v (kind %v), want ErrConnect", err, fetch.KindOf(err))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := fetch.Connect(ctx, d, closed, "x"); fetch.KindOf(err) != fetch.ErrAborted {
		t.Errorf("cancelled: %v, want ErrAborted", err)
	}

	// A server that answers the TLS hello with plain text.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Write([]byte("220 not TLS at all\r\n"))
			time.Sleep(100 * time.Millisecond)
			c.Close()
		}
	}()
	nc, err := fetch.Connect(context.Background(), d, ln.Addr().String(), "x")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fetch.HandshakeTLS(context.Background(), nil, nc, "127.0.0.1", "x"); fetch.KindOf(err) != fetch.ErrTLS {
		t.Errorf("plain-text server: %v, want ErrTLS", err)
	}
	if _, err := nc.Write([]byte("x")); err == nil {
		t.Error("HandshakeTLS left the failed connection open")
	}

	dctx, dcancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer dcancel()
	<-dctx.Done()
	if err := fetch.ContextError(dctx); fetch.KindOf(err) != fetch.ErrTimeout {
		t.Errorf("deadline: %v, want ErrTimeout", err)
	}
}
