package mirror

import (
	"fmt"
	"strings"
	"time"

	"github.com/urlget/urlget/fetch"
)

// The lines a run is reported in, for people: the ones urlget mirror
// prints (after "urlget: "), so that a Go program running Run can print
// the same. They are not sanitized: names and messages from a server may
// hold control bytes, so pass a line through fetch.Sanitize before it
// reaches a terminal.

// String is the summary line of a run that went through: what was
// mirrored where (uploaded, with Reverse; "dry run (nothing written) of",
// with DryRun), the counts, the bytes and the time:
//
//	mirrored ftp://h/pub/ into pub: 3 new, 0 changed, 1 unchanged, 0 deleted, 0 failed; 2 directories; 1.5 KiB in 0.2 s
func (s Summary) String() string {
	verb, from, to := "mirrored", s.URL, " into "+s.Dir
	if s.Reverse {
		verb, from, to = "uploaded", s.Dir, " to "+s.URL
	}
	deleted := fmt.Sprintf("%d deleted", s.Deleted)
	if s.DryRun {
		verb = "dry run (nothing written) of"
		deleted = fmt.Sprintf("would delete %d", s.Deleted)
	}
	if s.Gone > 0 {
		deleted += fmt.Sprintf(", %d gone (kept)", s.Gone)
	}
	dirs := fmt.Sprintf("%d %s", s.Dirs, plural(s.Dirs, "directory", "directories"))
	if s.Links > 0 {
		dirs += fmt.Sprintf(", %d %s", s.Links, plural(s.Links, "link", "links"))
	}
	return fmt.Sprintf("%s %s%s: %d new, %d changed, %d unchanged, %s, %d failed; %s; %s in %.1f s",
		verb, from, to, s.New, s.Changed, s.Unchanged, deleted, s.Failed, dirs, fetch.SizeString(s.Bytes), s.Seconds)
}

// Line is the event's line: the item (its local path, else its URL) after
// a word saying what happened, "failed    pub/a: why" or "new       pub/b
// (why)". Failures, would-fetch and would-delete (DryRun) always have a
// line; the other kinds only when verbose (and directories never): ""
// then. With verbose a would-fetch line also says why.
func (ev Event) Line(verbose bool) string {
	what := ev.URL
	if ev.Path != "" {
		what = ev.Path
	}
	var err string
	if ev.Err != nil {
		err = ev.Err.Error()
	}
	switch ev.Kind {
	case EventFailed:
		return fmt.Sprintf("failed    %s: %s", what, fetch.OneLine(err))
	case EventWouldGet:
		line := fmt.Sprintf("would get %s (%s)", what, err)
		if verbose && ev.Why != "" && ev.Why != err {
			line += ": " + ev.Why
		}
		return line
	case EventWouldDel:
		return "would delete " + what
	}
	if !verbose {
		return ""
	}
	switch ev.Kind {
	case EventNew, EventChanged, EventDeleted, EventUnchanged, EventLinked, EventRecorded:
		line := fmt.Sprintf("%-9s %s", ev.Kind, what)
		if ev.Why != "" && ev.Why != string(ev.Kind) {
			line += " (" + ev.Why + ")"
		}
		return line
	case EventGone:
		return fmt.Sprintf("gone      %s (kept: no mirror.Options.Delete)", what)
	case EventSkipped:
		if what == "" {
			return "note      " + fetch.OneLine(err)
		}
		return fmt.Sprintf("skipped   %s: %s", what, fetch.OneLine(err))
	}
	return ""
}

// Line is the progress line: files done of those found, bytes, rate, and
// what is being transferred; with sizes known (ToFetch), how much of them
// arrived, the percentage and the time left:
//
//	3/10 files, 1.5 MiB of 4.0 MiB (37%), 512.0 KiB/s, ETA 5s, 2 dirs  pub/a pub/b
//
// It is not cut to a terminal's width.
func (p Progress) Line() string {
	rate := fetch.SizeString(int64(p.Rate))
	line := fmt.Sprintf("%d/%d files, %d dirs, %s, %s/s", p.FilesDone, p.FilesKnown, p.Dirs, fetch.SizeString(p.Bytes), rate)
	if p.ToFetch > 0 {
		line = fmt.Sprintf("%d/%d files, %s of %s (%d%%), %s/s%s, %d dirs", p.FilesDone, p.FilesKnown,
			fetch.SizeString(p.Fetched), fetch.SizeString(p.ToFetch), percentOf(p.Fetched, p.ToFetch), rate,
			etaStr(p.ToFetch-p.Fetched, p.Rate), p.Dirs)
	}
	if len(p.Current) > 0 {
		line += "  " + strings.Join(p.Current, " ")
	}
	return line
}

// percentOf is done as a whole percentage of total (at most 100).
func percentOf(done, total int64) int64 {
	if total <= 0 {
		return 0
	}
	return min(100, done*100/total)
}

// etaStr is ", ETA …" for left bytes at rate bytes a second ("" when
// there is no rate yet).
func etaStr(left int64, rate float64) string {
	if rate <= 0 || left <= 0 {
		return ""
	}
	return ", ETA " + (time.Duration(float64(left)/rate) * time.Second).Round(time.Second).String()
}
