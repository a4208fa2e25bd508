//go:build !linux

package download

import "errors"

// setXattr: --xattr is written on Linux only.
func setXattr(name, attr, value string) error {
	return errors.New("extended attributes are not supported on this system")
}
