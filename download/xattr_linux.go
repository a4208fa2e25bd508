package download

import "syscall"

// setXattr sets a user extended attribute on the file name (--xattr).
func setXattr(name, attr, value string) error {
	return syscall.Setxattr(name, attr, []byte(value), 0)
}
