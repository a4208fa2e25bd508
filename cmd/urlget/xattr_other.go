//go:build !linux

package main

import "errors"

// setXattr: --xattr is written on Linux only.
func setXattr(name, attr, value string) error {
	return errors.New("extended attributes are not supported on this system")
}
