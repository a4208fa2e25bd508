package mirror

import (
	"errors"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"
)

// exchange swaps the names a and b, two entries of one directory, in one
// step (renameat2 with RENAME_EXCHANGE); errNoExchange when the file
// system cannot.
func (l *localFS) exchange(a, b string) error {
	if path.Dir(a) != path.Dir(b) {
		return errNoExchange
	}
	d, err := l.root.OpenFile(osPath(dirOf(a)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	err = unix.Renameat2(int(d.Fd()), path.Base(a), int(d.Fd()), path.Base(b), unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return errNoExchange
	}
	return err
}
