package mirror

import (
	"fmt"
	"path"
	"strings"
)

// filter applies --include and --exclude. A pattern is a shell glob
// (path.Match: *, ?, [...]) matched against the item's base name when it
// has no "/", and against its whole path below the mirrored URL (no
// leading "/") when it has one. "**" is not special.
//
// Directories (FTP directories, gopher menus) are pruned when an exclude
// pattern matches them; include patterns apply to files only, so that
// directories are still walked to find the files they match. A file is
// mirrored when no exclude pattern matches it and, if there are include
// patterns, one of them does.
type filter struct {
	include, exclude []string
}

func newFilter(include, exclude []string) (*filter, error) {
	for _, p := range append(append([]string(nil), include...), exclude...) {
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("bad pattern %q: %v", p, err)
		}
	}
	return &filter{include: include, exclude: exclude}, nil
}

func match(pattern, rel string) bool {
	rel = strings.TrimPrefix(rel, "/")
	if !strings.Contains(pattern, "/") {
		rel = path.Base(rel)
	} else {
		pattern = strings.TrimPrefix(pattern, "/")
	}
	ok, _ := path.Match(pattern, rel)
	return ok
}

// file reports whether the file at rel (server names, "/"-separated) is
// mirrored.
func (f *filter) file(rel string) bool {
	for _, p := range f.exclude {
		if match(p, rel) {
			return false
		}
	}
	if len(f.include) == 0 {
		return true
	}
	for _, p := range f.include {
		if match(p, rel) {
			return true
		}
	}
	return false
}

// dir reports whether the directory at rel is walked.
func (f *filter) dir(rel string) bool {
	for _, p := range f.exclude {
		if match(p, rel) {
			return false
		}
	}
	return true
}
