package download

import (
	"errors"
	"syscall"
)

// setXattr sets a user extended attribute on the file name (--xattr).
func setXattr(name, attr, value string) error {
	return syscall.Setxattr(name, attr, []byte(value), 0)
}

// getXattr reads an extended attribute of the file name.
func getXattr(name, attr string) (string, error) {
	buf := make([]byte, 4096)
	n, err := syscall.Getxattr(name, attr, buf)
	if err != nil {
		return "", err
	}
	if n > len(buf) {
		return "", errors.New("extended attribute too long")
	}
	return string(buf[:n]), nil
}

// removeXattr removes an extended attribute of the file name, if it has
// it.
func removeXattr(name, attr string) {
	syscall.Removexattr(name, attr)
}
