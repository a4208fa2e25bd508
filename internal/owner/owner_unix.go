//go:build unix

package owner

import (
	"io/fs"
	"os"
	"syscall"
)

// Others reports whether the file fi is not owned by this process's
// effective user and group: a new file renamed over it would change its
// owner, so it is written in place instead.
func Others(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid())
}
