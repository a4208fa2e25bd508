package mirror

import (
	"fmt"

	"github.com/urlget/urlget/fetch"
	"path"
	"sort"
	"strings"
)

// finishDeletes deals with what the manifest holds but the server no longer
// has. An item is gone when it was not found this run although the
// directory or menu it was found in last time was read completely this run
// (or is gone itself). With Delete its local copy is removed (only files
// the manifest records: never anything else in DIR), at most DeleteLimit of
// them; without it, it is kept and recorded as gone.
//
// It reads the manifest in passes, never holding it: the directories and
// menus that are gone first (a pass finds those whose parent is listed or
// gone; another pass runs while that set grows, which for FTP and HTTP,
// where a directory sorts before what is in it, is once), then what is
// gone, then, when something is to be deleted, which of its paths and
// directories other records still use. Memory goes with what is gone, not
// with the tree.
func (e *engine) finishDeletes() {
	e.mu.Lock()
	listed, capHit := e.listedOK, e.capHit
	e.mu.Unlock()
	if err := e.man.flush(); err != nil {
		e.man.fail(err)
		return
	}
	seen, err := e.seen.sorted(e.man)
	if err != nil {
		e.markIncomplete("nothing deleted or marked gone: " + fetch.OneLine(err.Error()))
		return
	}
	defer seen.close()
	goneParents := map[string]bool{} // gone directories and menus
	// isGone is asked in the manifest's order (c reads the seen URLs in
	// it).
	isGone := func(c *seenCursor, r Record) bool {
		return r.URL != e.rootURL && r.Parent != "" && (listed[r.Parent] || goneParents[r.Parent]) && !c.has(keyOf(r.URL))
	}
	// mayBeGone passes over, unparsed, the lines of records found this run
	// or whose parent was neither listed nor is gone.
	mayBeGone := func(c *seenCursor) func(line []byte) bool {
		return func(line []byte) bool {
			if u := lineURL(line); u != "" && c.has(keyOf(u)) {
				return false
			}
			p, ok := lineField(line, "parent")
			return !ok || listed[string(p)] || goneParents[string(p)]
		}
	}
	var gone, goneDirs []Record
	for {
		grew := false
		gone, goneDirs = nil, nil
		c := newSeenCursor(seen)
		err := e.man.eachIf(false, mayBeGone(c), func(r Record) bool {
			if !isGone(c, r) {
				return true
			}
			if (r.Type == TypeDir || r.Type == TypeMenu) && !goneParents[r.URL] {
				goneParents[r.URL], grew = true, true
			}
			if r.Type == TypeDir {
				goneDirs = append(goneDirs, r)
			} else {
				gone = append(gone, r)
			}
			return true
		})
		if err != nil {
			e.man.fail(err)
			return
		}
		if !grew {
			break
		}
	}
	// The paths still in use, of those that matter: the gone files' and
	// the directories that deleting would empty.
	live := map[string]bool{}
	liveDirs := map[string]bool{"": true}
	if e.opt.Delete && len(gone)+len(goneDirs) > 0 {
		for _, r := range gone {
			live[r.Path] = false
			for d := path.Dir(r.Path); d != "." && d != ""; d = path.Dir(d) {
				liveDirs[d] = false
			}
		}
		for _, r := range goneDirs {
			liveDirs[r.Path] = false
		}
		// Only the records whose paths matter are parsed.
		matters := func(line []byte) bool {
			p, ok := lineField(line, "path")
			if !ok {
				return true
			}
			for d := string(p); d != "." && d != ""; d = path.Dir(d) {
				if _, ok := live[d]; ok {
					return true
				}
				if _, ok := liveDirs[d]; ok {
					return true
				}
			}
			return false
		}
		c := newSeenCursor(seen)
		err := e.man.eachIf(false, matters, func(r Record) bool {
			if r.Path == "" || r.Status != StatusOK || isGone(c, r) {
				return true
			}
			if _, ok := live[r.Path]; ok {
				live[r.Path] = true
			}
			d := r.Path
			if r.Type != TypeDir {
				d = path.Dir(d)
			}
			for ; d != "." && d != ""; d = path.Dir(d) {
				if v, ok := liveDirs[d]; ok && !v {
					liveDirs[d] = true
				}
			}
			return true
		})
		if err != nil {
			e.man.fail(err)
			return
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].Path < gone[j].Path })
	var files []Record
	for _, r := range gone {
		if r.Path != "" && (r.Type == TypeFile || r.Type == TypeMenu || r.Type == TypeSymlink && r.Status == StatusOK) {
			files = append(files, r)
			continue
		}
		// Nothing local: forget it.
		if !e.opt.DryRun {
			e.man.put(Record{URL: r.URL, Status: StatusDeleted, Type: r.Type})
		}
	}
	keep := func(reason string) {
		for _, r := range files {
			e.nGone.Add(1)
			if r.Status != StatusGone && !e.opt.DryRun {
				r.Status = StatusGone
				e.man.put(r)
			}
			e.emit(Event{Kind: EventGone, URL: r.URL, Path: r.Path, Size: r.Size})
		}
		if reason != "" && len(files) > 0 {
			e.markIncomplete(reason)
		}
	}
	switch {
	case !e.opt.Delete:
		keep("")
		return
	case capHit && len(files) > 0:
		keep("no files deleted: a limit stopped the run before the whole tree was read")
		return
	case e.opt.DeleteLimit < 0 && len(files) > 0,
		e.opt.DeleteLimit > 0 && len(files) > e.opt.DeleteLimit:
		keep(fmt.Sprintf("%d files are gone from the server, more than mirror.Options.DeleteLimit %d allows: none deleted",
			len(files), max(e.opt.DeleteLimit, 0)))
		return
	}
	emptied := map[string]bool{}
	for _, r := range files {
		if e.opt.DryRun {
			e.nDeleted.Add(1)
			e.emit(Event{Kind: EventWouldDel, URL: r.URL, Path: r.Path, Size: r.Size})
			continue
		}
		if !live[r.Path] {
			if err := e.fs.removeFile(r.Path); err != nil {
				e.fail(r, fmt.Errorf("deleting %s: %w", r.Path, err))
				continue
			}
			if r.Type == TypeMenu {
				e.fs.removeFile(path.Join(path.Dir(r.Path), rewrittenMenu))
			}
		}
		e.man.put(Record{URL: r.URL, Status: StatusDeleted, Type: r.Type})
		e.nDeleted.Add(1)
		e.emit(Event{Kind: EventDeleted, URL: r.URL, Path: r.Path, Size: r.Size})
		for d := path.Dir(r.Path); d != "." && d != ""; d = path.Dir(d) {
			emptied[d] = true
		}
	}
	for _, r := range goneDirs {
		if e.opt.DryRun {
			continue
		}
		e.man.put(Record{URL: r.URL, Status: StatusDeleted, Type: r.Type})
		if r.Path != "" {
			emptied[r.Path] = true
		}
	}
	if e.opt.DryRun {
		return
	}
	var dirs []string
	for d := range emptied {
		if !liveDirs[d] {
			dirs = append(dirs, d)
		}
	}
	sort.Slice(dirs, func(i, j int) bool {
		ci, cj := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/")
		if ci != cj {
			return ci > cj
		}
		return dirs[i] > dirs[j]
	})
	for _, d := range dirs {
		e.fs.sweepTemp(d, nil)
		e.fs.removeEmptyDir(d) // fails, harmlessly, when something else is in it
		e.mu.Lock()
		delete(e.dirTimes, d)
		e.mu.Unlock()
	}
}
