package urlparse

import (
	"net/url"
	"runtime"
	"testing"
	"time"
)

// The benchmarks run over testdata/bench-urls.txt, a mixed corpus of every
// scheme, and report the cost per URL as well as per pass over the corpus.
// Run them together to compare with net/url in the same conditions:
//
//	go test -run '^$' -bench . -benchtime 2s ./urlparse/

// Sinks keep the compiler from dropping the calls. The benchmarks store
// one field of the returned value (a caller keeps a Ref or URL on its stack;
// copying the whole struct to the heap would measure write barriers).
var (
	sinkInt int
	sinkNet *url.URL
)

// perURL runs fn over the corpus b.N times and reports ns/URL and allocs/URL.
func perURL(b *testing.B, fn func(string) bool) {
	corpus := benchCorpus(b)
	for _, s := range corpus {
		if !fn(s) {
			b.Fatalf("%q does not parse", s)
		}
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range corpus {
			fn(s)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	n := float64(b.N) * float64(len(corpus))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/URL")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/URL")
}

func BenchmarkParse(b *testing.B) {
	perURL(b, func(s string) bool {
		u, err := Parse(s)
		sinkInt += u.Port
		return err == nil
	})
}

func BenchmarkParseRef(b *testing.B) {
	perURL(b, func(s string) bool {
		r, err := ParseRef(s)
		sinkInt += r.Port
		return err == nil
	})
}

func BenchmarkNetURLParse(b *testing.B) {
	perURL(b, func(s string) bool {
		u, err := url.Parse(s)
		sinkNet = u
		return err == nil
	})
}

// BenchmarkParseVsNetURL alternates Parse and net/url.Parse pass by pass
// over the corpus, so that both see the same machine load, and reports each
// one's ns/URL and their ratio (the target is at most 0.5).
func BenchmarkParseVsNetURL(b *testing.B) {
	corpus := benchCorpus(b)
	var ours, theirs time.Duration
	for b.Loop() {
		t0 := time.Now()
		for _, s := range corpus {
			u, _ := Parse(s)
			sinkInt += u.Port
		}
		t1 := time.Now()
		for _, s := range corpus {
			u, _ := url.Parse(s)
			sinkNet = u
		}
		ours += t1.Sub(t0)
		theirs += time.Since(t1)
	}
	n := float64(b.N) * float64(len(corpus))
	b.ReportMetric(float64(ours.Nanoseconds())/n, "ns/URL")
	b.ReportMetric(float64(theirs.Nanoseconds())/n, "net-url-ns/URL")
	b.ReportMetric(float64(ours)/float64(theirs), "ratio")
}

func BenchmarkResolve(b *testing.B) {
	base, err := ParseAbsolute(resolutionBase)
	if err != nil {
		b.Fatal(err)
	}
	refs := make([]Ref, len(rfc3986Examples))
	for i, e := range rfc3986Examples {
		if refs[i], err = ParseRef(e.ref); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range refs {
			t := base.Resolve(&refs[i])
			sinkInt += len(t.RawPath)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(refs)), "ns/ref")
}

func BenchmarkNetURLResolve(b *testing.B) {
	base, err := url.Parse(resolutionBase)
	if err != nil {
		b.Fatal(err)
	}
	refs := make([]*url.URL, len(rfc3986Examples))
	for i, e := range rfc3986Examples {
		if refs[i], err = url.Parse(e.ref); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range refs {
			sinkNet = base.ResolveReference(r)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(refs)), "ns/ref")
}

func BenchmarkNormalize(b *testing.B) {
	corpus := benchCorpus(b)
	refs := make([]Ref, len(corpus))
	for i, s := range corpus {
		var err error
		if refs[i], err = ParseRef(s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range refs {
			n := refs[i].Normalize()
			sinkInt += len(n.RawPath)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(refs)), "ns/URL")
}

// TestParseCorpusAllocs holds Parse to its allocation budget over the benchmark
// corpus: at most one allocation per URL on average. It logs the URLs that
// allocate most.
func TestParseCorpusAllocs(t *testing.T) {
	corpus := benchCorpus(t)
	total, max := 0.0, 0.0
	var worst []string
	for _, s := range corpus {
		n := testing.AllocsPerRun(20, func() {
			u, err := Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			sinkInt += u.Port
		})
		total += n
		switch {
		case n > max:
			max, worst = n, []string{s}
		case n == max:
			worst = append(worst, s)
		}
	}
	avg := total / float64(len(corpus))
	t.Logf("Parse over %d URLs: %.3f allocations per URL on average, at most %v (%d URLs: %q)", len(corpus), avg, max, len(worst), worst)
	if avg > 1 {
		t.Errorf("Parse: %.3f allocations per URL on average, want at most 1", avg)
	}
	if n := testing.AllocsPerRun(20, func() { r, _ := ParseRef(corpus[0]); sinkInt += r.Port }); n != 0 {
		t.Errorf("ParseRef(%q): %v allocations, want 0", corpus[0], n)
	}
}
