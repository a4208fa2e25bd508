package mirror

import "time"

// makeDir makes the local directory rel.
func (e *engine) makeDir(rel string) error { return e.fs.mkdirAll(rel) }

// displaced is called before a path is claimed for an item whose name
// other (the same name as a directory, or as a file) had in the manifest.
func (e *engine) displaced(other string, segs []string) {}

// commitOver commits tmp as rel.
func (e *engine) commitOver(tmp *tmpFile, rel string, mtime time.Time) error {
	return tmp.commit(rel, mtime)
}
