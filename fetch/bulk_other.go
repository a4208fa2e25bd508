//go:build !linux

package fetch

import "syscall"

const lowatWorks = false

func setLowat(syscall.RawConn, int) {}
