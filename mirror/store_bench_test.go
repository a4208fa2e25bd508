package mirror

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/urlparse"
)

// BenchmarkMirrorState measures what a run keeps per file: a fake walk of
// an FTP tree (files/100 directories of 100 files each) that does to the
// engine's state what the FTP walker does for each listing and entry —
// the manifest's get and put, the path table's claims (and done), the
// seen and listed marks — then the end of a run (the delete sweep, compaction).
// The first run finds every file new, the rerun every file unchanged.
// Reported: the peak live heap (as marked by each GC, sampled every
// millisecond) above the heap before the run, in all and per file; it
// should not grow with the tree (compare files=50000 with files=200000).
func BenchmarkMirrorState(b *testing.B) {
	for _, files := range []int{50_000, 200_000} {
		for _, rerun := range []bool{false, true} {
			name := fmt.Sprintf("files=%d/first", files)
			if rerun {
				name = fmt.Sprintf("files=%d/rerun", files)
			}
			b.Run(name, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					dir := b.TempDir()
					if rerun {
						fakeRun(b, dir, files)
					}
					runtime.GC()
					base := heapLive()
					stop := samplePeak()
					b.StartTimer()
					fakeRun(b, dir, files)
					b.StopTimer()
					peak := stop() - base
					b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
					b.ReportMetric(float64(peak)/float64(files), "peak-B/file")
				}
			})
		}
	}
}

// heapLive is the heap's live objects as the last GC marked them, in
// bytes (garbage not yet collected left out: the figure a GC leaves).
func heapLive() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeak samples heapLive until the returned func is called, which
// returns the highest value seen.
func samplePeak() func() uint64 {
	var mu sync.Mutex
	peak := heapLive()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				v := heapLive()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return max(peak, heapLive())
	}
}

// fakeRun is one run of the fake walk into dir.
func fakeRun(b *testing.B, dir string, files int) {
	u, err := urlparse.Parse("ftp://127.0.0.1:1/pub/")
	if err != nil {
		b.Fatal(err)
	}
	e, err := newEngine(context.Background(), Options{URL: u.String(), Dir: dir}, &u)
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	dirs := max(files/100, 1)
	e.markListed(e.rootURL)
	for d := 0; d < dirs; d++ {
		dname := fmt.Sprintf("d%04d", d)
		durl := urlparse.FTPURL("127.0.0.1", 1, "", "", []string{"pub", dname}, "", 0)
		e.markSeen(durl)
		local := e.paths.claimDir(durl, []string{dname})
		e.markListed(durl)
		rec := Record{URL: durl, Type: TypeDir, Path: local, Parent: e.rootURL, Size: -1, Status: StatusOK}
		if _, ok := e.man.get(durl); !ok {
			e.man.put(rec)
		}
		for f := 0; f < files/dirs; f++ {
			name := fmt.Sprintf("f%06d.bin", f)
			furl := urlparse.FTPURL("127.0.0.1", 1, "", "", []string{"pub", dname}, name, 0)
			e.markSeen(furl)
			p := e.paths.claimFile(furl, []string{dname, name})
			if _, ok := e.man.get(furl); ok {
				e.nUnchanged.Add(1)
				continue
			}
			e.man.put(Record{URL: furl, Path: p, Type: TypeFile, Size: int64(f), Parent: durl,
				MTime: "2024-05-06T07:08:09Z", MTimeSource: "mlsd", Key: "size=1;modify=20240506070809",
				SHA256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", Status: StatusOK})
			e.nNew.Add(1)
		}
		e.paths.done(local) // as the FTP walker does after a listing
	}
	e.finishDeletes()
	if err := e.man.compact(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkGopherDocs measures what the gopher walk keeps per document to
// tell one linked before (gopherState.docs, a keySet): the peak live heap
// above the heap before, for each document key added and then asked
// again; it should not grow with the hole (compare docs=100000 with
// docs=1000000). The map of every key it replaced held about 200 bytes a
// document.
func BenchmarkGopherDocs(b *testing.B) {
	for _, docs := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("docs=%d", docs), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				m := &manifest{dryRun: true}
				runtime.GC()
				base := heapLive()
				stop := samplePeak()
				b.StartTimer()
				s := newKeySet(m)
				for d := 0; d < docs; d++ {
					if !s.add(docKey("gopher.example.org", 70, fmt.Sprintf("/pub/d%05d/f%06d.txt", d/100, d))) {
						b.Fatalf("document %d taken as seen", d)
					}
				}
				for d := 0; d < docs; d += 97 {
					if s.add(docKey("gopher.example.org", 70, fmt.Sprintf("/pub/d%05d/f%06d.txt", d/100, d))) {
						b.Fatalf("document %d taken as new again", d)
					}
				}
				b.StopTimer()
				peak := stop() - base
				s.close()
				b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
				b.ReportMetric(float64(peak)/float64(docs), "peak-B/doc")
			}
		})
	}
}
