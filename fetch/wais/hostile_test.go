package wais_test

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/fetch/wais"
	"github.com/urlget/urlget/fetch/wais/internal/capture"
	"github.com/urlget/urlget/fetch/wais/waistest"
)

// slack is how much past its deadline a fetch may end.
const slack = 5 * time.Second

// fetchWithin fetches url (reading the body) with a deadline and returns
// how long it took and the error.
func fetchWithin(t *testing.T, c *fetch.Client, url string, d time.Duration) (time.Duration, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	res, err := c.Open(ctx, url)
	if err == nil {
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	return time.Since(start), err
}

// TestHostile: each misbehaving server ends the fetch with a typed error,
// in bounded time.
func TestHostile(t *testing.T) {
	good := start(t, waistest.Normal)
	apple := docURL(t, good, "apple.txt", true)
	k300 := docURL(t, good, "k300.bin", false)
	cases := []struct {
		mode waistest.Mode
		doc  string // "" for a search
		kind fetch.Kind
	}{
		{waistest.HugeHeader, "", fetch.ErrProtocol},
		{waistest.HugeHeader, apple, fetch.ErrProtocol},
		{waistest.BadLengths, k300, fetch.ErrProtocol},
		{waistest.Trickle, "", fetch.ErrTimeout},
		{waistest.Trickle, k300, fetch.ErrTimeout},
		{waistest.Stall, "", fetch.ErrTimeout},
		{waistest.Stall, k300, fetch.ErrTimeout},
		{waistest.StallMidDocument, k300, fetch.ErrTimeout},
		{waistest.CloseMidDocument, k300, fetch.ErrPartial},
	}
	c := client(wais.Fetcher{}, nil)
	for _, tc := range cases {
		s := start(t, tc.mode)
		url := s.URL("test?apple")
		if tc.doc != "" {
			url = "wais://" + s.Addr() + tc.doc[len("wais://")+len(good.Addr()):]
		}
		const deadline = 700 * time.Millisecond
		took, err := fetchWithin(t, c, url, deadline)
		if k := fetch.KindOf(err); k != tc.kind {
			t.Errorf("mode %d, %s: %v (kind %d), want kind %d", tc.mode, url, err, k, tc.kind)
		}
		if took > deadline+slack {
			t.Errorf("mode %d: took %v with a %v deadline", tc.mode, took, deadline)
		}
	}
}

// TestEndless: a document that never ends costs flat memory; the deadline
// or the size cap ends it.
func TestEndless(t *testing.T) {
	good := start(t, waistest.Normal)
	s := start(t, waistest.Endless)
	url := "wais://" + s.Addr() + strings.TrimPrefix(docURL(t, good, "apple.txt", false), "wais://"+good.Addr())

	// The size cap.
	c := client(wais.Fetcher{}, nil)
	c.MaxFileSize = 5 << 20
	if _, err := fetchWithin(t, c, url, 20*time.Second); fetch.KindOf(err) != fetch.ErrTooLarge {
		t.Errorf("endless document with a 5 MiB cap: %v", err)
	}

	// Memory while 64 MiB go by.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	res, err := client(wais.Fetcher{}, nil).Open(ctx(t), url)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyN(io.Discard, res.Body, 64<<20)
	res.Body.Close()
	close(stop)
	<-done
	if err != nil || n != 64<<20 {
		t.Fatalf("read %d bytes of the endless document: %v", n, err)
	}
	if grew := int64(peak.Load()) - int64(base); grew > 16<<20 {
		t.Errorf("the heap grew by %d MiB while reading 64 MiB", grew>>20)
	}

	// The deadline.
	took, err := fetchWithin(t, client(wais.Fetcher{}, nil), url, 300*time.Millisecond)
	if fetch.KindOf(err) != fetch.ErrTimeout || took > 300*time.Millisecond+slack {
		t.Errorf("endless document with a deadline: %v after %v", err, took)
	}
	// With LENGTH, the chunks stop there.
	_, got, err := fetchAll(t, client(wais.Fetcher{}, nil), "wais://"+s.Addr()+strings.TrimPrefix(docURL(t, good, "apple.txt", true), "wais://"+good.Addr()))
	if err != nil || len(got) != 124 {
		t.Errorf("endless document with LENGTH 124: %d bytes, %v", len(got), err)
	}
}

// TestRequestsMatchCaptures: what the client sends is what waissearch and
// Lynx sent in the captures, for the same database, words and documents.
func TestRequestsMatchCaptures(t *testing.T) {
	msgs, err := capture.Load()
	if err != nil {
		t.Fatal(err)
	}
	ws := capture.Find(msgs, 1, true)
	s := waistest.Start(t, waistest.Config{DBs: []*waistest.DB{waistest.CaptureDB()}, Name: "vm:22100", DBDir: "/tmp/wais-build/db/", Pipelined: true})
	check := func(what string, want []byte, do func()) {
		t.Helper()
		before := len(s.Requests())
		do()
		reqs := s.Requests()[before:]
		// The first request on a connection is our Init; then the one
		// compared.
		if len(reqs) < 2 || !bytes.Equal(reqs[1], want) {
			var got []byte
			if len(reqs) > 1 {
				got = reqs[1]
			}
			t.Errorf("%s:\n got %x\nwant %x", what, got, want)
		}
	}
	// waissearch's chunks, one at a time and sent ahead.
	lockstep := client(wais.Fetcher{ChunkSize: wais.LockstepChunkSize}, nil)
	piped := client(wais.Fetcher{ChunkSize: wais.LockstepChunkSize, Window: 4}, nil)
	var hits []wais.Hit
	check("search apple (waissearch)", ws[1].Bytes, func() { hits = search(t, lockstep, s.URL("test?apple")) })
	check("search apple orchard (Lynx, 200 documents)", capture.Find(msgs, 2, true)[0].Bytes, func() {
		search(t, client(wais.Fetcher{}, fetch.Options{wais.OptMaxResults: "200"}), s.URL("test?apple+orchard"))
	})
	check("search on nosuchdb", capture.Find(msgs, 4, true)[0].Bytes, func() { lockstep.Open(ctx(t), s.URL("nosuchdb?apple")) })
	apple, _ := find(hits, "apple.txt")
	big, _ := find(hits, "big.txt")
	for _, c := range []*fetch.Client{lockstep, piped} {
		check("retrieval of apple.txt", ws[2].Bytes, func() { fetchAll(t, c, apple.URL) })
		check("first chunk of big.txt", ws[3].Bytes, func() { fetchAll(t, c, big.URL) })
	}
	// The URL Lynx wrote for apple.txt, on this server: the DocID's
	// fields as "N=value;" after the type and the length.
	const lynx = "/test/TEXT/124/1=vm%3A22100;2=/tmp/wais-build/db/test;3=0%20124%20/tmp/wais-build/data/apple.txt;4=vm%3A22100;5=/tmp/wais-build/db/test;6=0%20124%20/tmp/wais-build/data/apple.txt;7=%00;"
	check("Lynx's URL", capture.Find(msgs, 3, true)[0].Bytes, func() {
		_, got, err := fetchAll(t, lockstep, "wais://"+s.Addr()+lynx)
		if err != nil || string(got) != waistest.Apple {
			t.Errorf("Lynx's URL: %q, %v", got, err)
		}
	})
	if apple.URL != "wais://"+s.Addr()+lynx {
		t.Errorf("the result list's URL for apple.txt\n %s\nis not Lynx's\n %s", apple.URL, "wais://"+s.Addr()+lynx)
	}
}
