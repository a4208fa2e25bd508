package urlparse

import "unsafe"

// bytesString views b as a string without copying. Callers guarantee that b
// is never written again (the decoder only appends past it).
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
