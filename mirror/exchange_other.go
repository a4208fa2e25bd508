//go:build !linux

package mirror

// exchange is not available: swapIn moves the old item aside first.
func (l *localFS) exchange(a, b string) error { return errNoExchange }
