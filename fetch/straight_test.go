package fetch_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
)

// straightBody is a fetcher's body read from a TCP connection, as gopher's:
// the first bytes arrive buffered with the reply's head, the rest may be
// taken straight from the connection; its end is end (nil: io.EOF).
type straightBody struct {
	c    net.Conn
	br   *bufio.Reader
	end  error
	took int64
}

func (b *straightBody) Read(p []byte) (int, error) {
	n, err := b.br.Read(p)
	if err == io.EOF && b.end != nil {
		err = b.end
	}
	return n, err
}

func (b *straightBody) Straight() io.Reader {
	if b.br.Buffered() > 0 {
		return nil
	}
	return fetch.StraightConn(b.c)
}

func (b *straightBody) Took(n int64) { b.took += n }
func (b *straightBody) Close() error { return b.c.Close() }

// CopyBody takes a StraightBody's bytes from its connection (Took counts
// them) once what the fetcher buffered is out, and keeps the Client's
// rules: the fetcher's end error, the announced size, MaxFileSize; a
// writer without ReadFrom gets the bytes through Read.
func TestCopyBodyStraight(t *testing.T) {
	data := fetchtest.Pattern(3<<20 + 12345)
	for _, tc := range []struct {
		name     string
		end      error // the fetcher's end of the body
		size     int64 // announced (-1: unknown)
		maxSize  int64 // Client.MaxFileSize
		plain    bool  // the writer has no ReadFrom
		exit     int
		received int // bytes the writer must get
	}{
		{name: "whole", size: -1, received: len(data)},
		{name: "whole, size known", size: int64(len(data)), received: len(data)},
		{name: "writer without ReadFrom", size: -1, plain: true, received: len(data)},
		{name: "fetcher's end error", size: -1, end: &fetch.Error{Kind: fetch.ErrPartial, Msg: "no final reply"}, exit: 18, received: len(data)},
		{name: "shorter than announced", size: int64(len(data)) + 1, exit: 18, received: len(data)},
		{name: "over MaxFileSize", size: -1, maxSize: 2<<20 + 7, exit: 63, received: 2<<20 + 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := fetchtest.NewServer(t, func(c net.Conn) { c.Write(data) }).Addr
			c := &fetch.Client{MaxFileSize: tc.maxSize}
			res, sb := openStraight(t, context.Background(), c, addr, tc.size, tc.end)
			defer res.Body.Close()
			sink, got := fetchtest.Sink(t)
			var w io.Writer = sink
			if tc.plain {
				w = struct{ io.Writer }{sink}
			}
			if fetch.CanGoStraight(w, res.Body) == tc.plain {
				t.Errorf("CanGoStraight: %v", !tc.plain)
			}
			n, err := fetch.CopyBody(w, res.Body, make([]byte, 8192))
			sink.Close()
			b := <-got
			wantExit(t, tc.name, err, tc.exit)
			if n != int64(len(b)) || len(b) != tc.received || !bytes.Equal(b, data[:len(b)]) {
				t.Errorf("copied %d, received %d bytes (equal to the start of the data: %v), want %d", n, len(b), bytes.Equal(b, data[:len(b)]), tc.received)
			}
			switch {
			case tc.plain && sb.took != 0:
				t.Errorf("%d bytes taken straight for a writer without ReadFrom", sb.took)
			case !tc.plain && sb.took < int64(tc.received)-(64<<10):
				t.Errorf("only %d of %d bytes taken straight from the connection", sb.took, tc.received)
			}
		})
	}
}

// openStraight opens a straightBody from the server at addr through c
// (its Fetchers replaced), announcing size and ending with end.
func openStraight(t *testing.T, ctx context.Context, c *fetch.Client, addr string, size int64, end error) (*fetch.Resource, *straightBody) {
	t.Helper()
	var sb *straightBody
	f := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		conn, err := fetch.Connect(ctx, nil, addr, "x-straight: connecting to")
		if err != nil {
			return nil, err
		}
		sb = &straightBody{c: conn, br: bufio.NewReaderSize(conn, 4096), end: end}
		if _, err := sb.br.Peek(10); err != nil { // the reply's head
			return nil, err
		}
		return &fetch.Resource{Meta: fetch.Meta{Size: size}, Body: sb}, nil
	})
	c.Fetchers = fetchtest.Given(map[string]fetch.Fetcher{"x-straight": f})
	res, err := c.Open(ctx, "x-straight://h/")
	if err != nil {
		t.Fatal(err)
	}
	return res, sb
}

// A straight copy reports progress at least every MiB when progress is
// watched, though it takes larger chunks when it is not.
func TestCopyBodyStraightProgress(t *testing.T) {
	data := fetchtest.Pattern(3<<20 + 12345)
	addr := fetchtest.NewServer(t, func(c net.Conn) { c.Write(data) }).Addr
	var reports []int64
	c := &fetch.Client{Progress: func(done, total int64) { reports = append(reports, done) }}
	res, sb := openStraight(t, context.Background(), c, addr, -1, nil)
	defer res.Body.Close()
	sink, got := fetchtest.Sink(t)
	n, err := fetch.CopyBody(sink, res.Body, nil)
	sink.Close()
	<-got
	if err != nil || n != int64(len(data)) {
		t.Fatalf("copied %d of %d bytes: %v", n, len(data), err)
	}
	if sb.took < int64(len(data))-(64<<10) {
		t.Errorf("only %d of %d bytes taken straight from the connection", sb.took, len(data))
	}
	last := int64(0)
	for _, done := range reports {
		if done-last > 1<<20 {
			t.Fatalf("progress went from %d to %d bytes at once (reports %v): want at most 1 MiB", last, done, reports)
		}
		last = done
	}
	if last != int64(len(data)) {
		t.Errorf("progress ended at %d bytes, want %d", last, len(data))
	}
}

// The end of the context ends a straight copy that waits for bytes, with
// the context's error, however much of its chunk is still to come: the
// context's watch closes the connection the copy reads.
func TestCopyBodyStraightCancelled(t *testing.T) {
	data := fetchtest.Pattern(1 << 20)
	sent := make(chan struct{})
	hold := make(chan struct{})
	defer close(hold)
	addr := fetchtest.NewServer(t, func(c net.Conn) {
		c.Write(data)
		close(sent)
		<-hold // the connection stays open, silent
	}).Addr
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, _ := openStraight(t, ctx, &fetch.Client{}, addr, -1, nil)
	defer res.Body.Close()
	sink, got := fetchtest.Sink(t)
	done := make(chan error, 1)
	go func() {
		_, err := fetch.CopyBody(sink, res.Body, nil)
		sink.Close()
		done <- err
	}()
	<-sent
	cancel()
	select {
	case err := <-done:
		wantExit(t, "cancelled", err, 42)
	case <-time.After(20 * time.Second):
		t.Fatal("the copy did not end when its context did")
	}
	if b := <-got; !bytes.Equal(b, data[:len(b)]) {
		t.Errorf("the %d bytes copied are not the start of the data", len(b))
	}
}

// A body CopyBody cannot take straight (not from a Client) is copied
// through the buffer given.
func TestCopyBodyOther(t *testing.T) {
	var out bytes.Buffer
	n, err := fetch.CopyBody(&out, bytes.NewReader([]byte("plain bytes")), make([]byte, 3))
	if err != nil || n != 11 || out.String() != "plain bytes" {
		t.Errorf("%d, %v: %q", n, err, out.String())
	}
	if fetch.CanGoStraight(&out, bytes.NewReader(nil)) {
		t.Error("CanGoStraight for a reader not from a Client")
	}
}
