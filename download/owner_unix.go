//go:build unix

package download

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// writable reports whether this process may write the file at path (its
// effective ids, as open(2) judges: root may write any), which is what
// curl's open of an output file needs.
func writable(path string) error {
	return unix.Faccessat(unix.AT_FDCWD, path, unix.W_OK, unix.AT_EACCESS)
}

// othersFile reports whether the file fi is not owned by this process's
// effective user and group: a new file renamed over it would change its
// owner, so it is written in place instead.
func othersFile(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid())
}
