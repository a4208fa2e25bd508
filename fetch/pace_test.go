package fetch_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/fetchtest"
	"github.com/urlget/urlget/urlparse"
)

// A paced body takes at least size/rate (less the limiter's 100 ms of
// credit, and some slack) and still delivers every byte; two bodies read at
// once share the rate.
func TestLimitRate(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	f := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: int64(len(data))}, Body: io.NopCloser(bytes.NewReader(data))}, nil
	})
	c := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"x-data": f}), LimitRate: fetch.NewLimiter(256 << 10)}
	start := time.Now()
	_, b, err := fetchAll(t, c, "x-data://h/")
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("paced body: %d bytes, %v", len(b), err)
	}
	if d := time.Since(start); d < 120*time.Millisecond {
		t.Errorf("64 KiB at 256 KiB/s took %v, want at least 120ms", d)
	}
	start = time.Now()
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if _, b, err := fetchAll(t, c, "x-data://h/"); err != nil || !bytes.Equal(b, data) {
				t.Errorf("shared limiter: %d bytes, %v", len(b), err)
			}
		})
	}
	wg.Wait()
	if d := time.Since(start); d < 350*time.Millisecond {
		t.Errorf("2×64 KiB sharing 256 KiB/s took %v, want at least 350ms", d)
	}
}

// Limiter.Reader paces any reader, and stops at the context.
func TestLimiterReader(t *testing.T) {
	l := fetch.NewLimiter(1000)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	n, err := io.Copy(io.Discard, l.Reader(ctx, strings.NewReader(strings.Repeat("x", 10000))))
	if err == nil || n >= 10000 {
		t.Errorf("10 kB at 1 kB/s within 200ms: %d bytes, %v", n, err)
	}
	if (*fetch.Limiter)(nil).Reader(ctx, strings.NewReader("a")) == nil {
		t.Error("nil Limiter: no reader")
	}
}

// A stalled body fails with exit 28 once it has been under LowSpeedLimit
// for LowSpeedTime; so does a server that never answers; a body above the
// limit is not touched.
func TestLowSpeed(t *testing.T) {
	s := fetchtest.Stall(t, "\r\n\r\n", []byte("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\nsome"))
	c := &fetch.Client{LowSpeedLimit: 1000, LowSpeedTime: 300 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, _, err := fetchAll(t, c, "http://"+s.Addr+"/")
		done <- err
	}()
	select {
	case err := <-done:
		wantExit(t, "stalled body", err, 28)
		if err != nil && !strings.Contains(err.Error(), "too slow") {
			t.Errorf("stalled body: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stalled body outlived -y")
	}

	silent := fetchtest.Stall(t, "\r\n\r\n", nil)
	_, _, err := fetchAll(t, c, "http://"+silent.Addr+"/")
	wantExit(t, "silent server", err, 28)

	data := bytes.Repeat([]byte("z"), 20000)
	f := fetch.FetcherFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
		return &fetch.Resource{Meta: fetch.Meta{Size: int64(len(data))}, Body: io.NopCloser(bytes.NewReader(data))}, nil
	})
	// 20 kB at 40 kB/s: half a second, always above 1 kB/s.
	fast := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"x-data": f}), LimitRate: fetch.NewLimiter(40000),
		LowSpeedLimit: 1000, LowSpeedTime: 200 * time.Millisecond}
	if _, b, err := fetchAll(t, fast, "x-data://h/"); err != nil || len(b) != len(data) {
		t.Errorf("steady body: %d bytes, %v", len(b), err)
	}
}

// uploader is a Fetcher that sends (reads) the whole Request.Body in Open.
type uploader struct{ got []byte }

func (u *uploader) SendsBody(*urlparse.URL) bool { return true }
func (u *uploader) Open(ctx context.Context, req *fetch.Request) (*fetch.Resource, error) {
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	u.got = b
	return &fetch.Resource{Meta: fetch.Meta{Size: 0}, Body: io.NopCloser(strings.NewReader(""))}, nil
}

// An upload is paced by LimitRate, and its bytes are progress for the
// low-speed watchdog (20 kB sent over half a second, nothing received, is
// not "too slow").
func TestUploadPacedAndCounted(t *testing.T) {
	data := bytes.Repeat([]byte("u"), 20000)
	up := &uploader{}
	c := &fetch.Client{Fetchers: fetchtest.Given(map[string]fetch.Fetcher{"x-up": up}), LimitRate: fetch.NewLimiter(40000),
		LowSpeedLimit: 1000, LowSpeedTime: 200 * time.Millisecond}
	start := time.Now()
	res, err := c.Do(context.Background(), &fetch.Request{URL: parse(t, "x-up://h/f"), Body: bytes.NewReader(data), BodySize: int64(len(data))})
	if err != nil {
		t.Fatalf("paced upload: %v", err)
	}
	res.Body.Close()
	if !bytes.Equal(up.got, data) {
		t.Errorf("sent %d bytes, want %d", len(up.got), len(data))
	}
	if d := time.Since(start); d < 350*time.Millisecond {
		t.Errorf("20 kB at 40 kB/s took %v, want at least 350ms", d)
	}
}
