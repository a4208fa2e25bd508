// Package fuzzcheck holds what the fuzz targets of urlget's parsers check
// beyond "no panic", so that every target checks it the same way: work
// bounded by the input (Bounded) and the invariants of a listing entry
// (Entry), and server text made safe before it is shown (Printable).
package fuzzcheck

import (
	"runtime"
	"testing"
	"unicode/utf8"

	"github.com/urlget/urlget/fetch"
)

// The allocation bound of Bounded: PerByte bytes for each byte of input,
// plus Slack for the fixed buffers a reader starts with (a bufio.Reader of
// 64 KiB, a Scanner's buffer). Generous on purpose: it is there to catch a
// parser whose work grows faster than its input (a value joined again for
// every folded line, a buffer per byte), not to measure one.
const (
	PerByte = 64
	Slack   = 512 << 10
)

// Bounded runs f, a parse of n bytes of input, once and fails t when it
// allocated more than PerByte*n + Slack bytes. The count is the process's
// (runtime.MemStats.TotalAlloc), so f runs alone: not in a parallel test.
// Under the race detector f only runs: its allocations are not f's alone.
func Bounded(t testing.TB, n int, f func()) {
	t.Helper()
	if raceEnabled {
		f()
		return
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(PerByte*n+Slack); got > limit {
		t.Errorf("%d bytes of input made %d bytes of allocations (limit %d)", n, got, limit)
	}
}

// Entry fails t when e breaks the contract of a fetch.Entry: an entry that
// parsed has a name and a size of -1 (unknown) or more; an unparsed one has
// only Raw (and Size -1).
func Entry(t testing.TB, e fetch.Entry) {
	t.Helper()
	switch {
	case e.Unparsed && (e.Name != "" || e.Size != -1 || e.Target != "" || e.URL != ""):
		t.Errorf("unparsed entry with fields set: %+v", e)
	case !e.Unparsed && e.Name == "":
		t.Errorf("entry without a name: %+v", e)
	case e.Size < -1:
		t.Errorf("entry with size %d: %+v", e.Size, e)
	}
}

// Printable fails t when s, text made of server bytes for a terminal or a
// log, holds what fetch.Sanitize takes out: a C0 control other than the LF
// that ends a line, DEL, a C1 control, or bytes that are not UTF-8.
func Printable(t testing.TB, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Errorf("%s is not UTF-8: %q", what, s)
		return
	}
	for i, r := range s {
		if r != '\n' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0) {
			t.Errorf("%s holds %q at byte %d: %q", what, r, i, s)
			return
		}
	}
}

// Seeds adds each string to f's seed corpus, as the []byte input of a
// target that reads server bytes.
func Seeds(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}
