package mirror

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/urlget/urlget/fetch"
	"github.com/urlget/urlget/internal/testserver"
)

func TestSummaryString(t *testing.T) {
	for _, tc := range []struct {
		name string
		sum  Summary
		want string
	}{
		{"mirror", Summary{URL: "ftp://h/pub/", Dir: "pub", New: 3, Changed: 1, Unchanged: 2, Dirs: 1, Bytes: 1536, Seconds: 1.23},
			"mirrored ftp://h/pub/ into pub: 3 new, 1 changed, 2 unchanged, 0 deleted, 0 failed; 1 directory; 1.5 KiB in 1.2 s"},
		{"deleted, gone, links", Summary{URL: "gopher://h/1", Dir: "d", Deleted: 2, Gone: 1, Failed: 1, Dirs: 3, Links: 1, Bytes: 5 << 20, Seconds: 0.04},
			"mirrored gopher://h/1 into d: 0 new, 0 changed, 0 unchanged, 2 deleted, 1 gone (kept), 1 failed; 3 directories, 1 link; 5.0 MiB in 0.0 s"},
		{"links", Summary{URL: "ftp://h/", Dir: "d", Links: 2, Seconds: 2},
			"mirrored ftp://h/ into d: 0 new, 0 changed, 0 unchanged, 0 deleted, 0 failed; 0 directories, 2 links; 0 B in 2.0 s"},
		{"dry run", Summary{URL: "http://h/x/", Dir: "x", New: 4, Deleted: 1, Dirs: 2, DryRun: true},
			"dry run (nothing written) of http://h/x/ into x: 4 new, 0 changed, 0 unchanged, would delete 1, 0 failed; 2 directories; 0 B in 0.0 s"},
		{"upload", Summary{URL: "ftp://h/up/", Dir: "src", New: 1, Unchanged: 2, Gone: 1, Dirs: 2, Bytes: 100, Seconds: 0.5, Reverse: true},
			"uploaded src to ftp://h/up/: 1 new, 0 changed, 2 unchanged, 0 deleted, 1 gone (kept), 0 failed; 2 directories; 100 B in 0.5 s"},
		{"upload dry run", Summary{URL: "ftp://h/up/", Dir: "src", New: 1, Deleted: 3, Dirs: 1, Reverse: true, DryRun: true},
			"dry run (nothing written) of src to ftp://h/up/: 1 new, 0 changed, 0 unchanged, would delete 3, 0 failed; 1 directory; 0 B in 0.0 s"},
	} {
		if got := tc.sum.String(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestEventLine(t *testing.T) {
	bad := errors.New("550 No such file\r\n  or directory")
	for _, tc := range []struct {
		ev      Event
		verbose bool
		want    string
	}{
		{Event{Kind: EventFailed, Path: "pub/a", Err: bad}, false, "failed    pub/a: 550 No such file or directory"},
		{Event{Kind: EventFailed, URL: "ftp://h/pub/a", Err: bad}, true, "failed    ftp://h/pub/a: 550 No such file or directory"},
		{Event{Kind: EventWouldGet, Path: "x", Err: errors.New("changed"), Why: "size 9, recorded 8"}, false, "would get x (changed)"},
		{Event{Kind: EventWouldGet, Path: "x", Err: errors.New("changed"), Why: "size 9, recorded 8"}, true, "would get x (changed): size 9, recorded 8"},
		{Event{Kind: EventWouldGet, Path: "x", Err: errors.New("new"), Why: "new"}, true, "would get x (new)"},
		{Event{Kind: EventWouldDel, Path: "old.txt"}, false, "would delete old.txt"},
		{Event{Kind: EventNew, Path: "pub/b"}, false, ""},
		{Event{Kind: EventNew, Path: "pub/b", Why: "new"}, true, "new       pub/b"},
		{Event{Kind: EventChanged, Path: "pub/same.txt", Why: "MDTM 2026-11-26T21:44:30Z, recorded 2026-11-26T21:44:10Z"}, true,
			"changed   pub/same.txt (MDTM 2026-11-26T21:44:30Z, recorded 2026-11-26T21:44:10Z)"},
		{Event{Kind: EventUnchanged, Path: "pub/other.txt", Why: "same size and MDTM as recorded"}, true, "unchanged pub/other.txt (same size and MDTM as recorded)"},
		{Event{Kind: EventDeleted, Path: "gone.txt"}, true, "deleted   gone.txt"},
		{Event{Kind: EventLinked, Path: "ln"}, true, "linked    ln"},
		{Event{Kind: EventRecorded, URL: "telnet://h/"}, true, "recorded  telnet://h/"},
		{Event{Kind: EventGone, Path: "left.txt"}, false, ""},
		{Event{Kind: EventGone, Path: "left.txt"}, true, "gone      left.txt (kept: no mirror.Options.Delete)"},
		{Event{Kind: EventSkipped, Path: "big.iso", Err: errors.New("excluded")}, false, ""},
		{Event{Kind: EventSkipped, Path: "big.iso", Err: errors.New("excluded")}, true, "skipped   big.iso: excluded"},
		{Event{Kind: EventSkipped, Err: errors.New("robots.txt:\n  disallows /x")}, true, "note      robots.txt: disallows /x"},
		{Event{Kind: EventDir, Path: "pub"}, true, ""},
	} {
		if got := tc.ev.Line(tc.verbose); got != tc.want {
			t.Errorf("%+v verbose=%v:\n got %q\nwant %q", tc.ev, tc.verbose, got, tc.want)
		}
	}
}

func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		p    Progress
		want string
	}{
		{Progress{FilesDone: 3, FilesKnown: 10, Dirs: 2, Bytes: 3 << 20, Rate: 1 << 20, Elapsed: 3 * time.Second, ToFetch: 8 << 20, Fetched: 2 << 20},
			"3/10 files, 2.0 MiB of 8.0 MiB (25%), 1.0 MiB/s, ETA 6s, 2 dirs"},
		{Progress{FilesDone: 1, FilesKnown: 4, Dirs: 1, Bytes: 2048, Rate: 512, Current: []string{"pub/a", "pub/b"}},
			"1/4 files, 1 dirs, 2.0 KiB, 512 B/s  pub/a pub/b"},
		// No rate yet: no ETA; more arrived than listed: at most 100%.
		{Progress{FilesKnown: 1, ToFetch: 100, Fetched: 0}, "0/1 files, 0 B of 100 B (0%), 0 B/s, 0 dirs"},
		{Progress{FilesDone: 1, FilesKnown: 1, ToFetch: 100, Fetched: 150, Rate: 10}, "1/1 files, 150 B of 100 B (100%), 10 B/s, 0 dirs"},
		{Progress{ToFetch: 3 << 30, Fetched: 1 << 30, Rate: 1 << 20, Current: []string{"big.iso"}},
			"0/0 files, 1.0 GiB of 3.0 GiB (33%), 1.0 MiB/s, ETA 34m8s, 0 dirs  big.iso"},
	} {
		if got := tc.p.Line(); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.p, got, tc.want)
		}
	}
}

// The URL's own failure (its directory or menu cannot be read) is the
// error Run returns, not an Event too: a program that prints the Events
// and the error says it once. When the run ends with another error, it
// is an Event.
func TestRootFailureOnce(t *testing.T) {
	closed := testserver.FreeAddr(t) // nothing listens there
	for _, url := range []string{"ftp://" + closed + "/pub/", "http://" + closed + "/", "gopher://" + closed + "/1"} {
		var mu sync.Mutex
		var failed []Event
		_, err := Run(context.Background(), Options{URL: url, Dir: t.TempDir(), Retries: -1, Event: func(ev Event) {
			mu.Lock()
			defer mu.Unlock()
			if ev.Kind == EventFailed {
				failed = append(failed, ev)
			}
		}})
		if fetch.KindOf(err) != fetch.ErrConnect || len(failed) != 0 {
			t.Errorf("%s: %v; failure events %v", url, err, failed)
		}
	}

	cause := errors.New("550 No such directory")
	var got []Event
	e := &engine{opt: Options{Event: func(ev Event) { got = append(got, ev) }}}
	e.rootFailed = &Event{Kind: EventFailed, URL: "ftp://h/pub/", Err: cause}
	e.end(Summary{}, fmt.Errorf("listing: %w", cause))
	if len(got) != 0 {
		t.Errorf("the run's error is the failure: reported as %v too", got)
	}
	e.end(Summary{}, errors.New("mirror interrupted"))
	if len(got) != 1 || got[0].Err != cause {
		t.Errorf("another error ends the run: events %v", got)
	}
}
