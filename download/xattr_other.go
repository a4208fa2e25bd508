//go:build !linux

package download

import "errors"

var errNoXattr = errors.New("extended attributes are not supported on this system")

// setXattr: --xattr is written on Linux only.
func setXattr(name, attr, value string) error { return errNoXattr }

// getXattr: no attribute is ever found.
func getXattr(name, attr string) (string, error) { return "", errNoXattr }

func removeXattr(name, attr string) {}
