package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/urlget/urlget/internal/cli"
	"github.com/urlget/urlget/mirror"
)

// The progress line has the total the listings give, the percentage and
// an ETA (issue 25); -v says why each file was or was not fetched.
func TestMirrorProgressAndReasons(t *testing.T) {
	var buf bytes.Buffer
	c := &mirrorCmd{o: &mirrorOpts{verbose: true}, out: &cli.StatusLine{W: &buf, Width: func() int { return 200 }}}
	c.progress(mirror.Progress{FilesDone: 3, FilesKnown: 10, Dirs: 2, Bytes: 3 << 20, Rate: 1 << 20,
		Elapsed: 3 * time.Second, ToFetch: 8 << 20, Fetched: 2 << 20})
	line := buf.String()
	for _, want := range []string{"3/10 files", "2.0 MiB of 8.0 MiB (25%)", "1.0 MiB/s", "ETA 6s", "2 dirs"} {
		if !strings.Contains(line, want) {
			t.Errorf("progress line %q lacks %q", line, want)
		}
	}
	buf.Reset()
	c.event(mirror.Event{Kind: mirror.EventChanged, Path: "pub/same.txt", Why: "MDTM 2026-11-26T21:44:30Z, recorded 2026-11-26T21:44:10Z"})
	c.event(mirror.Event{Kind: mirror.EventUnchanged, Path: "pub/other.txt", Why: "same size and MDTM as recorded"})
	c.event(mirror.Event{Kind: mirror.EventRecorded, Path: "out-abs", Why: "the link's target is absolute: not made (it would point outside the mirror)"})
	c.event(mirror.Event{Kind: mirror.EventWouldGet, Path: "x", Err: errors.New("changed"), Why: "size 9, recorded 8"})
	got := buf.String()
	for _, want := range []string{
		"urlget: changed   pub/same.txt (MDTM 2026-11-26T21:44:30Z, recorded 2026-11-26T21:44:10Z)\n",
		"urlget: unchanged pub/other.txt (same size and MDTM as recorded)\n",
		"urlget: recorded  out-abs (the link's target is absolute",
		"urlget: would get x (changed): size 9, recorded 8\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("-v output %q lacks %q", got, want)
		}
	}
}
