//go:build !unix

package main

// newParBuf is a copy buffer for a -Z transfer (see parBufs).
func newParBuf() []byte { return make([]byte, parBufSize) }
