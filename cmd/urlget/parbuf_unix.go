//go:build unix

package main

import "syscall"

// newParBuf maps a copy buffer of its own for a -Z transfer, outside the
// garbage-collected heap (see parBufs); it is never unmapped.
func newParBuf() []byte {
	b, err := syscall.Mmap(-1, 0, parBufSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, parBufSize)
	}
	return b
}
